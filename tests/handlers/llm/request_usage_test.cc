// Every model request that returned usage is counted, through the real binary against the fake
// providers: the failed attempts of an agent stage (each with its own files in its attempt
// folder), a transport retry, a fallback model, an agent turn before a failed request, and a
// budget stop followed by a resume. Each test sums what the fake provider served and compares it
// with the summary line, `attractor status` and the checkpoint (docs/llm.md, "Token usage").

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attractor/run/run_directory.h"
#include "support/fake_llm_server.h"
#include "support/hardening_support.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::BinaryRun;
using testing::FakeLlmServer;
using testing::run_binary;
using testing::ScriptedReply;

using Env = std::vector<std::pair<std::string, std::string>>;

/// What a fake provider answered with usage, summed as the run should count it.
struct Served {
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t requests = 0;

  /// Queues a successful reply with this usage and counts it.
  void push(FakeLlmServer& server, json body, std::int64_t in, std::int64_t out) {
    input += in;
    output += out;
    ++requests;
    ScriptedReply reply;
    reply.body = std::move(body).dump();
    server.push(reply);
  }
  /// "I input, O output (R requests in S stages)".
  std::string text(int stages) const {
    return std::to_string(input) + " input, " + std::to_string(output) + " output (" + std::to_string(requests) +
           (requests == 1 ? " request" : " requests") + " in " + std::to_string(stages) +
           (stages == 1 ? " stage)" : " stages)");
  }
};

json anthropic_body(json content, std::int64_t in, std::int64_t out) {
  return {{"id", "m"},
          {"type", "message"},
          {"model", "claude-test"},
          {"content", std::move(content)},
          {"usage", {{"input_tokens", in}, {"output_tokens", out}}}};
}

json anthropic_text(const std::string& text, std::int64_t in, std::int64_t out) {
  return anthropic_body(json::array({{{"type", "text"}, {"text", text}}}), in, out);
}

/// A `write_file` tool call: the agent edits a file in its working directory.
json anthropic_write(const std::string& id, const std::string& path, std::int64_t in, std::int64_t out) {
  return anthropic_body(json::array({{{"type", "tool_use"},
                                      {"id", id},
                                      {"name", "write_file"},
                                      {"input", {{"file_path", path}, {"content", "edited by " + id + "\n"}}}}}),
                        in, out);
}

json openai_text(const std::string& text, std::int64_t in, std::int64_t out) {
  return {{"id", "c"},
          {"model", "gpt-test"},
          {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}}}},
          {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}}}};
}

class RequestUsageTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_.sub("proj")); }

  /// `plan` (a plain stage on anthropic, when `with_plan`) then `fix` (the coding agent) with `fix_attributes`.
  void write_graph(const std::string& fix_attributes, bool with_plan = true) {
    std::string text = "digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n";
    if (with_plan) text += "  plan [llm_provider=anthropic, llm_model=\"claude-test\", prompt=\"plan\"]\n";
    text += "  fix [llm_provider=agent, llm_model=\"claude-test\", workdir=\"" + dir_.sub("proj") +
            "\", prompt=\"go\"" + fix_attributes + "]\n";
    text += with_plan ? "  start -> plan -> fix -> exit\n}\n" : "  start -> fix -> exit\n}\n";
    write_text_file(dir_.sub("g.dot"), text);
  }
  BinaryRun run(const Env& env, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", dir_.sub("g.dot"), "--logs-root", dir_.sub("run")};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_binary(args, env, dir_);
  }
  json checkpoint_usage() const { return json::parse(read_text_file(dir_.sub("run/checkpoint.json")))["usage"]; }
  std::vector<json> events_named(const std::string& name) const {
    std::vector<json> out;
    const std::string text = read_text_file(dir_.sub("run/events.jsonl"));
    std::size_t start = 0;
    for (std::size_t end = text.find('\n'); end != std::string::npos; start = end + 1, end = text.find('\n', start)) {
      json e = json::parse(text.substr(start, end - start));
      if (e.value("event", "") == name) out.push_back(e);
    }
    return out;
  }

  testing::ScratchDir dir_;
};

TEST_F(RequestUsageTest, EachFailedAttemptOfAnAgentStageIsCountedAndKeepsItsOwnFiles) {
  FakeLlmServer anthropic;
  Served served;
  served.push(anthropic, anthropic_text("the plan", 154, 20), 154, 20);
  for (int attempt = 1; attempt <= 3; ++attempt) {
    served.push(anthropic, anthropic_write("w" + std::to_string(attempt), "out.txt", 100 + attempt, 10), 100 + attempt,
                10);
    anthropic.push_error(500, "overloaded");  // no usage: not counted
  }
  write_graph(", max_retries=2, retry_initial_delay=\"1ms\", retry_jitter=false");
  BinaryRun r = run({{"ANTHROPIC_BASE_URL", anthropic.url()}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}});
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(anthropic.requests().size(), 7u);
  EXPECT_NE(r.err.find("tokens: " + served.text(2) + "\n"), std::string::npos) << r.err;
  hardening::ProcessResult status = hardening::run_attractor({"status", dir_.sub("run")});
  EXPECT_NE(status.out.find("tokens:   " + served.text(2) + "\n"), std::string::npos) << status.out;
  const json usage = checkpoint_usage();
  EXPECT_EQ(usage["llm_requests"], served.requests);
  EXPECT_EQ(usage["llm_stages"], 2);
  EXPECT_EQ(usage["input_tokens"], served.input);
  EXPECT_EQ(usage["output_tokens"], served.output);
  EXPECT_EQ(events_named("StageUsage").size(), 4u) << "one per attempt of each stage";

  for (int attempt = 1; attempt <= 3; ++attempt) {
    const std::string folder = dir_.sub("run/fix/attempt-" + std::to_string(attempt) + "/");
    const json agent = json::parse(read_text_file(folder + "agent.json"));
    EXPECT_EQ(agent["stop"], "error");
    EXPECT_EQ(agent["turns"], 1);
    EXPECT_EQ(agent["input_tokens"], 100 + attempt);
    EXPECT_NE(read_text_file(folder + "transcript.jsonl").find("\"name\":\"write_file\""), std::string::npos);
    EXPECT_NE(read_text_file(folder + "transcript.jsonl").find("\"type\":\"error\""), std::string::npos);
    EXPECT_NE(read_text_file(folder + "prompt.md").find("go"), std::string::npos);
    EXPECT_TRUE(fs::exists(folder + "response.md"));
  }
  EXPECT_EQ(read_text_file(dir_.sub("proj/out.txt")), "edited by w3\n");
}

TEST_F(RequestUsageTest, ATransportRetryCountsTheRequestThatAnsweredOnce) {
  FakeLlmServer openai;
  openai.push_error(503, "busy", {{"Retry-After", "0"}});
  Served served;
  served.push(openai, openai_text("done", 30, 4), 30, 4);
  write_text_file(dir_.sub("g.dot"),
                  "digraph G { start [shape=Mdiamond] exit [shape=Msquare]\n"
                  "  ask [llm_provider=openai, llm_model=\"gpt-test\", prompt=\"ask\"]\n  start -> ask -> exit }\n");
  BinaryRun r = run({{"OPENAI_BASE_URL", openai.url() + "/v1"}, {"OPENAI_API_KEY", "sk-test"}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(openai.requests().size(), 2u) << "the 503 was retried";
  EXPECT_NE(r.err.find("tokens: " + served.text(1) + "\n"), std::string::npos) << r.err;
  EXPECT_EQ(checkpoint_usage()["llm_requests"], served.requests);
}

TEST_F(RequestUsageTest, AFallbackModelsAnswerIsCountedUnderItsModel) {
  FakeLlmServer openai;
  FakeLlmServer anthropic;
  openai.push_error(500, "down");
  Served served;
  served.push(anthropic, anthropic_text("from the fallback", 50, 6), 50, 6);
  write_text_file(dir_.sub("g.dot"),
                  "digraph G { start [shape=Mdiamond] exit [shape=Msquare]\n"
                  "  ask [llm_provider=openai, llm_model=\"gpt-test\", llm_fallbacks=\"anthropic:claude-test\", "
                  "prompt=\"ask\"]\n  start -> ask -> exit }\n");
  BinaryRun r = run({{"OPENAI_BASE_URL", openai.url() + "/v1"},
                     {"OPENAI_API_KEY", "sk-test"},
                     {"ANTHROPIC_BASE_URL", anthropic.url()},
                     {"ANTHROPIC_API_KEY", "sk-ant"},
                     {"ATTRACTOR_LLM_MAX_RETRIES", "0"}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("tokens: " + served.text(1) + "\n"), std::string::npos) << r.err;
  const std::vector<json> usage = events_named("StageUsage");
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_EQ(usage[0]["model"], "claude-test");
  EXPECT_EQ(usage[0]["requests"], 1);
  EXPECT_EQ(usage[0]["fallback_from"], json::array({"openai:gpt-test"}));
}

TEST_F(RequestUsageTest, AnAgentTurnBeforeAFailedRequestIsCountedAndTheErrorKept) {
  FakeLlmServer anthropic;
  Served served;
  served.push(anthropic, anthropic_write("w1", "out.txt", 120, 12), 120, 12);
  anthropic.push_error(400, "context too long");
  write_graph(", max_retries=0", false);
  BinaryRun r = run({{"ANTHROPIC_BASE_URL", anthropic.url()}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}});
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("tokens: " + served.text(1) + "\n"), std::string::npos) << r.err;
  const json status = json::parse(read_text_file(dir_.sub("run/fix/status.json")));
  EXPECT_EQ(status["outcome"], "fail");
  EXPECT_EQ(status["error_category"], "terminal");
  EXPECT_NE(status["failure_reason"].get<std::string>().find("context too long"), std::string::npos);
  EXPECT_EQ(status["usage"]["requests"], served.requests);
  EXPECT_EQ(json::parse(read_text_file(dir_.sub("run/fix/agent.json")))["stop_detail"], status["failure_reason"]);
  EXPECT_EQ(read_text_file(dir_.sub("proj/out.txt")), "edited by w1\n");
}

TEST_F(RequestUsageTest, ABudgetStopCountsTheTurnsBeforeItAndAResumeAddsTheRest) {
  FakeLlmServer anthropic;
  Served served;
  for (int turn = 1; turn <= 3; ++turn) {
    served.push(anthropic, anthropic_write("w" + std::to_string(turn), "out.txt", 100, 10), 100, 10);
  }
  write_graph("", false);
  const Env env = {{"ANTHROPIC_BASE_URL", anthropic.url()}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}};
  BinaryRun r = run(env, {"--max-total-tokens", "250"});
  ASSERT_EQ(r.code, 4) << r.err;
  EXPECT_EQ(anthropic.requests().size(), 3u);
  EXPECT_NE(r.err.find("tokens: " + served.text(1) + "\nstopped: token budget reached"), std::string::npos) << r.err;
  hardening::ProcessResult status = hardening::run_attractor({"status", dir_.sub("run")});
  EXPECT_NE(status.out.find("tokens:   " + served.text(1) + "\n"), std::string::npos) << status.out;
  EXPECT_EQ(events_named("BudgetExhausted").at(0)["usage"]["llm_requests"], served.requests);

  served.push(anthropic, anthropic_text("done", 100, 10), 100, 10);
  r = run_binary({"resume", dir_.sub("run"), "--max-total-tokens", "1000"}, env, dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("tokens: " + served.text(1) + "\n"), std::string::npos)
      << "the resumed run counts the requests before the stop: " << r.err;
  EXPECT_EQ(checkpoint_usage()["total_tokens"], served.input + served.output);
}

}  // namespace
}  // namespace attractor
