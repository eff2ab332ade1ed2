// The sandbox levels through the real POSIX runner and Debian's bubblewrap: what a command under
// each level can and cannot do (docs/security.md, threat model).

#include "handlers/services/sandbox.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "handlers/services/subprocess.h"
#include "support/cli_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using testing::make_temp_dir;

std::string slurp_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

/// A home with a secret, a workspace, and a logs root holding this run and another one.
class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = make_temp_dir();
    home_ = root_ / "home";
    workspace_ = root_ / "work";
    run_dir_ = root_ / "logs" / "run-1";
    stage_ = run_dir_ / "build";
    spit(home_ / ".ssh" / "id_ed25519", "SECRET-KEY\n");
    spit(workspace_ / "src" / "main.c", "int main(void) { return 0; }\n");
    spit(run_dir_ / "checkpoint.json", "{}\n");
    spit(root_ / "logs" / "run-0" / "events.jsonl", "OTHER-RUN\n");
    fs::create_directories(stage_);
    const char* home = std::getenv("HOME");
    saved_home_ = home ? home : "";
    ::setenv("HOME", home_.c_str(), 1);
  }
  void TearDown() override { ::setenv("HOME", saved_home_.c_str(), 1); }

  SandboxSpec spec(SandboxLevel level) const {
    SandboxSpec s;
    s.level = level;
    s.network = level == SandboxLevel::kStrict ? SandboxNetwork::kNone : SandboxNetwork::kAll;
    place_sandbox(s, workspace_.string(), stage_.string(), run_dir_.string());
    return s;
  }

  /// Runs `command` in the workspace under `s`; its stdout, stderr in err.
  ProcessResult run(const SandboxSpec& s, const std::string& command, std::string& out, std::string& err) {
    ProcessSpec p;
    p.command = command;
    p.cwd = workspace_.string();
    p.stdout_path = (root_ / "out.txt").string();
    p.stderr_path = (root_ / "err.txt").string();
    p.timeout_ms = 20000;
    p.sandbox = s;
    ProcessResult r = PosixProcessRunner().run(p);
    out = slurp_file(root_ / "out.txt");
    err = slurp_file(root_ / "err.txt");
    return r;
  }

  fs::path root_, home_, workspace_, run_dir_, stage_;
  std::string saved_home_;
};

TEST_F(SandboxTest, BubblewrapAndItsNamespacesAreAvailableOnThisMachine) {
  EXPECT_EQ(sandbox_unavailable(spec(SandboxLevel::kWorkspace)), std::nullopt);
  EXPECT_EQ(sandbox_unavailable(spec(SandboxLevel::kStrict)), std::nullopt);
}

TEST_F(SandboxTest, NoneRunsTheCommandAsItIs) {
  std::string out, err;
  ProcessResult r = run(spec(SandboxLevel::kNone), "cat \"$HOME/.ssh/id_ed25519\"", out, err);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(out, "SECRET-KEY\n");
  EXPECT_TRUE(r.sandbox_denials.empty());
}

TEST_F(SandboxTest, WorkspaceWritesTheWorkspaceAndTheStageFolder) {
  std::string out, err;
  ProcessResult r = run(
      spec(SandboxLevel::kWorkspace),
      "echo built > src/out.txt && echo kept > \"" + stage_.string() + "/note.txt\" && cat src/main.c", out, err);
  EXPECT_EQ(r.exit_code, 0) << err;
  EXPECT_EQ(out, "int main(void) { return 0; }\n");
  EXPECT_EQ(slurp_file(workspace_ / "src" / "out.txt"), "built\n");
  EXPECT_EQ(slurp_file(stage_ / "note.txt"), "kept\n");
}

TEST_F(SandboxTest, WorkspaceRefusesWritesOutsideAndSaysWhat) {
  std::string out, err;
  ProcessResult r = run(spec(SandboxLevel::kWorkspace), "touch /etc/attractor-sandbox-probe", out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists("/etc/attractor-sandbox-probe"));
  ASSERT_EQ(r.sandbox_denials.size(), 1u);
  EXPECT_EQ(r.sandbox_denials[0], "touch: cannot touch '/etc/attractor-sandbox-probe': Read-only file system");
}

TEST_F(SandboxTest, WorkspaceHidesTheHomeDirectoryAndItsSecrets) {
  std::string out, err;
  ProcessResult r = run(spec(SandboxLevel::kWorkspace), "ls -A \"$HOME\"; cat \"$HOME/.ssh/id_ed25519\"", out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err.find("SECRET"), std::string::npos);
  EXPECT_NE(err.find("No such file or directory"), std::string::npos) << err;
}

TEST_F(SandboxTest, AHomeDirectoryInsideTheWorkspaceStaysHidden) {
  fs::path inner_home = workspace_ / "home";
  spit(inner_home / ".aws" / "credentials", "INNER-SECRET\n");
  ::setenv("HOME", inner_home.c_str(), 1);
  std::string out, err;
  ProcessResult r = run(spec(SandboxLevel::kWorkspace), "ls -A home; cat home/.aws/credentials", out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "cat: home/.aws/credentials: No such file or directory\n");
}

TEST_F(SandboxTest, WorkspaceHidesTheRuntimeDirectoryWithItsAgentSockets) {
  fs::path runtime = root_ / "runtime";
  spit(runtime / "gnupg" / "S.gpg-agent.ssh", "AGENT-SOCKET\n");
  const char* saved = std::getenv("XDG_RUNTIME_DIR");
  const std::string saved_runtime = saved ? saved : "";
  ::setenv("XDG_RUNTIME_DIR", runtime.c_str(), 1);
  std::string out, err;
  ProcessResult r = run(spec(SandboxLevel::kWorkspace), "ls -A \"$XDG_RUNTIME_DIR\"; cat \"$XDG_RUNTIME_DIR\"/gnupg/*",
                        out, err);
  saved ? ::setenv("XDG_RUNTIME_DIR", saved_runtime.c_str(), 1) : ::unsetenv("XDG_RUNTIME_DIR");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err.find("AGENT"), std::string::npos) << err;
  EXPECT_NE(err.find("No such file or directory"), std::string::npos) << err;
}

TEST_F(SandboxTest, WithoutTheNetworkTheSystemsServiceSocketsInRunAreHiddenToo) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator("/run")) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string host_run;
  for (const std::string& name : names) host_run += name + "\n";
  ASSERT_FALSE(host_run.empty()) << "this test needs a /run with entries";
  std::string out, err;
  ASSERT_EQ(run(spec(SandboxLevel::kWorkspace), "LC_ALL=C ls -A /run", out, err).exit_code, 0) << err;
  EXPECT_EQ(out, host_run);
  for (SandboxNetwork network : {SandboxNetwork::kNone, SandboxNetwork::kLoopback}) {
    SandboxSpec s = spec(SandboxLevel::kStrict);
    s.network = network;
    ProcessResult r = run(s, "ls -A /run", out, err);
    EXPECT_EQ(r.exit_code, 0) << err;
    EXPECT_TRUE(out.empty() || out == "user\n") << out;  // the mount point of /run/user's cover
  }
}

TEST_F(SandboxTest, WorkspaceHidesTheRunDirectoryAndOtherRunsButNotTheStageFolder) {
  std::string out, err;
  ProcessResult r = run(spec(SandboxLevel::kWorkspace),
                        "ls -A \"" + run_dir_.string() + "\"; ls -A \"" + (root_ / "logs").string() + "\"; cat \"" +
                            (root_ / "logs" / "run-0" / "events.jsonl").string() + "\"",
                        out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(out, "build\nrun-1\n");
  EXPECT_EQ(err.find("OTHER-RUN"), std::string::npos);
}

TEST_F(SandboxTest, SymbolicLinksAndProcRootDoNotLeadOut) {
  fs::create_symlink(home_ / ".ssh" / "id_ed25519", workspace_ / "key");
  std::string out, err;
  ProcessResult r = run(
      spec(SandboxLevel::kWorkspace),
      "cat key; cat /proc/self/root\"$HOME\"/.ssh/id_ed25519; cat /proc/1/root\"$HOME\"/.ssh/id_ed25519", out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err.find("SECRET"), std::string::npos);
}

TEST_F(SandboxTest, WorkspaceCannotSeeOrSignalAttractor) {
  std::string out, err;
  ProcessResult r = run(spec(SandboxLevel::kWorkspace), "kill -0 " + std::to_string(::getpid()) + " && echo reached",
                        out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(out, "");
}

TEST_F(SandboxTest, TheBinarysFolderStaysReadOnlyInsideAWritableWorkspace) {
  const fs::path binary_folder = fs::read_symlink("/proc/self/exe").parent_path();
  const fs::path probe = binary_folder / ("attractor-sandbox-probe-" + std::to_string(::getpid()));
  SandboxSpec s = spec(SandboxLevel::kWorkspace);
  place_sandbox(s, binary_folder.parent_path().string(), stage_.string(), run_dir_.string());
  ProcessSpec p;
  p.command = "touch '" + probe.string() + "'";
  p.cwd = s.workspace;
  p.stderr_path = (root_ / "err.txt").string();
  p.sandbox = s;
  ProcessResult r = PosixProcessRunner().run(p);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(probe));
  fs::remove(probe);
  ASSERT_EQ(r.sandbox_denials.size(), 1u) << slurp_file(root_ / "err.txt");
  EXPECT_NE(r.sandbox_denials[0].find("Read-only file system"), std::string::npos);
}

TEST_F(SandboxTest, TmpIsPrivate) {
  std::string out, err;
  const std::string name = "attractor-sandbox-tmp-" + std::to_string(::getpid());
  ProcessResult r = run(spec(SandboxLevel::kWorkspace), "echo x > /tmp/" + name + " && cat /tmp/" + name, out, err);
  EXPECT_EQ(r.exit_code, 0) << err;
  EXPECT_EQ(out, "x\n");
  EXPECT_FALSE(fs::exists(fs::path("/tmp") / name));
}

TEST_F(SandboxTest, ExtraPathsAreVisibleAsAsked) {
  fs::path shared = root_ / "shared";
  spit(shared / "data.txt", "DATA\n");
  fs::path cache = root_ / "cache";
  fs::create_directories(cache);
  SandboxSpec s = spec(SandboxLevel::kWorkspace);
  s.read = {shared.string()};
  s.write = {cache.string()};
  place_sandbox(s, workspace_.string(), stage_.string(), run_dir_.string());
  std::string out, err;
  ProcessResult r = run(s,
                        "cat \"" + (shared / "data.txt").string() + "\" && echo c > \"" + cache.string() +
                            "/c.txt\"; echo d > \"" + shared.string() + "/d.txt\"",
                        out, err);
  EXPECT_EQ(out, "DATA\n");
  EXPECT_EQ(slurp_file(cache / "c.txt"), "c\n");
  EXPECT_FALSE(fs::exists(shared / "d.txt"));
  EXPECT_NE(r.exit_code, 0);
}

/// A listening socket on the host's loopback; its port.
class HostListener {
 public:
  HostListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bound_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd_, 4) == 0;
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~HostListener() { ::close(fd_); }
  bool bound() const { return bound_; }
  /// A command that writes a line to the listener.
  std::string probe() const { return "bash -c 'echo hi > /dev/tcp/127.0.0.1/" + std::to_string(port_) + "'"; }

 private:
  int fd_ = -1;
  bool bound_ = false;
  int port_ = 0;
};

/// A command that starts a server on its own loopback and connects to it.
const char* kOwnLoopback =
    "python3 -c \"import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); "
    "c=socket.create_connection(s.getsockname()); print('own loopback')\"";

TEST_F(SandboxTest, StrictHasNoNetworkAndNoSocketEvenToTheHostsLoopback) {
  HostListener host;
  ASSERT_TRUE(host.bound());
  std::string out, err;
  EXPECT_EQ(run(spec(SandboxLevel::kWorkspace), host.probe(), out, err).exit_code, 0) << err;
  SandboxSpec strict = spec(SandboxLevel::kStrict);
  ASSERT_EQ(strict.network, SandboxNetwork::kNone);
  ProcessResult r = run(strict, host.probe(), out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(err.find("socket: Permission denied"), std::string::npos) << err;
  EXPECT_FALSE(r.sandbox_denials.empty());
  r = run(strict, kOwnLoopback, out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(err.find("PermissionError"), std::string::npos) << err;
}

TEST_F(SandboxTest, LoopbackReachesTheCommandsOwnServersButNotTheHosts) {
  HostListener host;
  ASSERT_TRUE(host.bound());
  for (SandboxLevel level : {SandboxLevel::kWorkspace, SandboxLevel::kStrict}) {
    SandboxSpec s = spec(level);
    s.network = SandboxNetwork::kLoopback;
    std::string out, err;
    ProcessResult r = run(s, host.probe(), out, err);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(err.find("Connection refused"), std::string::npos) << err;
    r = run(s, kOwnLoopback, out, err);
    EXPECT_EQ(r.exit_code, 0) << err;
    EXPECT_EQ(out, "own loopback\n");
  }
}

TEST_F(SandboxTest, NoneGivesBubblewrapTheFilterAndLoopbackOnlyTheNamespace) {
  SandboxSpec s = spec(SandboxLevel::kWorkspace);
  s.network = SandboxNetwork::kNone;
  EXPECT_EQ(s.to_json()["network"], "none");
  std::vector<std::string> argv = sandbox_argv(s, workspace_.string(), "true");
  auto seccomp = std::find(argv.begin(), argv.end(), "--seccomp");
  ASSERT_NE(seccomp, argv.end());
  EXPECT_EQ(*std::next(seccomp), std::to_string(kSandboxFilterFd));
  std::string why;
  ASSERT_TRUE(no_network_filter(why)) << why;
  s.network = SandboxNetwork::kLoopback;
  argv = sandbox_argv(s, workspace_.string(), "true");
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--seccomp"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--unshare-net"), argv.end());
}

TEST_F(SandboxTest, StrictStopsAForkBomb) {
  SandboxSpec s = spec(SandboxLevel::kStrict);
  s.limits.processes = 16;
  std::string out, err;
  ProcessResult r = run(s, "i=0; while [ $i -lt 64 ]; do sleep 5 & i=$((i+1)); done; echo started", out, err);
  EXPECT_NE(err.find("fork"), std::string::npos) << err;
  EXPECT_NE(out, "started\n");
  EXPECT_LT(r.duration_ms, 5000);
}

TEST_F(SandboxTest, StrictLimitsTheSizeOfAFile) {
  SandboxSpec s = spec(SandboxLevel::kStrict);
  s.limits.file_bytes = 1 << 20;
  std::string out, err;
  ProcessResult r = run(s, "head -c 4000000 /dev/zero > big.bin", out, err);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LE(fs::file_size(workspace_ / "big.bin"), std::uintmax_t{1} << 20);
}

TEST_F(SandboxTest, StrictLimitsCpuTimeAndWallTime) {
  SandboxSpec s = spec(SandboxLevel::kStrict);
  s.limits.cpu_seconds = 1;
  std::string out, err;
  ProcessResult spin = run(s, "while :; do :; done", out, err);
  EXPECT_NE(spin.term_signal + spin.exit_code, 0);
  EXPECT_LT(spin.duration_ms, 10000);
  s.limits.wall_ms = 300;
  ProcessResult sleeper = run(s, "trap '' TERM; sleep 30", out, err);
  EXPECT_TRUE(sleeper.timed_out);
  EXPECT_LT(sleeper.duration_ms, 5000);
}

TEST(SandboxResolveTest, TheNodeWinsThenTheRunThenTheGraphThenTheKindAndTheFloorRaisesAll) {
  Graph graph;
  Vertex v = graph.add_node("build");
  NodeData& node = graph.node(v);
  SandboxOptions run;
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kToolStage, run).level, SandboxLevel::kNone);
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kAgentShell, run).level, SandboxLevel::kWorkspace);
  graph.data().set("sandbox", "strict");
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kToolStage, run).level, SandboxLevel::kStrict);
  run.run_level = SandboxLevel::kWorkspace;
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kToolStage, run).level, SandboxLevel::kWorkspace);
  node.set("sandbox", "none");
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kToolStage, run).level, SandboxLevel::kNone);
  run.floor = SandboxLevel::kWorkspace;
  SandboxSpec raised = resolve_sandbox(&node, graph, CommandKind::kToolStage, run);
  EXPECT_EQ(raised.level, SandboxLevel::kWorkspace);
  EXPECT_EQ(raised.network, SandboxNetwork::kAll);
  node.set("sandbox", "strict");
  node.set("sandbox.read", " /opt/data , ~/x ");
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kToolStage, run).network, SandboxNetwork::kNone);
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kToolStage, run).read,
            (std::vector<std::string>{"/opt/data", std::string(std::getenv("HOME")) + "/x"}));
  graph.data().set("sandbox.network", "loopback");
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kToolStage, run).network, SandboxNetwork::kLoopback);
  node.set("sandbox.network", "all");
  EXPECT_EQ(resolve_sandbox(&node, graph, CommandKind::kToolStage, run).network, SandboxNetwork::kAll);
}

TEST(SandboxResolveTest, AMissingBubblewrapFailsBeforeAnythingRunsWithTheFix) {
  SandboxSpec s;
  s.level = SandboxLevel::kWorkspace;
  s.bubblewrap = "/nonexistent/bwrap";
  EXPECT_EQ(sandbox_unavailable(s),
            "sandbox `workspace` needs bubblewrap (/nonexistent/bwrap), which is not "
            "installed; fix: install Debian's `bubblewrap` package (make deps does), or "
            "choose sandbox=none explicitly");
  ProcessSpec p;
  p.command = "echo ran";
  p.sandbox = s;
  ProcessResult r = PosixProcessRunner().run(p);
  EXPECT_TRUE(r.sandbox_unavailable);
  EXPECT_EQ(r.exit_code, -1);
}

TEST(SandboxDenialsTest, KeepsTheLinesThatSayWhatWasDenied) {
  EXPECT_EQ(sandbox_denials("compiling\nmkdir: cannot create directory '/etc/x': Read-only file system\nok\n"
                            "curl: (6) Could not resolve host: example.com\n"),
            (std::vector<std::string>{"mkdir: cannot create directory '/etc/x': Read-only file system",
                                      "curl: (6) Could not resolve host: example.com"}));
}

TEST(SandboxDenialsTest, KeepsDashsForkFailureAndCurlsRefusedConnection) {
  EXPECT_EQ(sandbox_denials("/bin/sh: 0: Cannot fork\nstarted\n"
                            "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server\n"),
            (std::vector<std::string>{
                "/bin/sh: 0: Cannot fork",
                "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server"}));
}

}  // namespace
}  // namespace attractor
