-- Migration 001: attendees and room upsert
CREATE TABLE dbo.Attendees (
    Id INT NOT NULL PRIMARY KEY,
    MeetingId INT NOT NULL REFERENCES dbo.Meetings(Id),
    Email NVARCHAR(320) NOT NULL
);
GO

CREATE PROCEDURE dbo.UpsertRoom
    @Id INT,
    @Name NVARCHAR(100),
    @Capacity INT
AS
BEGIN
    MERGE INTO dbo.Rooms AS target
    USING (SELECT @Id AS Id, @Name AS Name, @Capacity AS Capacity) AS source
    ON target.Id = source.Id
    WHEN MATCHED THEN UPDATE SET Name = source.Name, Capacity = source.Capacity
    WHEN NOT MATCHED THEN INSERT (Id, Name, Capacity) VALUES (source.Id, source.Name, source.Capacity);
END
GO
