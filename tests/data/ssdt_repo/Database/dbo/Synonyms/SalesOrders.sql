-- Kept for the reporting jobs that still read dbo.SalesOrders.
CREATE SYNONYM [dbo].[SalesOrders] FOR [Sales].[Orders];
