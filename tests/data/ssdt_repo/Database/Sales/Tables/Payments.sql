CREATE TABLE [Sales].[Payments] (
    [Id]       INT             IDENTITY (1, 1) NOT NULL,
    [OrderId]  INT             NOT NULL,
    [Amount]   DECIMAL (18, 2) NOT NULL,
    [PaidAt]   DATETIME2 (3)   NOT NULL,
    [VoidedAt] DATETIME2 (3)   NULL,
    CONSTRAINT [PK_Payments] PRIMARY KEY CLUSTERED ([Id] ASC),
    CONSTRAINT [FK_Payments_Orders] FOREIGN KEY ([OrderId]) REFERENCES [Sales].[Orders] ([Id])
);
