// `make install` and copied binaries: the binary needs nothing beside it (the token rank data is
// linked in), so an installed copy and a copy alone in an empty directory both count tokens and
// run LLM stages.

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ProcessResult;
using hardening::run_program;
using hardening::ScratchDir;
using hardening::slurp;

const std::string kGraph = std::string(ATTRACTOR_SOURCE_DIR) + "/graphs/simple.dot";

/// A simulated run of the two-LLM-stage example with `binary` counts its tokens, and `tokens`
/// counts a file as the build's own binary does.
void expect_llm_run_works(const std::string& binary, const ScratchDir& dir) {
  const std::string run_dir = dir.sub("run");
  ProcessResult r = run_program({binary, "run", kGraph, "--simulate", "-q", "--logs-root", run_dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json checkpoint = nlohmann::json::parse(slurp(run_dir + "/checkpoint.json"));
  EXPECT_EQ(checkpoint["completed_nodes"], (nlohmann::json{"start", "run_tests", "report"}));
  EXPECT_GT(checkpoint["usage"]["input_tokens"].get<long>(), 0) << checkpoint["usage"].dump();
  ProcessResult tokens = run_program({binary, "tokens", kGraph});
  EXPECT_EQ(tokens.exit_code, 0) << tokens.err;
  EXPECT_EQ(tokens.out, run_program({ATTRACTOR_BINARY_PATH, "tokens", kGraph}).out);
  EXPECT_EQ(tokens.out.substr(0, tokens.out.find('\t')), "103");
}

TEST(InstallTest, ACopiedBinaryAloneInADirectoryWorks) {
  ScratchDir dir;
  const std::string copy = dir.sub("attractor");
  fs::copy_file(ATTRACTOR_BINARY_PATH, copy);
  EXPECT_EQ(fs::directory_iterator(dir.path())->path().filename(), "attractor");
  expect_llm_run_works(copy, dir);
}

TEST(InstallTest, MakeInstallPutsAWorkingBinaryUnderThePrefix) {
  ScratchDir dir;
  const std::string build_dir = fs::path(ATTRACTOR_BINARY_PATH).parent_path().string();
  const std::string prefix = dir.sub("prefix");
  ProcessResult install = run_program({"cmake", "--install", build_dir, "--prefix", prefix});
  ASSERT_EQ(install.exit_code, 0) << install.out << install.err;
  std::vector<std::string> installed;
  for (const auto& entry : fs::recursive_directory_iterator(prefix)) {
    if (entry.is_regular_file()) installed.push_back(fs::relative(entry.path(), prefix).string());
  }
  EXPECT_EQ(installed, std::vector<std::string>{"bin/attractor"});
  expect_llm_run_works(prefix + "/bin/attractor", dir);
}

}  // namespace
}  // namespace attractor
