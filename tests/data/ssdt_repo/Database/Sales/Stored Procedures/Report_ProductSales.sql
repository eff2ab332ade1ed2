CREATE PROCEDURE [Sales].[Report_ProductSales]
AS
BEGIN
    SET NOCOUNT ON;

    -- A scratch copy keyed like the real table; this procedure never touches [Sales].[Products].
    SELECT ol.[ProductId], SUM(ol.[Quantity]) AS [Quantity], SUM(ol.[Quantity] * ol.[UnitPrice]) AS [Revenue]
    INTO #Products
    FROM [Sales].[OrderLines] AS ol
    GROUP BY ol.[ProductId];

    IF OBJECT_ID(N'[Sales].[ProductSalesSnapshot]', N'U') IS NOT NULL
        DROP TABLE [Sales].[ProductSalesSnapshot];

    SELECT p.[ProductId], CAST('' AS VARCHAR (32)) AS [Sku], p.[Quantity], p.[Revenue], SYSUTCDATETIME() AS [TakenAt]
    INTO [Sales].[ProductSalesSnapshot]
    FROM #Products AS p;

    SELECT * FROM #Products ORDER BY [Revenue] DESC;
END
GO
