// The provider table: a provider added the way the built-in ones are (tests/support/fake_provider.h)
// is routed over real HTTP, planned by the dry run, linted and listed; the router, lint, `--backend` and `attractor
// help providers` know the same providers; the table in docs/llm.md is what the generator prints.

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "attractor/check/lint.h"
#include "attractor/cli/run_plan.h"
#include "handlers/llm/provider_lint.h"
#include "handlers/llm/provider_reference.h"
#include "attractor/run/run_directory.h"
#include "support/cli_test_support.h"
#include "support/fake_llm_server.h"
#include "support/fake_provider.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

using testing::config_with_env;
using ::testing::HasSubstr;
using testing::load_graph;

const char* kCompatGraph = R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare];
  by_model [llm_model="compat-large", prompt="first"]; by_name [llm_provider="compat", prompt="second"];
  start -> by_model -> by_name -> done })";

/// The `llm_provider` findings of validating `dot` against `catalog`.
std::vector<Diagnostic> provider_findings(const std::string& dot, const HandlerCatalog& catalog) {
  Graph g = load_graph(dot);
  std::vector<Diagnostic> found;
  for (Diagnostic& d : validate(g, catalog)) {
    if (d.rule == kLlmProviderRule) found.push_back(std::move(d));
  }
  return found;
}

std::string one_node(const std::string& provider) {
  return R"(digraph G { start [shape=Mdiamond]; done [shape=Msquare]; a [prompt="p", llm_provider=")" + provider +
         R"("]; start -> a -> done })";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ProviderTableTest, AnAddedProviderIsRoutedOverHttp) {
  testing::FakeLlmServer server;
  BackendConfig config = config_with_env({{"COMPAT_BASE_URL", server.url()}, {"COMPAT_API_KEY", "ck-test"}});
  config.providers = testing::providers_with_compat();
  auto router = std::make_shared<RoutingBackend>(config);
  Graph g = load_graph(kCompatGraph);
  EXPECT_EQ(router->provider_for(*g.node("by_model"), g), "compat");
  EXPECT_EQ(router->model_for(*g.node("by_name"), g), "compat-small");
  EXPECT_EQ(router->check(g, builtin_handler_catalog()), std::vector<std::string>());
  std::vector<PlannedStage> plan = plan_run(g, builtin_handler_catalog(), *router);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[1].provider + ":" + plan[1].model, "compat:compat-large");  // what `run --dry-run` prints
  EXPECT_EQ(plan[2].provider + ":" + plan[2].model, "compat:compat-small");

  testing::LlmRun run;
  ASSERT_EQ(run.run(g, router).outcome.status, StageStatus::kSuccess);
  std::vector<testing::RecordedRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer ck-test");
  EXPECT_EQ(requests[0].body["model"], "compat-large");
  EXPECT_EQ(requests[1].body["model"], "compat-small");
  EXPECT_EQ(run.status("by_name")["model"], "compat-small");
}

TEST(ProviderTableTest, AnAddedProviderIsCheckedLintedAndListed) {
  auto table = testing::providers_with_compat();
  BackendConfig config = config_with_env({});
  config.providers = table;
  RoutingBackend router(config);
  Graph g = load_graph(kCompatGraph);
  EXPECT_EQ(router.check(g, builtin_handler_catalog()),
            std::vector<std::string>{"COMPAT_API_KEY is not set (needed by the compat backend; set COMPAT_BASE_URL "
                                     "instead for a server that needs no key) [nodes: by_model, by_name]"});

  HandlerCatalog catalog = testing::catalog_with_providers(table);
  EXPECT_TRUE(provider_findings(one_node("compat"), catalog).empty());
  std::vector<Diagnostic> typo = provider_findings(one_node("compta"), catalog);
  ASSERT_EQ(typo.size(), 1u);
  EXPECT_EQ(typo[0].fix, "did you mean 'compat'?");
  EXPECT_EQ(typo[0].message,
            "unknown llm_provider 'compta' (expected simulate, openai, anthropic, agent, cli, cli:<agent> or compat)");
  EXPECT_EQ(provider_findings(one_node("compat"), builtin_handler_catalog()).size(), 1u);

  EXPECT_THAT(providers_reference(*table),
              HasSubstr("| `compat` | - | `compat-*` | `COMPAT_API_KEY` | `COMPAT_BASE_URL` | `COMPAT_MODEL`, else "
                        "`compat-small` | no | no | yes | outside |"));
  EXPECT_EQ(parse_llm_fallbacks("compat:compat-large", *table).at(0).provider, "compat");
  EXPECT_THROW(parse_llm_fallbacks("compat:compat-large"), std::invalid_argument);
}

TEST(ProviderTableTest, LintWarnsWithASuggestionAndAcceptsEveryBuiltInName) {
  std::vector<Diagnostic> typo = provider_findings(one_node("opnai"), builtin_handler_catalog());
  ASSERT_EQ(typo.size(), 1u);
  EXPECT_EQ(typo[0].severity, Severity::kWarning);
  EXPECT_EQ(typo[0].node_id, "a");
  EXPECT_EQ(typo[0].fix, "did you mean 'openai'?");
  EXPECT_EQ(provider_findings(one_node("agent:antropic"), builtin_handler_catalog()).at(0).fix,
            "did you mean 'agent:anthropic'?");
  EXPECT_THAT(provider_findings(one_node("gemini"), builtin_handler_catalog()).at(0).message,
              HasSubstr("provider 'gemini' is not supported"));
  for (const char* name : {"OpenAI", "simulation", "codex", "cli", "cli:aider", "agent", "agent:openai"}) {
    EXPECT_TRUE(provider_findings(one_node(name), builtin_handler_catalog()).empty()) << name;
  }
  std::vector<Diagnostic> graph_level = provider_findings(
      R"(digraph G { graph [llm_provider="antropic"]; start [shape=Mdiamond]; done [shape=Msquare];
         a [prompt="p"]; b [prompt="q"]; start -> a -> b -> done })",
      builtin_handler_catalog());
  ASSERT_EQ(graph_level.size(), 1u);
  EXPECT_EQ(graph_level[0].node_id, "");
  EXPECT_EQ(graph_level[0].fix, "did you mean 'anthropic'?");
}

TEST(ProviderTableTest, RouterLintBackendFlagAndHelpKnowTheSameProviders) {
  const ProviderTable& table = *builtin_providers();
  testing::CommandResult help = testing::run_attractor({"help", "providers"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_TRUE(help.out == providers_reference(table));
  RoutingBackend router(config_with_env({}));
  for (const ProviderRecord& r : table.records()) {
    std::string name = r.variants == ProviderVariants::kAnyName ? r.name + ":aider" : r.name;
    std::vector<std::string> problems = router.check(load_graph(one_node(name)), builtin_handler_catalog());
    for (const std::string& p : problems) EXPECT_THAT(p, ::testing::Not(HasSubstr("unknown llm_provider"))) << name;
    EXPECT_EQ(provider_findings(one_node(name), builtin_handler_catalog()).empty(), r.make != nullptr) << name;
    EXPECT_EQ(table.is_known(table.canonical(name, nullptr)), r.make != nullptr) << name;
    EXPECT_THAT(help.out, HasSubstr("| `" + r.name + "`")) << name;
  }
  EXPECT_THAT(router.check(load_graph(one_node("mistral")), builtin_handler_catalog()).at(0),
              HasSubstr("unknown llm_provider 'mistral' (expected " + table.choices() + ")"));
  EXPECT_EQ(provider_findings(one_node("mistral"), builtin_handler_catalog()).size(), 1u);
  EXPECT_THAT(help.out, ::testing::Not(HasSubstr("mistral")));

  testing::ScratchDir dir;
  write_text_file(dir.sub("g.dot"), one_node("simulate"));
  testing::BinaryRun backend = testing::run_binary(
      {"run", dir.sub("g.dot"), "--logs-root", dir.sub("run"), "--backend", "mistral"}, {}, dir);
  EXPECT_EQ(backend.code, 2);
  EXPECT_THAT(backend.err, HasSubstr("unknown --backend 'mistral' (expected " + table.choices(true) + ")"));
}

TEST(ProviderTableTest, TheProviderTableInDocsLlmIsTheGeneratedOne) {
  std::string doc = read_file(std::string(ATTRACTOR_SOURCE_DIR) + "/docs/llm.md");
  std::size_t begin = doc.find(std::string(kProvidersBegin) + "\n");
  std::size_t end = doc.find(std::string("\n") + kProvidersEnd);
  ASSERT_NE(begin, std::string::npos) << "docs/llm.md lacks the line " << kProvidersBegin;
  ASSERT_NE(end, std::string::npos) << "docs/llm.md lacks the line " << kProvidersEnd;
  begin += std::string(kProvidersBegin).size() + 1;
  std::string committed = doc.substr(begin, end + 1 - begin);
  EXPECT_TRUE(committed == providers_reference(*builtin_providers()))
      << "the provider table in docs/llm.md is out of date: replace the lines between " << kProvidersBegin << " and "
      << kProvidersEnd << " with the output of `attractor help providers`:\n"
      << providers_reference(*builtin_providers());
}

}  // namespace
}  // namespace attractor
