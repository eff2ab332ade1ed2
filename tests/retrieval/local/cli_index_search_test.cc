#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

struct Result {
  int code = -1;
  std::string out;
};

Result run(const std::string& args) {
  std::string cmd = std::string(ATTRACTOR_BINARY_PATH) + " " + args + " 2>/dev/null";
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

}  // namespace
}  // namespace attractor::retrieval
