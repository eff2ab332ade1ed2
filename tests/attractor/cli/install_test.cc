// `make install` and copied binaries: the binary needs nothing beside it for everything but the
// code index and HTTP (the token rank data is linked in), so an installed copy and a copy alone in
// an empty directory both validate, count tokens and run simulated LLM stages. `index` and `search`
// need the retrieval module, `serve` and the OpenAI/Anthropic backends the HTTP module: an
// installed copy finds both in PREFIX/lib/attractor/; a copy alone fails with a clear error, exit 3.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/fake_llm_server.h"
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

const std::string kRepo = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo";

/// `binary index` of the test repository into DIR/index.
ProcessResult index_test_repository(const std::string& binary, const ScratchDir& dir) {
  return run_program(
      {binary, "index", kRepo, "--index", dir.sub("index"), "--repository", "acme", "--branch", "main", "-q"});
}

/// What the loader says when module `file` (the `noun`, built by `target`) is missing beside
/// `binary` and in ../lib/attractor/.
std::string missing_module_text(const std::string& noun, const std::string& file, const std::string& target,
                                const std::string& binary) {
  const fs::path bin_dir = fs::path(binary).parent_path();
  return "the " + noun + " " + file + " is missing (searched " + (bin_dir / file).string() + ", " +
         (bin_dir / ".." / "lib" / "attractor" / file).lexically_normal().string() + "); build the " + target +
         " target next to the attractor binary (make binary), or install attractor with `make install` / "
         "`cmake --install`, which puts it in PREFIX/lib/attractor/";
}

/// The one line `attractor CMD` prints when the retrieval module is missing.
std::string missing_module_message(const std::string& command, const std::string& binary) {
  return "attractor " + command + ": error: " +
         missing_module_text("retrieval module", "libattractor_retrieval.so", "attractor_retrieval_module", binary) +
         "\n";
}

/// What the loader says when the HTTP module is missing.
std::string missing_http_module(const std::string& binary) {
  return missing_module_text("HTTP module", "libattractor_http.so", "attractor_http_module", binary);
}

/// `binary run graphs/simple.dot --backend openai` against `base_url`, logs under DIR/real-run.
ProcessResult run_with_openai(const std::string& binary, const std::string& base_url, const ScratchDir& dir) {
  return run_program({binary, "run", kGraph, "--backend", "openai", "-q", "--logs-root", dir.sub("real-run")},
                     {.env = {"OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=" + base_url}});
}

TEST(InstallTest, ACopiedBinaryAloneInADirectoryWorks) {
  ScratchDir dir;
  const std::string copy = dir.sub("attractor");
  fs::copy_file(ATTRACTOR_BINARY_PATH, copy);
  EXPECT_EQ(fs::directory_iterator(dir.path())->path().filename(), "attractor");
  expect_llm_run_works(copy, dir);
  ProcessResult version = run_program({copy, "--version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  ProcessResult validate = run_program({copy, "validate", kGraph});
  EXPECT_EQ(validate.exit_code, 0) << validate.err;
}

TEST(InstallTest, ACopiedBinaryWithoutTheRetrievalModuleRefusesIndexAndSearchClearly) {
  ScratchDir dir;
  const std::string copy = dir.sub("attractor");
  fs::copy_file(ATTRACTOR_BINARY_PATH, copy);
  ProcessResult index = index_test_repository(copy, dir);
  EXPECT_EQ(index.exit_code, 3);
  EXPECT_EQ(index.err, missing_module_message("index", copy));
  // search checks its --index directory first; give it one that looks like an index.
  fs::create_directories(dir.sub("fake"));
  std::ofstream(dir.sub("fake/index.sqlite"), std::ios::binary) << std::string("SQLite format 3\0", 16);
  ProcessResult search = run_program(
      {copy, "search", "--index", dir.sub("fake"), "--repository", "acme", "--branch", "main", "customer"});
  EXPECT_EQ(search.exit_code, 3);
  EXPECT_EQ(search.err, missing_module_message("search", copy));
  // A retrieval stage fails the way it fails on an unreadable index, with the same text.
  ASSERT_EQ(index_test_repository(ATTRACTOR_BINARY_PATH, dir).exit_code, 0);
  const std::string root = ATTRACTOR_SOURCE_DIR;
  ProcessResult run = run_program({copy, "run", root + "/graphs/code_rag.dot", "--simulate", "--index",
                                   dir.sub("index"), "--context", root + "/graphs/code_rag.context.json", "--logs-root",
                                   dir.sub("run"), "-q"});
  EXPECT_EQ(run.exit_code, 1);
  std::string message = missing_module_message("index", copy);
  message = message.substr(message.find("the retrieval module"));
  message.pop_back();  // the newline
  EXPECT_NE((run.out + run.err).find("cannot open retrieval backend 'local' at " + dir.sub("index") + ": " + message),
            std::string::npos)
      << run.out << run.err;
}

TEST(InstallTest, ACopiedBinaryWithoutTheHttpModuleRefusesServeAndRealBackendsClearly) {
  ScratchDir dir;
  const std::string copy = dir.sub("attractor");
  fs::copy_file(ATTRACTOR_BINARY_PATH, copy);
  ProcessResult serve = run_program({copy, "serve", "--listen", "127.0.0.1:0", "--logs-root", dir.sub("runs")},
                                    {.timeout_seconds = 30});
  EXPECT_EQ(serve.exit_code, 3);
  EXPECT_EQ(serve.err, "attractor serve: error: " + missing_http_module(copy) + "\n");
  // A run whose LLM stages need HTTP is refused before its first stage, like one without a key.
  ProcessResult run = run_with_openai(copy, "http://127.0.0.1:1", dir);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.err, "attractor: " + missing_http_module(copy) +
                         " [nodes: run_tests, report]\nattractor: not run: LLM backend configuration is incomplete\n");
  EXPECT_FALSE(fs::exists(dir.sub("real-run")));
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
  std::sort(installed.begin(), installed.end());
  EXPECT_EQ(installed, (std::vector<std::string>{"bin/attractor", "lib/attractor/libattractor_git.so",
                                                 "lib/attractor/libattractor_http.so",
                                                 "lib/attractor/libattractor_retrieval.so"}));
  expect_llm_run_works(prefix + "/bin/attractor", dir);
  // The installed binary finds the module in PREFIX/lib/attractor/.
  ProcessResult index = index_test_repository(prefix + "/bin/attractor", dir);
  EXPECT_EQ(index.exit_code, 0) << index.err;
  EXPECT_NE(index.out.find("files: 30 seen, 30 indexed"), std::string::npos) << index.out;
  // ... and the HTTP module there too: a run with a real backend talks to the provider.
  testing::FakeLlmServer provider;
  ProcessResult run = run_with_openai(prefix + "/bin/attractor", provider.url(), dir);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(provider.requests().size(), 2u);
}

}  // namespace
}  // namespace attractor
