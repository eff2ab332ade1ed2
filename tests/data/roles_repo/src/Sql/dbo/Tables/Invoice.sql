CREATE TABLE [dbo].[Invoice] ([Id] INT NOT NULL, [Total] DECIMAL(18, 2) NOT NULL);
GO
