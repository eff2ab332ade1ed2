CREATE PROCEDURE [Sales].[Order_Import]
    @CustomerId INT,
    @Lines      [dbo].[OrderLineList] READONLY
AS
BEGIN
    SET NOCOUNT ON;

    DECLARE @OrderId INT;

    INSERT INTO [Sales].[Orders] ([CustomerId], [PlacedAt])
    VALUES (@CustomerId, SYSUTCDATETIME());

    SET @OrderId = SCOPE_IDENTITY();

    MERGE [Sales].[OrderLines] AS t
    USING (SELECT ROW_NUMBER() OVER (ORDER BY l.[ProductId]) AS [LineNo], l.[ProductId], l.[Quantity], l.[UnitPrice]
           FROM @Lines AS l) AS s
        ON t.[OrderId] = @OrderId AND t.[LineNo] = s.[LineNo]
    WHEN MATCHED THEN
        UPDATE SET t.[Quantity] = s.[Quantity], t.[UnitPrice] = s.[UnitPrice]
    WHEN NOT MATCHED BY TARGET THEN
        INSERT ([OrderId], [LineNo], [ProductId], [Quantity], [UnitPrice])
        VALUES (@OrderId, s.[LineNo], s.[ProductId], s.[Quantity], s.[UnitPrice]);

    SELECT @OrderId AS [OrderId];
END
GO
