#pragma once
// A stage environment for calling handlers directly, in a temporary run directory.

#include <filesystem>
#include <random>
#include <string>

#include <fmt/format.h>

#include "attractor/engine/handler.h"
#include "attractor/model/fidelity.h"

namespace attractor::testing {

class StageFixture {
 public:
  StageFixture() {
    std::random_device rd;
    root_ = (std::filesystem::temp_directory_path() / fmt::format("attractor-h-{:08x}{:08x}", rd(), rd())).string();
    std::filesystem::create_directories(root_);
  }
  ~StageFixture() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  /// An env whose stage directory `{root}/{node_id}` exists.
  StageEnv env(const std::string& node_id) {
    StageEnv e;
    e.run_dir = root_;
    e.stage_dir = root_ + "/" + node_id;
    std::filesystem::create_directories(e.stage_dir);
    e.clock = &clock;
    e.events = &events;
    return e;
  }
  const std::string& root() const { return root_; }

  FakeClock clock;
  RecordingObserver events;

 private:
  std::string root_;
};

/// Prepares `env` for an LLM stage of `node` the way the engine does, outside a run (no incoming
/// edge, no stage history): the fidelity (`env.fidelity` when set), the thread (`env.thread_id`
/// when set) and the conversation, with sessions from `sessions` (may be null).
inline void open_stage_conversation(StageEnv& env, const NodeData& node, const Context& context, const Graph& graph,
                                    ThreadSessions* sessions = nullptr) {
  env.fidelity = effective_fidelity(env.fidelity.empty() ? resolve_fidelity(nullptr, node, graph) : env.fidelity);
  if (env.thread_id.empty()) env.thread_id = resolve_thread_id(nullptr, node, graph, env.previous_node);
  env.conversation = open_conversation(node, context, graph, env.fidelity, env.thread_id, sessions, nullptr,
                                       env.attempt);
}

}  // namespace attractor::testing
