-- Rebuilt by [Sales].[Report_ProductSales] with SELECT ... INTO; declared here so the project builds.
CREATE TABLE [Sales].[ProductSalesSnapshot] (
    [ProductId] INT             NOT NULL,
    [Sku]       VARCHAR (32)    NOT NULL,
    [Quantity]  INT             NOT NULL,
    [Revenue]   DECIMAL (18, 2) NOT NULL,
    [TakenAt]   DATETIME2 (3)   NOT NULL
);
