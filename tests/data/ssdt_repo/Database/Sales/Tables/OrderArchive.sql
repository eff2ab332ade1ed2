CREATE TABLE [Sales].[OrderArchive] (
    [OrderId]     INT             NOT NULL,
    [CustomerId]  INT             NOT NULL,
    [PlacedAt]    DATETIME2 (3)   NOT NULL,
    [Total]       DECIMAL (18, 2) NOT NULL,
    [ArchivedAt]  DATETIME2 (3)   NOT NULL,
    CONSTRAINT [PK_OrderArchive] PRIMARY KEY CLUSTERED ([OrderId] ASC)
) ON [PRIMARY];
