CREATE OR ALTER PROCEDURE dbo.CancelMeeting
    @MeetingId INT,
    @Reason NVARCHAR(400)
AS
BEGIN
    SET NOCOUNT ON;
    UPDATE dbo.Meetings SET Status = 1 WHERE Id = @MeetingId;
    EXEC dbo.WriteAudit @Action = 'cancel', @EntityId = @MeetingId, @Reason = @Reason;
END
GO
