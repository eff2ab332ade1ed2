#pragma once
/// \file
/// The built-in handler registry: start, exit, conditional, codergen, wait.human, tool, parallel,
/// parallel.fan_in and stack.manager_loop, with codergen as the default handler.

#include <memory>

#include "attractor/engine/handler.h"
#include "handlers/services/child_runs.h"
#include "handlers/services/interviewer.h"
#include "handlers/services/subprocess.h"
#include "handlers/llm/codergen_backend.h"
#include "handlers/rag/retrieval_support.h"

namespace attractor {

struct HandlerServices {
  std::shared_ptr<CodergenBackend> backend;  ///< nullptr = the simulation backend
  std::shared_ptr<Interviewer> interviewer;  ///< nullptr = auto-approve
  ProcessRunner* process_runner = nullptr;   ///< nullptr = POSIX runner
  /// Backend for the retrieval actions; nullptr = GraphRetrievalProvider (graph `index_dir`).
  std::shared_ptr<RetrievalBackendProvider> retrieval;
  /// Starts the child runs of `stack.manager_loop` stages; nullptr = such stages fail (the launch
  /// layer provides it: attractor/launch/child_run_starter.h).
  std::shared_ptr<ChildRunStarter> child_runs;
  /// Where tool commands run when their node has no `tool_cwd` (a relative `tool_cwd` is taken
  /// from here); "" = the process's current directory.
  std::string workdir;
  /// How the commands of tool stages, hooks and the coding agent are confined: `--sandbox` and
  /// the server's floor (handlers/services/sandbox.h).
  SandboxOptions sandbox;
};

/// A registry with every built-in handler; custom handlers can be added afterwards.
HandlerRegistry make_default_registry(const HandlerServices& services = {});

/// The descriptions of the built-in handler types (what `validate`, `render` and the reference
/// use when no run is being made).
const HandlerCatalog& builtin_handler_catalog();

}  // namespace attractor
