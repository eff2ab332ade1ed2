// Worktree runs through the server (docs/server.md, docs/workspace.md): the start request's
// `workspace` and `workdir` (inside the workdir root), and the diff endpoints.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "attractor/base/input_file.h"
#include "support/git_repo.h"
#include "support/hardening_support.h"
#include "support/server_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::kTestToken;
using testing::TestServer;

const char kEdits[] =
    "digraph Edits { start [shape=Mdiamond] exit [shape=Msquare]\n"
    "  edit [shape=parallelogram, tool_command=\"printf 'two\\\\n' >> a.txt\"]\n"
    "  look [shape=parallelogram, tool_command=\"cat a.txt\"]\n"
    "  start -> edit -> look -> exit }";

TEST(ServerWorkspaceTest, AStartRequestRunsInAWorktreeAndTheDiffEndpointsShowIt) {
  hardening::ScratchDir dir;
  const std::string repo = dir.sub("work/repo");
  testing::make_repo(repo, {{"a.txt", "one\n"}});
  const std::string before = testing::tree_snapshot(repo);
  ServerConfig config;
  config.allow_commands = true;
  config.workdir_root = dir.sub("work");
  TestServer server(1, kTestToken, config);

  auto bad = server.post("/pipelines", {{"dot", kEdits}, {"workspace", "elsewhere"}, {"workdir", "repo"}});
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(json::parse(bad->body)["error"], "workspace must be \"worktree\" or \"in-place\" (docs/workspace.md)");

  std::filesystem::create_directories(dir.sub("work/plain"));
  auto plain = server.post("/pipelines", {{"dot", kEdits}, {"workspace", "worktree"}, {"workdir", "plain"}});
  EXPECT_EQ(plain->status, 400) << plain->body;
  EXPECT_NE(plain->body.find("is not inside a git repository"), std::string::npos) << plain->body;
  EXPECT_EQ(json::parse(server.get("/pipelines")->body), json::array()) << "no run was created";

  const std::string id = server.start({{"dot", kEdits}, {"workspace", "worktree"}, {"workdir", "repo"}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  EXPECT_EQ(testing::tree_snapshot(repo), before) << "the checkout is untouched";
  const std::string run_dir = (fs::path(server.logs_root()) / id).string();
  const json manifest = json::parse(read_text_file(run_dir + "/manifest.json"));
  const std::string branch = manifest["workspace"]["branch"];
  const std::string base = manifest["workspace"]["base_commit"];
  EXPECT_EQ(testing::git(repo, {"show", branch + ":a.txt"}), "one\ntwo\n");

  auto whole = server.get("/pipelines/" + id + "/diff");
  ASSERT_EQ(whole->status, 200) << whole->body;
  EXPECT_EQ(json::parse(whole->body)["patch"], testing::git(repo, {"diff", "--binary", base, branch}));
  EXPECT_EQ(json::parse(whole->body)["files"], 1);
  auto edit = server.get("/pipelines/" + id + "/stages/edit/diff");
  ASSERT_EQ(edit->status, 200);
  EXPECT_EQ(json::parse(edit->body)["patch"], json::parse(whole->body)["patch"]);
  auto look = server.get("/pipelines/" + id + "/stages/look@1/diff");
  EXPECT_EQ(json::parse(look->body)["files"], 0);
  auto ghost = server.get("/pipelines/" + id + "/stages/ghost/diff");
  EXPECT_EQ(ghost->status, 404);
  EXPECT_EQ(json::parse(ghost->body)["error"],
            "the run never completed node 'ghost' (valid points: start@1, edit@1, look@1)");
  auto described = json::parse(server.get("/pipelines/" + id)->body);
  EXPECT_EQ(described["workspace"]["branch"], branch) << described.dump();
}

TEST(ServerWorkspaceTest, AnInPlaceRunHasNoDiff) {
  TestServer server;
  const std::string id = server.start(
      {{"dot", "digraph P { start [shape=Mdiamond] exit [shape=Msquare] start -> exit }"}, {"simulate", true}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  auto d = server.get("/pipelines/" + id + "/diff");
  EXPECT_EQ(d->status, 404);
  EXPECT_NE(json::parse(d->body)["error"].get<std::string>().find("is an in-place run"), std::string::npos);
}

}  // namespace
}  // namespace attractor
