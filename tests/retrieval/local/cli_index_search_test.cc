#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "retrieval/local/index_store.h"
#include "retrieval/local/local_backend.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

struct Result {
  int code = -1;
  std::string out;
};

/// Runs `attractor ARGS`; its stderr goes to `err_file` ("" for /dev/null).
Result run(const std::string& args, const std::string& err_file = "") {
  std::string cmd = std::string(ATTRACTOR_BINARY_PATH) + " " + args + " 2>" +
                    (err_file.empty() ? "/dev/null" : err_file);
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(CliIndexSearchTest, IndexThenSearchAsJson) {
  testing::TempDir dir;
  std::string repo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo";
  auto idx = run("index " + repo + " --index " + dir.str() + " --repository acme --branch main --acl " + repo +
                 "/acl.json");
  ASSERT_EQ(idx.code, 0) << idx.out;
  EXPECT_NE(idx.out.find("files: 30 seen, 30 indexed"), std::string::npos) << idx.out;
  EXPECT_NE(idx.out.find("maps_to=3"), std::string::npos) << idx.out;

  auto s = run("search --index " + dir.str() +
               " --repository acme --branch main --type bm25 --top-k 1 --json CancelMeeting");
  ASSERT_EQ(s.code, 0);
  auto j = nlohmann::json::parse(s.out);
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["id"], "sql:dbo.CancelMeeting");
  EXPECT_EQ(j["hits"][0]["path"], "db/procedures/CancelMeeting.sql");
  EXPECT_EQ(j["hits"][0]["start_line"], 1);
  EXPECT_EQ(j["hits"][0]["end_line"], 9);

  auto text = run("search --index " + dir.str() + " --repository acme --branch main --top-k 2 meeting");
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("  1  "), std::string::npos) << text.out;

  auto hidden = run(
      "search --index " + dir.str() +
      " --repository acme --branch main --type bm25 --json --filters '{\"acl_tags_any\":[\"public\"]}' salaries");
  ASSERT_EQ(hidden.code, 0);
  EXPECT_TRUE(nlohmann::json::parse(hidden.out)["hits"].empty());

  EXPECT_EQ(run("search --index " + dir.str() + " --repository acme --branch dev x").code, 3);
  EXPECT_EQ(
      run("search --index " + dir.str() + " --repository acme --branch main --filters '{\"tenant\":null}' x").code, 2);
  EXPECT_EQ(run("search --index " + dir.str() + " --repository acme --branch main --filters 'nope' x").code, 2);
  EXPECT_EQ(run("search --index " + dir.str() + "/missing --repository acme --branch main x").code, 3);
  EXPECT_EQ(run("index " + repo + " --index " + dir.str() + " --repository acme").code, 2);
}

std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// (id, path, start_line, end_line, text) of every node of the index, by id.
std::vector<std::tuple<std::string, std::string, int, int, std::string>> index_nodes(const std::string& index_dir) {
  IndexStore store(index_dir, false);
  auto q = store.db().prepare("SELECT id, path, start_line, end_line, text FROM nodes ORDER BY id");
  std::vector<std::tuple<std::string, std::string, int, int, std::string>> out;
  while (q.step()) {
    out.emplace_back(q.text(0), q.text(1), static_cast<int>(q.integer(2)), static_cast<int>(q.integer(3)), q.text(4));
  }
  return out;
}

TEST(CliIndexSearchTest, IndexReadsEveryEncodingSkipsBinaryAndSurvivesMalformedCSharp) {
  testing::TempDir dir;
  std::string repo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/encodings_repo";
  std::string err = dir.str() + "/stderr.txt";
  auto idx = run("index " + repo + " --index " + dir.str() + "/idx --repository acme --branch main", err);
  ASSERT_EQ(idx.code, 0) << idx.out << slurp_file(err);
  EXPECT_NE(idx.out.find("files: 9 seen, 8 indexed, 0 unchanged, 0 removed, 1 skipped\n"), std::string::npos)
      << idx.out;
  EXPECT_EQ(slurp_file(err),
            "Binary.cs: warning: binary file: NUL byte at line 1, column 4; skipped\n"
            "Cp1252.cs: warning: not UTF-8 (byte 0xfc at line 2, column 6); read as Windows-1252\n"
            "Malformed.cs:1:26: warning: syntax error near '{'\n"
            "Malformed.cs:3:9: warning: syntax error near ':'\n"
            "Malformed.cs:4:9: warning: syntax error near ': y'\n"
            "Malformed.cs:5:5: warning: syntax error near 'Call'\n"
            "db/Utf16LeNoBom.sql: warning: no byte-order mark; read as UTF-16 LE (NUL bytes in every other "
            "position)\n");
  using Node = std::tuple<std::string, std::string, int, int, std::string>;
  EXPECT_EQ(
      index_nodes(dir.str() + "/idx"),
      (std::vector<Node>{
          {"cs:Enc.Cp1252", "Cp1252.cs", 3, 3, "public class Cp1252 { string Euro() => \"€\"; }"},
          {"cs:Enc.Cp1252.Euro()", "Cp1252.cs", 3, 3, "string Euro() => \"€\";"},
          {"cs:Enc.Utf16Be", "Utf16Be.cs", 2, 2, "public class Utf16Be { string S() => \"Grüße\"; }"},
          {"cs:Enc.Utf16Be.S()", "Utf16Be.cs", 2, 2, "string S() => \"Grüße\";"},
          {"cs:Enc.Utf32Le", "Utf32Le.cs", 2, 2, "public class Utf32Le { }"},
          {"cs:Enc.Utf8", "Utf8.cs", 3, 3, "public class Utf8 { public string Hi() => \"€\"; }"},
          {"cs:Enc.Utf8.Hi()", "Utf8.cs", 3, 3, "public string Hi() => \"€\";"},
          {"cs:Enc.Utf8Bom", "Utf8Bom.cs", 2, 2, "public class Utf8Bom { }"},
          {"cs:Foo", "Malformed.cs", 1, 6,
           "public partial class Foo {\n{\n    Name: x,\n    Kind: y,\n    Call(a);\n}"},
          {"sql:dbo.Greet", "db/Utf16LeNoBom.sql", 1, 1,
           "CREATE PROCEDURE dbo.Greet AS SELECT Text FROM dbo.Greetings;"},
          {"sql:dbo.Greetings", "db/Utf16LeBom.sql", 1, 1, "CREATE TABLE dbo.Greetings (Id int, Text nvarchar(20));"},
      }));
  LocalBackend backend(dir.str() + "/idx");
  auto texts = backend.fetch_texts({"cs:Enc.Cp1252", "cs:Enc.Utf16Be.S()"}, "acme", "main", nlohmann::json::object(),
                                   std::nullopt);
  EXPECT_EQ(texts,
            (std::map<std::string, std::string>{{"cs:Enc.Cp1252", "public class Cp1252 { string Euro() => \"€\"; }"},
                                                {"cs:Enc.Utf16Be.S()", "string S() => \"Grüße\";"}}));

  auto again = run("index " + repo + " --index " + dir.str() + "/idx --repository acme --branch main", err);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("files: 9 seen, 0 indexed, 8 unchanged, 0 removed, 1 skipped\n"), std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("parse issues: 7 (6 in unchanged files)\n"), std::string::npos) << again.out;
  EXPECT_EQ(slurp_file(err), "Binary.cs: warning: binary file: NUL byte at line 1, column 4; skipped\n");
}

TEST(CliIndexSearchTest, MaxFileBytesSkipsLargerFilesWithOneWarningEach) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / "src");
  auto write_class = [&](const std::string& name, size_t size) {
    std::string text = "public class " + name + " { }\n//";
    text.resize(size - 1, 'x');
    std::ofstream(dir.path() / "src" / (name + ".cs"), std::ios::binary) << text << "\n";
  };
  write_class("AtLimit", 2097152);
  write_class("OverLimit", 2097153);
  std::string src = dir.str() + "/src";
  std::string err = dir.str() + "/stderr.txt";
  auto idx = run("index " + src + " --index " + dir.str() + "/idx --repository acme --branch main", err);
  ASSERT_EQ(idx.code, 0) << slurp_file(err);
  EXPECT_NE(idx.out.find("files: 2 seen, 1 indexed, 0 unchanged, 0 removed, 1 skipped\n"), std::string::npos)
      << idx.out;
  EXPECT_EQ(slurp_file(err),
            "OverLimit.cs: warning: file is 2097153 bytes, more than --max-file-bytes 2097152; skipped\n");
  EXPECT_EQ(std::get<0>(index_nodes(dir.str() + "/idx").at(0)), "cs:AtLimit");

  auto none = run(
      "index " + src + " --index " + dir.str() + "/idx --repository acme --branch main --max-file-bytes 100", err);
  EXPECT_EQ(none.code, 3);
  EXPECT_EQ(slurp_file(err),
            "AtLimit.cs: warning: file is 2097152 bytes, more than --max-file-bytes 100; skipped\n"
            "OverLimit.cs: warning: file is 2097153 bytes, more than --max-file-bytes 100; skipped\n"
            "attractor index: error: none of the 2 source files could be read (each was skipped; the warnings "
            "name them, run without --quiet to see them)\n");
  EXPECT_TRUE(index_nodes(dir.str() + "/idx").empty()) << "a skipped file's old nodes are dropped";
  EXPECT_EQ(
      run("index " + src + " --index " + dir.str() + "/idx --repository acme --branch main --max-file-bytes 0").code,
      2);
}

TEST(CliIndexSearchTest, IncludeAndExcludeRepeatAndSearchPrefersSourceRoles) {
  testing::TempDir dir;
  std::string repo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/roles_repo";
  std::string idx_dir = dir.str() + "/idx";
  auto idx = run("index " + repo + " --index " + idx_dir +
                 " --repository shop --branch main --include src --include 'tests/**' --include ignored"
                 " --exclude src/Legacy --exclude '**/*.g.cs' --exclude '**/*.Designer.cs'");
  ASSERT_EQ(idx.code, 0) << idx.out;
  EXPECT_NE(idx.out.find("files: 7 seen, 7 indexed, 0 unchanged, 0 removed, 0 skipped\n"), std::string::npos)
      << idx.out;
  std::set<std::string> paths;
  for (const auto& node : index_nodes(idx_dir)) paths.insert(std::get<1>(node));
  EXPECT_EQ(paths, (std::set<std::string>{"src/Shop.UnitTests/FakeClock.cs", "src/Shop/Banner.cs",
                                          "src/Shop/InvoiceService.cs", "src/Shop/Migrations/AddInvoices.cs",
                                          "src/Shop/OrderTest.cs", "src/Sql/dbo/Tables/Invoice.sql",
                                          "tests/Shop.Tests/InvoiceServiceTests.cs"}));

  auto s = run("search --index " + idx_dir +
               " --repository shop --branch main --type bm25 --top-k 1 --json ComputeTotal");
  ASSERT_EQ(s.code, 0);
  auto j = nlohmann::json::parse(s.out);
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["id"], "cs:Shop.InvoiceService.ComputeTotal(decimal,decimal,string)");
  EXPECT_EQ(j["debug"]["demoted_roles"], nlohmann::json({"generated", "migration", "test"}));
  EXPECT_EQ(run("index " + repo + " --index " + idx_dir + " --repository shop --branch main --include").code, 2);
}

}  // namespace
}  // namespace attractor::retrieval
