// The slot rule of docs/server.md section 1 over real HTTP: a run waiting at a human gate holds
// no execution slot, and once answered it waits for one again, ahead of runs not yet started.

#include <filesystem>

#include <gtest/gtest.h>

#include "support/server_test_support.h"

namespace attractor::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

ServerConfig commands_allowed() {
  ServerConfig config;
  config.allow_commands = true;
  return config;
}

/// `hold.dot` holds a slot until released; `review.dot` asks a gate, then holds a slot.
void add_graphs(TestServer& server) {
  server.add_graph("hold.dot", kHoldDot);
  server.add_graph("review.dot", "digraph Review { start [shape=Mdiamond] exit [shape=Msquare] " +
                                     holding_stage("finish") +
                                     R"( approve [shape=hexagon, label="Ship it?"]
                                     start -> approve
                                     approve -> finish [label="[A] Approve"]
                                     approve -> exit [label="[R] Reject"]
                                     finish -> exit })");
}

json body_of(const httplib::Result& res) { return json::parse(res->body); }

json health(const TestServer& server) {
  json j = body_of(server.get("/health"));
  return {{"running", j["running"]}, {"queued", j["queued"]}, {"at_gate", j["at_gate"]}};
}

json counts(int running, int queued, int at_gate) {
  return {{"running", running}, {"queued", queued}, {"at_gate", at_gate}};
}

TEST(GateSlotInterviewerTest, ARunAtAGateGivesItsSlotToTheNextRun) {
  TestServer server(1);
  const std::string waiting = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(waiting).is_object());
  EXPECT_EQ(health(server), counts(0, 0, 1));
  EXPECT_EQ(body_of(server.get("/pipelines/" + waiting))["status"], "running") << "a run at a gate is still running";

  const std::string second = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(second, 10).is_object()) << "the second run started while the first waits";
  EXPECT_EQ(health(server), counts(0, 0, 2));
  for (const std::string& id : {waiting, second}) {
    EXPECT_EQ(server.post("/pipelines/" + id + "/questions/q1/answer", {{"answer", "A"}})->status, 200);
    ASSERT_TRUE(server.wait_status(id, "completed"));
  }
  EXPECT_EQ(health(server), counts(0, 0, 0));
}

TEST(GateSlotInterviewerTest, AnAnsweredRunWaitsForASlotAheadOfRunsNotStarted) {
  TestServer server(1, kTestToken, commands_allowed());
  add_graphs(server);
  const std::string reviewed = server.start({{"graph", "review.dot"}});
  ASSERT_TRUE(server.wait_question(reviewed).is_object());
  const std::string holder = server.start({{"graph", "hold.dot"}});
  ASSERT_TRUE(server.wait_file(holder, "hold/started"));

  EXPECT_EQ(server.post("/pipelines/" + reviewed + "/questions/q1/answer", {{"answer", "A"}})->status, 200);
  ASSERT_TRUE(server.wait_status(reviewed, "queued")) << "answered, it waits for the slot the holder has";
  const std::string fresh = server.start({{"graph", "gate.dot"}});
  EXPECT_EQ(health(server), counts(1, 2, 0));

  server.release(holder);
  ASSERT_TRUE(server.wait_status(holder, "completed"));
  ASSERT_TRUE(server.wait_file(reviewed, "finish/started"));
  EXPECT_EQ(body_of(server.get("/pipelines/" + fresh))["status"], "queued") << "the answered run went first";
  EXPECT_EQ(health(server), counts(1, 1, 0));
  server.release(reviewed);
  ASSERT_TRUE(server.wait_status(reviewed, "completed"));
  EXPECT_TRUE(server.wait_question(fresh).is_object());
}

TEST(GateSlotInterviewerTest, ARunWaitingForItsSlotAgainCanBeCancelled) {
  TestServer server(1, kTestToken, commands_allowed());
  add_graphs(server);
  const std::string reviewed = server.start({{"graph", "review.dot"}});
  ASSERT_TRUE(server.wait_question(reviewed).is_object());
  const std::string holder = server.start({{"graph", "hold.dot"}});
  ASSERT_TRUE(server.wait_file(holder, "hold/started"));
  EXPECT_EQ(server.post("/pipelines/" + reviewed + "/questions/q1/answer", {{"answer", "A"}})->status, 200);
  ASSERT_TRUE(server.wait_status(reviewed, "queued"));

  EXPECT_EQ(server.post("/pipelines/" + reviewed + "/cancel", json::object())->status, 200);
  ASSERT_TRUE(server.wait_status(reviewed, "cancelled", 10));
  EXPECT_FALSE(fs::exists(fs::path(server.logs_root()) / reviewed / "finish/started")) << "it never took a slot";
  EXPECT_EQ(health(server), counts(1, 0, 0));
  json checkpoint = body_of(server.get("/pipelines/" + reviewed + "/checkpoint"));
  EXPECT_EQ(checkpoint["completed_nodes"], json::parse(R"(["start"])")) << "stopped before the gate completed";
  server.release(holder);
  ASSERT_TRUE(server.wait_status(holder, "completed"));
}

}  // namespace
}  // namespace attractor::testing
