CREATE TRIGGER dbo.trg_Meetings_Audit ON dbo.Meetings
AFTER DELETE
AS
BEGIN
    DELETE FROM dbo.Attendees WHERE MeetingId IN (SELECT Id FROM deleted);
END
GO
