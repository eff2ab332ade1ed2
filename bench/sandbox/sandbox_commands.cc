// The cost of a sandbox level per command, without the engine: N runs of `true` through
// PosixProcessRunner (the supervisor, /bin/sh, and bubblewrap or a kept sandbox), one case after
// the other in rounds, in one process. Prints the median milliseconds per command of each case
// and its overhead against `none`. Usage: sandbox_commands [N] [ROUNDS]   (defaults 1000, 3)

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "handlers/services/sandbox_host.h"
#include "handlers/services/subprocess.h"

namespace {

using namespace attractor;
namespace fs = std::filesystem;

struct Case {
  const char* name;
  SandboxLevel level;
  SandboxNetwork network;
  bool kept;
};

/// Milliseconds per command of `n` runs of `true` confined as `c`.
double per_command(const Case& c, int n, const fs::path& root) {
  SandboxSpec spec;
  spec.level = c.level;
  spec.network = c.network;
  place_sandbox(spec, (root / "work").string(), (root / "logs" / "run" / "stage").string(),
                (root / "logs" / "run").string());
  KeptSandbox kept;
  PosixProcessRunner runner;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    ProcessSpec p;
    p.command = "true";
    p.cwd = (root / "work").string();
    p.sandbox = spec;
    p.kept = c.kept ? &kept : nullptr;
    ProcessResult r = runner.run(p);
    if (r.exit_code != 0) {
      std::fprintf(stderr, "sandbox_commands: %s: exit %d %s\n", c.name, r.exit_code, r.error.c_str());
      std::exit(1);
    }
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const fs::path root = fs::temp_directory_path() / ("attractor-sandbox-bench-" + std::to_string(::getpid()));
  fs::create_directories(root / "work");
  fs::create_directories(root / "logs" / "run" / "stage");
  const std::vector<Case> cases = {
      {"none", SandboxLevel::kNone, SandboxNetwork::kAll, false},
      {"workspace, own bubblewrap", SandboxLevel::kWorkspace, SandboxNetwork::kAll, false},
      {"workspace, kept sandbox", SandboxLevel::kWorkspace, SandboxNetwork::kAll, true},
      {"workspace loopback, kept", SandboxLevel::kWorkspace, SandboxNetwork::kLoopback, true},
      {"strict, own bubblewrap", SandboxLevel::kStrict, SandboxNetwork::kNone, false},
      {"strict loopback, kept", SandboxLevel::kStrict, SandboxNetwork::kLoopback, true},
  };
  std::map<std::string, std::vector<double>> ms;
  for (int r = 0; r < rounds; ++r) {
    for (const Case& c : cases) ms[c.name].push_back(per_command(c, n, root));
  }
  fs::remove_all(root);
  const double none = median(ms["none"]);
  std::printf("%d commands of `true` per case, %d rounds, median of the rounds\n", n, rounds);
  std::printf("%-28s %10s %22s\n", "case", "ms/command", "overhead vs none (ms)");
  for (const Case& c : cases) {
    const double m = median(ms[c.name]);
    std::printf("%-28s %10.3f %22.3f\n", c.name, m, m - none);
  }
  return 0;
}
