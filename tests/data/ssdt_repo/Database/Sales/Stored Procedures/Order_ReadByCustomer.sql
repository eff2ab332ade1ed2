CREATE PROCEDURE [Sales].[Order_ReadByCustomer]
    @CustomerId INT
AS
BEGIN
    SET NOCOUNT ON;

    SELECT o.[Id], o.[OrderNumber], o.[Status], o.[PlacedAt], s.[LineCount], s.[Total]
    FROM [Sales].[Orders] AS o
    INNER JOIN [Sales].[Customers] AS c ON c.[Id] = o.[CustomerId]
    CROSS APPLY [dbo].[tvf_OrderSummary](o.[Id]) AS s
    WHERE c.[Id] = @CustomerId
    ORDER BY o.[PlacedAt] DESC;
END
GO
