// Outcome, Context, checkpoint, artifact store and SHA-256.

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "attractor/run/artifact_store.h"
#include "attractor/run/checkpoint.h"
#include "attractor/model/context.h"
#include "attractor/model/outcome.h"
#include "attractor/run/run_directory.h"
#include "attractor/base/sha256.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(OutcomeTest, StatusNamesRoundTrip) {
  for (StageStatus s : {StageStatus::kSuccess, StageStatus::kPartialSuccess, StageStatus::kRetry, StageStatus::kFail,
                        StageStatus::kSkipped}) {
    StageStatus parsed;
    ASSERT_TRUE(parse_status(status_name(s), &parsed));
    EXPECT_EQ(parsed, s);
  }
  StageStatus s;
  EXPECT_FALSE(parse_status("maybe", &s));
  EXPECT_STREQ(status_name(StageStatus::kPartialSuccess), "partial_success");
}

TEST(OutcomeTest, AppendixCJsonRoundTrip) {
  Outcome o = Outcome::fail("boom", ErrorCategory::kTerminal);
  o.preferred_label = "Fix";
  o.suggested_next_ids = {"a", "b"};
  o.context_updates = {{"k", 3}, {"nested.key", "v"}};
  o.notes = "n";
  nlohmann::json j = outcome_to_json(o);
  EXPECT_EQ(j["outcome"], "fail");
  EXPECT_EQ(j["error_category"], "terminal");
  Outcome back = outcome_from_json(j);
  EXPECT_EQ(back.status, StageStatus::kFail);
  EXPECT_EQ(back.preferred_label, "Fix");
  EXPECT_EQ(back.suggested_next_ids, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(back.context_updates["k"], 3);
  EXPECT_EQ(back.failure_reason, "boom");
  EXPECT_EQ(back.category, ErrorCategory::kTerminal);
  EXPECT_THROW(outcome_from_json(nlohmann::json{{"notes", "x"}}), std::runtime_error);
}

TEST(ContextTest, StringFormsFollowDesign) {
  EXPECT_EQ(json_to_context_string(3), "3");
  EXPECT_EQ(json_to_context_string("3"), "3");
  EXPECT_EQ(json_to_context_string(true), "true");
  EXPECT_EQ(json_to_context_string(nullptr), "");
  EXPECT_EQ(json_to_context_string(nlohmann::json::array({1, 2})), "[1,2]");
}

TEST(ContextTest, SetGetCloneIsDeep) {
  Context c;
  c.set("a", nlohmann::json{{"x", 1}});
  c.append_log("one");
  auto clone = c.clone();
  clone->set("a", nlohmann::json{{"x", 2}});
  clone->set("b", "only in clone");
  EXPECT_EQ((*c.get("a"))["x"], 1);
  EXPECT_FALSE(c.has("b"));
  EXPECT_EQ(clone->logs(), std::vector<std::string>{"one"});
  EXPECT_EQ(c.get_string("missing", "dflt"), "dflt");
  c.apply_updates({{"p", 1}, {"q", "r"}});
  EXPECT_EQ(c.get_string("q"), "r");
  EXPECT_EQ(c.snapshot().size(), 3u);
}

TEST(ContextTest, ConcurrentWritersAndReaders) {
  Context c;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&c, t] {
      for (int i = 0; i < 500; ++i) {
        c.set("k" + std::to_string(t) + "." + std::to_string(i), i);
        (void)c.get_string("k0.0");
        (void)c.snapshot().size();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(c.snapshot().size(), 2000u);
}

TEST(ContextTest, DiffReportsChangesAndRemovals) {
  nlohmann::json before = {{"a", 1}, {"b", 2}, {"c", 3}};
  nlohmann::json after = {{"a", 1}, {"b", 5}, {"d", 4}};
  EXPECT_EQ(context_diff(before, after), (nlohmann::json{{"b", 5}, {"c", nullptr}, {"d", 4}}));
}

TEST(ContextTest, ChangesSinceReportsWrittenKeysThenAllAfterRestore) {
  Context context;
  std::uint64_t cursor = 0;
  EXPECT_TRUE(context.changes_since(cursor).all);
  context.set("a", 1);
  context.apply_updates({{"b", 2}});
  context.remove("a");
  ContextChanges changes = context.changes_since(cursor);
  EXPECT_FALSE(changes.all);
  EXPECT_EQ(changes.keys, (std::vector<std::string>{"a", "b", "a"}));
  EXPECT_TRUE(context.changes_since(cursor).keys.empty());
  context.restore({{"c", 3}}, {"log"});
  EXPECT_TRUE(context.changes_since(cursor).all);
  EXPECT_EQ(context.logs_from(0), std::vector<std::string>{"log"});
  EXPECT_TRUE(context.logs_from(1).empty());
}

TEST(ContextTest, AReaderThatKeepsUpNeverFallsBackToAll) {
  // The checkpoint writer reads the changes after every stage; trimming the journal of a long
  // run must not make it rewrite the whole context (and the whole checkpoint) now and then.
  Context context;
  std::uint64_t cursor = 0;
  context.changes_since(cursor);
  for (int stage = 0; stage < 20000; ++stage) {
    for (const char* key : {"a", "b", "c", "d", "e", "f", "g"}) context.set(key, stage);
    ContextChanges changes = context.changes_since(cursor);
    ASSERT_FALSE(changes.all) << stage;
    ASSERT_EQ(changes.keys.size(), 7u) << stage;
  }
  std::uint64_t stale = 1;  // a cursor from before the trimmed part
  EXPECT_TRUE(context.changes_since(stale).all);
}

TEST(CheckpointTest, SaveLoadRoundTripAndAtomicity) {
  TempDir dir;
  Checkpoint c;
  c.timestamp_ms = 1700000000123;
  c.run_id = "r1";
  c.current_node = "plan";
  c.next_node = "implement";
  c.completed_nodes = {"start", "plan"};
  c.node_retries = {{"plan", 2}};
  c.context = {{"graph.goal", "g"}, {"n", 3}};
  c.logs = {"log"};
  c.node_outcomes["plan"] = Outcome::success("ok");
  c.visit_counts = {{"plan", 1}};
  c.total_executions = 2;
  c.inbox = nlohmann::json::array({{{"to", "x"}, {"text", "hi"}}});
  save_checkpoint(c, dir.path());
  EXPECT_FALSE(fs::exists(dir.sub("checkpoint.json.tmp")));
  nlohmann::json raw = testing::read_json(dir.sub("checkpoint.json"));
  EXPECT_EQ(raw["timestamp"], "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(raw["node_outcomes"]["plan"]["status"], "success");
  Checkpoint back = load_checkpoint(dir.path());
  EXPECT_EQ(back.to_json(), c.to_json());
  EXPECT_THROW(load_checkpoint(dir.sub("nope")), std::runtime_error);
}

TEST(CheckpointTest, AttemptCountersOfAnOlderRunComeFromItsContext) {
  nlohmann::json old = {{"run_id", "r"},
                        {"context",
                         {{"internal.codergen_calls.plan", 2},
                          {"internal.codergen_calls.review", 5},
                          {"internal.codergen_calls.odd", "x"},
                          {"internal.retry_count.plan", 1}}}};
  EXPECT_EQ(Checkpoint::from_json(old).node_attempts,
            (std::map<std::string, std::int64_t>{{"plan", 2}, {"review", 5}}));
  old["node_attempts"] = {{"plan", 7}};
  EXPECT_EQ(Checkpoint::from_json(old).node_attempts, (std::map<std::string, std::int64_t>{{"plan", 7}}));
}

TEST(CheckpointTest, WriterMatchesFullSerializationAsTheRunGrows) {
  CheckpointWriter writer;
  Checkpoint c;
  c.run_id = "r1";
  c.seed_context = {{"seed", "é\"q"}};
  for (int i = 0; i < 30; ++i) {
    std::string id = "n" + std::to_string(i % 7);
    c.timestamp_ms = 1700000000000 + i;
    c.completed_nodes.push_back(id);
    c.visit_counts[id]++;
    c.total_executions++;
    c.node_outcomes[id] = i % 3 == 0 ? Outcome::fail("boom " + std::to_string(i)) : Outcome::success();
    if (i % 4 == 0) c.node_retries[id]++;
    c.context["step"] = i;
    c.context["calls." + id] = i;
    writer.note_context_changes({false, {"step", "calls." + id}});
    c.logs.push_back("log \n" + std::to_string(i));
    c.current_node = id;
    c.last_fidelity = "compact";
    ASSERT_EQ(writer.serialize(c), c.to_json().dump()) << "after step " << i;
  }
  c.final_outcome = outcome_to_json(Outcome::success());
  c.state = "success";
  EXPECT_EQ(writer.serialize(c), c.to_json().dump());
  Checkpoint restarted;
  restarted.run_id = "r1-r1";
  restarted.restart_count = 1;
  restarted.completed_nodes = {"a"};
  restarted.visit_counts = {{"a", 1}};
  restarted.node_outcomes["a"] = Outcome::retry("again");
  EXPECT_EQ(writer.serialize(restarted), restarted.to_json().dump());
}

TEST(CheckpointTest, WriterReadsTheLiveContextLikeASnapshot) {
  CheckpointWriter writer;
  Context context;
  Checkpoint c;
  c.run_id = "r1";
  auto expected = [&] {
    Checkpoint full = c;
    full.context = context.snapshot();
    full.logs = context.logs();
    return full.to_json().dump();
  };
  context.restore({{"seed", "é\"q"}}, {"restored"});
  for (int i = 0; i < 30; ++i) {
    std::string id = "n" + std::to_string(i % 7);
    c.completed_nodes.push_back(id);
    c.visit_counts[id]++;
    c.node_outcomes[id] = Outcome::success();
    context.set("step", i);
    context.set("calls." + id, i);
    if (i % 5 == 0) context.remove("calls.n0");
    if (i % 3 == 0) context.append_log("log \n" + std::to_string(i));
    ASSERT_EQ(writer.serialize(c, context), expected()) << "after step " << i;
  }
  context.restore({{"fresh", 1}}, {});
  EXPECT_EQ(writer.serialize(c, context), expected());
  Checkpoint restarted;
  restarted.run_id = "r1-r1";
  restarted.context = {{"ignored", true}};
  c = restarted;  // expected() takes the context from `context`, never from the checkpoint
  context.set("after_restart", "x");
  EXPECT_EQ(writer.serialize(restarted, context), expected());
  EXPECT_EQ(writer.serialize(restarted), restarted.to_json().dump());
}

TEST(CheckpointTest, WriterSavesTheSerializedBytes) {
  TempDir dir;
  CheckpointWriter writer;
  Checkpoint c;
  c.run_id = "r1";
  for (int i = 0; i < 3000; ++i) {  // enough members for more than IOV_MAX (1024) parts
    std::string id = "node_" + std::to_string(i);
    c.completed_nodes.push_back(id);
    c.visit_counts[id] = 1;
    c.node_outcomes[id] = Outcome::success();
    c.context["k" + std::to_string(i)] = std::string(i % 50, 'x');
  }
  writer.save(c, dir.path());
  EXPECT_EQ(read_text_file(dir.sub("checkpoint.json")), c.to_json().dump() + "\n");
  EXPECT_FALSE(fs::exists(dir.sub("checkpoint.json.tmp")));
}

TEST(CheckpointTest, AtomicWriteJoinsPartsIncludingEmptyOnes) {
  TempDir dir;
  std::vector<std::string> storage;
  for (int i = 0; i < 2500; ++i) storage.push_back(i % 3 == 0 ? "" : std::to_string(i) + ",");
  std::vector<std::string_view> parts(storage.begin(), storage.end());
  std::string joined;
  for (const std::string& s : storage) joined += s;
  write_file_atomic(dir.sub("f.txt"), parts);
  EXPECT_EQ(read_text_file(dir.sub("f.txt")), joined);
  write_file_atomic(dir.sub("f.txt"), std::vector<std::string_view>{});
  EXPECT_EQ(read_text_file(dir.sub("f.txt")), "");
  EXPECT_THROW(write_file_atomic(dir.sub("missing/f.txt"), parts), std::runtime_error);
}

TEST(ArtifactStoreTest, FileBackingAboveThreshold) {
  TempDir dir;
  ArtifactStore store(dir.path());
  store.store("small", "s", nlohmann::json{{"v", 1}});
  std::string big(ArtifactStore::kDefaultThreshold + 10, 'x');
  ArtifactInfo info = store.store("big", "b", big);
  EXPECT_TRUE(info.is_file_backed);
  EXPECT_FALSE(store.list().back().is_file_backed);  // sorted by id: big, small
  EXPECT_TRUE(fs::exists(dir.sub("artifacts/big.json")));
  EXPECT_EQ(store.retrieve("big").get<std::string>(), big);
  EXPECT_EQ(store.retrieve("small")["v"], 1);
  store.remove("big");
  EXPECT_FALSE(fs::exists(dir.sub("artifacts/big.json")));
  EXPECT_THROW(store.retrieve("big"), std::out_of_range);
}

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(RunDirectoryTest, NameAndManifest) {
  EXPECT_EQ(run_directory_name("my graph", 1700000000123, "abc123"), "my_graph-20231114T221320-abc123");
  TempDir dir;
  Manifest m;
  m.name = "n";
  m.graph_sha256 = "h";
  m.run_id = "id";
  write_manifest(m, dir.path());
  Manifest back = read_manifest(dir.path());
  EXPECT_EQ(back.name, "n");
  EXPECT_EQ(back.graph_sha256, "h");
  EXPECT_EQ(random_hex6().size(), 6u);
}

}  // namespace
}  // namespace attractor
