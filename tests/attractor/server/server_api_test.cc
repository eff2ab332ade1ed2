// The API of `attractor serve` through real HTTP requests on a loopback port: starting runs, the
// gate round trip for every question type, cancel/resume, the queue, the views of a run, and runs
// shared with the command line.

#include <filesystem>
#include <fstream>

#include <signal.h>

#include <gtest/gtest.h>

#include "support/cli_test_support.h"
#include "support/server_test_support.h"

namespace attractor::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json body_of(const httplib::Result& res) { return json::parse(res->body); }

TEST(ServerApiTest, HealthAnswers) {
  TestServer server;
  auto res = server.get("/health");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(body_of(res)["status"], "ok");
  EXPECT_EQ(body_of(res)["running"], 0);
}

TEST(ServerApiTest, AGateIsAnsweredThroughTheApi) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}});
  json q = server.wait_question(id);
  ASSERT_TRUE(q.is_object());
  EXPECT_EQ(q["id"], "q1");
  EXPECT_EQ(q["stage"], "approve");
  EXPECT_EQ(q["type"], "multiple_choice");
  EXPECT_EQ(q["text"], "Ship it?");
  EXPECT_EQ(q["options"], json::parse(R"([{"key":"A","label":"[A] Approve"},{"key":"R","label":"[R] Revise"}])"));
  EXPECT_TRUE(q["timeout_s"].is_null());

  auto wrong = server.post("/pipelines/" + id + "/questions/q1/answer", {{"answer", "Z"}});
  EXPECT_EQ(wrong->status, 400);
  EXPECT_EQ(body_of(wrong)["error"], "'Z' is not an answer to this question (options: A, R)");
  EXPECT_EQ(body_of(server.get("/pipelines/" + id + "/questions")).size(), 1u) << "a wrong answer picks nothing";

  auto right = server.post("/pipelines/" + id + "/questions/q1/answer", {{"answer", "[A] Approve"}});
  EXPECT_EQ(right->status, 200) << right->body;
  auto twice = server.post("/pipelines/" + id + "/questions/q1/answer", {{"answer", "A"}});
  EXPECT_EQ(twice->status, 409);
  EXPECT_EQ(body_of(twice)["error"], "question q1 was already answered or timed out");
  auto unknown = server.post("/pipelines/" + id + "/questions/q9/answer", {{"answer", "A"}});
  EXPECT_EQ(unknown->status, 404);

  ASSERT_TRUE(server.wait_status(id, "completed"));
  json status = body_of(server.get("/pipelines/" + id + "/stages/approve"))["status"];
  EXPECT_EQ(status["gate"]["answered_by"], "web");
  EXPECT_EQ(status["gate"]["answer"], "[A] Approve");
}

TEST(ServerApiTest, AllFourQuestionTypesWork) {
  TestServer server;
  server.add_graph("types.dot", R"(digraph Types {
    start [shape=Mdiamond]
    yn [shape=hexagon, label="Continue?", human.question_type=yes_no]
    confirm [shape=hexagon, label="Sure?", human.question_type=confirmation]
    notes [shape=hexagon, label="Notes?", human.question_type=freeform]
    exit [shape=Msquare]
    start -> yn
    yn -> confirm [label="Yes"]
    yn -> exit [label="No"]
    confirm -> notes [label="Yes"]
    notes -> exit
  })");
  const std::string id = server.start({{"graph", "types.dot"}});
  const std::vector<std::pair<std::string, std::string>> steps = {
      {"yes_no", "yes"}, {"confirmation", "y"}, {"freeform", "ship it <b>today</b>"}};
  for (const auto& [type, answer] : steps) {
    json q = server.wait_question(id);
    ASSERT_TRUE(q.is_object()) << type;
    EXPECT_EQ(q["type"], type);
    if (type != "freeform") {
      EXPECT_EQ(
          server
              .post("/pipelines/" + id + "/questions/" + q["id"].get<std::string>() + "/answer", {{"answer", "maybe"}})
              ->status,
          400);
    }
    auto res = server.post("/pipelines/" + id + "/questions/" + q["id"].get<std::string>() + "/answer",
                           {{"answer", answer}});
    EXPECT_EQ(res->status, 200) << res->body;
  }
  ASSERT_TRUE(server.wait_status(id, "completed"));
  json context = body_of(server.get("/pipelines/" + id + "/context"));
  EXPECT_EQ(context["human.gate.text"], "ship it <b>today</b>");
}

TEST(ServerApiTest, ATimeoutAppliesTheDefaultChoice) {
  TestServer server;
  server.add_graph("timeout.dot", R"(digraph T {
    start [shape=Mdiamond]
    approve [shape=hexagon, label="Ship it?", timeout="1s", human.default_choice="R"]
    revise [shape=box, prompt="revise", llm_provider=simulate]
    exit [shape=Msquare]
    start -> approve
    approve -> exit [label="[A] Approve"]
    approve -> revise [label="[R] Revise"]
    revise -> exit
  })");
  const std::string id = server.start({{"graph", "timeout.dot"}});
  json q = server.wait_question(id);
  EXPECT_EQ(q["default"], "R");
  EXPECT_EQ(q["timeout_s"], 1.0);
  ASSERT_TRUE(server.wait_status(id, "completed"));
  json stage = body_of(server.get("/pipelines/" + id + "/stages/approve"));
  EXPECT_EQ(stage["status"]["gate"]["answered_by"], "timeout-default");
  EXPECT_TRUE(fs::exists(fs::path(server.logs_root()) / id / "revise" / "status.json"));
  auto late = server.post("/pipelines/" + id + "/questions/" + q["id"].get<std::string>() + "/answer",
                          {{"answer", "A"}});
  EXPECT_EQ(late->status, 409) << "the gate timed out";
}

TEST(ServerApiTest, AGraphWithLintErrorsIsRefusedWithItsDiagnostics) {
  TestServer server;
  auto res = server.post("/pipelines", {{"dot", "digraph G { a -> b }"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  json body = body_of(res);
  EXPECT_EQ(body["exit_code"], 2);
  ASSERT_FALSE(body["diagnostics"].empty());
  bool start_rule = false;
  for (const json& d : body["diagnostics"]) start_rule |= d["rule"] == "start_node";
  EXPECT_TRUE(start_rule) << body.dump();
  EXPECT_TRUE(fs::is_empty(server.logs_root())) << "nothing is created for a refused run";
}

TEST(ServerApiTest, MalformedRequestsAreRefusedWithAReason) {
  TestServer server;
  auto expect = [&](const json& body, int status, const std::string& error) {
    auto res = server.post("/pipelines", body);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, status) << body.dump();
    EXPECT_EQ(body_of(res)["error"], error) << body.dump();
  };
  expect({{"graph", "gate.dot"}, {"simulte", true}}, 400, "unknown field 'simulte'");
  expect({{"graph", "gate.dot"}, {"dot", "digraph G {}"}}, 400, "give either dot or graph");
  expect({{"graph", "gate.dot"}, {"simulate", "yes"}}, 400, "simulate must be true or false");
  expect({{"graph", "../gate.dot"}}, 400, "graph must not contain '.' or '..'");
  expect({{"graph", "/etc/passwd.dot"}}, 400, "graph must be a relative path to a .dot file");
  expect({{"graph", "missing.dot"}}, 400, "no graph 'missing.dot' in the graphs directory");
  auto bad_json = server.client()->Post("/pipelines", "{not json", "application/json");
  EXPECT_EQ(bad_json->status, 400);
  EXPECT_TRUE(fs::is_empty(server.logs_root()));
}

TEST(ServerApiTest, CancelKeepsTheCheckpointAndResumeAsksTheGateAgain) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  auto cancel = server.post("/pipelines/" + id + "/cancel", json::object());
  EXPECT_EQ(cancel->status, 200);
  ASSERT_TRUE(server.wait_status(id, "cancelled"));
  EXPECT_EQ(server.post("/pipelines/" + id + "/cancel", json::object())->status, 409);
  json checkpoint = body_of(server.get("/pipelines/" + id + "/checkpoint"));
  EXPECT_EQ(checkpoint["completed_nodes"], json::parse(R"(["start","work"])"));

  auto resume = server.post("/pipelines/" + id + "/resume", json::object());
  EXPECT_EQ(resume->status, 202) << resume->body;
  json q = server.wait_question(id);
  EXPECT_EQ(q["id"], "q2") << "question ids continue across a resume";
  EXPECT_EQ(server.post("/pipelines/" + id + "/questions/q1/answer", {{"answer", "A"}})->status, 404);
  EXPECT_EQ(server.post("/pipelines/" + id + "/questions/q2/answer", {{"answer", "A"}})->status, 200);
  ASSERT_TRUE(server.wait_status(id, "completed"));
  EXPECT_EQ(server.post("/pipelines/" + id + "/resume", json::object())->status, 409);
}

TEST(ServerApiTest, CancelKillsTheRunningToolAndKeepsTheCheckpoint) {
  ServerConfig config;
  config.allow_commands = true;
  config.sandbox_floor = "none";  // the tool's pid, as this process sees it, goes into the run directory
  TestServer server(2, kTestToken, config);
  server.add_graph("slow.dot", R"(digraph Slow {
    start [shape=Mdiamond]
    slow [shape=parallelogram, tool_command="echo $$ > \"$ATTRACTOR_RUN_DIR/tool.pid\"; exec sleep 60"]
    exit [shape=Msquare]
    start -> slow -> exit
  })");
  const std::string id = server.start({{"graph", "slow.dot"}});
  const fs::path pid_file = fs::path(server.logs_root()) / id / "tool.pid";
  ASSERT_TRUE(eventually([&] { return fs::exists(pid_file) && fs::file_size(pid_file) > 0; }));
  pid_t pid = 0;
  std::ifstream(pid_file) >> pid;
  ASSERT_GT(pid, 0);
  const auto asked = std::chrono::steady_clock::now();
  EXPECT_EQ(server.post("/pipelines/" + id + "/cancel", json::object())->status, 200);
  ASSERT_TRUE(server.wait_status(id, "cancelled", 15));
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(15));
  EXPECT_TRUE(eventually([&] { return ::kill(pid, 0) != 0; }, 5)) << "the tool's process is gone";
  json checkpoint = body_of(server.get("/pipelines/" + id + "/checkpoint"));
  EXPECT_EQ(checkpoint["completed_nodes"], json::parse(R"(["start"])"));
  EXPECT_EQ(checkpoint["next_node"], "slow");
}

/// A server with one slot, taken by a run of kHoldDot (its id in `holder`) until released.
std::unique_ptr<TestServer> one_slot_taken(std::string& holder) {
  ServerConfig config;
  config.allow_commands = true;
  auto server = std::make_unique<TestServer>(1, kTestToken, config);
  server->add_graph("hold.dot", kHoldDot);
  holder = server->start({{"graph", "hold.dot"}});
  EXPECT_TRUE(server->wait_file(holder, "hold/started"));
  return server;
}

TEST(ServerApiTest, RunsBeyondTheLimitQueueAndCanBeCancelledThere) {
  std::string first;
  auto holder = one_slot_taken(first);
  TestServer& server = *holder;
  auto second = server.post("/pipelines", {{"graph", "gate.dot"}});
  ASSERT_EQ(second->status, 201);
  const std::string queued = body_of(second)["id"];
  EXPECT_EQ(body_of(second)["status"], "queued");
  EXPECT_EQ(body_of(server.get("/pipelines/" + queued))["status"], "queued");
  EXPECT_EQ(body_of(server.get("/health"))["queued"], 1);
  EXPECT_EQ(server.post("/pipelines/" + queued + "/cancel", json::object())->status, 200);
  ASSERT_TRUE(server.wait_status(queued, "cancelled"));
  EXPECT_FALSE(fs::exists(fs::path(server.logs_root()) / queued / "checkpoint.json")) << "it never ran";

  const std::string third = server.start({{"graph", "gate.dot"}});
  EXPECT_EQ(body_of(server.get("/pipelines/" + third))["status"], "queued");
  server.release(first);
  ASSERT_TRUE(server.wait_status(first, "completed"));
  EXPECT_TRUE(server.wait_question(third).is_object()) << "the queued run starts when a slot frees";
}

TEST(ServerApiTest, EveryViewAnswersARunThatIsQueued) {
  std::string holder;
  auto owner = one_slot_taken(holder);
  TestServer& server = *owner;
  const std::string id = server.start({{"graph", "gate.dot"}});
  ASSERT_EQ(body_of(server.get("/pipelines/" + id))["status"], "queued");
  ASSERT_FALSE(fs::exists(fs::path(server.logs_root()) / id / "manifest.json"));
  auto graph = server.get("/pipelines/" + id + "/graph");
  ASSERT_EQ(graph->status, 200) << graph->body;
  EXPECT_EQ(graph->get_header_value("Content-Type"), "image/svg+xml");
  EXPECT_NE(graph->body.find("<title>approve</title>"), std::string::npos);
  EXPECT_EQ(body_of(server.get("/pipelines/" + id + "/questions")), json::array());
  auto checkpoint = server.get("/pipelines/" + id + "/checkpoint");
  EXPECT_EQ(checkpoint->status, 404);
  EXPECT_EQ(body_of(checkpoint)["error"], "run " + id + " has no checkpoint yet");
  EXPECT_EQ(server.get("/pipelines/" + id + "/stages/start")->status, 404);
  server.release(holder);
  EXPECT_TRUE(server.wait_question(id).is_object());
}

TEST(ServerApiTest, TheGraphIsDrawnRightAfterThePost) {
  TestServer server;
  for (int i = 0; i < 3; ++i) {
    const std::string id = server.start({{"graph", "gate.dot"}});
    auto graph = server.get("/pipelines/" + id + "/graph");
    ASSERT_TRUE(graph);
    EXPECT_EQ(graph->status, 200) << graph->body;
    ASSERT_TRUE(server.wait_question(id).is_object());
    EXPECT_EQ(server.post("/pipelines/" + id + "/cancel", json::object())->status, 200);
  }
}

TEST(ServerApiTest, AStoppedServerLeavesItsRunsInterruptedAndResumable) {
  auto server = std::make_unique<TestServer>();
  const std::string id = server->start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server->wait_question(id).is_object());
  server->stop();
  RunRegistry restarted({server->logs_root(), server->graphs_dir(), 1});
  ASSERT_TRUE(restarted.describe(id));
  EXPECT_EQ((*restarted.describe(id))["status"], "interrupted");
  ApiReply resumed = restarted.resume(id);
  EXPECT_EQ(resumed.status, 202) << resumed.body.dump();
  ASSERT_TRUE(
      eventually([&] { return restarted.served(id) && restarted.served(id)->interviewer->pending_count() == 1; }));
  std::string error;
  EXPECT_EQ(restarted.served(id)->interviewer->answer("q1", "A", &error), AnswerResult::kAccepted) << error;
  ASSERT_TRUE(eventually([&] { return (*restarted.describe(id))["status"] == "completed"; }));
}

TEST(ServerApiTest, AQueuedRunLostInARestartShowsInterruptedAndResumeStartsIt) {
  std::string first;
  auto server = one_slot_taken(first);
  const std::string queued = server->start({{"graph", "gate.dot"}, {"context", {{"ticket", "T-9"}}}});
  EXPECT_EQ(body_of(server->get("/pipelines/" + queued))["status"], "queued");
  server->stop();
  EXPECT_TRUE(fs::exists(fs::path(server->logs_root()) / queued / "request.json"));
  EXPECT_FALSE(fs::exists(fs::path(server->logs_root()) / queued / "checkpoint.json"));

  RunRegistry restarted({server->logs_root(), server->graphs_dir(), 2});
  json status = *restarted.describe(queued);
  EXPECT_EQ(status["status"], "interrupted");
  EXPECT_EQ(status["reason"], "stopped before it started");
  bool listed = false;
  for (const json& r : restarted.list()) listed |= r["id"] == queued && r["status"] == "interrupted";
  EXPECT_TRUE(listed);
  ApiReply resumed = restarted.resume(queued);
  ASSERT_EQ(resumed.status, 202) << resumed.body.dump();
  ASSERT_TRUE(eventually([&] { return restarted.served(queued)->interviewer->pending_count() == 1; }));
  std::string error;
  EXPECT_EQ(restarted.served(queued)->interviewer->answer("q1", "A", &error), AnswerResult::kAccepted) << error;
  ASSERT_TRUE(eventually([&] { return (*restarted.describe(queued))["status"] == "completed"; }));
  json checkpoint = json::parse(std::ifstream(fs::path(server->logs_root()) / queued / "checkpoint.json"));
  EXPECT_EQ(checkpoint["context"]["ticket"], "T-9") << "the request's inline context came back";
}

TEST(ServerApiTest, RunsStartedOnTheCommandLineAreListedAndCliResumesServerRuns) {
  TestServer server;
  const std::string cli_run = (fs::path(server.logs_root()) / "from-cli").string();
  CommandResult r = run_attractor({"run", (fs::path(server.graphs_dir()) / "gate.dot").string(), "--auto-approve",
                                   "--logs-root", cli_run, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json list = body_of(server.get("/pipelines"));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], "from-cli");
  EXPECT_EQ(list[0]["status"], "completed");

  const std::string id = server.start({{"dot", kGateDot}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  server.post("/pipelines/" + id + "/cancel", json::object());
  ASSERT_TRUE(server.wait_status(id, "cancelled"));
  EXPECT_TRUE(fs::exists(fs::path(server.logs_root()) / id / "pipeline.dot"));
  const std::string answers = (fs::path(server.logs_root()) / "answers.json").string();
  std::ofstream(answers) << R"({"approve": "A"})";
  CommandResult resumed = run_attractor({"resume", (fs::path(server.logs_root()) / id).string(), "--answers", answers});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(body_of(server.get("/pipelines/" + id))["status"], "completed");
  EXPECT_EQ(body_of(server.get("/pipelines")).size(), 2u);
}

TEST(ServerApiTest, InlineOptionsAreSavedInTheRunDirectory) {
  TestServer server;
  const std::string id = server.start({{"dot", kGateDot},
                                       {"context", {{"ticket", "T-1"}}},
                                       {"answers", {{"approve", "A"}}},
                                       {"responses", {{"work", "scripted answer"}}},
                                       {"simulate", true}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  const fs::path dir = fs::path(server.logs_root()) / id;
  for (const char* f : {"pipeline.dot", "context.json", "answers.json", "responses.json"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  json context = body_of(server.get("/pipelines/" + id + "/context"));
  EXPECT_EQ(context["ticket"], "T-1");
  json stage = body_of(server.get("/pipelines/" + id + "/stages/work"));
  EXPECT_EQ(stage["files"]["response.md"], "scripted answer");
  EXPECT_EQ(stage["status"]["outcome"], "success");
  EXPECT_EQ(body_of(server.get("/pipelines/" + id + "/stages/approve"))["status"]["gate"]["answered_by"], "file");
}

TEST(ServerApiTest, AStageViewListsTheEarlierVisitsOfALoopingNode) {
  TestServer server;
  const std::string id = server.start({{"dot", R"(digraph loop {
    start [shape=Mdiamond]
    done [shape=Msquare]
    work [prompt="Revise"]
    review [prompt="Review", simulate.outcome="fail,fail,success"]
    start -> work -> review
    review -> work [condition="outcome=fail"]
    review -> done [condition="outcome=success"]
  })"},
                                       {"simulate", true}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  json stage = body_of(server.get("/pipelines/" + id + "/stages/work"));
  EXPECT_EQ(stage["visits"], json({1, 2}));
  EXPECT_EQ(stage["status"]["outcome"], "success");
  EXPECT_FALSE(stage["files"].contains("visits"));
  EXPECT_EQ(body_of(server.get("/pipelines/" + id + "/stages/review"))["status"]["outcome"], "success");
}

TEST(ServerApiTest, TheGraphIsDrawnWithTheRunOverlay) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  auto res = server.get("/pipelines/" + id + "/graph");
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "image/svg+xml");
  for (const char* node : {"start", "work", "approve", "exit"}) {
    EXPECT_NE(res->body.find(std::string("<title>") + node + "</title>"), std::string::npos) << node;
  }
  EXPECT_NE(res->body.find("stroke-width"), std::string::npos) << "the current node has a thick border";
}

TEST(ServerApiTest, ValidateAnswersAsTheCommandLineDoes) {
  TestServer server;
  const std::string dot = "digraph G { a -> b }";
  const std::string path = (fs::path(server.graphs_dir()) / "bad.dot").string();
  std::ofstream(path) << dot;
  CommandResult cli = run_attractor({"validate", "--json", path});
  json from_cli = json::parse(cli.out);
  for (json& d : from_cli) d.erase("file");
  json from_server = body_of(server.post("/validate", {{"dot", dot}}));
  for (json& d : from_server) d.erase("file");
  EXPECT_EQ(from_server, from_cli);
  EXPECT_EQ(body_of(server.post("/validate", {{"dot", kGateDot}})), json::array());
}

TEST(ServerApiTest, GraphsListsThePipelinesOfTheGraphsDirectory) {
  TestServer server;
  server.add_graph("broken.dot", "digraph Broken { a -> b }");
  json list = body_of(server.get("/graphs"));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["path"], "broken.dot");
  EXPECT_EQ(list[0]["ok"], false);
  EXPECT_EQ(list[1], json({{"path", "gate.dot"}, {"name", "Gate"}, {"ok", true}}));
}

}  // namespace
}  // namespace attractor::testing
