// The code compactor: exact outputs for C# and T-SQL, what is kept (identifiers, signatures, SQL
// object names) and removed (comments, blank runs, bodies), and the token saving over
// tests/data/csharp_sql_repo counted with the project's token counter (printed by this test and by
// bench/compaction).

#include "handlers/rag/code_compactor.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

#include "attractor/tokens/token_counter.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const fs::path kRepo = fs::path(ATTRACTOR_SOURCE_DIR) / "tests/data/csharp_sql_repo";

TEST(CodeCompactorTest, CSharpKeepsStructureAndSignaturesAndCollapsesBodies) {
  EXPECT_EQ(compact_csharp(read(kRepo / "src/Acme.Meetings/Data/MeetingRepository.cs")),
            "using System.Collections.Generic;\n"
            "using System.Data;\n"
            "using Dapper;\n"
            "using Acme.Meetings.Domain;\n"
            "namespace Acme.Meetings.Data\n"
            "{\n"
            "    public class MeetingRepository : IMeetingRepository\n"
            "    {\n"
            "        private readonly IConnectionFactory _factory;\n"
            "        public MeetingRepository(IConnectionFactory factory) { ... }\n"
            "        public Meeting GetMeetingById(int id) { ... sql: dbo.Meetings }\n"
            "        public IEnumerable<Meeting> ListUpcoming(int roomId) { ... sql: dbo.UpcomingMeetings }\n"
            "        public void Save(Meeting meeting) { ... sql: dbo.Meetings }\n"
            "        public void Cancel(int meetingId, string reason) { ... sql: dbo.CancelMeeting }\n"
            "    }\n"
            "}");
}

TEST(CodeCompactorTest, CSharpDetails) {
  // Attributes do not hide a class; property accessor bodies collapse; expression bodies stay.
  EXPECT_EQ(compact_csharp("[Table(\"Meetings\")]\npublic class M : Entity\n{\n    /// <summary>x</summary>\n"
                           "    public int X { get { return _x; } set { _x = value; } }\n\n\n"
                           "    public bool Fits(int n) => n <= X; // why\n"
                           "    #region helpers\n    private string S = \"{ not a brace }\";\n    #endregion\n}"),
            "[Table(\"Meetings\")]\npublic class M : Entity\n{\n    public int X { get { ... } set { ... } }\n"
            "    public bool Fits(int n) => n <= X;\n    private string S = \"{ not a brace }\";\n}");
  // Generic constraints with `class` do not make a method body structural; braces in strings and
  // nested blocks are skipped; EF ToTable names are kept with their schema.
  EXPECT_EQ(compact_csharp("T Make<T>() where T : class, new()\n{\n  if (x) { Log(\"}\"); }\n  return new T();\n}"),
            "T Make<T>() where T : class, new() { ... }");
  EXPECT_EQ(
      compact_csharp("void OnModelCreating(ModelBuilder b)\n{\n  b.Entity<Room>().ToTable(\"Rooms\", \"dbo\");\n}"),
      "void OnModelCreating(ModelBuilder b) { ... sql: dbo.Rooms }");
  EXPECT_EQ(
      compact_csharp("int UsageOf(int id) { return c.ExecuteScalar<int>(\"EXEC dbo.GetRoomUsage @RoomId = @id\"); }"),
      "int UsageOf(int id) { ... sql: dbo.GetRoomUsage }");
}

TEST(CodeCompactorTest, SqlKeepsHeadersAndObjectsAndDropsBodiesCommentsAndGo) {
  EXPECT_EQ(compact_sql(read(kRepo / "db/migrations/001_attendees.sql")),
            "CREATE TABLE dbo.Attendees (\n"
            "    Id INT NOT NULL PRIMARY KEY,\n"
            "    MeetingId INT NOT NULL REFERENCES dbo.Meetings(Id),\n"
            "    Email NVARCHAR(320) NOT NULL\n"
            ");\n"
            "CREATE PROCEDURE dbo.UpsertRoom\n"
            "    @Id INT,\n"
            "    @Name NVARCHAR(100),\n"
            "    @Capacity INT\n"
            "AS ... uses: dbo.Rooms");
  EXPECT_EQ(compact_sql(read(kRepo / "db/triggers/trg_Meetings_Audit.sql")),
            "CREATE TRIGGER dbo.trg_Meetings_Audit ON dbo.Meetings\nAFTER DELETE\nAS ... uses: dbo.Attendees");
  EXPECT_EQ(compact_sql("CREATE FUNCTION dbo.F (@X INT AS INT)\nRETURNS TABLE\nAS RETURN (SELECT Id FROM dbo.T /* c */ "
                        "JOIN [dbo].[U] u ON u.Id = T.Id WHERE dbo.fn_Ok(u.Id) = 1)"),
            "CREATE FUNCTION dbo.F (@X INT AS INT)\nRETURNS TABLE\nAS ... uses: dbo.T, [dbo].[U], dbo.fn_Ok");
  EXPECT_EQ(compact_sql(read(kRepo / "db/views/UpcomingMeetings.sql")),
            drop_blank_lines(read(kRepo / "db/views/UpcomingMeetings.sql")));
}

TEST(CodeCompactorTest, SqlObjectNames) {
  EXPECT_EQ(
      sql_object_names("UPDATE dbo.Meetings SET Status = 1 WHERE Id IN (SELECT Id FROM deleted);"
                       " EXEC dbo.WriteAudit @A = 1; MERGE INTO dbo.Rooms AS t USING (SELECT 1 AS Id) AS s "
                       "ON t.Id = s.Id WHEN MATCHED THEN UPDATE SET Name = 'x'; INSERT INTO #tmp SELECT * FROM @t"),
      (std::vector<std::string>{"dbo.Meetings", "dbo.WriteAudit", "dbo.Rooms", "#tmp"}));
}

TEST(CodeCompactorTest, UnknownTextIsUnchanged) {
  EXPECT_EQ(compact_code("  some prose\n\n", CodeKind::kUnknown), "  some prose\n\n");
  EXPECT_EQ(drop_blank_lines("a  \n\n\n  b\t\n"), "a\n  b");
}

/// Every .cs / .sql file of the test repository (as indexed: bin/ and *.generated.cs skipped).
std::vector<fs::path> repo_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(kRepo)) {
    fs::path rel = fs::relative(entry.path(), kRepo);
    std::string ext = rel.extension().string();
    if (!entry.is_regular_file() || (ext != ".cs" && ext != ".sql")) continue;
    if (*rel.begin() == "bin" || rel.filename().string().ends_with(".generated.cs")) continue;
    files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(CodeCompactorTest, KeepsEverySqlObjectNameOfTheTestRepository) {
  for (const fs::path& rel : repo_files()) {
    std::string text = read(kRepo / rel);
    CodeKind kind = classify_code(text);
    if (kind != CodeKind::kSql) continue;
    std::string compact = compact_code(text, kind);
    for (const std::string& name : sql_object_names(text)) {
      EXPECT_NE(compact.find(name), std::string::npos) << rel << ": " << name;
    }
    EXPECT_EQ(compact.find("--"), std::string::npos) << rel;
  }
}

TEST(CodeCompactorTest, TokenSavingOverTheTestRepository) {
  auto counter = token_counter_for("o200k_base");
  std::size_t before = 0;
  std::size_t after = 0;
  for (const fs::path& rel : repo_files()) {
    std::string text = read(kRepo / rel);
    std::string compact = compact_code(text, classify_code(text));
    before += counter->count(text);
    after += counter->count(compact);
    EXPECT_LE(counter->count(compact), counter->count(text)) << rel;
  }
  std::cout << "compaction over " << repo_files().size() << " files: " << before << " -> " << after
            << " o200k_base tokens\n";
  EXPECT_EQ(repo_files().size(), 30u);
  EXPECT_EQ(before, 2537u);
  EXPECT_EQ(after, 1694u);  // 33.2% saved
}

}  // namespace
}  // namespace attractor
