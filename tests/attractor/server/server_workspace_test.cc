// Worktree runs through the server (docs/server.md, docs/workspace.md): the start request's
// `workspace` and `workdir` (inside the workdir root), the diff endpoints, and rewind and fork.

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

TEST(ServerWorkspaceTest, RewindAndForkTakeAPointOnlyAndResumeContinuesThem) {
  hardening::ScratchDir dir;
  const std::string repo = dir.sub("work/repo");
  testing::make_repo(repo, {{"a.txt", "one\n"}});
  ServerConfig config;
  config.allow_commands = true;
  config.workdir_root = dir.sub("work");
  TestServer server(1, kTestToken, config);
  const std::string id = server.start({{"dot", kEdits}, {"workspace", "worktree"}, {"workdir", "repo"}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  const std::string run_dir = (fs::path(server.logs_root()) / id).string();

  for (const json& body : {json{{"to", 3}}, json{{"at", "edit"}}, json::array(), json{{"to", std::string(300, 'x')}}}) {
    auto bad = server.post("/pipelines/" + id + "/rewind", body);
    EXPECT_EQ(bad->status, 400) << body.dump();
    EXPECT_EQ(json::parse(bad->body)["error"], "the body must be {\"to\": \"NODE\" or \"NODE@VISIT\"}");
  }
  auto ghost = server.post("/pipelines/" + id + "/fork", {{"at", "ghost"}});
  EXPECT_EQ(ghost->status, 400);
  EXPECT_EQ(json::parse(ghost->body)["error"],
            "the run never completed node 'ghost' (valid points: start@1, edit@1, look@1)");
  EXPECT_EQ(server.post("/pipelines/nope/rewind", {{"to", "edit"}})->status, 404);

  auto fork = server.post("/pipelines/" + id + "/fork", {{"at", "edit"}});
  ASSERT_EQ(fork->status, 201) << fork->body;
  const json forked = json::parse(fork->body);
  const std::string fork_id = forked["id"];
  EXPECT_EQ(forked["from"], id);
  EXPECT_EQ(forked["at"], "edit@1");
  EXPECT_EQ(fs::path(run_dir).parent_path(), fs::path(server.logs_root())) << "under the logs root";
  EXPECT_TRUE(fs::exists(fs::path(server.logs_root()) / fork_id / "worktree" / "a.txt"));
  EXPECT_EQ(server.post("/pipelines/" + fork_id + "/resume", json::object())->status, 202);
  ASSERT_TRUE(server.wait_status(fork_id, "completed"));
  EXPECT_EQ(json::parse(read_text_file(
                (fs::path(server.logs_root()) / fork_id / "checkpoint.json").string()))["completed_nodes"],
            json({"start", "edit", "look"}));

  auto rewound = server.post("/pipelines/" + id + "/rewind", {{"to", "edit@1"}});
  ASSERT_EQ(rewound->status, 200) << rewound->body;
  const json r = json::parse(rewound->body);
  EXPECT_EQ(r["to"], "edit@1");
  EXPECT_EQ(r["archive"], "rewound-1");
  EXPECT_EQ(r["next_node"], "look");
  EXPECT_EQ(r["moved"], 1);
  EXPECT_TRUE(fs::exists(run_dir + "/rewound-1/look/status.json"));
  auto events = server.get("/pipelines/" + id + "/events");
  EXPECT_NE(events->body.find("\"event\":\"RunRewound\""), std::string::npos) << "the stream reads the file again";
  EXPECT_EQ(server.post("/pipelines/" + id + "/resume", json::object())->status, 202);
  ASSERT_TRUE(server.wait_status(id, "completed"));
  EXPECT_EQ(json::parse(read_text_file(run_dir + "/checkpoint.json"))["completed_nodes"],
            json({"start", "edit", "look"}));
}

TEST(ServerWorkspaceTest, ARunStillRunningIsNeitherRewoundNorForked) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  auto rewind = server.post("/pipelines/" + id + "/rewind", {{"to", "start"}});
  EXPECT_EQ(rewind->status, 409);
  EXPECT_EQ(json::parse(rewind->body)["error"], "run " + id + " is running: cancel it first");
  EXPECT_EQ(server.post("/pipelines/" + id + "/fork", {{"at", "start"}})->status, 409);
  EXPECT_EQ(server.post("/pipelines/" + id + "/cancel", json::object())->status, 200);
  ASSERT_TRUE(server.wait_status(id, "cancelled"));
  auto in_place = server.post("/pipelines/" + id + "/rewind", {{"to", "start"}});
  EXPECT_EQ(in_place->status, 400) << "stopped, but in place";
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
