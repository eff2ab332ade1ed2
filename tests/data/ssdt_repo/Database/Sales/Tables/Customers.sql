CREATE TABLE [Sales].[Customers] (
    [Id]        INT            IDENTITY (1, 1) NOT NULL,
    [Name]      NVARCHAR (200) NOT NULL,
    [Email]     NVARCHAR (320) NOT NULL,
    [CreatedAt] DATETIME2 (3)  CONSTRAINT [DF_Customers_CreatedAt] DEFAULT (sysutcdatetime()) NOT NULL,
    CONSTRAINT [PK_Customers] PRIMARY KEY CLUSTERED ([Id] ASC),
    CONSTRAINT [UQ_Customers_Email] UNIQUE NONCLUSTERED ([Email] ASC)
);
