CREATE PROCEDURE [Sales].[Payment_Void]
    @OrderId INT
AS
BEGIN
    SET NOCOUNT ON;

    UPDATE [Sales].[Payments]
    SET [VoidedAt] = SYSUTCDATETIME()
    WHERE [OrderId] = @OrderId
      AND [VoidedAt] IS NULL;

    RETURN @@ROWCOUNT;
END
GO
