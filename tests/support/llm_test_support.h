#pragma once
// Helpers for the LLM backend tests: DOT text to graph, a temporary directory, an engine run with
// a fake clock and deterministic jitter, fake agent scripts, and reading run-directory JSON.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/engine/engine.h"
#include "attractor/model/graph.h"
#include "handlers/llm/backend_router.h"
#include "handlers/registry.h"

namespace attractor::testing {

/// Parses, transforms and validates `dot`; fails the test on errors.
Graph load_graph(const std::string& dot);

/// A fresh directory under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string sub(const std::string& name) const { return path_ + "/" + name; }
  /// Writes an executable `/bin/sh` script `name` with `body`; returns its path.
  std::string write_script(const std::string& name, const std::string& body) const;

 private:
  std::string path_;
};

/// An engine run in `{dir}/run` with a FakeClock (retry sleeps are recorded, not slept) and no
/// jitter randomness (uniform 0.5 → factor 1.0).
struct LlmRun {
  ScratchDir dir;
  FakeClock clock;
  std::shared_ptr<RecordingObserver> events = std::make_shared<RecordingObserver>();

  RunResult run(const Graph& graph, std::shared_ptr<CodergenBackend> backend);
  std::string run_dir() const { return dir.sub("run"); }
  /// `{run}/{node}/status.json`
  nlohmann::json status(const std::string& node) const;
  /// Every event named `name`, as its fields.
  std::vector<nlohmann::json> events_named(const std::string& name) const;
};

/// What a run of the attractor binary left: its exit code (-1 when killed) and its stderr.
struct BinaryRun {
  int code = -1;
  std::string err;
};

/// Runs `program` (default: the attractor binary) with `args`, the provider variables
/// (OPENAI_*, ANTHROPIC_*, ATTRACTOR_CLI_AGENT) cleared and then `set` applied; stdin and stdout
/// are /dev/null, stderr is captured through `{dir}/stderr.txt`.
BinaryRun run_binary(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& set,
                     const ScratchDir& dir, const std::string& program = ATTRACTOR_BINARY_PATH);

/// A BackendConfig whose environment is exactly `vars` (no process environment), with no jitter
/// in its transport retries (uniform 0.5 → factor 1.0).
BackendConfig config_with_env(std::map<std::string, std::string> vars);

/// The body of an Anthropic Messages response (model `claude-test`) with `content` and the usage
/// it reports, as a fake provider answers a turn.
std::string anthropic_message(const nlohmann::json& content, int input_tokens, int output_tokens);

}  // namespace attractor::testing
