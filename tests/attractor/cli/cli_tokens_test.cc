#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "attractor/tokens/token_counter.h"

namespace attractor {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string out;
};

/// Runs `attractor tokens ARGS` through the shell, stdout captured, stderr to `err_path`.
CommandResult run_tokens(const std::string& args, const std::string& err_path = "/dev/null") {
  const std::string command = std::string(ATTRACTOR_BINARY_PATH) + " tokens " + args + " 2>" + err_path;
  CommandResult run;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class CliTokensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(ATTRACTOR_BINARY_PATH)) << "build the attractor target first";
    dir_ = std::filesystem::temp_directory_path() / ("attractor_cli_tokens_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  std::filesystem::path dir_;
};

TEST_F(CliTokensTest, CountsStdin) {
  const std::string file = write("in.txt", "Hello, world!");
  const CommandResult run = run_tokens("< " + file);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "4\n");
}

TEST_F(CliTokensTest, CountsFilesAndTotal) {
  const std::string a = write("a.txt", "The quick brown fox jumps over the lazy dog.");
  const std::string b = write("b.txt", "Hello, world!");
  const CommandResult run = run_tokens(a + " " + b);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "10\t" + a + "\n4\t" + b + "\n14\ttotal\n");
  const CommandResult single = run_tokens(a);
  EXPECT_EQ(single.out, "10\t" + a + "\n");
}

TEST_F(CliTokensTest, PrintsIdsForEitherEncoding) {
  const std::string file = write("in.txt", "Hello, world!");
  EXPECT_EQ(run_tokens("--ids " + file).out, "13225 11 2375 0\n");
  EXPECT_EQ(run_tokens("--ids --encoding cl100k_base " + file).out, "9906 11 1917 0\n");
  const std::string other = write("other.txt", "Hello");
  EXPECT_EQ(run_tokens("--ids " + file + " " + other).out, file + ": 13225 11 2375 0\n" + other + ": 13225\n");
}

TEST_F(CliTokensTest, SpecialTokensAreTextUnlessAllowed) {
  const std::string file = write("in.txt", "a<|endoftext|>");
  EXPECT_EQ(run_tokens("--ids --allow-special " + file).out, "64 199999\n");
  const CommandResult plain = run_tokens(file);
  EXPECT_EQ(plain.out, std::to_string(token_counter_for("o200k_base")->count("a<|endoftext|>")) + "\t" + file + "\n");
  EXPECT_NE(plain.out, "2\t" + file + "\n");
}

TEST_F(CliTokensTest, UsageErrorsExitTwo) {
  const std::string err = (dir_ / "err.txt").string();
  const std::string file = write("in.txt", "x");
  CommandResult run = run_tokens("--encoding gpt2 " + file, err);
  EXPECT_EQ(run.exit_code, 2);
  std::ifstream in(err);
  std::string message((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(message, "attractor tokens: unknown token encoding 'gpt2' (known: o200k_base, cl100k_base)\n");
  EXPECT_EQ(run_tokens("--no-such-flag " + file).exit_code, 2);
  EXPECT_EQ(run_tokens((dir_ / "missing.txt").string()).exit_code, 2);
}

TEST_F(CliTokensTest, ACopyWithoutDataFilesStillCounts) {
  // A copy of the binary in a directory without data/ or ../share/attractor/: the rank data is
  // linked in (a build without it reports the missing file; see tokens_tests TokenData.*).
  const auto bin_dir = dir_ / "bin";
  std::filesystem::create_directories(bin_dir);
  const auto copy = bin_dir / "attractor";
  std::filesystem::copy_file(ATTRACTOR_BINARY_PATH, copy);
  const std::string out = (dir_ / "out.txt").string();
  const std::string file = write("in.txt", "hello world");
  const std::string command = copy.string() + " tokens < " + file + " >" + out;
  const int status = std::system(command.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
  std::ifstream in(out);
  std::string counted((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(counted, "2\n");
}

}  // namespace
}  // namespace attractor
