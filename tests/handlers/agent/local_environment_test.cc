// The local execution environment of the coding agent: confinement to the working directory
// (`..`, absolute paths, symbolic links out), file operations, commands without credentials and
// with timeouts, grep and glob.

#include "handlers/agent/local_environment.h"
#include "support/engine_test_support.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace attractor {
namespace {

namespace fs = std::filesystem;

class LocalEnvironmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::canonical(dir_.path());
    fs::create_directories(base_ / "work/src");
    std::ofstream(base_ / "outside.txt") << "secret\n";
    std::ofstream(base_ / "work/src/a.cc") << "int main() {\n  return 0;\n}\n";
    std::ofstream(base_ / "work/src/b.h") << "// header\nint f();\n";
    std::ofstream(base_ / "work/notes.md") << "one\ntwo\nthree\nfour\n";
    env_ = std::make_unique<LocalExecutionEnvironment>((base_ / "work").string());
  }

  testing::TempDir dir_;
  fs::path base_;
  std::unique_ptr<LocalExecutionEnvironment> env_;
};

TEST_F(LocalEnvironmentTest, PathsCannotLeaveTheWorkingDirectory) {
  const std::string root = fs::canonical(base_ / "work").string();
  auto refused = [&](const std::string& path) {
    try {
      env_->read_file(path, std::nullopt, std::nullopt);
      ADD_FAILURE() << path << " was read";
    } catch (const PathOutsideWorkspace& e) {
      EXPECT_EQ(std::string(e.what()), "'" + path + "' is outside the working directory " + root);
    }
  };
  refused("../outside.txt");
  refused("src/../../outside.txt");
  refused((base_ / "outside.txt").string());
  refused("/etc/passwd");
  fs::create_directory_symlink("/etc", base_ / "work/etc_link");
  refused("etc_link/passwd");
  fs::create_symlink(base_ / "outside.txt", base_ / "work/file_link");
  refused("file_link");
  EXPECT_THROW(env_->write_file("../outside.txt", "x"), PathOutsideWorkspace);
  EXPECT_THROW(env_->write_file("etc_link/new.txt", "x"), PathOutsideWorkspace);
  EXPECT_THROW(env_->delete_file("../outside.txt"), PathOutsideWorkspace);
  EXPECT_THROW(env_->exec_command("true", 1000, "..", {}), PathOutsideWorkspace);
  EXPECT_THROW(env_->grep("secret", "..", {}), PathOutsideWorkspace);
  EXPECT_EQ(std::ifstream(base_ / "outside.txt").get(), 's') << "untouched";
  EXPECT_EQ(env_->read_file(root + "/notes.md", std::nullopt, std::nullopt), "one\ntwo\nthree\nfour\n")
      << "an absolute path inside is fine";
}

TEST_F(LocalEnvironmentTest, ReadsLinesWritesWithParentsAndDeletes) {
  EXPECT_EQ(env_->read_file("notes.md", 2, 2), "two\nthree\n");
  EXPECT_THROW(env_->read_file("missing.txt", std::nullopt, std::nullopt), FileNotFound);
  EXPECT_THROW(env_->read_file("src", std::nullopt, std::nullopt), ToolError);
  env_->write_file("new/deep/file.txt", "hello");
  EXPECT_EQ(env_->read_file("new/deep/file.txt", std::nullopt, std::nullopt), "hello");
  EXPECT_TRUE(env_->file_exists("new/deep/file.txt"));
  env_->delete_file("new/deep/file.txt");
  EXPECT_FALSE(env_->file_exists("new/deep/file.txt"));
  EXPECT_THROW(env_->delete_file("new/deep/file.txt"), FileNotFound);
}

TEST_F(LocalEnvironmentTest, ListsToADepth) {
  std::vector<std::string> names;
  for (const DirEntry& e : env_->list_directory("", 1)) names.push_back(e.name + (e.is_dir ? "/" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"notes.md", "src/"}));
  names.clear();
  for (const DirEntry& e : env_->list_directory(".", 2)) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"notes.md", "src", "src/a.cc", "src/b.h"}));
}

TEST_F(LocalEnvironmentTest, CommandsRunInTheDirectoryWithoutCredentials) {
  ::setenv("ATTRACTOR_TEST_API_KEY", "sk-should-not-leak", 1);
  ::setenv("attractor_test_token", "tok", 1);
  ::setenv("ATTRACTOR_TEST_PLAIN", "visible", 1);
  ExecResult r = env_->exec_command("pwd; env; echo oops >&2; exit 3", 5000, "src", {{"EXTRA", "given"}});
  ::unsetenv("ATTRACTOR_TEST_API_KEY");
  ::unsetenv("attractor_test_token");
  ::unsetenv("ATTRACTOR_TEST_PLAIN");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.stdout_text.substr(0, r.stdout_text.find('\n')), fs::canonical(base_ / "work/src").string());
  EXPECT_EQ(r.stdout_text.find("sk-should-not-leak"), std::string::npos);
  EXPECT_EQ(r.stdout_text.find("attractor_test_token"), std::string::npos);
  EXPECT_NE(r.stdout_text.find("ATTRACTOR_TEST_PLAIN=visible"), std::string::npos);
  EXPECT_NE(r.stdout_text.find("EXTRA=given"), std::string::npos);
  EXPECT_EQ(r.stderr_text, "oops\n");
  EXPECT_FALSE(r.timed_out);
}

TEST_F(LocalEnvironmentTest, ACommandPastItsTimeoutIsKilledWithItsChildren) {
  ExecResult r = env_->exec_command("sleep 30 & sleep 30; echo never", 300, "", {});
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.duration_ms, 10000);
  EXPECT_EQ(r.stdout_text, "");
}

TEST_F(LocalEnvironmentTest, GrepAndGlobSearchTheTree) {
  EXPECT_EQ(env_->grep("int \\w+\\(", "", {}), "src/a.cc:1:int main() {\nsrc/b.h:2:int f();\n");
  GrepOptions only_headers;
  only_headers.glob_filter = "*.h";
  EXPECT_EQ(env_->grep("int", "src", only_headers), "src/b.h:2:int f();\n");
  GrepOptions icase;
  icase.case_insensitive = true;
  EXPECT_EQ(env_->grep("HEADER", "src/b.h", icase), "src/b.h:1:// header\n");
  EXPECT_THROW(env_->grep("(", "", {}), ToolError);
  EXPECT_EQ(env_->glob("**/*.cc", ""), (std::vector<std::string>{"src/a.cc"}));
  EXPECT_EQ(env_->glob("*", ""), (std::vector<std::string>{"notes.md"}));
  EXPECT_EQ(env_->glob("src/?.h", ""), (std::vector<std::string>{"src/b.h"}));
}

TEST(CredentialVariableTest, MatchesTheSpecSuffixesInAnyCase) {
  for (const char* name :
       {"OPENAI_API_KEY", "anthropic_api_key", "AWS_SECRET", "GH_TOKEN", "DB_PASSWORD", "GCP_CREDENTIAL"}) {
    EXPECT_TRUE(is_credential_variable(name)) << name;
  }
  for (const char* name : {"PATH", "HOME", "TOKENIZER", "API_KEYRING"})
    EXPECT_FALSE(is_credential_variable(name)) << name;
}

}  // namespace
}  // namespace attractor
