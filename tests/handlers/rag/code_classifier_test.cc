// The code classifier: labels for SQL, C#, C# with SQL strings and prose, the language mapping,
// and the label of every .cs / .sql file of tests/data/csharp_sql_repo.

#include "handlers/rag/code_classifier.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace attractor {
namespace {

std::string repo_file(const std::string& rel) {
  std::ifstream in(std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo/" + rel, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CodeClassifierTest, LabelsSnippets) {
  EXPECT_EQ(classify_code("CREATE TABLE dbo.Rooms (Id INT NOT NULL PRIMARY KEY, Name NVARCHAR(100));"), CodeKind::kSql);
  EXPECT_EQ(classify_code("select m.Id from dbo.Meetings m where m.Status = 0"), CodeKind::kSql);
  EXPECT_EQ(classify_code("public int Add(int a, int b) { return a + b; }"), CodeKind::kDotnet);
  EXPECT_EQ(classify_code("Meeting GetMeetingById(int id);"), CodeKind::kDotnet);
  EXPECT_EQ(classify_code("public void Save() { _db.Execute(\"INSERT INTO dbo.Meetings (Title) VALUES (@t)\"); }"),
            CodeKind::kDotnetWithSql);
  EXPECT_EQ(classify_code("void Cancel() { c.Execute(\"dbo.CancelMeeting\", p); }"), CodeKind::kDotnetWithSql);
  EXPECT_EQ(classify_code("The meeting room booking rules for the Acme office."), CodeKind::kUnknown);
  EXPECT_EQ(classify_code(""), CodeKind::kUnknown);
}

TEST(CodeClassifierTest, CommentsAndStringsDoNotCountAsCode) {
  EXPECT_EQ(classify_code("// public class Foo { }\n-- nothing here"), CodeKind::kUnknown);
  EXPECT_EQ(classify_code("-- public class Foo { void X() {} }\nCREATE VIEW dbo.V AS SELECT 1 AS One FROM dbo.T"),
            CodeKind::kSql);
  EXPECT_EQ(dotnet_score("namespace A.B { public class C { } }"), 3 + 2 + 1 + 2);
  EXPECT_EQ(sql_score("CREATE OR ALTER PROCEDURE dbo.P AS BEGIN SELECT 1 FROM dbo.T WHERE 1 = 1; END\nGO"),
            3 + 2 + 1 + 2);
}

TEST(CodeClassifierTest, LanguageMapping) {
  EXPECT_EQ(code_language(CodeKind::kSql), "sql");
  EXPECT_EQ(code_language(CodeKind::kDotnet), "dotnet");
  EXPECT_EQ(code_language(CodeKind::kDotnetWithSql), "dotnet");
  EXPECT_EQ(code_language(CodeKind::kUnknown), "unknown");
  EXPECT_EQ(code_kind_name(CodeKind::kDotnetWithSql), "DOTNET_WITH_SQL");
  EXPECT_EQ(code_kind_name(CodeKind::kUnknown), "unknown");
}

TEST(CodeClassifierTest, SqlObjectNames) {
  EXPECT_TRUE(is_sql_object_name("dbo.CancelMeeting"));
  EXPECT_TRUE(is_sql_object_name("[dbo].[Meetings]"));
  EXPECT_TRUE(is_sql_object_name("db.dbo.T"));
  EXPECT_FALSE(is_sql_object_name("Meetings"));
  EXPECT_FALSE(is_sql_object_name("get meeting"));
  EXPECT_FALSE(is_sql_object_name("a.b.c.d"));
}

TEST(CodeClassifierTest, EveryFileOfTheTestRepository) {
  const std::vector<std::pair<std::string, CodeKind>> expected = {
      {"db/functions/fn_RoomCapacity.sql", CodeKind::kSql},
      {"db/migrations/001_attendees.sql", CodeKind::kSql},
      {"db/procedures/CancelMeeting.sql", CodeKind::kSql},
      {"db/tables/Meetings.sql", CodeKind::kSql},
      {"db/triggers/trg_Meetings_Audit.sql", CodeKind::kSql},
      {"db/views/UpcomingMeetings.sql", CodeKind::kSql},
      {"src/Acme.Meetings/Data/IMeetingRepository.cs", CodeKind::kDotnet},
      {"src/Acme.Meetings/Data/MeetingRepository.cs", CodeKind::kDotnetWithSql},
      {"src/Acme.Meetings/Data/RoomRepository.cs", CodeKind::kDotnetWithSql},
      {"src/Acme.Meetings/Data/MeetingsDbContext.cs", CodeKind::kDotnet},
      {"src/Acme.Meetings/Domain/MeetingStatus.cs", CodeKind::kDotnet},
      {"src/Acme.Meetings/Services/Broken.cs", CodeKind::kDotnet},
      {"src/Acme.Payroll/SalaryService.cs", CodeKind::kDotnetWithSql},
  };
  for (const auto& [path, kind] : expected) {
    EXPECT_EQ(code_kind_name(classify_code(repo_file(path))), code_kind_name(kind)) << path;
  }
}

}  // namespace
}  // namespace attractor
