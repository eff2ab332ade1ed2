#pragma once
/// \file
/// How a `stack.manager_loop` stage starts its child pipeline (handlers/manager_loop.h). Loading,
/// checking and equipping a run is the launch layer's work, which the handlers may not include:
/// the launch layer implements ChildRunStarter (attractor/launch/child_run_starter.h) and hands it
/// to the handlers as HandlerServices::child_runs.

#include <memory>
#include <string>

#include "attractor/base/clock.h"
#include "attractor/engine/engine.h"
#include "attractor/engine/events.h"

namespace attractor {

/// What a child run gets from the manager that supervises it.
struct ChildRunOptions {
  std::string run_dir;                      ///< the child's own run directory
  Clock* clock = nullptr;                   ///< nullptr = the system clock
  std::shared_ptr<EventObserver> observer;  ///< receives the child's events
  CancelToken cancel;                       ///< stops the child at a safe point
  /// The disk of the parent's run directory, which holds the child's; nullptr = the real one.
  RunDisk* disk = nullptr;
};

/// A child pipeline loaded and checked, ready to run.
class ChildRun {
 public:
  virtual ~ChildRun() = default;
  /// Runs the child to its end on the calling thread. Its run directory is written inline (the
  /// manager reads and steers it meanwhile). Errors of the engine propagate.
  virtual RunResult run(const ChildRunOptions& options) = 0;
};

/// The outcome of ChildRunStarter::load: the child, or why it cannot run.
struct LoadedChildRun {
  std::unique_ptr<ChildRun> run;  ///< null when the pipeline cannot run
  std::string problem;            ///< the first diagnostic when `run` is null ("" when none)
};

/// Starts child runs the way the launch layer starts every run.
class ChildRunStarter {
 public:
  virtual ~ChildRunStarter() = default;
  /// Reads, parses, transforms and checks the pipeline at `graph_path`.
  virtual LoadedChildRun load(const std::string& graph_path) = 0;
};

}  // namespace attractor
