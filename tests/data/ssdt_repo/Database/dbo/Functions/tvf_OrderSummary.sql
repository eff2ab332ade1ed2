CREATE FUNCTION [dbo].[tvf_OrderSummary] (@OrderId INT)
RETURNS TABLE
AS
RETURN
(
    SELECT COUNT(*)                            AS [LineCount],
           SUM(ol.[Quantity])                  AS [Items],
           SUM(ol.[Quantity] * ol.[UnitPrice]) AS [Total],
           MAX(p.[Name])                       AS [TopProduct]
    FROM [Sales].[OrderLines] AS ol
    INNER JOIN [Sales].[Products] AS p ON p.[Id] = ol.[ProductId]
    WHERE ol.[OrderId] = @OrderId
);
GO
