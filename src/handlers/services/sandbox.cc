#include "handlers/services/sandbox.h"

#include <fcntl.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <tuple>

extern char** environ;

namespace attractor {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrlimit = "/usr/bin/prlimit";

std::string sandbox_attribute(const NodeData* node, const Graph& graph, const char* key) {
  std::string own = node ? node->get(key) : "";
  return own.empty() ? graph.data().get(key) : own;
}

std::string trimmed(std::string s) {
  const char* space = " \t\r\n";
  s.erase(0, s.find_first_not_of(space));
  s.erase(s.find_last_not_of(space) + 1);
  return s;
}

/// The comma-separated paths of `value`; `~/` is the home directory.
std::vector<std::string> sandbox_paths(const std::string& value) {
  std::vector<std::string> out;
  std::stringstream in(value);
  std::string item;
  const char* home = std::getenv("HOME");
  while (std::getline(in, item, ',')) {
    item = trimmed(item);
    if (item.empty()) continue;
    if (item.rfind("~/", 0) == 0 && home) item = std::string(home) + item.substr(1);
    out.push_back(item);
  }
  return out;
}

bool is_under(const fs::path& path, const fs::path& root) {
  auto p = path.lexically_normal(), r = root.lexically_normal();
  auto [pi, ri] = std::mismatch(p.begin(), p.end(), r.begin(), r.end());
  return ri == r.end() || (std::next(ri) == r.end() && ri->empty());
}

std::string absolute_of(const std::string& path, const std::string& base) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(base.empty() ? fs::current_path() : fs::path(base)) / p;
  return p.lexically_normal().string();
}

/// The directories hidden from a command confined by `spec`: the home directories and the per-user
/// runtime directories (`$XDG_RUNTIME_DIR`, `/run/user`), where the sockets of ssh-agent,
/// gpg-agent and the session bus live; without the machine's network, all of `/run` too, with the
/// sockets of the system's services (a database, Docker), which only name resolution needs. Only
/// directories that exist: bubblewrap would otherwise create the mount point on the host.
std::vector<std::string> hidden_user_directories(const SandboxSpec& spec) {
  std::vector<std::string> out;
  auto add = [&out](const char* dir) {
    std::error_code ec;
    if (!dir || !*dir || fs::path(dir) == "/" || !fs::is_directory(dir, ec)) return;
    if (std::find(out.begin(), out.end(), dir) == out.end()) out.emplace_back(dir);
  };
  add(std::getenv("HOME"));
  add("/home");
  add("/root");
  if (spec.network != SandboxNetwork::kAll) add("/run");
  add(std::getenv("XDG_RUNTIME_DIR"));
  add("/run/user");
  return out;
}

/// The folder of the running attractor binary ("" when it cannot be read).
std::string own_binary_folder() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

void push(std::vector<std::string>& argv, std::initializer_list<std::string> args) {
  argv.insert(argv.end(), args.begin(), args.end());
}

/// The namespaces and mounts every level above `none` gets, before the paths of `spec`.
std::vector<std::string> bubblewrap_base(const SandboxSpec& spec) {
  std::vector<std::string> argv = {
      spec.bubblewrap, "--die-with-parent", "--new-session",        "--unshare-user", "--unshare-pid",
      "--unshare-ipc", "--unshare-uts",     "--unshare-cgroup-try", "--cap-drop",     "ALL"};
  if (spec.network != SandboxNetwork::kAll) argv.push_back("--unshare-net");
  push(argv, {"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp"});
  return argv;
}

/// `prlimit` options for the limits of `strict`.
std::vector<std::string> prlimit_argv(const SandboxLimits& limits) {
  std::vector<std::string> argv = {kPrlimit};
  auto add = [&argv](const char* option, std::int64_t value) {
    if (value > 0) argv.push_back(std::string(option) + "=" + std::to_string(value));
  };
  add("--cpu", limits.cpu_seconds);
  add("--as", limits.memory_bytes);
  add("--nproc", limits.processes);
  add("--fsize", limits.file_bytes);
  argv.push_back("--");
  return argv;
}

/// Runs `argv` with its output discarded but the first line of stderr kept; its exit status.
int run_probe(const std::vector<std::string>& argv, std::string& first_line) {
  int err[2];
  if (::pipe2(err, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(err[1]);
  std::string text;
  std::array<char, 512> buf{};
  for (ssize_t n; (n = ::read(err[0], buf.data(), buf.size())) > 0;)
    text.append(buf.data(), static_cast<std::size_t>(n));
  ::close(err[0]);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  first_line = trimmed(text.substr(0, text.find('\n')));
  return status;
}

std::optional<std::string> probe_level(const SandboxSpec& spec) {
  const std::string level(sandbox_level_name(spec.level));
  if (::access(spec.bubblewrap.c_str(), X_OK) != 0) {
    return "sandbox `" + level + "` needs bubblewrap (" + spec.bubblewrap +
           "), which is not installed; fix: install Debian's `bubblewrap` package (make deps does), or choose "
           "sandbox=none explicitly";
  }
  if (spec.level == SandboxLevel::kStrict && ::access(kPrlimit, X_OK) != 0) {
    return "sandbox `strict` needs prlimit (" + std::string(kPrlimit) +
           ") for its resource limits; fix: install Debian's `util-linux` package";
  }
  if (spec.network == SandboxNetwork::kNone) {
    std::string why;
    if (!no_network_filter(why)) {
      return "sandbox.network=none cannot be set up: " + why +
             "; fix: install Debian's `libseccomp2`, or choose sandbox.network=loopback";
    }
  }
  std::vector<std::string> argv = bubblewrap_base(spec);
  push(argv, {"--", "/bin/true"});
  std::string why;
  int status = run_probe(argv, why);
  if (status == 0) return std::nullopt;
  return "sandbox `" + level + "` cannot be set up: bubblewrap failed" + (why.empty() ? "" : " (" + why + ")") +
         "; fix: enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
         "user.max_user_namespaces > 0), or choose sandbox=none explicitly";
}

}  // namespace

std::string_view command_kind_name(CommandKind kind) {
  switch (kind) {
    case CommandKind::kToolStage: return "tool stage";
    case CommandKind::kHook: return "hook";
    case CommandKind::kAgentShell: return "agent shell";
    case CommandKind::kCliAgent: return "cli agent";
  }
  return "tool stage";
}

SandboxLevel default_sandbox_level(CommandKind kind) {
  return kind == CommandKind::kAgentShell ? SandboxLevel::kWorkspace : SandboxLevel::kNone;
}

std::string_view sandbox_network_name(SandboxNetwork network) {
  switch (network) {
    case SandboxNetwork::kNone: return "none";
    case SandboxNetwork::kLoopback: return "loopback";
    case SandboxNetwork::kAll: return "all";
  }
  return "all";
}

nlohmann::json SandboxSpec::to_json() const {
  nlohmann::json j = {{"level", sandbox_level_name(level)},
                      {"network", sandbox_network_name(level == SandboxLevel::kNone ? SandboxNetwork::kAll : network)},
                      {"read", read},
                      {"write", write}};
  if (level == SandboxLevel::kStrict) {
    j["limits"] = {{"cpu_seconds", limits.cpu_seconds},
                   {"memory_bytes", limits.memory_bytes},
                   {"processes", limits.processes},
                   {"file_bytes", limits.file_bytes},
                   {"wall_ms", limits.wall_ms}};
  }
  return j;
}

SandboxSpec resolve_sandbox(const NodeData* node, const Graph& graph, CommandKind kind, const SandboxOptions& run) {
  SandboxSpec spec;
  std::optional<SandboxLevel> own = node ? parse_sandbox_level(node->get("sandbox")) : std::nullopt;
  std::optional<SandboxLevel> graph_wide = parse_sandbox_level(graph.data().get("sandbox"));
  spec.level = own ? *own : run.run_level ? *run.run_level : graph_wide.value_or(default_sandbox_level(kind));
  spec.level = std::max(spec.level, run.floor);
  std::string network = sandbox_attribute(node, graph, "sandbox.network");
  if (network.empty()) {
    spec.network = spec.level == SandboxLevel::kStrict ? SandboxNetwork::kNone : SandboxNetwork::kAll;
  } else {
    spec.network = network == "all"        ? SandboxNetwork::kAll
                   : network == "loopback" ? SandboxNetwork::kLoopback
                                           : SandboxNetwork::kNone;
  }
  spec.read = sandbox_paths(sandbox_attribute(node, graph, "sandbox.read"));
  spec.write = sandbox_paths(sandbox_attribute(node, graph, "sandbox.write"));
  return spec;
}

void place_sandbox(SandboxSpec& spec, const std::string& workspace, const std::string& stage_dir,
                   const std::string& run_dir) {
  spec.workspace = absolute_of(workspace.empty() ? fs::current_path().string() : workspace, "");
  spec.stage_dir = stage_dir.empty() ? "" : absolute_of(stage_dir, "");
  spec.hidden.clear();
  if (run_dir.empty()) return;
  fs::path run = absolute_of(run_dir, "");
  fs::path runs = run.parent_path();
  const bool hide_runs = !runs.empty() && runs != run && !is_under(spec.workspace, runs);
  spec.hidden.push_back(hide_runs ? runs.string() : run.string());
}

std::optional<std::string> sandbox_unavailable(const SandboxSpec& spec) {
  if (spec.level == SandboxLevel::kNone) return std::nullopt;
  static std::mutex mutex;
  static std::map<std::tuple<SandboxLevel, SandboxNetwork, std::string>, std::optional<std::string>> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_tuple(spec.level, spec.network, spec.bubblewrap);
  auto it = known.find(key);
  if (it == known.end()) it = known.emplace(key, probe_level(spec)).first;
  return it->second;
}

std::vector<std::string> sandbox_argv(const SandboxSpec& spec, const std::string& cwd, const std::string& command) {
  std::vector<std::string> argv = bubblewrap_options(spec, cwd);
  argv.push_back("--");
  std::vector<std::string> inner = confined_command(spec, command);
  argv.insert(argv.end(), inner.begin(), inner.end());
  return argv;
}

std::vector<std::string> confined_command(const SandboxSpec& spec, const std::string& command) {
  std::vector<std::string> argv;
  if (spec.level == SandboxLevel::kStrict) argv = prlimit_argv(spec.limits);
  push(argv, {"/bin/sh", "-c", command});
  return argv;
}

std::vector<std::string> bubblewrap_options(const SandboxSpec& spec, const std::string& cwd) {
  std::vector<std::string> argv = bubblewrap_base(spec);
  if (spec.network == SandboxNetwork::kNone) push(argv, {"--seccomp", std::to_string(kSandboxFilterFd)});
  const std::string workspace = absolute_of(spec.workspace.empty() ? cwd : spec.workspace, "");
  for (const std::string& home : hidden_user_directories(spec)) push(argv, {"--tmpfs", home});
  for (const std::string& hidden : spec.hidden) push(argv, {"--tmpfs", absolute_of(hidden, "")});
  for (const std::string& p : spec.read)
    push(argv, {"--ro-bind-try", absolute_of(p, workspace), absolute_of(p, workspace)});
  push(argv, {"--bind", workspace, workspace});
  static const std::string binary_folder = own_binary_folder();
  if (!binary_folder.empty() && is_under(binary_folder, workspace))
    push(argv, {"--ro-bind", binary_folder, binary_folder});
  std::vector<std::string> masked = hidden_user_directories(spec);
  for (const std::string& hidden : spec.hidden) masked.push_back(absolute_of(hidden, ""));
  for (const std::string& h : masked) {
    if (is_under(h, workspace) && !is_under(workspace, h)) push(argv, {"--tmpfs", h});
  }
  if (!spec.stage_dir.empty()) {
    std::string stage = absolute_of(spec.stage_dir, "");
    push(argv, {"--bind", stage, stage});
  }
  for (const std::string& p : spec.write)
    push(argv, {"--bind-try", absolute_of(p, workspace), absolute_of(p, workspace)});
  for (const std::string& hidden : spec.hidden) push(argv, {"--remount-ro", absolute_of(hidden, "")});
  push(argv, {"--chdir", absolute_of(cwd.empty() ? workspace : cwd, "")});
  return argv;
}

std::optional<std::string> no_network_filter(std::string& why) {
  static const std::pair<std::optional<std::string>, std::string> built = [] {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return std::make_pair(std::optional<std::string>(), std::string("seccomp_init failed"));
    int rc = 0;
    for (int domain : {AF_INET, AF_INET6}) {
      for (int call : {SCMP_SYS(socket), SCMP_SYS(socketpair)}) {
        if (rc != 0) break;
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), call, 1,
                              SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(domain)));
      }
    }
    std::string program;
    int fd = rc == 0 ? ::memfd_create("attractor-no-network", MFD_CLOEXEC) : -1;
    if (fd >= 0 && seccomp_export_bpf(ctx, fd) == 0 && ::lseek(fd, 0, SEEK_SET) == 0) {
      std::array<char, 4096> buf{};
      for (ssize_t n; (n = ::read(fd, buf.data(), buf.size())) > 0;)
        program.append(buf.data(), static_cast<std::size_t>(n));
    }
    if (fd >= 0) ::close(fd);
    seccomp_release(ctx);
    if (program.empty()) {
      return std::make_pair(std::optional<std::string>(),
                            std::string("libseccomp could not build the filter") +
                                (rc < 0 ? std::string(" (") + std::strerror(-rc) + ")" : std::string()));
    }
    return std::make_pair(std::optional<std::string>(program), std::string());
  }();
  why = built.second;
  return built.first;
}

std::vector<std::string> sandbox_denials(const std::string& stderr_text, std::size_t max) {
  static const std::regex denied(
      "Read-only file system|Permission denied|Operation not permitted|Network is unreachable|"
      "Could not resolve host|Temporary failure in name resolution|Resource temporarily unavailable|"
      "Couldn't connect to server|File size limit exceeded|Cannot allocate memory|Cannot fork",
      std::regex::icase);
  std::vector<std::string> out;
  std::stringstream in(stderr_text);
  std::string line;
  while (out.size() < max && std::getline(in, line)) {
    if (std::regex_search(line, denied)) out.push_back(line.size() > 300 ? line.substr(0, 300) : line);
  }
  return out;
}

}  // namespace attractor
