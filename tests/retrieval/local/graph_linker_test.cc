// The graph linker on SQL Server code as real repositories write it: Dapper repositories whose
// procedure names are interpolated from a generic base class, bracketed names, and a table whose
// foreign keys are added by an ALTER TABLE in another file.
#include "retrieval/local/graph_linker.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "retrieval/local/csharp_extractor.h"
#include "retrieval/local/sql_extractor.h"

namespace attractor::retrieval {
namespace {

/// The nodes of (path, source) files, as the indexer would store them (ids as extracted).
std::vector<StoredNode> nodes_of(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<StoredNode> out;
  for (const auto& [path, source] : files) {
    bool sql = path.ends_with(".sql");
    ExtractedFile f = sql ? extract_sql(source) : extract_csharp(source);
    for (auto& n : f.nodes) {
      StoredNode s;
      s.id = n.facts.value("partial", false) ? n.id + "@" + path : n.id;
      if (std::any_of(out.begin(), out.end(), [&](const StoredNode& o) { return o.id == n.id; })) s.id += "@" + path;
      s.path = path;
      s.language = sql ? "sql" : "csharp";
      s.kind = n.kind;
      s.name = n.name;
      s.facts = n.facts;
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::set<std::string> edges(const std::vector<StoredNode>& nodes, std::string_view type) {
  std::set<std::string> out;
  for (const auto& e : link_graph(nodes)) {
    if (e.edge_type == type) out.insert(e.from_id + " -> " + e.to_id);
  }
  return out;
}

const char* kRepositories = R"(
namespace Shop.Data;
public abstract class Repository<T, TId> where T : class
{
    protected string Schema { get; private set; } = "dbo";
    protected string Table { get; private set; } = typeof(T).Name;
    public virtual async Task<T> GetByIdAsync(TId id)
    {
        return await Connection.QuerySingleAsync<T>($"[{Schema}].[{Table}_ReadById]", new { Id = id },
            commandType: CommandType.StoredProcedure);
    }
}
public class UserRepository : Repository<User, Guid>, IUserRepository
{
    private const string ByEmail = "[dbo].[User_ReadByEmail]";
    public async Task<User> GetByEmailAsync(string email)
    {
        return await Connection.QuerySingleAsync<User>($"[{Schema}].[{Table}_ReadByEmail]", new { Email = email },
            commandType: CommandType.StoredProcedure);
    }
    public async Task DeleteAsync(Guid id)
    {
        await Connection.ExecuteAsync("[dbo].[User_DeleteById]", new { Id = id }, commandType: CommandType.StoredProcedure);
    }
    public async Task<int> CountAsync()
    {
        return await Connection.ExecuteScalarAsync<int>(@"SELECT COUNT(1) FROM [dbo].[UserView] u");
    }
    public async Task<User> GetByEmailConstantAsync(string email)
    {
        return await Connection.QuerySingleAsync<User>(ByEmail, new { Email = email }, commandType: CommandType.StoredProcedure);
    }
    private const string Audit = "[dbo].[AuditLog]";
    private const string RecentOnly = " WHERE [At] > @since";
    public async Task<int> AuditCountAsync(DateTime since)
    {
        return await Connection.ExecuteScalarAsync<int>("SELECT COUNT(1) FROM " + Audit + RecentOnly, new { since });
    }
    public async Task<User> SearchAsync(string term)
    {
        const string proc = "dbo.User_Search";
        var sql = """
            SELECT u.[Id] FROM [dbo].[User] u
            """;
        await Connection.QueryAsync<User>(sql);
        return await Connection.QuerySingleAsync<User>(proc, new { term }, commandType: CommandType.StoredProcedure);
    }
}
)";

TEST(GraphLinkerTest, DapperNamesFromInterpolationConstantsConcatenationAndRawStringsResolve) {
  auto nodes = nodes_of(
      {{"Repositories.cs", kRepositories},
       {"User_ReadByEmail.sql",
        "CREATE PROCEDURE [dbo].[User_ReadByEmail] @Email NVARCHAR(256) AS "
        "SELECT * FROM [dbo].[UserView] WHERE [Email] = @Email"},
       {"User_ReadById.sql", "CREATE PROCEDURE [dbo].[User_ReadById] @Id UNIQUEIDENTIFIER AS SELECT 1"},
       {"User_Search.sql", "CREATE PROCEDURE [dbo].[User_Search] @term NVARCHAR(50) AS SELECT 1"},
       {"AuditLog.sql", "CREATE TABLE [dbo].[AuditLog] ([At] DATETIME2 NOT NULL)"},
       {"User_DeleteById.sql",
        "CREATE PROCEDURE [dbo].[User_DeleteById] @Id UNIQUEIDENTIFIER AS "
        "DELETE FROM [dbo].[User] WHERE [Id] = @Id"},
       {"UserView.sql", "CREATE VIEW [dbo].[UserView] AS SELECT * FROM [dbo].[User]"},
       {"User.sql", "CREATE TABLE [dbo].[User] ([Id] UNIQUEIDENTIFIER NOT NULL)"}});
  EXPECT_EQ(
      edges(nodes, "executes"),
      (std::set<std::string>{"cs:Shop.Data.Repository<T,TId>.GetByIdAsync(TId) -> sql:dbo.User_ReadById",
                             "cs:Shop.Data.UserRepository -> sql:dbo.User_ReadById",
                             "cs:Shop.Data.UserRepository.DeleteAsync(Guid) -> sql:dbo.User_DeleteById",
                             "cs:Shop.Data.UserRepository.GetByEmailAsync(string) -> sql:dbo.User_ReadByEmail",
                             "cs:Shop.Data.UserRepository.GetByEmailConstantAsync(string) -> sql:dbo.User_ReadByEmail",
                             "cs:Shop.Data.UserRepository.SearchAsync(string) -> sql:dbo.User_Search"}));
  EXPECT_EQ(edges(nodes, "reads"),
            (std::set<std::string>{"cs:Shop.Data.UserRepository.AuditCountAsync(DateTime) -> sql:dbo.AuditLog",
                                   "cs:Shop.Data.UserRepository.CountAsync() -> sql:dbo.UserView",
                                   "cs:Shop.Data.UserRepository.SearchAsync(string) -> sql:dbo.User",
                                   "sql:dbo.User_ReadByEmail -> sql:dbo.UserView"}));
  EXPECT_EQ(edges(nodes, "writes"), (std::set<std::string>{"sql:dbo.User_DeleteById -> sql:dbo.User"}));
  EXPECT_EQ(edges(nodes, "references"), (std::set<std::string>{"sql:dbo.UserView -> sql:dbo.User"}));
}

TEST(GraphLinkerTest, AnAlterTableElsewhereAddsItsForeignKeysToTheTable) {
  auto nodes = nodes_of(
      {{"migrations/002_fk.sql",
        "ALTER TABLE [Sales].[Orders] ADD CONSTRAINT FK_Orders_Customers "
        "FOREIGN KEY ([CustomerId]) REFERENCES [Sales].[Customers] ([Id])\nGO\n"},
       {"Tables/Orders.sql", "CREATE TABLE [Sales].[Orders] ([Id] INT NOT NULL, [CustomerId] INT NOT NULL)"},
       {"Tables/Customers.sql", "CREATE TABLE [Sales].[Customers] ([Id] INT NOT NULL)"}});
  ASSERT_EQ(nodes[0].facts.value("partial", false), true);
  EXPECT_EQ(edges(nodes, "references"), (std::set<std::string>{"sql:Sales.Orders -> sql:Sales.Customers"}));
}

// The names a C# file brings into scope: a generic base in another namespace reached by `using`,
// by an alias, by a qualified name and by another file's `global using`; `Repository` and
// `Repository<T, TId>` are two types; two imported namespaces declaring the same name resolve to
// neither, as the compiler would refuse it.
const char* kBase = R"(
namespace Vault.Infrastructure.Repositories
{
    public abstract class Repository<T, TId> where T : class
    {
        protected string Table { get; } = typeof(T).Name;
        public virtual async Task DeleteAsync(TId id)
        {
            await Connection.ExecuteAsync($"[dbo].[{Table}_DeleteById]", new { Id = id }, commandType: CommandType.StoredProcedure);
        }
    }
    public class Repository { }
    public interface IAudited { }
}
namespace Vault.Other { public interface IAudited { } }
)";

TEST(GraphLinkerTest, TypesResolveThroughUsingsAliasesQualifiersAndGlobalUsingsByArity) {
  auto nodes = nodes_of({
      {"Base.cs", kBase},
      {"Globals.cs", "global using Vault.Infrastructure.Repositories;\nnamespace Vault.Setup { class Marker { } }"},
      {"Cipher.cs",
       "using Vault.Infrastructure.Repositories;\nusing Vault.Other;\n"
       "namespace Vault.Ciphers.Repositories;\n"
       "public class CipherRepository : Repository<Cipher, Guid>, IAudited { }\n"},
      {"Folder.cs",
       "using Repo = Vault.Infrastructure.Repositories.Repository<Vault.Folder, System.Guid>;\n"
       "namespace Vault.Folders { public class FolderRepository : Repo { } }\n"},
      {"Send.cs",
       "namespace Vault.Sends { public class SendRepository : "
       "Vault.Infrastructure.Repositories.Repository<Send, Guid> { } }\n"},
      {"Device.cs", "namespace Vault.Devices { public class DeviceRepository : Repository<Device, Guid> { } }\n"},
      {"Plain.cs",
       "using Vault.Infrastructure.Repositories;\nnamespace Vault.Plain { public class Plain : Repository { } }"},
      {"Cipher_DeleteById.sql", "CREATE PROCEDURE [dbo].[Cipher_DeleteById] @Id UNIQUEIDENTIFIER AS SELECT 1"},
      {"Send_DeleteById.sql", "CREATE PROCEDURE [dbo].[Send_DeleteById] @Id UNIQUEIDENTIFIER AS SELECT 1"},
  });
  EXPECT_EQ(
      edges(nodes, "inherits"),
      (std::set<std::string>{
          "cs:Vault.Ciphers.Repositories.CipherRepository -> cs:Vault.Infrastructure.Repositories.Repository<T,TId>",
          "cs:Vault.Devices.DeviceRepository -> cs:Vault.Infrastructure.Repositories.Repository<T,TId>",
          "cs:Vault.Folders.FolderRepository -> cs:Vault.Infrastructure.Repositories.Repository<T,TId>",
          "cs:Vault.Plain.Plain -> cs:Vault.Infrastructure.Repositories.Repository",
          "cs:Vault.Sends.SendRepository -> cs:Vault.Infrastructure.Repositories.Repository<T,TId>",
      }));
  EXPECT_EQ(edges(nodes, "implements"), (std::set<std::string>{}));
  EXPECT_EQ(edges(nodes, "executes"),
            (std::set<std::string>{
                "cs:Vault.Ciphers.Repositories.CipherRepository -> sql:dbo.Cipher_DeleteById",
                "cs:Vault.Infrastructure.Repositories.Repository<T,TId>.DeleteAsync(TId) -> sql:dbo.Cipher_DeleteById",
                "cs:Vault.Infrastructure.Repositories.Repository<T,TId>.DeleteAsync(TId) -> sql:dbo.Send_DeleteById",
                "cs:Vault.Sends.SendRepository -> sql:dbo.Send_DeleteById",
            }));
}

TEST(GraphLinkerTest, APrimaryConstructorsParametersResolveLikeFields) {
  auto nodes = nodes_of({
      {"Repo.cs", "namespace Shop { public interface IOrderRepository { void Save(int id); } }"},
      // A second Save(int): without the parameter's type the call would be ambiguous.
      {"Audit.cs", "namespace Shop.Audit { public class Journal { public void Save(int id) { } } }"},
      {"Service.cs",
       "namespace Shop.Services;\nusing Shop;\n"
       "public class OrderService(IOrderRepository orders, int retries) {\n"
       "  public void Place(int id) { orders.Save(id); }\n}\n"},
  });
  EXPECT_EQ(edges(nodes, "calls"), (std::set<std::string>{"cs:Shop.Services.OrderService.Place(int) -> "
                                                          "cs:Shop.IOrderRepository.Save(int)"}));
  EXPECT_TRUE(edges(nodes, "uses_type").count("cs:Shop.Services.OrderService -> cs:Shop.IOrderRepository"));
}

TEST(GraphLinkerTest, ThePartsOfAPartialTypeAreOneNodeForEdgesAndLookup) {
  auto nodes = nodes_of({
      {"Order.cs", "namespace Shop;\npublic partial class Order : EntityBase { public int Id { get; set; } }\n"},
      {"Order.Logic.cs",
       "using Shop.Contracts;\nnamespace Shop;\npublic partial class Order : IAuditable\n"
       "{ public void Ship(Clock c) { } }\n"},
      {"Contracts.cs", "namespace Shop.Contracts { public interface IAuditable { } public class Clock { } }\n"},
      {"EntityBase.cs", "namespace Shop;\npublic abstract class EntityBase { }\n"},
      {"Web.cs", "using Shop;\nnamespace Shop.Web;\npublic class Page { private Order order; }\n"},
      {"Other.cs", "namespace Shop { public class Invoice { } }\nnamespace Shop.Old { public class Invoice { } }\n"},
  });
  EXPECT_EQ(edges(nodes, "inherits"), (std::set<std::string>{"cs:Shop.Order -> cs:Shop.EntityBase"}));
  EXPECT_EQ(edges(nodes, "implements"), (std::set<std::string>{"cs:Shop.Order -> cs:Shop.Contracts.IAuditable"}));
  // Ship is declared in the part that imports Shop.Contracts, so Clock resolves there.
  EXPECT_EQ(edges(nodes, "uses_type"), (std::set<std::string>{"cs:Shop.Order.Ship(Clock) -> cs:Shop.Contracts.Clock",
                                                              "cs:Shop.Web.Page -> cs:Shop.Order"}));
  EXPECT_EQ(edges(nodes, "contains"),
            (std::set<std::string>{"cs:Shop.Order -> cs:Shop.Order.Id", "cs:Shop.Order -> cs:Shop.Order.Ship(Clock)"}));
}

}  // namespace
}  // namespace attractor::retrieval
