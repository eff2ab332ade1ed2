#pragma once
/// \file
/// Running shell commands as a side effect behind an interface. The POSIX runner starts
/// `/bin/sh -c COMMAND` (under bubblewrap when the spec asks for a sandbox) in its own process group under a supervisor
/// (SupervisedProcess): the group dies with attractor, even on SIGKILL, and when the command ends the rest of its group
/// (background children) is killed too. stdout/stderr go to files; on timeout or cancellation the
/// whole group gets SIGTERM, then SIGKILL after a grace period. No descriptor of attractor's
/// reaches the command besides its three standard streams (docs/run-directory.md §8).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attractor/base/clock.h"
#include "attractor/base/supervised_process.h"
#include "handlers/services/sandbox.h"

namespace attractor {

class KeptSandbox;

struct ProcessSpec {
  std::string command;  ///< passed verbatim to `/bin/sh -c`
  /// Added to (or replacing in) the inherited environment.
  std::vector<std::pair<std::string, std::string>> env;
  /// false: the process gets `env` alone, nothing of this process's environment.
  bool inherit_env = true;
  std::string cwd;          ///< "" = inherit
  std::string stdout_path;  ///< "" = /dev/null
  std::string stderr_path;  ///< "" = /dev/null
  std::string stdin_path;   ///< file read as standard input; "" = /dev/null
  std::optional<std::int64_t> timeout_ms;
  CancelToken cancel;
  /// Called with the command's process group before the command runs (a stage records it so a
  /// resume can check that it is gone); an exception from it fails the start.
  std::function<void(const ProcessGroupRecord&)> on_started;
  /// The confinement of the command (sandbox.h); level `none` runs it as it is.
  SandboxSpec sandbox;
  /// A session's kept sandbox (sandbox_host.h) the command may enter instead of starting a
  /// bubblewrap of its own; nullptr: none.
  KeptSandbox* kept = nullptr;
};

struct ProcessResult {
  int exit_code = -1;   ///< exit status when the process exited normally, else -1
  int term_signal = 0;  ///< signal that ended it, 0 if none
  bool timed_out = false;
  bool cancelled = false;
  std::int64_t duration_ms = 0;
  std::string error;                 ///< set when the process could not be started
  bool cwd_missing = false;          ///< `cwd` could not be entered (error says why)
  bool sandbox_unavailable = false;  ///< the sandbox could not be set up: nothing ran (error says why)
  /// Lines of stderr that say the sandbox denied something (sandbox_denials()).
  std::vector<std::string> sandbox_denials;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
};

class PosixProcessRunner : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override;
};

/// The process-wide POSIX runner.
ProcessRunner& default_process_runner();

}  // namespace attractor
