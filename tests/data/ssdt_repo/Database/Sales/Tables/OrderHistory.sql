CREATE TABLE [Sales].[OrderHistory] (
    [Id]        BIGINT        IDENTITY (1, 1) NOT NULL,
    [OrderId]   INT           NOT NULL,
    [OldStatus] TINYINT       NOT NULL,
    [NewStatus] TINYINT       NOT NULL,
    [ChangedAt] DATETIME2 (3) NOT NULL,
    CONSTRAINT [PK_OrderHistory] PRIMARY KEY CLUSTERED ([Id] ASC)
);
