CREATE TABLE [Sales].[Orders] (
    [Id]          INT           IDENTITY (1, 1) NOT NULL,
    [OrderNumber] BIGINT        CONSTRAINT [DF_Orders_OrderNumber] DEFAULT (NEXT VALUE FOR [Sales].[OrderNumbers]) NOT NULL,
    [CustomerId]  INT           NOT NULL CONSTRAINT [FK_Orders_Customers] REFERENCES [Sales].[Customers] ([Id]),
    [Status]      TINYINT       CONSTRAINT [DF_Orders_Status] DEFAULT ((0)) NOT NULL,
    [PlacedAt]    DATETIME2 (3) NOT NULL,
    [CancelledAt] DATETIME2 (3) NULL,
    [CancelReason] NVARCHAR (400) NULL,
    CONSTRAINT [PK_Orders] PRIMARY KEY CLUSTERED ([Id] ASC)
);
GO

CREATE NONCLUSTERED INDEX [IX_Orders_CustomerId]
    ON [Sales].[Orders]([CustomerId] ASC)
    INCLUDE([Status], [PlacedAt]);
GO

CREATE TRIGGER [Sales].[trg_Orders_History]
    ON [Sales].[Orders]
    AFTER UPDATE
AS
BEGIN
    SET NOCOUNT ON;

    IF NOT UPDATE([Status])
        RETURN;

    INSERT INTO [Sales].[OrderHistory] ([OrderId], [OldStatus], [NewStatus], [ChangedAt])
    SELECT d.[Id], d.[Status], i.[Status], SYSUTCDATETIME()
    FROM inserted AS i
    INNER JOIN deleted AS d ON d.[Id] = i.[Id]
    WHERE i.[Status] <> d.[Status];
END
GO
