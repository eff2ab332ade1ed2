CREATE PROCEDURE dbo.GetRoomUsage
    @RoomId INT
AS
BEGIN
    SELECT COUNT(*) AS Upcoming, dbo.fn_RoomCapacity(@RoomId) AS Capacity
    FROM dbo.UpcomingMeetings
    WHERE RoomId = @RoomId;
END
GO
