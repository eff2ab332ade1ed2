#include "handlers/services/sandbox_host.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

extern char** environ;

namespace attractor {

namespace {

/// How long the holder may take to report its namespaces.
constexpr int kStartTimeoutMs = 10'000;

/// The confinement a command of `spec` gets, as a comparable list.
std::vector<std::string> confinement_key(const SandboxSpec& spec) {
  std::vector<std::string> key = bubblewrap_options(spec, spec.workspace);
  key.push_back(spec.to_json().dump());
  return key;
}

/// What `fd` gives until `last` comes (bubblewrap's info object, the holder's "ready" line), the
/// end of the pipe or kStartTimeoutMs.
std::string read_until(int fd, char last) {
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartTimeoutMs);
  std::array<char, 512> buf{};
  while (text.find(last) == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n <= 0) break;
    text.append(buf.data(), static_cast<std::size_t>(n));
  }
  return text;
}

int open_namespace(long pid, const char* name) {
  std::string path = "/proc/" + std::to_string(pid) + "/ns/" + name;
  return ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

}  // namespace

bool SandboxHost::suits(const SandboxSpec& spec) {
  return spec.level != SandboxLevel::kNone && spec.network != SandboxNetwork::kNone;
}

std::unique_ptr<SandboxHost> SandboxHost::start(const SandboxSpec& spec, std::string& why) {
  if (!suits(spec)) {
    why = "this confinement is not kept";
    return nullptr;
  }
  std::unique_ptr<SandboxHost> host(new SandboxHost());
  host->spec_ = spec;
  host->key_ = confinement_key(spec);
  int in[2] = {-1, -1}, info[2] = {-1, -1}, ready[2] = {-1, -1};
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(info, O_CLOEXEC) != 0 || ::pipe2(ready, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], info[0], info[1], ready[0], ready[1]}) {
      if (fd >= 0) ::close(fd);
    }
    why = "cannot create a pipe";
    return nullptr;
  }
  SpawnSpec spawn;
  spawn.argv = bubblewrap_options(spec, spec.workspace);
  for (const char* a : {"--info-fd", "5", "--", "/bin/sh", "-c", "echo ready; read _"}) spawn.argv.emplace_back(a);
  spawn.program = spawn.argv.front();
  for (char** e = environ; *e; ++e) spawn.env.emplace_back(*e);
  spawn.stdin_fd = in[0];
  spawn.stdout_fd = ready[1];
  spawn.inherited_fd = info[1];
  const bool started = host->holder_.start(spawn);
  for (int fd : {in[0], info[1], ready[1]}) ::close(fd);
  host->keep_open_ = in[1];
  const std::string text = started ? read_until(info[0], '}') : "";
  // The shell runs once the sandbox is whole: before that its mounts may still be in the making.
  const bool whole = started && read_until(ready[0], '\n') == "ready\n";
  ::close(info[0]);
  ::close(ready[0]);
  if (!started) {
    why = host->holder_.error();
    return nullptr;
  }
  if (!whole) {
    why = "the kept sandbox's shell did not start";
    return nullptr;
  }
  if (!host->open_namespaces(text, why)) return nullptr;
  return host;
}

bool SandboxHost::open_namespaces(const std::string& info, std::string& why) {
  nlohmann::json j = nlohmann::json::parse(info, nullptr, false);
  if (!j.is_object() || !j.contains("child-pid") || !j["child-pid"].is_number_integer()) {
    why = "bubblewrap did not report the kept sandbox's process";
    return false;
  }
  holder_pid_ = j["child-pid"].get<long>();
  std::vector<std::pair<const char*, std::vector<int>*>> wanted = {{"user", &supervisor_namespaces_},
                                                                   {"pid", &supervisor_namespaces_},
                                                                   {"mnt", &namespaces_},
                                                                   {"ipc", &namespaces_},
                                                                   {"uts", &namespaces_}};
  if (j.contains("cgroup-namespace")) wanted.emplace_back("cgroup", &namespaces_);
  if (spec_.network != SandboxNetwork::kAll) wanted.emplace_back("net", &namespaces_);
  for (const auto& [name, into] : wanted) {
    int fd = open_namespace(holder_pid_, name);
    if (fd < 0) {
      why = std::string("cannot open the kept sandbox's ") + name + " namespace";
      return false;
    }
    into->push_back(fd);
  }
  return true;
}

SandboxHost::~SandboxHost() {
  if (keep_open_ >= 0) ::close(keep_open_);
  if (!holder_.wait_for(2000)) holder_.signal_group(SIGKILL);
  for (int fd : supervisor_namespaces_) ::close(fd);
  for (int fd : namespaces_) ::close(fd);
}

bool SandboxHost::alive() {
  if (holder_.wait_for(0)) return false;
  std::ifstream in("/proc/" + std::to_string(holder_pid_) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

bool SandboxHost::matches(const SandboxSpec& spec) const { return confinement_key(spec) == key_; }

void SandboxHost::prepare(SpawnSpec& spawn, const std::string& cwd, const std::string& command) const {
  spawn.argv = confined_command(spec_, command);
  spawn.program = spawn.argv.front();
  spawn.cwd = cwd.empty() ? spec_.workspace : cwd;
  spawn.supervisor_namespaces = supervisor_namespaces_;
  spawn.namespaces = namespaces_;
}

SandboxHost* KeptSandbox::host_for(const SandboxSpec& spec) {
  if (!SandboxHost::suits(spec)) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  if (host_ && (!host_->matches(spec) || !host_->alive())) host_.reset();
  if (!host_ && starts_ < kMaxStarts) {
    ++starts_;
    std::string why;
    host_ = SandboxHost::start(spec, why);
  }
  return host_.get();
}

}  // namespace attractor
