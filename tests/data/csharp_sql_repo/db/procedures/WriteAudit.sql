CREATE PROCEDURE dbo.WriteAudit
    @Action NVARCHAR(50),
    @EntityId INT,
    @Reason NVARCHAR(400)
AS
BEGIN
    SET NOCOUNT ON;
    INSERT INTO dbo.AuditLog (Action, EntityId, Reason) VALUES (@Action, @EntityId, @Reason);
END
GO
