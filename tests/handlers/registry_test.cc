// The built-in handler catalog: the shape mapping of the Attractor specification (section 2.8,
// https://github.com/strongdm/attractor), explicit types, the default type, and one registration
// per built-in type.
#include "handlers/registry.h"

#include <gtest/gtest.h>

#include "attractor/check/lint.h"
#include "support/cli_test_support.h"
#include "support/lint_test_support.h"

namespace attractor {
namespace {

TEST(HandlerCatalogTest, DefaultNodeIsCodergen) {
  Graph g;
  const NodeData& n = g.node(g.add_node("plan"));
  EXPECT_EQ(builtin_handler_catalog().type_of(n), "codergen");
}

TEST(HandlerCatalogTest, ShapeMappingAndExplicitTypeOverride) {
  const HandlerCatalog& catalog = builtin_handler_catalog();
  Graph g;
  NodeData& n = g.node(g.add_node("gate"));
  n.set("shape", "hexagon");
  EXPECT_EQ(catalog.type_of(n), "wait.human");
  n.set("type", "tool");
  EXPECT_EQ(catalog.type_of(n), "tool");
  EXPECT_EQ(catalog.type_for_shape("Mdiamond"), "start");
  EXPECT_EQ(catalog.type_for_shape("Msquare"), "exit");
  EXPECT_EQ(catalog.type_for_shape("diamond"), "conditional");
  EXPECT_EQ(catalog.type_for_shape("component"), "parallel");
  EXPECT_EQ(catalog.type_for_shape("tripleoctagon"), "parallel.fan_in");
  EXPECT_EQ(catalog.type_for_shape("parallelogram"), "tool");
  EXPECT_EQ(catalog.type_for_shape("house"), "stack.manager_loop");
  EXPECT_EQ(catalog.type_for_shape("ellipse"), "");
}

TEST(HandlerCatalogTest, EveryBuiltinTypeHasAHandlerAndASummary) {
  HandlerRegistry registry = make_default_registry();
  const std::vector<std::string> types = registry.catalog().types();
  EXPECT_EQ(types.size(), 17u);
  for (const std::string& type : types) {
    EXPECT_TRUE(registry.has(type)) << type;
    EXPECT_FALSE(registry.catalog().find(type)->summary.empty()) << type;
  }
}

// A handler is one line of builtin_handlers(): the registry, lint's catalog and `attractor help`
// (which docs/pipelines.md is generated from) all read that table.
TEST(HandlerCatalogTest, EveryRegisteredTypeIsInLintsCatalogAndInHelp) {
  HandlerRegistry registry = make_default_registry();
  const std::vector<std::string> registered = registry.catalog().types();
  EXPECT_EQ(builtin_handler_catalog().types(), registered);
  testing::CommandResult help = testing::run_attractor({"help", "shapes"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const std::string& type : registered) {
    Graph g = lint_test::valid_pipeline();
    g.node("work")->set("type", type);
    EXPECT_TRUE(lint_test::only(validate(g, builtin_handler_catalog()), "type_known").empty()) << type;
    EXPECT_NE(help.out.find("| `" + type + "` |"), std::string::npos) << type << " is not in `attractor help shapes`";
  }
}

TEST(HandlerCatalogTest, TraitsComeFromTheDescription) {
  HandlerRegistry registry = make_default_registry();
  Graph g;
  NodeData& n = g.node(g.add_node("x"));
  n.set("shape", "component");
  EXPECT_TRUE(registry.traits(n).fans_out);
  n.set("shape", "parallelogram");
  EXPECT_TRUE(registry.traits(n).handles_timeout);
  EXPECT_FALSE(registry.traits(n).fans_out);
  n.set("type", "custom.kind");
  registry.register_handler("custom.kind", nullptr);
  EXPECT_FALSE(registry.traits(n).handles_timeout);
}

TEST(HandlerCatalogTest, ConfigChecksReportTheSameMessageAsLint) {
  Graph g;
  g.data().set("max_context_tokens", "0");
  NodeData& n = g.node(g.add_node("budget"));
  n.set("type", "manage_context_budget");
  n.set("on_ok", "x");
  std::vector<Diagnostic> found = builtin_handler_catalog().check_config(n, g);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].rule, "context_budget_settings");
  EXPECT_EQ(found[0].message,
            "node 'budget' (manage_context_budget) needs graph attribute max_context_tokens (an integer > 0), got '0'");
  EXPECT_EQ(found[1].message, "node 'budget' (manage_context_budget) needs on_over");
  EXPECT_THROW(throw_first_config_error(found), StageError);
}

TEST(HandlerCatalogTest, LintRunsACustomHandlersOwnCheck) {
  HandlerDescription echo;
  echo.type = "echo";
  echo.checks = {{"echo_text", [](const NodeData& n, const Graph&, std::vector<Diagnostic>& out) {
                    if (n.get("text").empty()) {
                      out.push_back(make_diagnostic("echo_text", Severity::kError, "node '" + n.id + "' needs text",
                                                    n.id, "add text=\"...\"", n.location));
                    }
                  }}};
  HandlerRegistry registry = make_default_registry();
  registry.register_handler(echo, nullptr);
  Graph g = lint_test::valid_pipeline();
  g.node("work")->set("type", "echo");
  std::vector<Diagnostic> found = lint_test::only(validate(g, registry.catalog()), "echo_text");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message, "node 'work' needs text");
  g.node("work")->set("text", "hello");
  EXPECT_TRUE(lint_test::only(validate(g, registry.catalog()), "echo_text").empty());
}

}  // namespace
}  // namespace attractor
