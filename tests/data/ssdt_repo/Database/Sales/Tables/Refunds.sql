CREATE TABLE [Sales].[Refunds] (
    [Id]        INT             IDENTITY (1, 1) NOT NULL,
    [PaymentId] INT             NOT NULL CONSTRAINT [FK_Refunds_Payments] FOREIGN KEY REFERENCES [Sales].[Payments] ([Id]),
    [OrderId]   INT             NOT NULL,
    [Amount]    DECIMAL (18, 2) NOT NULL,
    [Reason]    NVARCHAR (400)  NULL,
    [CreatedAt] DATETIME2 (3)   NOT NULL,
    CONSTRAINT [PK_Refunds] PRIMARY KEY CLUSTERED ([Id] ASC)
);
