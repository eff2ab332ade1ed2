CREATE VIEW [Sales].[OpenOrders]
AS
WITH [Paid] AS
(
    SELECT p.[OrderId], SUM(p.[Amount]) AS [PaidAmount]
    FROM [Sales].[Payments] AS p
    WHERE p.[VoidedAt] IS NULL
    GROUP BY p.[OrderId]
)
SELECT o.[Id],
       o.[CustomerId],
       o.[PlacedAt],
       [dbo].[fn_OrderTotal](o.[Id])                            AS [Total],
       [dbo].[fn_OrderTotal](o.[Id]) - ISNULL(pd.[PaidAmount], 0) AS [Due]
FROM [Sales].[Orders] AS o
LEFT JOIN [Paid] AS pd ON pd.[OrderId] = o.[Id]
WHERE o.[Status] IN (0, 1);
GO
