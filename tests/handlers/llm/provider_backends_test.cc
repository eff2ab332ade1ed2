// OpenAI Chat Completions and Anthropic Messages backends against the in-process fake provider:
// exact request bodies (model, messages, effort parameter), headers, base URL handling, response
// parsing with usage, and the mapping of provider errors to retryable / terminal StageErrors.

#include <gtest/gtest.h>

#include "handlers/llm/anthropic_backend.h"
#include "handlers/llm/openai_backend.h"
#include "handlers/llm/provider_error.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using nlohmann::json;
using testing::FakeLlmServer;
using testing::load_graph;

/// A request for node `id` of `graph` with a prompt and a short history.
CodergenRequest request_for(const Graph& graph, const std::string& id, std::vector<ChatMessage> history = {}) {
  CodergenRequest r;
  r.graph = &graph;
  r.node = graph.node(id);
  r.prompt = "Do " + id;
  r.history = std::move(history);
  return r;
}

ProviderSettings settings_for(const FakeLlmServer& server, const std::string& key = "sk-test") {
  ProviderSettings s;
  s.api_key = key;
  s.base_url = server.url();
  s.default_model = "default-model";
  return s;
}

const std::vector<ChatMessage> kHistory = {
    {"system", "Be brief."}, {"user", "Earlier question"}, {"assistant", "Earlier answer"}};

TEST(OpenAiBackendTest, SendsModelHistoryPromptAndReasoningEffort) {
  FakeLlmServer server;
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    plan [llm_model="o3-mini", reasoning_effort="medium"]; start -> plan -> done })");
  OpenAiBackend backend(settings_for(server));
  CodergenResult result = backend.run(request_for(g, "plan", kHistory));

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer sk-test");
  EXPECT_EQ(requests[0].body, json::parse(R"({"model": "o3-mini", "reasoning_effort": "medium", "messages": [
      {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Earlier question"},
      {"role": "assistant", "content": "Earlier answer"}, {"role": "user", "content": "Do plan"}]})"));
  EXPECT_EQ(result.response, "reply 1");
  EXPECT_EQ(result.usage.input_tokens, 11);
  EXPECT_EQ(result.usage.output_tokens, 7);
  EXPECT_EQ(result.model, "o3-mini");
  EXPECT_EQ(result.backend, "openai");
  EXPECT_EQ(result.session_id, "chatcmpl-1");
}

TEST(OpenAiBackendTest, NonReasoningModelsGetNoEffortAndV1BaseUrlsWork) {
  FakeLlmServer server;
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    a [llm_model="gpt-4o", reasoning_effort="high"]; b; start -> a -> b -> done })");
  ProviderSettings s = settings_for(server, "");
  s.base_url += "/v1/";
  OpenAiBackend backend(s);
  backend.run(request_for(g, "a"));
  backend.run(request_for(g, "b"));  // no llm_model: the default model, implicit effort
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].body, json::parse(R"({"model": "gpt-4o", "messages": [{"role": "user", "content": "Do a"}]})"));
  EXPECT_EQ(requests[1].body["model"], "default-model");
  EXPECT_FALSE(requests[1].body.contains("reasoning_effort"));
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);  // no key configured: none sent
}

TEST(OpenAiBackendTest, ReasoningModelsGetTheImplicitDefaultEffort) {
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    a [llm_model="gpt-5.2"]; b [llm_model="o1", reasoning_effort="none"]; start -> a -> b -> done })");
  EXPECT_EQ(openai_chat_body(request_for(g, "a"), "gpt-5.2")["reasoning_effort"], "high");
  EXPECT_FALSE(openai_chat_body(request_for(g, "b"), "o1").contains("reasoning_effort"));
  EXPECT_TRUE(is_openai_reasoning_model("openai/gpt-oss-20b"));
  EXPECT_FALSE(is_openai_reasoning_model("gpt-4.1"));
}

TEST(AnthropicBackendTest, SendsSystemMessagesAndThinkingBudgetForExplicitEffort) {
  FakeLlmServer server;
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    review [llm_model="claude-sonnet-4-5", reasoning_effort="low"]; start -> review -> done })");
  AnthropicBackend backend(settings_for(server, "sk-ant"));
  CodergenResult result = backend.run(request_for(g, "review", kHistory));

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].headers["x-api-key"], "sk-ant");
  EXPECT_EQ(requests[0].headers["anthropic-version"], "2023-06-01");
  EXPECT_EQ(requests[0].body, json::parse(R"({"model": "claude-sonnet-4-5", "max_tokens": 9216,
      "system": "Be brief.", "thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [
      {"role": "user", "content": "Earlier question"}, {"role": "assistant", "content": "Earlier answer"},
      {"role": "user", "content": "Do review"}]})"));
  EXPECT_EQ(result.response, "reply 1");
  EXPECT_EQ(result.usage.input_tokens, 11);
  EXPECT_EQ(result.usage.output_tokens, 7);
  EXPECT_EQ(result.backend, "anthropic");
  EXPECT_EQ(result.session_id, "msg_1");
}

TEST(AnthropicBackendTest, ImplicitEffortSendsNoThinkingAndSameRoleMessagesMerge) {
  FakeLlmServer server;
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    a; start -> a -> done })");
  AnthropicBackend backend(settings_for(server));
  backend.run(request_for(g, "a", {{"user", "Context first"}}));
  EXPECT_EQ(server.requests().at(0).body, json::parse(R"({"model": "default-model", "max_tokens": 8192,
      "messages": [{"role": "user", "content": "Context first\n\nDo a"}]})"));
  EXPECT_EQ(anthropic_thinking_budget("medium"), 4096);
  EXPECT_EQ(anthropic_thinking_budget("high"), 16384);
  EXPECT_EQ(anthropic_thinking_budget("minimal"), 0);
}

TEST(AnthropicBackendTest, ResponseTextBlocksAreJoinedAndThinkingSkipped) {
  CodergenResult r = parse_anthropic_response(R"({"id": "m", "model": "claude-x", "content": [
      {"type": "thinking", "thinking": "hmm", "signature": "s"}, {"type": "text", "text": "Hello "},
      {"type": "text", "text": "world"}], "usage": {"input_tokens": 3, "cache_read_input_tokens": 4,
      "output_tokens": 5}})");
  EXPECT_EQ(r.response, "Hello world");
  EXPECT_EQ(r.usage.input_tokens, 7);
  EXPECT_EQ(r.usage.output_tokens, 5);
  EXPECT_EQ(r.model, "claude-x");
}

TEST(ProviderErrorsTest, StatusCodesMapToCategoriesWithProviderMessages) {
  FakeLlmServer server;
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]; a; start -> a -> done })");
  ProviderSettings s = settings_for(server);
  s.retry.max_retries = 0;  // one request per call (transport retries: transport_retry_test.cc)
  AnthropicBackend backend(s);
  server.push_error(401, "invalid x-api-key");
  server.push_error(429, "rate limited", {{"Retry-After", "7"}});
  server.push_error(529, "Overloaded");
  server.push_error(400, "max_tokens: too large");
  struct Case {
    std::string message;
    ErrorCategory category;
    std::optional<std::int64_t> retry_after;
  };
  std::vector<Case> expected = {
      {"anthropic: HTTP 401: invalid x-api-key", ErrorCategory::kTerminal, std::nullopt},
      {"anthropic: HTTP 429: rate limited", ErrorCategory::kRetryable, 7000},
      {"anthropic: HTTP 529: Overloaded", ErrorCategory::kRetryable, std::nullopt},
      {"anthropic: HTTP 400: max_tokens: too large", ErrorCategory::kTerminal, std::nullopt},
  };
  for (const Case& c : expected) {
    try {
      backend.run(request_for(g, "a"));
      ADD_FAILURE() << "no error for " << c.message;
    } catch (const StageError& e) {
      EXPECT_EQ(e.what(), c.message);
      EXPECT_EQ(e.category(), c.category) << c.message;
      EXPECT_EQ(e.retry_after_ms(), c.retry_after) << c.message;
    }
  }
  EXPECT_EQ(server.requests().size(), 4u);
}

TEST(ProviderErrorsTest, ConnectionFailureIsRetryable) {
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]; a; start -> a -> done })");
  ProviderSettings s;
  s.base_url = "http://127.0.0.1:1";
  s.default_model = "m";
  s.retry.max_retries = 0;
  OpenAiBackend backend(s);
  try {
    backend.run(request_for(g, "a"));
    FAIL();
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kRetryable);
    EXPECT_EQ(std::string(e.what()).rfind("openai: request to http://127.0.0.1:1/v1/chat/completions failed: ", 0), 0u)
        << e.what();
  }
}

TEST(ProviderErrorsTest, RetryAfterForms) {
  HttpResponse r;
  EXPECT_EQ(retry_after_ms(r, 0), std::nullopt);
  r.headers["retry-after"] = "120";
  EXPECT_EQ(retry_after_ms(r, 0), 120000);
  r.headers["retry-after"] = "1.5";
  EXPECT_EQ(retry_after_ms(r, 0), 1500);
  r.headers["retry-after"] = "Wed, 21 Oct 2015 07:28:00 GMT";
  EXPECT_EQ(retry_after_ms(r, 1445412480000 - 5000), 5000);
  EXPECT_EQ(retry_after_ms(r, 1445412480000 + 5000), 0);
  r.headers["retry-after"] = "soon";
  EXPECT_EQ(retry_after_ms(r, 0), std::nullopt);
  r.headers["retry-after-ms"] = "250";
  EXPECT_EQ(retry_after_ms(r, 0), 250);
}

TEST(ProviderErrorsTest, MessagesAndUrls) {
  EXPECT_EQ(provider_error_message(R"({"error": {"message": "bad key", "type": "x"}})"), "bad key");
  EXPECT_EQ(provider_error_message(R"({"error": "plain"})"), "plain");
  EXPECT_EQ(provider_error_message("<html>Bad Gateway</html>\n"), "<html>Bad Gateway</html>");
  EXPECT_EQ(api_url("https://api.openai.com/v1", "chat/completions"), "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(api_url("http://localhost:11434/", "chat/completions"), "http://localhost:11434/v1/chat/completions");
  EXPECT_EQ(api_url("https://proxy.example.com/llm/v1/", "messages"), "https://proxy.example.com/llm/v1/messages");
  EXPECT_TRUE(is_terminal_http_status(403));
  EXPECT_FALSE(is_terminal_http_status(503));
}

}  // namespace
}  // namespace attractor
