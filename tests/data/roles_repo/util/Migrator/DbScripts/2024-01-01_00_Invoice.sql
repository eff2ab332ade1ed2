CREATE TABLE [dbo].[Invoice] ([Id] INT NOT NULL);
GO
