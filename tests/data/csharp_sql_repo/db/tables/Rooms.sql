-- Meeting rooms
CREATE TABLE dbo.Rooms (
    Id INT NOT NULL PRIMARY KEY,
    Name NVARCHAR(100) NOT NULL,
    Capacity INT NOT NULL
);
