CREATE PROCEDURE [Sales].[OrderHistory_Purge]
AS
    SET NOCOUNT ON;
    TRUNCATE TABLE [Sales].[OrderHistory];
GO
