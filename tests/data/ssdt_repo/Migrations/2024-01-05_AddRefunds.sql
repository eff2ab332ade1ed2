-- 2024-01-05: refunds reference the order they belong to, and a procedure records one.

ALTER TABLE Sales.Orders ADD RefundedAmount DECIMAL (18, 2) NULL;
GO

ALTER TABLE [Sales].[Refunds] WITH CHECK
    ADD CONSTRAINT [FK_Refunds_Orders] FOREIGN KEY ([OrderId]) REFERENCES [Sales].[Orders] ([Id]);
GO

CREATE OR ALTER PROCEDURE [Sales].[Refund_Create]
    @PaymentId INT,
    @Amount    DECIMAL (18, 2),
    @Reason    NVARCHAR (400) = NULL
AS
BEGIN
    SET NOCOUNT ON;

    DECLARE @OrderId INT = (SELECT p.[OrderId] FROM [Sales].[Payments] AS p WHERE p.[Id] = @PaymentId);

    INSERT INTO [Sales].[Refunds] ([PaymentId], [OrderId], [Amount], [Reason], [CreatedAt])
    VALUES (@PaymentId, @OrderId, @Amount, @Reason, SYSUTCDATETIME());

    UPDATE Sales.Orders
    SET RefundedAmount = ISNULL(RefundedAmount, 0) + @Amount
    WHERE Id = @OrderId;

    SELECT CAST(SCOPE_IDENTITY() AS INT) AS [RefundId];
END
GO
