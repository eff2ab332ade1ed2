// The T-SQL statement recognizer: every object kind and reference role, each written with
// [bracketed], "quoted" and plain names.
#include "retrieval/local/tsql_script.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace attractor::retrieval {
namespace {

enum class Spelling { kBracketed, kQuoted, kPlain };

/// `schema.name` spelled as the parameter says.
std::string n(Spelling s, std::string_view schema, std::string_view name) {
  switch (s) {
    case Spelling::kBracketed: return fmt::format("[{}].[{}]", schema, name);
    case Spelling::kQuoted: return fmt::format("\"{}\".\"{}\"", schema, name);
    case Spelling::kPlain: break;
  }
  return fmt::format("{}.{}", schema, name);
}

/// "kind schema.name" per object.
std::vector<std::string> objects(const TsqlScript& s) {
  std::vector<std::string> out;
  for (const auto& o : s.objects)
    out.push_back(o.kind + " " + (o.schema.empty() ? "" : o.schema + ".") + o.name + (o.partial ? " (partial)" : ""));
  return out;
}

/// "role target" per reference.
std::vector<std::string> refs(const std::vector<SqlReference>& rs) {
  std::vector<std::string> out;
  for (const auto& r : rs) out.push_back(r.role + " " + r.target);
  return out;
}

using V = std::vector<std::string>;

class TsqlSpelling : public ::testing::TestWithParam<Spelling> {
 protected:
  std::string N(std::string_view schema, std::string_view name) const { return n(GetParam(), schema, name); }
};

TEST_P(TsqlSpelling, EveryObjectKindIsRecognized) {
  std::string sql = fmt::format(
      "CREATE SCHEMA {sales} AUTHORIZATION dbo\nGO\n"
      "CREATE TABLE {t} (Id INT NOT NULL, CONSTRAINT PK PRIMARY KEY CLUSTERED (Id ASC)) ON [PRIMARY]\nGO\n"
      "CREATE OR ALTER VIEW {v} AS SELECT Id FROM {t}\nGO\n"
      "CREATE PROC {p} AS SELECT 1\nGO\n"
      "ALTER PROCEDURE {p2} AS BEGIN SELECT 2; END\nGO\n"
      "CREATE FUNCTION {f} (@x INT) RETURNS INT AS BEGIN RETURN @x END\nGO\n"
      "CREATE FUNCTION {tvf} (@x INT) RETURNS TABLE AS RETURN (SELECT Id FROM {t} WHERE Id = @x)\nGO\n"
      "CREATE FUNCTION {mtvf} () RETURNS @r TABLE (Id INT) AS BEGIN INSERT @r SELECT Id FROM {t}; RETURN END\nGO\n"
      "CREATE TRIGGER {trg} ON {t} AFTER INSERT, UPDATE AS BEGIN SET NOCOUNT ON; END\nGO\n"
      "CREATE TYPE {tt} AS TABLE (Id INT NOT NULL);\n"
      "CREATE TYPE {alias} FROM NVARCHAR(50);\n"
      "CREATE SEQUENCE {seq} AS INT START WITH 1 INCREMENT BY 1;\n"
      "CREATE SYNONYM {syn} FOR OtherDb.dbo.Remote;\n",
      fmt::arg("sales", GetParam() == Spelling::kBracketed ? "[Sales]"
                        : GetParam() == Spelling::kQuoted  ? "\"Sales\""
                                                           : "Sales"),
      fmt::arg("t", N("Sales", "Orders")), fmt::arg("v", N("Sales", "OpenOrders")), fmt::arg("p", N("dbo", "P1")),
      fmt::arg("p2", N("dbo", "P2")), fmt::arg("f", N("dbo", "Scalar")), fmt::arg("tvf", N("dbo", "Inline")),
      fmt::arg("mtvf", N("dbo", "Multi")), fmt::arg("trg", N("Sales", "trg_Orders")),
      fmt::arg("tt", N("dbo", "IdList")), fmt::arg("alias", N("dbo", "Name")),
      fmt::arg("seq", N("dbo", "OrderNumbers")), fmt::arg("syn", N("dbo", "RemoteThings")));
  TsqlScript s = read_tsql_script(sql);
  EXPECT_EQ(objects(s),
            (V{"schema Sales", "table Sales.Orders", "view Sales.OpenOrders", "procedure dbo.P1", "procedure dbo.P2",
               "function dbo.Scalar", "function dbo.Inline", "function dbo.Multi", "trigger Sales.trg_Orders",
               "type dbo.IdList", "type dbo.Name", "sequence dbo.OrderNumbers", "synonym dbo.RemoteThings"}));
  EXPECT_TRUE(s.issues.empty());
  EXPECT_EQ(refs(s.objects[2].refs), (V{"reads sales.orders"}));
  EXPECT_EQ(refs(s.objects[6].refs), (V{"reads sales.orders"}));
  EXPECT_EQ(refs(s.objects[7].refs), (V{"reads sales.orders"}));  // INSERT @r is a table variable
  EXPECT_EQ(refs(s.objects[8].refs), (V{"references sales.orders"}));
  EXPECT_EQ(refs(s.objects[12].refs), (V{"references dbo.remote"}));
}

TEST_P(TsqlSpelling, AProcedureReadsWritesExecutesAndCalls) {
  std::string sql = fmt::format(
      R"(CREATE PROCEDURE {p} @Id INT AS
BEGIN
  DECLARE @rc INT, @t TABLE (Id INT);
  CREATE TABLE #work (Id INT);
  INSERT INTO #work SELECT Id FROM {a} a JOIN {b} b ON a.Id = b.Id;
  INSERT {c} (Id) VALUES (@Id);
  UPDATE u SET u.Name = x.Name FROM {users} AS u INNER JOIN {names} x ON x.Id = u.Id;
  DELETE TOP (10) FROM {logs} WHERE Id < {fn}(@Id);
  DELETE d FROM {drafts} d WHERE d.Id = @Id;
  MERGE INTO {target} AS t USING {source} AS s ON t.Id = s.Id
    WHEN MATCHED THEN UPDATE SET t.X = s.X
    WHEN NOT MATCHED THEN INSERT (Id) VALUES (s.Id);
  SELECT Id INTO {copy} FROM {orig};
  TRUNCATE TABLE {scratch};
  EXEC {other} @Id;
  EXECUTE @rc = {another} @Id = @Id;
  EXEC sp_executesql N'SELECT 1 FROM dbo.Hidden';
  SELECT * FROM {tvf}(@Id) f CROSS APPLY {applied}(f.Id) z;
  FETCH NEXT FROM cur INTO @Id;
END)",
      fmt::arg("p", N("dbo", "Work")), fmt::arg("a", N("dbo", "A")), fmt::arg("b", N("dbo", "B")),
      fmt::arg("c", N("dbo", "C")), fmt::arg("users", N("dbo", "Users")), fmt::arg("names", N("dbo", "Names")),
      fmt::arg("logs", N("dbo", "Logs")), fmt::arg("fn", N("dbo", "Cutoff")), fmt::arg("drafts", N("dbo", "Drafts")),
      fmt::arg("target", N("dbo", "Target")), fmt::arg("source", N("dbo", "Source")),
      fmt::arg("copy", N("dbo", "Copy")), fmt::arg("orig", N("dbo", "Orig")), fmt::arg("scratch", N("dbo", "Scratch")),
      fmt::arg("other", N("dbo", "Other")), fmt::arg("another", N("dbo", "Another")), fmt::arg("tvf", N("dbo", "Tvf")),
      fmt::arg("applied", N("dbo", "Applied")));
  TsqlScript s = read_tsql_script(sql);
  ASSERT_EQ(objects(s), (V{"procedure dbo.Work"}));
  EXPECT_EQ(refs(s.objects[0].refs),
            (V{"reads dbo.a", "reads dbo.b", "writes dbo.c", "writes dbo.users", "reads dbo.users", "reads dbo.names",
               "writes dbo.logs", "calls dbo.cutoff", "writes dbo.drafts", "reads dbo.drafts", "writes dbo.target",
               "reads dbo.source", "writes dbo.copy", "reads dbo.orig", "writes dbo.scratch", "executes dbo.other",
               "executes dbo.another", "calls dbo.tvf", "calls dbo.applied"}));
}

TEST_P(TsqlSpelling, ForeignKeysInTheTableAndInAlterTable) {
  std::string sql = fmt::format(
      "CREATE TABLE {orders} (\n  Id INT PRIMARY KEY,\n  CustomerId INT REFERENCES {customers}(Id),\n"
      "  CONSTRAINT FK_Shop FOREIGN KEY (ShopId) REFERENCES {shops} (Id) ON DELETE CASCADE ON UPDATE NO ACTION\n);\n"
      "GO\nALTER TABLE {orders} WITH CHECK ADD CONSTRAINT FK_Rep FOREIGN KEY (RepId) REFERENCES {reps} (Id)\n"
      "ALTER TABLE {orders} CHECK CONSTRAINT FK_Rep\nGO\n"
      "ALTER TABLE {lines} ADD CONSTRAINT FK_Lines FOREIGN KEY (OrderId) REFERENCES {orders} (Id);\n",
      fmt::arg("orders", N("Sales", "Orders")), fmt::arg("customers", N("Sales", "Customers")),
      fmt::arg("shops", N("dbo", "Shops")), fmt::arg("reps", N("Sales", "Reps")),
      fmt::arg("lines", N("Sales", "Lines")));
  TsqlScript s = read_tsql_script(sql);
  ASSERT_EQ(objects(s), (V{"table Sales.Orders", "table Sales.Orders (partial)", "table Sales.Orders (partial)",
                           "table Sales.Lines (partial)"}));
  EXPECT_EQ(refs(s.objects[0].refs), (V{"references sales.customers", "references dbo.shops"}));
  EXPECT_EQ(refs(s.objects[1].refs), (V{"references sales.reps"}));
  EXPECT_TRUE(s.objects[2].refs.empty());
  EXPECT_EQ(refs(s.objects[3].refs), (V{"references sales.orders"}));
}

TEST_P(TsqlSpelling, ATriggerReferencesItsTableAndWritesWhatItWrites) {
  std::string sql = fmt::format(
      "CREATE TRIGGER {trg} ON {meetings} AFTER DELETE AS\nBEGIN\n"
      "  IF UPDATE(Status) RETURN;\n  DELETE FROM {attendees} WHERE MeetingId IN (SELECT Id FROM deleted);\n"
      "  INSERT INTO {audit} SELECT Id FROM inserted;\nEND\n",
      fmt::arg("trg", N("dbo", "trg_Meetings")), fmt::arg("meetings", N("dbo", "Meetings")),
      fmt::arg("attendees", N("dbo", "Attendees")), fmt::arg("audit", N("dbo", "Audit")));
  TsqlScript s = read_tsql_script(sql);
  ASSERT_EQ(objects(s), (V{"trigger dbo.trg_Meetings"}));
  EXPECT_EQ(refs(s.objects[0].refs), (V{"references dbo.meetings", "writes dbo.attendees", "writes dbo.audit"}));
}

TEST_P(TsqlSpelling, CteNamesAreNotTables) {
  std::string sql = fmt::format(
      "CREATE VIEW {v} AS\nWITH recent (Id) AS (SELECT Id FROM {orders}), big AS (SELECT Id FROM recent)\n"
      "SELECT r.Id FROM recent r JOIN big b ON b.Id = r.Id JOIN {customers} c ON c.Id = r.Id\n",
      fmt::arg("v", N("Website", "Customers")), fmt::arg("orders", N("Sales", "Orders")),
      fmt::arg("customers", N("Sales", "Customers")));
  TsqlScript s = read_tsql_script(sql);
  ASSERT_EQ(objects(s), (V{"view Website.Customers"}));
  EXPECT_EQ(refs(s.objects[0].refs), (V{"reads sales.orders", "reads sales.customers"}));
}

INSTANTIATE_TEST_SUITE_P(Spellings, TsqlSpelling,
                         ::testing::Values(Spelling::kBracketed, Spelling::kQuoted, Spelling::kPlain),
                         [](const auto& info) {
                           switch (info.param) {
                             case Spelling::kBracketed: return std::string("Bracketed");
                             case Spelling::kQuoted: return std::string("Quoted");
                             case Spelling::kPlain: break;
                           }
                           return std::string("Plain");
                         });

TEST(TsqlScriptTest, SetNocountOnBeforeAWriteIsNotAForeignKeyAction) {
  TsqlScript s = read_tsql_script(
      "CREATE PROCEDURE dbo.P AS\nBEGIN\n  SET NOCOUNT ON\n  UPDATE [dbo].[Device] SET PushToken = NULL\n"
      "  SET XACT_ABORT ON\n  DELETE [dbo].[Grant] WHERE 1 = 0\nEND\nGO\n"
      "CREATE TABLE dbo.T (Id INT REFERENCES dbo.U (Id) ON DELETE CASCADE ON UPDATE SET NULL)");
  ASSERT_EQ(objects(s), (V{"procedure dbo.P", "table dbo.T"}));
  EXPECT_EQ(refs(s.objects[0].refs), (V{"writes dbo.device", "writes dbo.grant"}));
  EXPECT_EQ(refs(s.objects[1].refs), (V{"references dbo.u"}));
}

TEST(TsqlScriptTest, SequencesAndTableTypesInUseAreReferences) {
  TsqlScript s = read_tsql_script(
      "CREATE PROCEDURE [Sales].[Order_Import] @Lines [dbo].[OrderLineList] READONLY, @Ids IdList READONLY AS\n"
      "INSERT INTO [Sales].[Orders] (Id) SELECT NEXT VALUE FOR [Sales].[OrderNumbers] FROM @Lines\nGO\n"
      "CREATE TABLE dbo.T (Id INT DEFAULT (NEXT VALUE FOR dbo.Seq))");
  ASSERT_EQ(objects(s), (V{"procedure Sales.Order_Import", "table dbo.T"}));
  EXPECT_EQ(refs(s.objects[0].refs), (V{"references dbo.orderlinelist", "references idlist", "writes sales.orders",
                                        "references sales.ordernumbers"}));
  EXPECT_EQ(refs(s.objects[1].refs), (V{"references dbo.seq"}));
}

TEST(TsqlScriptTest, OnePartNamesTakeNoSchemaAndThreePartNamesDropTheDatabase) {
  TsqlScript s = read_tsql_script(
      "CREATE VIEW Totals AS SELECT * FROM Orders o JOIN OtherDb.sales.Lines l ON 1=1 "
      "JOIN Srv.Db..Things t ON 1=1");
  ASSERT_EQ(objects(s), (V{"view dbo.Totals"}));
  EXPECT_EQ(refs(s.objects[0].refs), (V{"reads orders", "reads sales.lines", "reads things"}));
}

TEST(TsqlScriptTest, ARoutineOwnsItsBatchAndAPermanentTableItCreatesIsAnObjectToo) {
  std::string sql =
      "-- header\nCREATE PROCEDURE dbo.A AS\nBEGIN\n  CREATE TABLE dbo.Inner (Id INT);\nEND\nGO\n"
      "CREATE TABLE dbo.T (Id INT) ; \nCREATE TABLE dbo.U (Id INT)\nGO";
  TsqlScript s = read_tsql_script(sql);
  ASSERT_EQ(objects(s), (V{"procedure dbo.A", "table dbo.Inner", "table dbo.T", "table dbo.U"}));
  EXPECT_EQ(sql.substr(s.objects[0].begin, s.objects[0].end - s.objects[0].begin),
            "CREATE PROCEDURE dbo.A AS\nBEGIN\n  CREATE TABLE dbo.Inner (Id INT);\nEND");
  EXPECT_EQ(sql.substr(s.objects[1].begin, s.objects[1].end - s.objects[1].begin), "CREATE TABLE dbo.Inner (Id INT);");
  EXPECT_EQ(sql.substr(s.objects[2].begin, s.objects[2].end - s.objects[2].begin), "CREATE TABLE dbo.T (Id INT) ;");
  EXPECT_EQ(sql.substr(s.objects[3].begin, s.objects[3].end - s.objects[3].begin), "CREATE TABLE dbo.U (Id INT)");
}

TEST(TsqlScriptTest, QueryStringsGiveLooseReferences) {
  TsqlScript s = read_tsql_script(
      "SELECT m.* FROM [meetings].[v_Meetings] AS m WHERE m.Id = @Id; EXEC [dbo].[User_ReadById] @Id");
  EXPECT_TRUE(s.objects.empty());
  EXPECT_EQ(refs(s.loose_refs), (V{"reads meetings.v_meetings", "executes dbo.user_readbyid"}));
}

TEST(TsqlScriptTest, ExecuteAsAndDynamicSqlAreNotProcedures) {
  TsqlScript s = read_tsql_script(
      "CREATE PROCEDURE dbo.P WITH EXECUTE AS OWNER AS BEGIN EXEC('SELECT 1'); EXEC (@sql); EXECUTE AS USER = 'x'; "
      "EXEC @proc; END");
  ASSERT_EQ(objects(s), (V{"procedure dbo.P"}));
  EXPECT_TRUE(s.objects[0].refs.empty()) << refs(s.objects[0].refs).size();
}

TEST(TsqlScriptTest, NamesNormalize) {
  EXPECT_EQ(normalize_sql_name("[dbo].[User_ReadById]"), "dbo.user_readbyid");
  EXPECT_EQ(normalize_sql_name("dbo.X"), "dbo.x");
  EXPECT_EQ(normalize_sql_name("Db.Sales.\"Order Lines\""), "sales.order lines");
  EXPECT_EQ(normalize_sql_name("Plain"), "plain");
}

TEST(TsqlScriptTest, UnclosedTextIsAnIssueAndObjectsBeforeItSurvive) {
  TsqlScript s = read_tsql_script("CREATE TABLE dbo.T (Id INT)\nGO\nCREATE VIEW dbo.V AS SELECT 'oops FROM dbo.T");
  EXPECT_EQ(objects(s), (V{"table dbo.T", "view dbo.V"}));
  ASSERT_EQ(s.issues.size(), 1u);
  EXPECT_EQ(s.issues[0].line, 3);
  EXPECT_EQ(s.issues[0].message, "unterminated string");
}

}  // namespace
}  // namespace attractor::retrieval
