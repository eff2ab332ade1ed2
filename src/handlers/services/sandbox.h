#pragma once
/// \file
/// Confining the commands a run starts (tool stages, tool hooks, the coding agent's `shell`) to
/// their workspace (docs/security.md). A level is chosen per node, per graph and per run; the
/// node's wins, and a floor (the server's `--sandbox`) raises whatever was chosen. Levels above
/// `none` run the command under bubblewrap (Linux namespaces): the system read-only, the workspace,
/// the stage directory and a private /tmp writable, the home directories and the logs root hidden,
/// no view of attractor's processes; `strict` adds no network and resource limits (prlimit, and a
/// pids cgroup when running as root, whom RLIMIT_NPROC does not bind).
///
/// Settings come only from the graph file and the command line: sandbox attributes are read as
/// written, never through context substitution, and lint refuses values that look like it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/model/graph.h"
#include "attractor/model/sandbox_level.h"

namespace attractor {

/// Which network a confined command has: no IP sockets at all (a seccomp filter refuses them, in
/// a network namespace of its own), a network namespace of its own (its own loopback: servers the
/// command starts itself, never the host's), or the machine's.
enum class SandboxNetwork { kNone, kLoopback, kAll };

/// "none", "loopback" or "all".
std::string_view sandbox_network_name(SandboxNetwork network);

/// The descriptor a confined command's bubblewrap reads its seccomp filter from (`--seccomp`).
inline constexpr int kSandboxFilterFd = 5;

/// The kinds of command a run starts; each has its own default level (docs/decisions.md). A CLI
/// agent (`cli:*`) is an external program no level above `none` can confine: a run that asks for
/// one is refused (launch/run_launch.h).
enum class CommandKind { kToolStage, kHook, kAgentShell, kCliAgent };

/// "tool stage", "hook", "agent shell" or "cli agent".
std::string_view command_kind_name(CommandKind kind);
/// The level a command of `kind` gets when neither node, graph nor run chose one.
SandboxLevel default_sandbox_level(CommandKind kind);

/// Resource limits of `strict` (0 = that limit is not set).
struct SandboxLimits {
  std::int64_t cpu_seconds = 600;
  std::int64_t memory_bytes = std::int64_t{4} << 30;  ///< address space (RLIMIT_AS)
  std::int64_t processes = 256;
  std::int64_t file_bytes = std::int64_t{1} << 30;  ///< largest file written (RLIMIT_FSIZE)
  std::int64_t wall_ms = 3'600'000;                 ///< applied when the stage sets no shorter timeout
};

/// The run-wide choices: `--sandbox` of run/resume and the server's floor.
struct SandboxOptions {
  std::optional<SandboxLevel> run_level;     ///< `--sandbox`; nullopt = each kind's default
  SandboxLevel floor = SandboxLevel::kNone;  ///< no command runs weaker than this
};

/// Everything one command's confinement needs.
struct SandboxSpec {
  SandboxLevel level = SandboxLevel::kNone;
  SandboxNetwork network = SandboxNetwork::kAll;
  std::vector<std::string> read;   ///< extra paths visible read-only (`sandbox.read`)
  std::vector<std::string> write;  ///< extra writable paths (`sandbox.write`)
  SandboxLimits limits;
  std::string workspace;            ///< writable: the command's working tree
  std::string stage_dir;            ///< writable: where the stage keeps its files
  std::vector<std::string> hidden;  ///< replaced by empty read-only directories (the run directory)
  /// The bubblewrap program: Debian's, never from a pipeline or the environment (tests point it
  /// at a missing file to see the refusal).
  std::string bubblewrap = "/usr/bin/bwrap";

  /// `{"level", "network", "read", "write"}` (and `limits` under strict) for status.json and events.
  nlohmann::json to_json() const;
};

/// The sandbox of a command of `kind` started for `node` (nullptr: a graph-wide hook) of `graph`:
/// the node's `sandbox` over `run.run_level` (`--sandbox`) over the graph's over the kind's default, raised to
/// `run.floor`; network and extra paths from `sandbox.network`, `sandbox.read`, `sandbox.write`
/// (node over graph). Paths (workspace, stage_dir, hidden) are left for the caller.
SandboxSpec resolve_sandbox(const NodeData* node, const Graph& graph, CommandKind kind, const SandboxOptions& run);

/// Fills the paths of `spec`: `workspace` ("" = the current directory) and `stage_dir` writable;
/// the folder holding `run_dir` (the other runs) hidden, or `run_dir` alone when that folder is the
/// workspace or holds it.
void place_sandbox(SandboxSpec& spec, const std::string& workspace, const std::string& stage_dir,
                   const std::string& run_dir);

/// Why `spec` cannot be set up on this machine ("bubblewrap (bwrap) is not installed: ..."), with
/// the fix; nullopt when it can (always for `none`). The first check per level runs a probe
/// command and is remembered for the life of the process.
std::optional<std::string> sandbox_unavailable(const SandboxSpec& spec);

/// The program and arguments that run `/bin/sh -c command` in `cwd` confined by `spec` (level above
/// `none`): bubblewrap's, then prlimit's under `strict`. Network `none` reads the filter of
/// no_network_filter() from descriptor kSandboxFilterFd. The running attractor binary's folder
/// stays read-only also when it lies inside the workspace.
std::vector<std::string> sandbox_argv(const SandboxSpec& spec, const std::string& cwd, const std::string& command);

/// The seccomp program (classic BPF, as bubblewrap's `--seccomp` reads it) that refuses IP sockets
/// with EACCES, built once with libseccomp; nullopt (and `why`) when it cannot be built.
std::optional<std::string> no_network_filter(std::string& why);

/// bubblewrap and its options for `spec` with `cwd` as the working directory, without `--` and
/// the command (sandbox_argv() is these, `--` and confined_command()).
std::vector<std::string> bubblewrap_options(const SandboxSpec& spec, const std::string& cwd);

/// What runs inside the sandbox: `/bin/sh -c command`, under prlimit's limits for `strict`.
std::vector<std::string> confined_command(const SandboxSpec& spec, const std::string& command);

/// Lines of a confined command's standard error that say the sandbox denied something (a
/// read-only file system, a missing permission, an unreachable network, a refused connection, a
/// process or file-size limit), at most `max` of them.
std::vector<std::string> sandbox_denials(const std::string& stderr_text, std::size_t max = 10);

}  // namespace attractor
