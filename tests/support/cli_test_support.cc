#include "support/cli_test_support.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include <gtest/gtest.h>

extern char** environ;

namespace attractor::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

namespace {

/// The directories make_temp_dir made, removed when the test program exits (not when a forked
/// child of it does).
struct TempDirs {
  std::mutex mutex;
  std::vector<std::filesystem::path> made;
  pid_t owner = ::getpid();
  ~TempDirs() {
    if (::getpid() != owner) return;
    std::error_code ignored;
    for (const auto& dir : made) std::filesystem::remove_all(dir, ignored);
  }
};

TempDirs& temp_dirs() {
  static TempDirs dirs;
  return dirs;
}

}  // namespace

std::string make_temp_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "attractor";
  std::replace(name.begin(), name.end(), '/', '_');
  auto dir = std::filesystem::temp_directory_path() / ("attractor-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  TempDirs& dirs = temp_dirs();
  std::lock_guard lock(dirs.mutex);
  dirs.made.push_back(dir);
  return dir.string();
}

CommandResult run_attractor(const std::vector<std::string>& args, const std::string& input) {
  std::vector<std::string> full = {ATTRACTOR_BINARY_PATH};
  full.insert(full.end(), args.begin(), args.end());
  return run_command(full, input);
}

namespace {

/// Starts `argv` with stdin/stdout/stderr redirected to the given files; -1 on failure. With
/// `unprivileged`, the child drops the file-permission override capabilities before exec (only
/// async-signal-safe calls between fork and exec).
pid_t start(std::vector<char*>& argv, const std::string& in, const std::string& out, const std::string& err,
            bool unprivileged) {
  if (!unprivileged) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : -1;
  }
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0);
  ::prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH, 0, 0, 0);
  int fds[3] = {::open(in.c_str(), O_RDONLY), ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644),
                ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644)};
  for (int i = 0; i < 3; ++i) ::dup2(fds[i], i);
  ::execve(argv[0], argv.data(), environ);
  ::_exit(127);
}

CommandResult run(const std::vector<std::string>& full_argv, const std::string& input, bool unprivileged) {
  static int counter = 0;
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("attractor-cmd-" + std::to_string(::getpid()) + "-" + std::to_string(++counter)))
                        .string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string in_path = dir + "/stdin", out_path = dir + "/stdout", err_path = dir + "/stderr";
  std::ofstream(in_path, std::ios::binary) << input;
  std::vector<std::string> full = full_argv;
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  CommandResult result;
  pid_t pid = start(argv, in_path, out_path, err_path, unprivileged);
  if (pid < 0) {
    result.err = "cannot start " + full[0];
    return result;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  std::filesystem::remove_all(dir);
  return result;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& full_argv, const std::string& input) {
  return run(full_argv, input, false);
}

CommandResult run_command_unprivileged(const std::vector<std::string>& full_argv, const std::string& input) {
  return run(full_argv, input, true);
}

CommandResult run_attractor_unprivileged(const std::vector<std::string>& args, const std::string& input) {
  std::vector<std::string> full = {ATTRACTOR_BINARY_PATH};
  full.insert(full.end(), args.begin(), args.end());
  return run_command_unprivileged(full, input);
}

}  // namespace attractor::testing
