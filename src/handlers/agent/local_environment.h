#pragma once
/// \file
/// The coding agent's tools acting on this machine (coding-agent-loop spec §4.2), confined to one
/// working directory.
///
/// Confinement: every path is resolved against the working directory, symbolic links included
/// (for a path that does not exist yet, its existing ancestors are resolved), and refused with
/// PathOutsideWorkspace unless the result is the working directory or inside it. So `../x`,
/// `/etc/passwd` and `link/x` where `link -> /etc` are all refused; an absolute path inside the
/// working directory is accepted.
///
/// Commands run with `/bin/sh -c` in their own process group (killed, SIGTERM then SIGKILL, on
/// timeout or cancellation) and an environment with the credentials removed: variables named
/// `*_API_KEY`, `*_SECRET`, `*_TOKEN`, `*_PASSWORD`, `*_CREDENTIAL` (any case) are not passed on.

#include <functional>
#include <filesystem>

#include "attractor/base/clock.h"
#include "handlers/agent/execution_environment.h"
#include "handlers/services/sandbox_host.h"
#include "handlers/services/subprocess.h"

namespace attractor {

class LocalExecutionEnvironment : public ExecutionEnvironment {
 public:
  /// `root` must be an existing directory. `runner` (nullptr = the POSIX runner) runs commands;
  /// `cancel` stops a running command.
  explicit LocalExecutionEnvironment(const std::string& root, ProcessRunner* runner = nullptr, CancelToken cancel = {});

  std::string read_file(const std::string& path, std::optional<std::size_t> offset,
                        std::optional<std::size_t> limit) override;
  void write_file(const std::string& path, const std::string& content) override;
  void delete_file(const std::string& path) override;
  bool file_exists(const std::string& path) override;
  std::vector<DirEntry> list_directory(const std::string& path, int depth) override;
  ExecResult exec_command(const std::string& command, std::int64_t timeout_ms, const std::string& working_dir,
                          const std::map<std::string, std::string>& env) override;
  std::string grep(const std::string& pattern, const std::string& path, const GrepOptions& options) override;
  std::vector<std::string> glob(const std::string& pattern, const std::string& path) override;
  std::string working_directory() const override { return root_.string(); }
  std::string platform() const override;
  std::string os_version() const override;

  /// Called with the process group of each command as it starts, so the stage's attempt records
  /// it and a resume stops it if the run was killed (StageEnv::record_process).
  /// Confines every command exec_command runs (level `none`, the default, runs them as they are).
  void set_sandbox(SandboxSpec sandbox) { sandbox_ = std::move(sandbox); }
  const SandboxSpec& sandbox() const { return sandbox_; }
  /// What the sandbox denied the commands run so far (ProcessResult::sandbox_denials), in order.
  const std::vector<std::string>& sandbox_denials() const { return last_denials_; }

  void set_process_recorder(std::function<void(const ProcessGroupRecord&)> recorder) {
    recorder_ = std::move(recorder);
  }

  /// The absolute path `path` names, or PathOutsideWorkspace.
  std::filesystem::path resolve(const std::string& path) const;

 private:
  std::string relative(const std::filesystem::path& absolute) const;

  std::filesystem::path root_;
  ProcessRunner* runner_;
  CancelToken cancel_;
  std::function<void(const ProcessGroupRecord&)> recorder_;
  SandboxSpec sandbox_;
  KeptSandbox kept_;  ///< the session's kept sandbox (handlers/services/sandbox_host.h)
  std::vector<std::string> last_denials_;
};

/// True for the environment variable names withheld from agent commands.
bool is_credential_variable(const std::string& name);

/// The regular expression (ECMAScript) equivalent to a glob over '/'-separated relative paths:
/// `**` any number of directories, `*` and `?` within one name.
std::string glob_to_regex(const std::string& glob);

}  // namespace attractor
