// Backend selection per node (llm_provider, llm_model detection after the stylesheet, --backend,
// graph default, simulate) and the preflight check that names missing variables before a run.

#include <gtest/gtest.h>

#include "handlers/llm/backend_router.h"
#include "handlers/llm/cli_backend.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using testing::config_with_env;
using testing::load_graph;

const char* kMixed = R"(digraph G {
  graph [model_stylesheet=".fast { llm_model: gpt-4o-mini; }"]
  start [shape=Mdiamond]; done [shape=Msquare];
  forced   [llm_provider="OpenAI", llm_model="claude-opus-4-6"]
  claude   [llm_model="claude-opus-4-6"]
  styled   [class="fast"]
  reasoner [llm_model="o3"]
  local    [llm_model="llama3.1"]
  plain
  agent    [llm_provider="codex"]
  gate     [shape=diamond]
  start -> forced -> claude -> styled -> reasoner -> local -> plain -> agent -> gate -> done
})";

std::map<std::string, std::string> providers(const RoutingBackend& router, const Graph& g) {
  std::map<std::string, std::string> out;
  for (auto v : g.nodes()) {
    const NodeData& n = g.node(v);
    if (node_uses_llm(n, builtin_handler_catalog())) out[n.id] = router.provider_for(n, g);
  }
  return out;
}

TEST(BackendRouterTest, ProviderPrecedence) {
  Graph g = load_graph(kMixed);
  RoutingBackend no_default(config_with_env({}));
  std::map<std::string, std::string> expected = {{"forced", "openai"},   {"claude", "anthropic"}, {"styled", "openai"},
                                                 {"reasoner", "openai"}, {"local", ""},           {"plain", ""},
                                                 {"agent", "cli:codex"}};
  EXPECT_EQ(providers(no_default, g), expected);

  BackendConfig config = config_with_env({});
  config.default_provider = "anthropic";
  RoutingBackend with_default(config);
  expected["local"] = expected["plain"] = "anthropic";
  EXPECT_EQ(providers(with_default, g), expected);

  g.data().set("llm_provider", "cli");
  RoutingBackend graph_default(config_with_env({{"ATTRACTOR_CLI_AGENT", "Gemini"}}));
  expected["local"] = expected["plain"] = "cli:gemini";
  EXPECT_EQ(providers(graph_default, g), expected);
}

TEST(BackendRouterTest, ModelDetection) {
  EXPECT_EQ(provider_from_model("claude-sonnet-4-5"), "anthropic");
  EXPECT_EQ(provider_from_model("gpt-5.2"), "openai");
  EXPECT_EQ(provider_from_model("chatgpt-4o-latest"), "openai");
  EXPECT_EQ(provider_from_model("o4-mini"), "openai");
  EXPECT_EQ(provider_from_model("anthropic/claude-3-haiku"), "anthropic");
  EXPECT_EQ(provider_from_model("gemini-3-flash-preview"), "gemini");
  EXPECT_EQ(provider_from_model("qwen2.5-coder"), "");
  EXPECT_EQ(canonical_provider("claude-code", nullptr), "cli:claude");
  EXPECT_EQ(canonical_provider("Simulation", nullptr), "simulate");
  EXPECT_TRUE(is_known_provider("cli:aider"));
  EXPECT_FALSE(is_known_provider("cli:"));
  EXPECT_FALSE(is_known_provider("gemini"));
}

TEST(BackendRouterTest, CheckNamesMissingVariablesAndNodes) {
  Graph g = load_graph(kMixed);
  testing::ScratchDir bin;
  RoutingBackend router(config_with_env({{"PATH", bin.path()}}));
  std::vector<std::string> expected = {
      "OPENAI_API_KEY is not set (needed by the openai backend; set OPENAI_BASE_URL instead for a server that needs "
      "no key) [nodes: forced, styled, reasoner]",
      "ANTHROPIC_API_KEY is not set (needed by the anthropic backend; set ANTHROPIC_BASE_URL instead for a server "
      "that needs no key) [nodes: claude]",
      "no LLM backend chosen: pass --backend openai|anthropic|cli (or set llm_provider on the graph or the nodes, or "
      "an llm_model such as gpt-4o or claude-sonnet-4-5), or pass --simulate to run these stages with the simulation "
      "backend [nodes: local, plain]",
      "'codex' (cli agent codex) was not found on PATH; install it or set ATTRACTOR_CLI_COMMAND_CODEX [nodes: agent]"};
  EXPECT_EQ(router.check(g, builtin_handler_catalog()), expected);

  bin.write_script("codex", "exit 0\n");
  BackendConfig chosen = config_with_env(
      {{"PATH", bin.path()}, {"OPENAI_BASE_URL", "http://127.0.0.1:9"}, {"ANTHROPIC_API_KEY", "sk-ant"}});
  chosen.default_provider = "simulate";
  RoutingBackend configured(chosen);
  EXPECT_EQ(configured.check(g, builtin_handler_catalog()), std::vector<std::string>());
}

TEST(BackendRouterTest, CheckRefusesUnknownAndUnsupportedProviders) {
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
    a [llm_provider="mistral"]; b [llm_model="gemini-2.5-pro"]; c [llm_provider="cli:aider"];
    start -> a -> b -> c -> done })");
  RoutingBackend router(config_with_env({}));
  std::vector<std::string> expected = {
      "unknown llm_provider 'mistral' (expected simulate, openai, anthropic, agent, cli or cli:<agent>) [nodes: a]",
      "provider 'gemini' is not supported; set llm_provider to cli:gemini, or to openai with an OpenAI-compatible "
      "OPENAI_BASE_URL [nodes: b]",
      "ATTRACTOR_CLI_COMMAND_AIDER is not set (cli agent 'aider' has no built-in command) [nodes: c]"};
  EXPECT_EQ(router.check(g, builtin_handler_catalog()), expected);
}

TEST(BackendRouterTest, NodesThatNothingRoutesAreRefusedNotSimulated) {
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]; a; start -> a -> done })");
  RoutingBackend router(config_with_env({{"OPENAI_API_KEY", "sk-test"}, {"ANTHROPIC_API_KEY", "sk-ant"}}));
  EXPECT_EQ(router.check(g, builtin_handler_catalog()),
            std::vector<std::string>{"no LLM backend chosen: pass --backend openai|anthropic|cli (or set llm_provider "
                                     "on the graph or the nodes, or an llm_model such as gpt-4o or "
                                     "claude-sonnet-4-5), or pass --simulate to run these stages with the simulation "
                                     "backend [nodes: a]"});
  CodergenRequest r;
  r.graph = &g;
  r.node = g.node("a");
  r.prompt = "hello";
  try {
    router.run(r);
    FAIL() << "a stage that nothing routes must not be simulated";
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
    EXPECT_EQ(std::string(e.what()).rfind("no LLM backend chosen", 0), 0u) << e.what();
  }
}

TEST(BackendRouterTest, SimulatedNodesReportTheSimulationBackend) {
  Graph g = load_graph(R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]; a; start -> a -> done })");
  BackendConfig config = config_with_env({});
  config.default_provider = "simulate";
  RoutingBackend router(config);
  EXPECT_EQ(router.check(g, builtin_handler_catalog()), std::vector<std::string>());
  CodergenRequest r;
  r.graph = &g;
  r.node = g.node("a");
  r.prompt = "hello world!";
  CodergenResult result = router.run(r);
  EXPECT_EQ(result.response, "[Simulated] Response for stage: a");
  EXPECT_EQ(result.backend, "simulation");
}

}  // namespace
}  // namespace attractor
