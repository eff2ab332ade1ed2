CREATE TABLE [Sales].[OrderLines] (
    [OrderId]   INT             NOT NULL,
    [LineNo]    SMALLINT        NOT NULL,
    [ProductId] INT             NOT NULL,
    [Quantity]  INT             NOT NULL,
    [UnitPrice] DECIMAL (18, 2) NOT NULL,
    CONSTRAINT [PK_OrderLines] PRIMARY KEY CLUSTERED ([OrderId] ASC, [LineNo] ASC),
    CONSTRAINT [FK_OrderLines_Orders] FOREIGN KEY ([OrderId]) REFERENCES [Sales].[Orders] ([Id]) ON DELETE CASCADE
);
GO

ALTER TABLE [Sales].[OrderLines]
    ADD CONSTRAINT [FK_OrderLines_Products] FOREIGN KEY ([ProductId]) REFERENCES [Sales].[Products] ([Id]);
GO
