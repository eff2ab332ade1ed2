CREATE PROCEDURE [Sales].[Order_Cancel]
    @OrderId INT,
    @Reason  NVARCHAR (400)
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;

    -- What the caller must refund; returned to the client, not stored.
    DECLARE @Refunds TABLE ([PaymentId] INT NOT NULL, [Amount] DECIMAL (18, 2) NOT NULL);
    DECLARE @rc INT;

    BEGIN TRANSACTION;

    UPDATE o
    SET o.[Status] = 9,
        o.[CancelledAt] = SYSUTCDATETIME(),
        o.[CancelReason] = @Reason
    FROM [Sales].[Orders] AS o
    WHERE o.[Id] = @OrderId
      AND o.[Status] < 9;

    INSERT INTO @Refunds ([PaymentId], [Amount])
    SELECT p.[Id], p.[Amount]
    FROM [Sales].[Payments] AS p
    WHERE p.[OrderId] = @OrderId
      AND p.[VoidedAt] IS NULL;

    EXEC @rc = [Sales].[Payment_Void] @OrderId = @OrderId;

    COMMIT TRANSACTION;

    SELECT r.[PaymentId], r.[Amount], @rc AS [Voided]
    FROM @Refunds AS r;
END
GO
