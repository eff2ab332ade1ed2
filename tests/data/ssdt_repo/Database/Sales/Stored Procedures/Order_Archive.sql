CREATE PROCEDURE [Sales].[Order_Archive]
    @OlderThanDays INT = 365
AS
BEGIN
    SET NOCOUNT ON;

    CREATE TABLE #ToArchive ([OrderId] INT NOT NULL PRIMARY KEY);

    INSERT INTO #ToArchive ([OrderId])
    SELECT o.[Id]
    FROM [Sales].[Orders] AS o
    WHERE o.[PlacedAt] < DATEADD(DAY, -@OlderThanDays, SYSUTCDATETIME());

    TRUNCATE TABLE [Sales].[OrderArchive];

    INSERT INTO [Sales].[OrderArchive] ([OrderId], [CustomerId], [PlacedAt], [Total], [ArchivedAt])
    SELECT o.[Id], o.[CustomerId], o.[PlacedAt], [dbo].[fn_OrderTotal](o.[Id]), SYSUTCDATETIME()
    FROM [Sales].[Orders] AS o
    INNER JOIN #ToArchive AS a ON a.[OrderId] = o.[Id];

    DELETE ol
    FROM [Sales].[OrderLines] AS ol
    INNER JOIN #ToArchive AS a ON a.[OrderId] = ol.[OrderId];

    DROP TABLE #ToArchive;
END
GO
