// The engine's background writer keeps the run directory a prefix of the run's writes: a
// checkpoint reaches the disk after the files of every node it records and before any file of a
// later node, and everything outside the process (a backend that is not the simulation, a handler
// that does not queue its writes) sees the run directory complete. A run on MemoryRunDisk writes
// the same files, byte for byte, as a run on the real disk.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/engine/engine.h"
#include "attractor/run/checkpoint_journal.h"
#include "support/memory_run_disk.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_directory.h"
#include "support/checkpoint_hook_disk.h"
#include "support/counting_run_disk.h"
#include "support/engine_test_support.h"
#include "handlers/llm/codergen_backend.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::read_json;
using testing::TestRun;

Graph twelve_stages() {
  return testing::linear_graph({"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12"});
}

TEST(WriteOrderTest, EachCheckpointReachesTheDiskAfterItsNodesFilesAndBeforeAnyLaterFile) {
  TestRun t;
  std::mutex mutex;
  std::vector<std::string> problems;
  std::int64_t checkpoints = 0;
  testing::CheckpointHookDisk disk;
  t.disk = &disk;
  disk.after_checkpoint = [&](std::int64_t n) {
    std::lock_guard lock(mutex);
    checkpoints = n;
    nlohmann::json cp = read_checkpoint_document(t.run_dir(), posix_run_disk());
    for (const auto& id : cp["completed_nodes"]) {
      std::string dir = t.run_dir() + "/" + id.get<std::string>();
      for (const char* file : {"status.json", "prompt.md", "response.md"}) {
        if (id == "start" && std::string(file) != "status.json") continue;
        if (!fs::exists(dir + "/" + file))
          problems.push_back("checkpoint " + std::to_string(n) + " before " + dir + "/" + file);
      }
    }
    std::string next = cp["next_node"];
    if (!next.empty() && next != "exit" && fs::exists(t.run_dir() + "/" + next)) {
      problems.push_back("checkpoint " + std::to_string(n) + " after files of the next node " + next);
    }
  };
  RunResult r = t.run(twelve_stages());
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  std::lock_guard lock(mutex);
  EXPECT_EQ(checkpoints, 15);  // initial, start, s1..s12, and the final save as a snapshot
  EXPECT_TRUE(problems.empty()) << problems.front();
}

/// The durability-relevant calls of a run, in order, on a memory disk: "atomic NAME now|later",
/// "create NAME" (open for appending), "append NAME", "truncate NAME", "remove NAME", for the
/// manifest, the checkpoint and its journal.
class DurabilityLogDisk : public MemoryRunDisk {
 public:
  void write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                         const std::function<void()>& written = nullptr,
                         DirectorySync sync = DirectorySync::kNow) override {
    MemoryRunDisk::write_file_atomic(path, parts, written, sync);
    note("atomic", path, sync == DirectorySync::kNow ? " now" : " later");
  }
  void append_synced(const std::string& path, std::string_view data) override {
    MemoryRunDisk::append_synced(path, data);
    note("append", path);
  }
  std::shared_ptr<AppendFile> open_append(const std::string& path) override {
    note("create", path);
    return MemoryRunDisk::open_append(path);
  }
  void write_file(const std::string& path, std::string_view content) override {
    MemoryRunDisk::write_file(path, content);
    if (content.empty()) note("truncate", path);
  }
  void remove_file(const std::string& path) override {
    note("remove", path);
    MemoryRunDisk::remove_file(path);
  }
  std::vector<std::string> log() {
    std::lock_guard lock(mutex_);
    return log_;
  }

 private:
  void note(const char* what, const std::string& path, const char* tail = "") {
    const std::string name = fs::path(path).filename().string();
    if (name != "manifest.json" && name != "checkpoint.json" && name != "checkpoint.journal") return;
    std::lock_guard lock(mutex_);
    log_.push_back(std::string(what) + " " + name + tail);
  }
  std::mutex mutex_;
  std::vector<std::string> log_;
};

TEST(WriteOrderTest, ASmallCheckpointIsRewrittenAfterEveryStageAndTheEmptyJournalLeftAlone) {
  DurabilityLogDisk disk;
  TestRun t;
  t.disk = &disk;
  t.write_run_log = false;
  RunResult r = t.run(testing::linear_graph({"s1", "s2"}));
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  // The first snapshot makes the journal (empty); the later ones need not touch it again.
  const std::vector<std::string> expected = {
      "atomic manifest.json later",  "create checkpoint.journal",  "atomic checkpoint.json now",
      "truncate checkpoint.journal", "atomic checkpoint.json now",  // start
      "atomic checkpoint.json now",  "atomic checkpoint.json now",  // s1, s2
      "atomic checkpoint.json now",  "remove checkpoint.journal",   // the end
  };
  EXPECT_EQ(disk.log(), expected);
}

TEST(WriteOrderTest, OneDirectorySyncMakesTheManifestAndTheJournalDurableAndTheEndIsOneSnapshot) {
  DurabilityLogDisk disk;
  TestRun t;
  t.disk = &disk;
  t.write_run_log = false;
  t.checkpoint_rewrite_below = 0;
  RunResult r = t.run(testing::linear_graph({"s1", "s2"}));
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  // The manifest's name and the empty journal's wait for the first snapshot's directory sync; the
  // records after it need none; the last save is a snapshot with no record before it, and only
  // then does the journal go.
  const std::vector<std::string> expected = {
      "atomic manifest.json later",  "create checkpoint.journal", "atomic checkpoint.json now",
      "truncate checkpoint.journal", "append checkpoint.journal",  // start
      "append checkpoint.journal",   "append checkpoint.journal",  // s1, s2
      "atomic checkpoint.json now",  "remove checkpoint.journal",  // the end
  };
  EXPECT_EQ(disk.log(), expected);
  EXPECT_EQ(nlohmann::json::parse(disk.read_file(t.run_dir() + "/checkpoint.json"))["state"], "success");
}

TEST(WriteOrderTest, ASnapshotInTheRunEmptiesTheJournalItFoldedAndKeepsIt) {
  DurabilityLogDisk disk;
  TestRun t;
  t.disk = &disk;
  t.write_run_log = false;
  EngineOptions options = t.options();
  options.snapshot_every = 2;
  options.checkpoint_rewrite_below = 0;
  HandlerRegistry registry = make_default_registry(t.services);
  RunResult r = Engine(testing::linear_graph({"s1", "s2", "s3"}), registry, options).run();
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess);
  std::vector<std::string> log = disk.log();
  const auto second_snapshot = std::find(log.begin() + 3, log.end(), "atomic checkpoint.json now");
  ASSERT_NE(second_snapshot, log.end());
  ASSERT_LT(second_snapshot + 1, log.end());
  EXPECT_EQ(*(second_snapshot - 1), "create checkpoint.journal");
  EXPECT_EQ(*(second_snapshot + 1), "truncate checkpoint.journal");
  EXPECT_EQ(std::count(log.begin(), log.end(), "remove checkpoint.journal"), 1);
  EXPECT_EQ(log.back(), "remove checkpoint.journal");
}

/// A backend that acts outside the process and reports what it found on disk when called.
class ProbeBackend : public CodergenBackend {
 public:
  std::string name() const override { return "probe"; }
  CodergenResult run(const CodergenRequest& request) override {
    std::lock_guard lock(mutex_);
    const std::string run_dir = fs::path(request.stage_dir).parent_path().string();
    if (!fs::exists(request.stage_dir + "/prompt.md")) missing_.push_back(request.stage_dir + "/prompt.md");
    if (!request.previous_node.empty() && !fs::exists(run_dir + "/" + request.previous_node + "/status.json")) {
      missing_.push_back(run_dir + "/" + request.previous_node + "/status.json");
    }
    ++calls_;
    CodergenResult result;
    result.response = "ok";
    return result;
  }
  std::vector<std::string> missing() {
    std::lock_guard lock(mutex_);
    return missing_;
  }
  int calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> missing_;
  int calls_ = 0;
};

TEST(WriteOrderTest, ABackendOutsideTheProcessFindsThePromptAndThePreviousStageOnDisk) {
  TestRun t;
  auto probe = std::make_shared<ProbeBackend>();
  t.services.backend = probe;
  RunResult r = t.run(twelve_stages());
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_EQ(probe->calls(), 12);
  std::vector<std::string> missing = probe->missing();
  EXPECT_TRUE(missing.empty()) << missing.front();
}

/// A custom handler (it does not queue its writes) that checks the run directory it is given.
class DiskCheckingHandler : public Handler {
 public:
  Outcome execute(const NodeData& node, Context&, const Graph&, const StageEnv& env) override {
    std::string previous = fs::path(env.run_dir) / env.previous_node / "status.json";
    if (!fs::is_directory(env.stage_dir)) return Outcome::fail("stage directory " + env.stage_dir + " missing");
    if (!env.previous_node.empty() && !fs::exists(previous)) return Outcome::fail(previous + " missing");
    write_text_file(env.stage_dir + "/own.txt", node.id);
    return Outcome::success("checked");
  }
};

TEST(WriteOrderTest, AHandlerThatDoesNotQueueItsWritesSeesEveryEarlierWrite) {
  Graph g = testing::linear_graph({"a", "check", "b", "check2"});
  testing::node(g, "check", {{"type", "disk_check"}});
  testing::node(g, "check2", {{"type", "disk_check"}});
  TestRun t;
  HandlerRegistry registry = make_default_registry(t.services);
  registry.register_handler("disk_check", std::make_shared<DiskCheckingHandler>());
  RunResult r = t.run(g, registry);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;
  EXPECT_EQ(read_text_file(t.run_dir() + "/check2/own.txt"), "check2");
}

/// Every file of a run directory except those that hold timestamps and ids.
std::map<std::string, std::string> stage_files(const std::string& run_dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(run_dir)) {
    if (!entry.is_regular_file()) continue;
    std::string name = fs::relative(entry.path(), run_dir).string();
    if (name == "checkpoint.json" || name == "manifest.json" || name == "events.jsonl") continue;
    files[name] = read_text_file(entry.path().string());
  }
  return files;
}

TEST(WriteOrderTest, BackgroundAndInlineWritesProduceTheSameRunDirectory) {
  TestRun background;
  TestRun in_line;
  in_line.background_writes = false;
  for (TestRun* t : {&background, &in_line}) t->write_run_log = false;  // run.log has wall-clock timestamps
  RunResult a = background.run(twelve_stages());
  RunResult b = in_line.run(twelve_stages());
  EXPECT_EQ(stage_files(background.run_dir()), stage_files(in_line.run_dir()));
  nlohmann::json ca = read_json(background.run_dir() + "/checkpoint.json");
  nlohmann::json cb = read_json(in_line.run_dir() + "/checkpoint.json");
  for (nlohmann::json* cp : {&ca, &cb}) {
    for (const char* key : {"run_id", "timestamp", "timestamp_ms"}) cp->erase(key);
    (*cp)["context"].erase("internal.run_id");
  }
  EXPECT_EQ(ca, cb);
  EXPECT_EQ(background.events->names(), in_line.events->names());
}

/// `text` with every occurrence of `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size())) {
    text.replace(p, from.size(), to);
  }
  return text;
}

/// `text` with run.log's wall-clock parts (line timestamps, durations) masked.
std::string without_times(const std::string& text) {
  static const std::regex stamp(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z|\d+ms)");
  return std::regex_replace(text, stamp, "T");
}

TEST(WriteOrderTest, ARunOnTheMemoryDiskWritesTheSameFilesAsARunOnTheRealDisk) {
  TestRun on_disk;
  TestRun in_memory;
  MemoryRunDisk memory;
  in_memory.disk = &memory;
  // Both runs use the same run directory path, the memory one first: it must leave no trace.
  EngineOptions options = in_memory.options();
  options.run_dir = on_disk.run_dir();
  HandlerRegistry registry = make_default_registry(in_memory.services);
  const Graph graph = twelve_stages();
  RunResult m = Engine(graph, registry, options).run();
  ASSERT_EQ(m.outcome.status, StageStatus::kSuccess);
  EXPECT_FALSE(fs::exists(on_disk.run_dir()));
  RunResult d = on_disk.run(graph);
  ASSERT_EQ(d.outcome.status, StageStatus::kSuccess);

  const std::string root = on_disk.run_dir() + "/";
  std::map<std::string, std::string> real;
  std::set<std::string> real_dirs;
  for (const auto& entry : fs::recursive_directory_iterator(on_disk.run_dir())) {
    std::string name = fs::relative(entry.path(), on_disk.run_dir()).string();
    if (entry.is_directory()) real_dirs.insert(name);
    if (entry.is_regular_file()) {
      real[name] = without_times(replace_all(read_text_file(entry.path().string()), d.checkpoint.run_id, "RUN"));
    }
  }
  std::map<std::string, std::string> fake;
  for (const auto& [path, content] : memory.files()) {
    ASSERT_EQ(path.rfind(root, 0), 0u) << path;
    fake[path.substr(root.size())] = without_times(replace_all(content, m.checkpoint.run_id, "RUN"));
  }
  std::set<std::string> fake_dirs;
  for (const std::string& dir : memory.directories()) {
    if (dir.rfind(root, 0) == 0) fake_dirs.insert(dir.substr(root.size()));
  }
  EXPECT_EQ(real_dirs, fake_dirs);
  EXPECT_EQ(real.size(), fake.size());
  for (const auto& [name, content] : real) EXPECT_EQ(content, fake[name]) << name;
}

/// Records, for every attempt folder made, whether the engine's own thread made it.
class AttemptFolderDisk : public testing::CountingRunDisk {
 public:
  std::error_code make_directories(const std::string& path) override {
    note(path);
    return CountingRunDisk::make_directories(path);
  }
  std::error_code make_directories(const std::string& path, bool& created) override {
    note(path);
    return CountingRunDisk::make_directories(path, created);
  }
  std::thread::id engine_thread = std::this_thread::get_id();
  std::mutex mutex;
  std::vector<std::string> made_by_engine, made_by_writer;

 private:
  void note(const std::string& path) {
    if (fs::path(path).filename().string().rfind("attempt-", 0) != 0) return;
    std::lock_guard lock(mutex);
    (std::this_thread::get_id() == engine_thread ? made_by_engine : made_by_writer).push_back(path);
  }
};

TEST(WriteOrderTest, StagesWithOneAttemptMakeNoAttemptFolders) {
  TestRun t;
  AttemptFolderDisk disk;
  t.disk = &disk;
  RunResult r = t.run(twelve_stages());
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_TRUE(disk.made_by_engine.empty()) << disk.made_by_engine.front();
  EXPECT_TRUE(disk.made_by_writer.empty()) << disk.made_by_writer.front();
  EXPECT_TRUE(fs::exists(t.run_dir() + "/s7/response.md"));
}

TEST(WriteOrderTest, AFreshRunMakesTheFoldersOfARetriedStageBehindTheEngineWithoutWaiting) {
  TestRun t;
  AttemptFolderDisk disk;
  t.disk = &disk;
  Graph g = testing::linear_graph({"flaky"});
  g.node("flaky")->set("max_retries", "2");
  g.node("flaky")->set("simulate.outcome", "fail,fail,success");
  RunResult r = t.run(g);
  EXPECT_EQ(r.outcome.status, StageStatus::kSuccess);
  EXPECT_TRUE(disk.made_by_engine.empty()) << disk.made_by_engine.front();
  EXPECT_EQ(disk.made_by_writer.size(), 3u);
  for (int k = 1; k <= 3; ++k) {
    EXPECT_TRUE(fs::exists(t.run_dir() + "/flaky/attempt-" + std::to_string(k) + "/prompt.md")) << k;
  }
}

}  // namespace
}  // namespace attractor
