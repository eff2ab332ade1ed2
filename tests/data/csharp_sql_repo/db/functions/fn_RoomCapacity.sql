CREATE FUNCTION dbo.fn_RoomCapacity (@RoomId INT)
RETURNS INT
AS
BEGIN
    DECLARE @Capacity INT;
    SELECT @Capacity = Capacity FROM dbo.Rooms WHERE Id = @RoomId;
    RETURN @Capacity;
END
GO
