CREATE PROCEDURE [Sales].[Order_ReadById]
    @Id INT
AS
BEGIN
    SET NOCOUNT ON;

    SELECT o.[Id], o.[OrderNumber], o.[CustomerId], o.[Status], o.[PlacedAt],
           [dbo].[fn_OrderTotal](o.[Id]) AS [Total]
    FROM [Sales].[Orders] AS o
    WHERE o.[Id] = @Id;
END
GO
