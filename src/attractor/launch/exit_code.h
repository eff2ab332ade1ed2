#pragma once
/// \file
/// The process exit codes of `attractor` (docs/cli.md, "Exit codes"); the server reports the same
/// numbers for runs it could not start.

namespace attractor {

enum ExitCode : int {
  kExitSuccess = 0,       ///< pipeline succeeded / command succeeded
  kExitFail = 1,          ///< pipeline ended in FAIL
  kExitUsage = 2,         ///< bad usage, parse or validation error
  kExitRuntime = 3,       ///< runtime or environment error
  kExitBudget = 4,        ///< stopped before an LLM stage: the token or cost budget is spent
  kExitInterrupted = 130  ///< interrupted, checkpoint intact
};

}  // namespace attractor
