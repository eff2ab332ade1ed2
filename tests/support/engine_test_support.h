#pragma once
// Helpers for engine and handler tests: graphs built in code, temporary run directories, and a
// one-call runner with a fake clock and deterministic jitter.

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "attractor/engine/engine.h"
#include "attractor/model/graph.h"
#include "handlers/services/interviewer.h"
#include "handlers/registry.h"

namespace attractor::testing {

using Attrs = std::initializer_list<std::pair<const char*, const char*>>;

/// Adds (or updates) a node with attributes.
void node(Graph& g, const std::string& id, Attrs attrs = {});
/// Adds an edge with attributes.
void edge(Graph& g, const std::string& from, const std::string& to, Attrs attrs = {});
/// start(Mdiamond) -> ids... -> exit(Msquare), every middle node a box.
Graph linear_graph(std::initializer_list<const char*> middle);

/// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

 private:
  std::string path_;
};

/// Everything a test run needs; tweak fields before `run()`.
struct TestRun {
  TempDir dir;
  FakeClock clock;
  HandlerServices services;
  std::shared_ptr<RecordingObserver> events = std::make_shared<RecordingObserver>();
  std::int64_t max_node_executions = 0;
  CancelToken cancel;
  bool background_writes = true;
  bool write_run_log = true;
  /// EngineOptions::checkpoint_rewrite_below (0: journal records after the first snapshot).
  std::size_t checkpoint_rewrite_below = CheckpointWriter::kRewriteBelowBytes;
  RunDisk* disk = nullptr;  ///< EngineOptions::disk (nullptr: the real file system)

  EngineOptions options();
  RunResult run(const Graph& graph, const nlohmann::json& seed = nlohmann::json::object());
  RunResult run(const Graph& graph, const HandlerRegistry& registry,
                const nlohmann::json& seed = nlohmann::json::object());
  RunResult resume(const Graph& graph);
  RunResult resume(const Graph& graph, const HandlerRegistry& registry);
  std::string run_dir() const { return dir.sub("run"); }
};

/// Reads and parses a JSON file.
nlohmann::json read_json(const std::string& path);

/// The checkpoint of `run_dir` as resume sees it: `checkpoint.json` with `checkpoint.journal`
/// replayed. Mid-run the snapshot alone lags behind; tests of killed runs read through this.
nlohmann::json read_checkpoint(const std::string& run_dir);

}  // namespace attractor::testing
