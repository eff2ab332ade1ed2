#pragma once
/// \file
/// `stack.manager_loop` (§4.11): supervises a child pipeline. The child named by
/// `stack.child_dotfile` (node attribute, else graph attribute; relative paths resolve against
/// `stack.child_workdir`, else the current directory, else the parent graph file's directory) runs in-process on its
/// own thread with its own run directory `{stage_dir}/child`, using the same backend and interviewer. The child starts
/// through HandlerServices::child_runs (the launch layer's), loaded and checked like any run.
///
/// Each cycle (at most `manager.max_cycles`, default 1000):
/// - `observe` copies the child's progress into the context: `stack.child.status` (running,
///   completed, failed), `stack.child.current_node`, `stack.child.completed_count`,
///   `stack.child.outcome`, `stack.child.run_dir`;
/// - `steer` writes `manager.instructions` (node attribute, `$goal` expanded) to
///   `steering.md` in the child's running stage directory, once per child stage;
/// - the child finishing ends the loop (SUCCESS when it succeeded, FAIL otherwise), and so does
///   `manager.stop_condition` (a §10 condition over the context) evaluating true (SUCCESS);
/// - `wait` blocks until the child reports progress or `manager.poll_interval` (default 45s)
///   elapses.
/// Running out of cycles is FAIL; the child is cancelled whenever the manager stops first.
/// `stack.child_autostart=false` makes the manager only observe an existing child run directory
/// named by `stack.child_run_dir`.

#include "attractor/check/handler_catalog.h"
#include "attractor/engine/handler.h"
#include "handlers/registry.h"

namespace attractor {

class ManagerLoopHandler : public Handler {
 public:
  explicit ManagerLoopHandler(HandlerServices services) : services_(std::move(services)) {}
  Outcome execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) override;

 private:
  HandlerServices services_;
};

/// The description of the `stack.manager_loop` handler type (registry, lint, engine and reference read it).
const HandlerDescription& manager_loop_description();

}  // namespace attractor
