// The attribute tables (attributes.h) and the handler descriptions' attributes: well formed, one
// type per name, and the source of lint's attribute_type and attribute_spelling rules.

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "support/lint_test_support.h"

#include "attractor/check/attributes.h"
#include "attractor/check/lint.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

using lint_test::only;
using lint_test::valid_pipeline;

void expect_well_formed(const std::vector<AttributeSpec>& specs, const std::string& where) {
  std::set<std::string> seen;
  for (const AttributeSpec& s : specs) {
    EXPECT_TRUE(seen.insert(s.name).second) << where << ": " << s.name << " listed twice";
    EXPECT_FALSE(s.meaning.empty()) << where << ": " << s.name;
    EXPECT_EQ(s.meaning.back(), '.') << where << ": " << s.name << " meaning is not one sentence";
    EXPECT_EQ(s.meaning.find('\n'), std::string::npos) << where << ": " << s.name;
    EXPECT_EQ(s.type == AttributeType::kEnum, !s.values.empty()) << where << ": " << s.name << " values";
    if (s.type == AttributeType::kEnum && !s.default_value.empty()) {
      EXPECT_NE(std::find(s.values.begin(), s.values.end(), s.default_value), s.values.end())
          << where << ": " << s.name << " default is not one of its values";
    }
  }
}

TEST(AttributeTables, WellFormed) {
  expect_well_formed(node_attributes(), "node");
  expect_well_formed(edge_attributes(), "edge");
  expect_well_formed(graph_attributes(), "graph");
  for (const HandlerDescription* d : builtin_handler_catalog().descriptions()) {
    EXPECT_FALSE(d->summary.empty()) << d->type;
    expect_well_formed(d->attributes, d->type);
  }
}

TEST(AttributeTables, EngineAttributesAreListed) {
  for (const char* name : {"label", "shape", "type", "prompt", "max_retries", "goal_gate", "retry_target",
                           "fallback_retry_target", "fidelity", "thread_id", "class", "timeout", "llm_model",
                           "llm_provider", "reasoning_effort", "auto_status", "allow_partial", "retry_policy"}) {
    EXPECT_NE(find_attribute(node_attributes(), name), nullptr) << name;
  }
  for (const char* name : {"label", "condition", "weight", "fidelity", "thread_id", "loop_restart"}) {
    EXPECT_NE(find_attribute(edge_attributes(), name), nullptr) << name;
  }
  for (const char* name : {"goal", "label", "model_stylesheet", "default_max_retries", "default_fidelity",
                           "retry_target", "fallback_retry_target", "max_node_executions", "index_dir",
                           "token_encoding", "max_context_tokens", "default_thread_id"}) {
    EXPECT_NE(find_attribute(graph_attributes(), name), nullptr) << name;
  }
}

TEST(AttributeTables, OneTypePerNodeAttributeName) {
  std::map<std::string, std::pair<AttributeType, std::string>> types;
  auto record = [&](const std::vector<AttributeSpec>& specs, const std::string& where) {
    for (const AttributeSpec& s : specs) {
      auto [it, added] = types.try_emplace(s.name, s.type, where);
      EXPECT_TRUE(added || it->second.first == s.type)
          << s.name << " is " << attribute_type_name(s.type) << " in " << where << " but "
          << attribute_type_name(it->second.first) << " in " << it->second.second;
    }
  };
  record(node_attributes(), "node attributes");
  for (const HandlerDescription* d : builtin_handler_catalog().descriptions()) record(d->attributes, d->type);
}

TEST(AttributeTables, KnownNamesJoinEveryList) {
  std::vector<std::string> known = known_attribute_names(builtin_handler_catalog());
  EXPECT_TRUE(std::is_sorted(known.begin(), known.end()));
  EXPECT_EQ(std::adjacent_find(known.begin(), known.end()), known.end());
  for (const char* name : {"prompt", "condition", "goal", "rankdir", "top_k", "human.default_choice", "rules"}) {
    EXPECT_TRUE(std::binary_search(known.begin(), known.end(), name)) << name;
  }
}

TEST(AttributeTables, LintTypesHandlerAttributesFromTheCatalog) {
  Graph g = valid_pipeline();
  g.node("work")->set("allow_top_k_from_payload", "yes");
  g.node("work")->set("retry_initial_delay", "soon");
  g.node("work")->set("retry_max_delay", "500");
  auto d = only(validate(g, builtin_handler_catalog()), "attribute_type");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].message, "node 'work': allow_top_k_from_payload must be true or false, got 'yes'");
  EXPECT_EQ(d[1].message,
            "node 'work': retry_initial_delay must be a duration such as 250ms or 2s, or a number of milliseconds, "
            "got 'soon'");
}

TEST(AttributeTables, LintReadsACustomCatalog) {
  HandlerCatalog catalog = builtin_handler_catalog();
  HandlerDescription custom;
  custom.type = "frobnicate";
  custom.summary = "Frobnicates.";
  custom.attributes = {{"frobnicate_level", AttributeType::kInteger, "1", "How hard to frobnicate."}};
  catalog.add(custom);
  Graph g = valid_pipeline();
  g.node("work")->set("frobnicate_levle", "2");
  g.node("exit")->set("frobnicate_level", "high");
  std::vector<Diagnostic> all = validate(g, catalog);
  auto spelling = only(all, "attribute_spelling");
  ASSERT_EQ(spelling.size(), 1u);
  EXPECT_EQ(spelling[0].message, "unknown attribute 'frobnicate_levle'; did you mean 'frobnicate_level'?");
  auto types = only(all, "attribute_type");
  ASSERT_EQ(types.size(), 1u);
  EXPECT_EQ(types[0].message, "node 'exit': frobnicate_level must be an integer, got 'high'");
  EXPECT_EQ(only(validate(g, builtin_handler_catalog()), "attribute_type").size(), 0u);
}

// A new attribute needs only its record: its values are checked and its family (here a `sandbox.*`
// that no built-in code reads yet) flags the other names of the family.
TEST(AttributeTables, AnEnumRecordAndItsFamilyAreCheckedFromTheRecordAlone) {
  HandlerCatalog catalog = builtin_handler_catalog();
  HandlerDescription custom;
  custom.type = "boxed";
  custom.summary = "Runs in a sandbox.";
  custom.attributes = {{"sandbox.network", AttributeType::kEnum, "none", "Network access.", {"none", "loopback"}}};
  catalog.add(custom);
  Graph g = valid_pipeline();
  g.node("work")->set("sandbox.network", "loopbak");
  g.node("work")->set("sandbox.mounts", "/tmp");
  std::vector<Diagnostic> all = validate(g, catalog);
  auto types = only(all, "attribute_type");
  ASSERT_EQ(types.size(), 1u);
  EXPECT_EQ(types[0].severity, Severity::kError);
  EXPECT_EQ(types[0].message, "node 'work': sandbox.network must be none or all, got 'loopbak'");
  EXPECT_EQ(types[0].fix, "use one of: none, all");
  auto family = only(all, "attribute_spelling");
  ASSERT_EQ(family.size(), 1u);
  EXPECT_EQ(family[0].severity, Severity::kWarning);
  EXPECT_EQ(family[0].message,
            "unknown attribute 'sandbox.mounts': nothing reads it, and the sandbox.* attributes are sandbox.network, "
            "sandbox.read and sandbox.write");
  EXPECT_EQ(only(validate(g, builtin_handler_catalog()), "attribute_spelling").size(), 1u);
  LintOptions strict;
  strict.strict = true;
  EXPECT_EQ(only(validate(g, catalog, strict), "attribute_spelling").at(0).severity, Severity::kError);
}

}  // namespace
}  // namespace attractor
