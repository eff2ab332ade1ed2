CREATE VIEW dbo.UpcomingMeetings AS
SELECT m.Id, m.Title, m.RoomId, r.Name AS RoomName, m.StartsAt
FROM dbo.Meetings m
JOIN dbo.Rooms r ON r.Id = m.RoomId
WHERE m.Status = 0;
