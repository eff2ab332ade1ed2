CREATE TABLE [Sales].[Products] (
    [Id]        INT            IDENTITY (1, 1) NOT NULL,
    [Sku]       VARCHAR (32)   NOT NULL,
    [Name]      NVARCHAR (200) NOT NULL,
    [ListPrice] DECIMAL (18, 2) NOT NULL,
    CONSTRAINT [PK_Products] PRIMARY KEY CLUSTERED ([Id] ASC)
);
