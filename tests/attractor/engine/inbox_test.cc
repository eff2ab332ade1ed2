// The engine inbox (docs/decisions.md, attractor/engine/inbox.h): messages from send_message nodes and from any
// handler's outcome, consumption on entry into `inbox_last_consumed`, persistence in the
// checkpoint, validation, parallel branches, and interrupt-at-every-checkpoint then resume.

#include <functional>

#include <gtest/gtest.h>

#include "attractor/run/checkpoint.h"
#include "attractor/engine/inbox.h"
#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"
#include "handlers/llm/simulation_backend.h"

namespace attractor {
namespace {

using testing::edge;
using testing::node;
using testing::read_json;
using testing::TestRun;
using json = nlohmann::json;

/// Records `inbox_last_consumed` on every entry; optionally returns messages.
class Probe : public Handler {
 public:
  Outcome execute(const NodeData& n, Context& c, const Graph&, const StageEnv&) override {
    seen.push_back({n.id, c.get(kInboxLastConsumedKey).value_or(json("absent"))});
    Outcome o = Outcome::success();
    if (send) o.messages = send(n);
    return o;
  }
  std::vector<std::pair<std::string, json>> seen;
  std::function<json(const NodeData&)> send;
};

HandlerRegistry registry_with(TestRun& t, std::shared_ptr<Probe> probe) {
  HandlerRegistry r = make_default_registry(t.services);
  r.register_handler("probe", probe);
  return r;
}

/// start -> s1 -> s2 -> mid -> c -> d -> exit; s1/s2 send to c, mid and d are probes.
Graph sender_graph() {
  Graph g = testing::linear_graph({"s1", "s2", "mid", "c", "d"});
  node(g, "s1",
       {{"type", "send_message"},
        {"target_step_id", "c"},
        {"topic", "compact_sql"},
        {"payload", R"({"reason": "too big", "n": 2})"}});
  node(g, "s2", {{"type", "send_message"}, {"target_step_id", "c"}, {"topic", "note"}, {"payload_from", "who"}});
  for (const char* id : {"mid", "c", "d"}) node(g, id, {{"type", "probe"}});
  return g;
}

TEST(InboxTest, SendMessageNodesDeliverInOrderOnEntryToTheTarget) {
  Graph g = sender_graph();
  TestRun t;
  auto probe = std::make_shared<Probe>();
  HandlerRegistry reg = registry_with(t, probe);
  RunResult r = t.run(g, reg, json{{"who", {{"name", "ann"}}}});
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  json expected = json::array(
      {{{"target_step_id", "c"},
        {"topic", "compact_sql"},
        {"payload", {{"reason", "too big"}, {"n", 2}}},
        {"from_step_id", "s1"}},
       {{"target_step_id", "c"}, {"topic", "note"}, {"payload", {{"name", "ann"}}}, {"from_step_id", "s2"}}});
  ASSERT_EQ(probe->seen.size(), 3u);
  EXPECT_EQ(probe->seen[0], (std::pair<std::string, json>{"mid", "absent"}));
  EXPECT_EQ(probe->seen[1], (std::pair<std::string, json>{"c", expected}));
  EXPECT_EQ(probe->seen[2], (std::pair<std::string, json>{"d", json::array()}));  // a stale list never leaks
  EXPECT_EQ(r.checkpoint.inbox, json::array());
  EXPECT_EQ(r.checkpoint.context[kInboxLastConsumedKey], json::array());
  // The sender's status.json records the message it sent.
  json status = read_json(t.run_dir() + "/s1/status.json");
  EXPECT_EQ(status["messages"],
            json::array(
                {{{"target_step_id", "c"}, {"topic", "compact_sql"}, {"payload", {{"reason", "too big"}, {"n", 2}}}}}));
  // Events: one enqueue per sender, one delivery.
  int enqueued = 0, delivered = 0;
  for (const Event& e : t.events->events()) {
    if (e.name == "InboxEnqueued") ++enqueued;
    if (e.name == "InboxDelivered") {
      ++delivered;
      EXPECT_EQ(e.fields["node_id"], "c");
      EXPECT_EQ(e.fields["topics"], (json{"compact_sql", "note"}));
    }
  }
  EXPECT_EQ(enqueued, 2);
  EXPECT_EQ(delivered, 1);
}

TEST(InboxTest, PendingMessagesPersistInTheCheckpointUntilTheirTargetRuns) {
  // The target `later` is only reached through a failure edge that is never taken.
  Graph g = testing::linear_graph({"s1", "work"});
  node(g, "s1", {{"type", "send_message"}, {"target_step_id", "later"}, {"topic", "t"}, {"payload", "plain text"}});
  node(g, "later", {{"type", "probe"}});
  edge(g, "work", "later", {{"condition", "outcome=fail"}});
  edge(g, "later", "exit");
  TestRun t;
  auto probe = std::make_shared<Probe>();
  HandlerRegistry reg = registry_with(t, probe);
  RunResult r = t.run(g, reg);
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  json pending = json::array(
      {{{"target_step_id", "later"}, {"topic", "t"}, {"payload", "plain text"}, {"from_step_id", "s1"}}});
  EXPECT_EQ(r.checkpoint.inbox, pending);
  EXPECT_EQ(read_json(t.run_dir() + "/checkpoint.json")["inbox"], pending);
  EXPECT_EQ(load_checkpoint(t.run_dir()).inbox, pending);
  EXPECT_TRUE(probe->seen.empty());
}

TEST(InboxTest, AnyHandlerOutcomeCanSendAndTheTargetMayRunAgain) {
  // A custom handler's outcome sends two messages to `b`; payload defaults to null.
  Graph g = testing::linear_graph({"a", "b"});
  node(g, "a", {{"type", "probe"}});
  node(g, "b", {{"type", "probe"}});
  TestRun t;
  auto probe = std::make_shared<Probe>();
  probe->send = [](const NodeData& n) {
    if (n.id != "a") return json::array();
    return json::array(
        {{{"target_step_id", "b"}, {"topic", "x"}}, {{"target_step_id", "b"}, {"topic", "y"}, {"payload", 7}}});
  };
  HandlerRegistry reg = registry_with(t, probe);
  RunResult r = t.run(g, reg);
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  ASSERT_EQ(probe->seen.size(), 2u);
  EXPECT_EQ(probe->seen[1].second,
            json::array({{{"target_step_id", "b"}, {"topic", "x"}, {"payload", nullptr}, {"from_step_id", "a"}},
                         {{"target_step_id", "b"}, {"topic", "y"}, {"payload", 7}, {"from_step_id", "a"}}}));
}

/// Stands for an external agent: writes `status.json` into its stage directory with a message.
class ExternalAgent : public Handler {
 public:
  Outcome execute(const NodeData&, Context&, const Graph&, const StageEnv& env) override {
    write_text_file(
        env.stage_dir + "/status.json",
        R"({"outcome": "success", "messages": [{"target_step_id": "b", "topic": "from_agent", "payload": [1, 2]}]})");
    Outcome o;
    o.status_pending = true;
    return o;
  }
};

TEST(InboxTest, AnExternalStatusJsonCanSendMessages) {
  Graph g = testing::linear_graph({"a", "b"});
  node(g, "a", {{"type", "agent"}});
  node(g, "b", {{"type", "probe"}});
  TestRun t;
  auto probe = std::make_shared<Probe>();
  HandlerRegistry reg = registry_with(t, probe);
  reg.register_handler("agent", std::make_shared<ExternalAgent>());
  RunResult r = t.run(g, reg);
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  ASSERT_EQ(probe->seen.size(), 1u);
  EXPECT_EQ(
      probe->seen[0].second,
      json::array({{{"target_step_id", "b"}, {"topic", "from_agent"}, {"payload", {1, 2}}, {"from_step_id", "a"}}}));
}

TEST(InboxTest, MalformedMessagesFailTheSendingNode) {
  struct Case {
    json messages;
    std::string error;
  };
  std::vector<Case> cases = {
      {json::array({{{"topic", "t"}}}),
       "stage a sent a malformed inbox message #1: target_step_id must be a non-empty string naming a node"},
      {json::array({{{"target_step_id", "b"}, {"topic", "t"}}, {{"target_step_id", "nowhere"}, {"topic", "t"}}}),
       "stage a sent a malformed inbox message #2: target_step_id 'nowhere' is not a node of this graph"},
      {json::array({{{"target_step_id", "b"}, {"topic", ""}}}),
       "stage a sent a malformed inbox message #1: topic must be a non-empty string"},
      {json::array({{{"target_step_id", "b"}, {"topic", "t"}, {"extra", 1}}}),
       "stage a sent a malformed inbox message #1: unknown member 'extra' (allowed: target_step_id, topic, payload)"},
      {json::array({"text"}),
       "stage a sent a malformed inbox message #1: a message must be a JSON object, got \"text\""},
      {json{{"target_step_id", "b"}}, "stage a sent inbox messages that are not a JSON array"},
  };
  for (const Case& c : cases) {
    Graph g = testing::linear_graph({"a", "b"});
    node(g, "a", {{"type", "probe"}, {"max_retries", "3"}});
    TestRun t;
    auto probe = std::make_shared<Probe>();
    probe->send = [&](const NodeData&) { return c.messages; };
    HandlerRegistry reg = registry_with(t, probe);
    RunResult r = t.run(g, reg);
    EXPECT_EQ(r.outcome.status, StageStatus::kFail) << c.error;
    EXPECT_EQ(r.outcome.failure_reason, "stage `a` failed after 1 attempt and no failure route leads on: " + c.error);
    EXPECT_EQ(probe->seen.size(), 1u) << "terminal: never retried";
    EXPECT_EQ(r.checkpoint.inbox, json::array());
    EXPECT_EQ(read_json(t.run_dir() + "/a/status.json")["outcome"], "fail");
  }
}

TEST(InboxTest, SendMessageValidatesItsAttributes) {
  std::vector<std::pair<std::vector<std::pair<const char*, const char*>>, std::string>> cases = {
      {{{"topic", "t"}}, "send_message node 's': target_step_id: required (the id of the node to route to)"},
      {{{"target_step_id", "ghost"}, {"topic", "t"}},
       "send_message node 's': target_step_id: 'ghost' is not a node of this graph"},
      {{{"target_step_id", "b"}}, "send_message node 's': topic: required (a non-empty string)"},
      {{{"target_step_id", "b"}, {"topic", "t"}, {"payload", "1"}, {"payload_from", "k"}},
       "send_message node 's': payload_from: not allowed together with payload (choose one)"},
      {{{"target_step_id", "b"}, {"topic", "t"}, {"payload_from", "missing"}},
       "send_message node 's': payload_from: context key 'missing' is not set"},
  };
  for (const auto& [attrs, error] : cases) {
    Graph g = testing::linear_graph({"s", "b"});
    node(g, "s", {{"type", "send_message"}});
    for (const auto& [k, v] : attrs) g.node(*g.find("s")).set(k, v);
    TestRun t;
    RunResult r = t.run(g);
    EXPECT_EQ(r.outcome.status, StageStatus::kFail) << error;
    EXPECT_EQ(r.outcome.failure_reason, "stage `s` failed after 1 attempt and no failure route leads on: " + error);
  }
}

TEST(InboxTest, BranchMessagesAreDeliveredInsideTheBranchOrJoinTheInboxAfterTheParallelNode) {
  // start -> par -> {a1 -> a2, b1} -> join -> after -> exit
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "par", {{"shape", "component"}});
  node(g, "a1", {{"type", "send_message"}, {"target_step_id", "a2"}, {"topic", "local"}});
  node(g, "a2", {{"type", "probe"}});
  node(g, "b1", {{"type", "send_message"}, {"target_step_id", "after"}, {"topic", "from_b"}, {"payload", "[1]"}});
  node(g, "join", {{"shape", "tripleoctagon"}});
  node(g, "after", {{"type", "probe"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "par");
  edge(g, "par", "a1");
  edge(g, "par", "b1");
  edge(g, "a1", "a2");
  edge(g, "a2", "join");
  edge(g, "b1", "join");
  edge(g, "join", "after");
  edge(g, "after", "exit");
  TestRun t;
  auto probe = std::make_shared<Probe>();
  HandlerRegistry reg = registry_with(t, probe);
  RunResult r = t.run(g, reg);
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  std::map<std::string, json> seen(probe->seen.begin(), probe->seen.end());
  EXPECT_EQ(
      seen["a2"],
      json::array({{{"target_step_id", "a2"}, {"topic", "local"}, {"payload", nullptr}, {"from_step_id", "a1"}}}));
  EXPECT_EQ(
      seen["after"],
      json::array({{{"target_step_id", "after"}, {"topic", "from_b"}, {"payload", {1}}, {"from_step_id", "b1"}}}));
  EXPECT_EQ(r.checkpoint.inbox, json::array());
}

/// Cancels the run right after its n-th checkpoint: the run directory then holds exactly what a
/// process killed at that moment leaves behind.
class CancelAfterCheckpoints : public EventObserver {
 public:
  CancelAfterCheckpoints(int n, CancelToken token) : left_(n), token_(std::move(token)) {}
  void on_event(const Event& e) override {
    if (e.name == "CheckpointSaved" && --left_ == 0) token_.cancel();
  }

 private:
  int left_;
  CancelToken token_;
};

json comparable(const std::string& run_dir) {
  json j = read_json(run_dir + "/checkpoint.json");
  for (const char* k : {"timestamp", "timestamp_ms", "run_id", "usage"}) j.erase(k);
  j["context"].erase("internal.run_id");
  return j;
}

TEST(InboxTest, InterruptAtEveryCheckpointThenResumeEndsInTheSameState) {
  // A loop: send -> consume (probe) three times, guarded by loop_guard; one message stays pending.
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "send",
       {{"type", "send_message"},
        {"target_step_id", "consume"},
        {"topic", "tick"},
        {"payload_from", "loop_guard.guard"}});
  node(g, "stash", {{"type", "send_message"}, {"target_step_id", "never"}, {"topic", "kept"}});
  node(g, "consume", {{"type", "probe"}});
  node(g, "guard",
       {{"type", "loop_guard"}, {"max_turn_loops_from_settings", "loops"}, {"on_allow", "send"}, {"on_deny", "exit"}});
  node(g, "never", {{"type", "probe"}});
  node(g, "exit", {{"shape", "Msquare"}});
  g.data().set("loops", "2");
  edge(g, "start", "stash");
  edge(g, "stash", "guard");
  edge(g, "send", "consume");
  edge(g, "consume", "guard");
  edge(g, "guard", "send");
  edge(g, "guard", "exit");
  edge(g, "consume", "never", {{"condition", "outcome=fail"}});
  edge(g, "never", "exit");

  TestRun reference;
  auto ref_probe = std::make_shared<Probe>();
  HandlerRegistry ref_reg = registry_with(reference, ref_probe);
  RunResult full = reference.run(g, ref_reg);
  ASSERT_EQ(full.outcome.status, StageStatus::kSuccess) << full.outcome.failure_reason;
  EXPECT_EQ(full.checkpoint.completed_nodes, (std::vector<std::string>{"start", "stash", "guard", "send", "consume",
                                                                       "guard", "send", "consume", "guard"}));
  ASSERT_EQ(ref_probe->seen.size(), 2u);
  EXPECT_EQ(ref_probe->seen[1].second[0]["payload"], 2);
  json expected = comparable(reference.run_dir());
  EXPECT_EQ(
      expected["inbox"],
      json::array({{{"target_step_id", "never"}, {"topic", "kept"}, {"payload", nullptr}, {"from_step_id", "stash"}}}));
  int checkpoints = 0;
  for (const Event& e : reference.events->events()) checkpoints += e.name == "CheckpointSaved";
  ASSERT_EQ(checkpoints, 11);  // initial + 9 nodes + final
  for (int k = 1; k < checkpoints; ++k) {
    TestRun t;
    auto probe = std::make_shared<Probe>();
    HandlerRegistry reg = registry_with(t, probe);
    EngineOptions options = t.options();
    options.cancel = CancelToken();
    auto bus = std::make_shared<EventBus>();
    bus->add(std::make_shared<CancelAfterCheckpoints>(k, options.cancel));
    options.observer = bus;
    RunResult first = Engine(g, reg, options).run(json::object());
    ASSERT_TRUE(first.interrupted) << "k=" << k;
    RunResult resumed = t.resume(g, reg);
    ASSERT_EQ(resumed.outcome.status, StageStatus::kSuccess) << "k=" << k;
    EXPECT_EQ(comparable(t.run_dir()), expected) << "k=" << k;
    EXPECT_EQ(probe->seen, ref_probe->seen) << "k=" << k;
  }
}

}  // namespace
}  // namespace attractor
