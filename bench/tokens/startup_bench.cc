// Time from process start to a token counter that has counted its first text, for the two ways a
// counter gets its tables: the rank-file text (read, sha256-checked, base64-decoded and hashed at
// start-up, which is what every process did before the tables were built at build time) and the
// table blob linked into the binary (used in place). Each measurement is a fresh process: the
// parent spawns itself and passes the spawn time on CLOCK_MONOTONIC, so the child's figure
// includes exec, dynamic loading and static initialisation. Runs alternate between the paths.
//
//   tokens_startup_bench [--encoding o200k_base] [--runs 20]
//
// Prints one `path=... ready_ms_median=... process_ms_median=...` line per path (`none`: a process
// that counts nothing, the floor) and the ratio text / blob.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/tokens/tiktoken_encoding.h"
#include "attractor/tokens/token_counter.h"
#include "attractor/tokens/token_data.h"

extern char** environ;

namespace {

long long monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

/// The first count with tables from `path` ("text" or "blob"; "none" counts nothing, for the
/// cost of the process alone); returns the count.
std::size_t first_count(std::string_view path, const std::string& encoding) {
  const std::string_view text = "Hello, world: the counter is ready.";
  if (path == "none") return 0;
  if (path == "blob") return attractor::token_counter_for(encoding)->count(text);
  const attractor::EncodingSpec& spec = *attractor::find_encoding_spec(encoding);
  std::ifstream in(attractor::find_token_data_file(spec.file_name), std::ios::binary);
  const std::string ranks((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return attractor::TiktokenEncoding::load_text(spec, ranks, spec.file_name)->count(text);
}

/// Child: prints the nanoseconds from `spawned_ns` to the first count.
int child(std::string_view path, const std::string& encoding, long long spawned_ns) {
  const std::size_t n = first_count(path, encoding);
  const long long ready = monotonic_ns() - spawned_ns;
  std::printf("%lld %zu\n", ready, n);
  return 0;
}

struct Sample {
  double ready_ms;    ///< spawn to first count
  double process_ms;  ///< spawn to exit
};

/// Runs one child on `path` and returns its times; exits on failure.
Sample run_child(const char* self, const char* path, const std::string& encoding) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  const long long spawned = monotonic_ns();
  const std::string stamp = std::to_string(spawned);
  const char* argv[] = {self, "--child", path, "--encoding", encoding.c_str(), "--spawned", stamp.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self, &actions, nullptr, const_cast<char**>(argv), environ) != 0) std::exit(1);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  const long long ended = monotonic_ns();
  char buffer[128] = {};
  const ssize_t got = read(fds[0], buffer, sizeof(buffer) - 1);
  close(fds[0]);
  long long ready = 0;
  if (got <= 0 || status != 0 || std::sscanf(buffer, "%lld", &ready) != 1) {
    std::fprintf(stderr, "tokens_startup_bench: the %s child failed\n", path);
    std::exit(1);
  }
  return {ready / 1e6, (ended - spawned) / 1e6};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string encoding = "o200k_base";
  std::string child_path;
  long long spawned = 0;
  int runs = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view arg = argv[i];
    if (arg == "--encoding") encoding = argv[i + 1];
    else if (arg == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (arg == "--child") child_path = argv[i + 1];
    else if (arg == "--spawned") spawned = std::atoll(argv[i + 1]);
  }
  if (!child_path.empty()) return child(child_path, encoding, spawned);
  if (!attractor::embedded_token_tables(encoding)) {
    std::fprintf(stderr, "tokens_startup_bench: this build has no built-in tables for %s\n", encoding.c_str());
    return 1;
  }
  const std::string self = "/proc/self/exe";
  constexpr int kPaths = 3;
  std::vector<double> ready[kPaths], process[kPaths];
  const char* paths[kPaths] = {"text", "blob", "none"};
  for (const char* path : paths) run_child(self.c_str(), path, encoding);  // warm the page cache
  for (int r = 0; r < runs; ++r) {
    for (int p = 0; p < kPaths; ++p) {
      const Sample s = run_child(self.c_str(), paths[p], encoding);
      ready[p].push_back(s.ready_ms);
      process[p].push_back(s.process_ms);
    }
  }
  for (int p = 0; p < kPaths; ++p) {
    std::printf("encoding=%s path=%s runs=%d ready_ms_median=%.2f ready_ms_min=%.2f process_ms_median=%.2f\n",
                encoding.c_str(), paths[p], runs, median(ready[p]), *std::min_element(ready[p].begin(), ready[p].end()),
                median(process[p]));
  }
  std::printf("encoding=%s ready_ratio_text_over_blob=%.1f process_ratio_text_over_blob=%.1f\n", encoding.c_str(),
              median(ready[0]) / median(ready[1]), median(process[0]) / median(process[1]));
  return 0;
}
