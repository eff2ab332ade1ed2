#pragma once
/// \file
/// The launch layer's ChildRunStarter (handlers/services/child_runs.h): a `stack.manager_loop`
/// child is loaded and checked like the pipeline of `attractor run` and runs with its parent's
/// services (backend, interviewer, retrieval, process runner); its own children start the same way.

#include <memory>

#include "handlers/registry.h"

namespace attractor {

/// A starter whose children run with `services` (its `child_runs` is replaced by the starter).
std::shared_ptr<ChildRunStarter> make_child_run_starter(HandlerServices services);

/// `services` with `child_runs` set to a starter made from them, unless one is set already.
HandlerServices with_child_runs(HandlerServices services);

}  // namespace attractor
