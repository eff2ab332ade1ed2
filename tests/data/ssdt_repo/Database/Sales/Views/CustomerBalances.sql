CREATE VIEW [Sales].[CustomerBalances]
AS
SELECT c.[Id]        AS [CustomerId],
       c.[Name],
       SUM(oo.[Due]) AS [Balance],
       (SELECT SUM(r.[Amount]) FROM [Sales].[Refunds] AS r
        INNER JOIN [Sales].[Orders] AS ro ON ro.[Id] = r.[OrderId]
        WHERE ro.[CustomerId] = c.[Id]) AS [Refunded]
FROM [Sales].[Customers] AS c
LEFT JOIN [Sales].[OpenOrders] AS oo ON oo.[CustomerId] = c.[Id]
GROUP BY c.[Id], c.[Name];
GO
