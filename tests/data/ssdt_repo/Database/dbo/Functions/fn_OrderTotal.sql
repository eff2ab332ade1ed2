CREATE FUNCTION [dbo].[fn_OrderTotal]
(
    @OrderId INT
)
RETURNS DECIMAL (18, 2)
WITH SCHEMABINDING
AS
BEGIN
    DECLARE @Total DECIMAL (18, 2);

    SELECT @Total = SUM(ol.[Quantity] * ol.[UnitPrice])
    FROM [Sales].[OrderLines] AS ol
    WHERE ol.[OrderId] = @OrderId;

    RETURN ISNULL(@Total, 0);
END
GO
