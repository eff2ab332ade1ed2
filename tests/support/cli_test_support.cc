#include "support/cli_test_support.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
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

std::string make_temp_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "attractor";
  auto dir = std::filesystem::temp_directory_path() / ("attractor-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

CommandResult run_attractor(const std::vector<std::string>& args, const std::string& input) {
  std::vector<std::string> full = {ATTRACTOR_BINARY_PATH};
  full.insert(full.end(), args.begin(), args.end());
  return run_command(full, input);
}

CommandResult run_command(const std::vector<std::string>& full_argv, const std::string& input) {
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
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  CommandResult result;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
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

}  // namespace attractor::testing
