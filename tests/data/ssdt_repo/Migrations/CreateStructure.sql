-- Bootstrap script for an empty database, from before the SSDT project existed.
-- Kept for the integration test environment; Database/ is the source of truth.

IF SCHEMA_ID(N'Sales') IS NULL
    EXEC (N'CREATE SCHEMA Sales AUTHORIZATION dbo');
GO

CREATE TABLE Sales.Customers (
    Id        INT IDENTITY (1, 1) NOT NULL PRIMARY KEY,
    Name      NVARCHAR (200) NOT NULL,
    Email     NVARCHAR (320) NOT NULL UNIQUE,
    CreatedAt DATETIME2 (3) NOT NULL DEFAULT (SYSUTCDATETIME())
)
GO

-- The first version of the view: no payments yet, so everything not cancelled is due.
CREATE VIEW Sales.OpenOrders
AS
SELECT o.Id, o.CustomerId, c.Name AS CustomerName, o.PlacedAt, dbo.fn_OrderTotal(o.Id) AS Total
FROM Sales.Orders o
JOIN Sales.Customers c ON c.Id = o.CustomerId
WHERE o.Status IN (0, 1)
GO
