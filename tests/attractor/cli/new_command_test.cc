// `attractor new` against a local OpenAI-shaped server (support/fake_llm_server.h): a first draft
// with errors is repaired from its diagnostics; a model that never converges leaves the last draft
// beside the output and exits 1; the output is written only when it validates and never replaces
// an existing file unasked (docs/authoring.md, "attractor new").

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"
#include "support/fake_llm_server.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

using testing::TempDir;

constexpr const char* kBroken =
    "Here it is:\n```dot\ndigraph Review {\n    start [shape=Mdiamond]\n"
    "    review [prompt=\"Review the diff\"]\n    start -> review\n}\n```\n";
constexpr const char* kRepaired =
    "```dot\ndigraph Review {\n    start [shape=Mdiamond]\n    exit [shape=Msquare]\n"
    "    review [prompt=\"Review the diff\"]\n    start -> review -> exit\n}\n```";

hardening::ProcessResult run_new(const testing::FakeLlmServer& server, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"new", "review a diff and report", "--backend", "openai"};
  args.insert(args.end(), extra.begin(), extra.end());
  return hardening::run_attractor(
      args, {.env = {"OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=" + server.url(), "ATTRACTOR_LLM_MAX_RETRIES=0"}});
}

std::string messages_text(const testing::RecordedRequest& r) {
  std::string out;
  for (const auto& m : r.body["messages"]) out += m.value("role", "") + ": " + m.value("content", "") + "\n";
  return out;
}

TEST(NewCommandTest, AFirstDraftWithErrorsIsRepairedFromItsDiagnostics) {
  TempDir dir;
  testing::FakeLlmServer server;
  server.push({.text = kBroken});
  server.push({.text = kRepaired});
  const std::string out = dir.sub("review.dot");
  hardening::ProcessResult r = run_new(server, {"-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "draft 1: 1 error\ndraft 2: valid\nattractor new: wrote " + out + "\n");
  EXPECT_EQ(read_text_file(out),
            "digraph Review {\n    start [shape=Mdiamond]\n    exit [shape=Msquare]\n"
            "    review [prompt=\"Review the diff\"]\n    start -> review -> exit\n}\n");
  std::vector<testing::RecordedRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  std::string first = messages_text(requests[0]);
  EXPECT_NE(first.find("review a diff and report"), std::string::npos);
  EXPECT_NE(first.find("`tool_command`"), std::string::npos) << "the reference is in the prompt";
  std::string second = messages_text(requests[1]);
  EXPECT_NE(second.find("assistant: Here it is:"), std::string::npos) << second;
  EXPECT_NE(second.find("attractor validate reports:"), std::string::npos) << second;
  EXPECT_NE(second.find("[terminal_node]"), std::string::npos) << second;
  EXPECT_FALSE(std::filesystem::exists(out + ".rejected.dot"));
}

TEST(NewCommandTest, AModelThatNeverConvergesKeepsTheLastDraftAndExits1) {
  TempDir dir;
  testing::FakeLlmServer server;
  for (int i = 0; i < 3; ++i) server.push({.text = kBroken});
  const std::string out = dir.sub("review.dot");
  hardening::ProcessResult r = run_new(server, {"-o", out, "--rounds", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(read_text_file(out + ".rejected.dot"),
            "digraph Review {\n    start [shape=Mdiamond]\n    review [prompt=\"Review the diff\"]\n"
            "    start -> review\n}\n");
  std::string notes = read_text_file(out + ".rejected.txt");
  EXPECT_NE(notes.find(out + ".rejected.dot:"), std::string::npos) << notes;
  EXPECT_NE(notes.find("[terminal_node]"), std::string::npos) << notes;
  EXPECT_NE(r.err.find("no draft validated after 3 replies"), std::string::npos) << r.err;
}

TEST(NewCommandTest, AReplyWithoutADigraphIsAskedAgain) {
  TempDir dir;
  testing::FakeLlmServer server;
  server.push({.text = "I cannot draw graphs."});
  server.push({.text = kRepaired});
  const std::string out = dir.sub("review.dot");
  hardening::ProcessResult r = run_new(server, {"-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("draft 1: no digraph in the reply"), std::string::npos) << r.err;
  EXPECT_NE(messages_text(server.requests()[1]).find("Your answer held no `digraph`"), std::string::npos);
}

TEST(NewCommandTest, NeverReplacesAnExistingFileUnasked) {
  TempDir dir;
  testing::FakeLlmServer server;
  const std::string out = dir.sub("mine.dot");
  write_text_file(out, "keep me");
  hardening::ProcessResult r = run_new(server, {"-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "attractor new: " + out + " exists; pass --force to replace it\n");
  EXPECT_EQ(read_text_file(out), "keep me");
  EXPECT_TRUE(server.requests().empty());
  server.push({.text = kRepaired});
  r = run_new(server, {"-o", out, "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_text_file(out).find("digraph Review"), std::string::npos);
}

TEST(NewCommandTest, WithoutABackendOrModelItSaysHowToChoose) {
  TempDir dir;
  hardening::ProcessResult r = hardening::run_attractor({"new", "x", "-o", dir.sub("x.dot")}, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "attractor new: choose the model: --backend openai|anthropic|cli:AGENT|... or --model NAME\n");
}

}  // namespace
}  // namespace attractor
