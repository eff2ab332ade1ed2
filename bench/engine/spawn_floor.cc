// The floor of a tool stage for bench/engine/spawn.sh: starting a program and waiting for it to
// end, with nothing else. `posix_spawn` + a blocking `waitpid` of the program is the least any
// engine pays per command; `--supervised` measures attractor's SupervisedProcess (the supervisor,
// its process group and the exit report) the same way, which is what a tool stage adds to it.
// Prints the median, 10th and 90th percentile in microseconds over N starts.
// Usage: spawn_floor N [--supervised] [PROGRAM [ARG...]]   (default PROGRAM /bin/true)

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attractor/base/supervised_process.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

/// posix_spawn of argv[0] (a path) and a blocking waitpid: microseconds, or -1 on failure.
double spawn_and_wait(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  auto start = Clock::now();
  pid_t pid = 0;
  if (::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  return micros_since(start);
}

/// The same program under attractor's supervisor, streams on /dev/null, as a tool stage runs it.
double supervised_run(const std::vector<std::string>& args, int null_fd) {
  attractor::SpawnSpec spec;
  spec.program = args[0];
  spec.argv = args;
  for (char** e = environ; *e; ++e) spec.env.emplace_back(*e);
  spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = null_fd;
  auto start = Clock::now();
  attractor::SupervisedProcess process;
  if (!process.start(spec)) return -1;
  while (!process.wait_for(-1)) {
  }
  return micros_since(start);
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::atoi(argv[1]) <= 0) {
    std::fprintf(stderr, "usage: spawn_floor N [--supervised] [PROGRAM [ARG...]]\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  int first = 2;
  const bool supervised = argc > 2 && std::strcmp(argv[2], "--supervised") == 0;
  if (supervised) ++first;
  std::vector<std::string> args(argv + first, argv + argc);
  if (args.empty()) args = {"/bin/true"};
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  std::vector<double> times;
  for (int i = 0; i < n; ++i) {
    double t = supervised ? supervised_run(args, null_fd) : spawn_and_wait(args);
    if (t < 0) {
      std::fprintf(stderr, "spawn_floor: cannot start %s\n", args[0].c_str());
      return 1;
    }
    times.push_back(t);
  }
  std::printf("%.1f %.1f %.1f\n", percentile(times, 0.5), percentile(times, 0.1), percentile(times, 0.9));
  return 0;
}
