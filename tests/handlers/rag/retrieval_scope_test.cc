// read_retrieval_scope: the scope shared by search_nodes, expand_dependency_tree and fetch_node_texts.

#include <gtest/gtest.h>

#include "handlers/rag/retrieval_support.h"
#include "support/retrieval_test_support.h"

namespace attractor {
namespace {

using nlohmann::json;

std::string scope_error(const Graph& g, const Context& c) {
  try {
    read_retrieval_scope(*g.node("step"), c, g);
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
    return e.what();
  }
  ADD_FAILURE() << "no StageError";
  return {};
}

TEST(SearchNodesScopeTest, ReadsEveryPart) {
  Graph g = testing::retrieval_graph("step", "fetch_node_texts", {}, {{"active_index", "cs"}});
  Context c = testing::retrieval_context(
      {{"retrieval_filters", {{"acl_tags_any", {"public"}}, {"tenant", "acme"}}}, {"snapshot_id", "s1"}});
  RetrievalScope s = read_retrieval_scope(*g.node("step"), c, g);
  EXPECT_EQ(s.repository, "acme");
  EXPECT_EQ(s.branch, "main");
  EXPECT_EQ(s.snapshot_source, "primary");
  EXPECT_EQ(s.snapshot_id, "s1");
  EXPECT_EQ(s.active_index, "cs");
  EXPECT_EQ(s.filters, json({{"acl_tags_any", {"public"}},
                             {"tenant", "acme"},
                             {"repository", "acme"},
                             {"branch", "main"},
                             {"snapshot_id", "s1"}}));
}

TEST(SearchNodesScopeTest, WithoutSnapshotTheBackendUsesTheLatest) {
  Graph g = testing::retrieval_graph("step", "expand_dependency_tree", {});
  Context c = testing::retrieval_context({{"snapshot_id", ""}, {"retrieval_filters", nullptr}});
  RetrievalScope s = read_retrieval_scope(*g.node("step"), c, g);
  EXPECT_FALSE(s.snapshot_id);
  EXPECT_FALSE(s.active_index);
  EXPECT_EQ(s.filters, json({{"repository", "acme"}, {"branch", "main"}}));
}

TEST(SearchNodesScopeTest, SecondaryAndIntegerSnapshots) {
  Graph g = testing::retrieval_graph("step", "fetch_node_texts", {{"snapshot_source", "secondary"}});
  Context c = testing::retrieval_context({{"snapshot_id", "a"}, {"snapshot_id_b", 42}});
  RetrievalScope s = read_retrieval_scope(*g.node("step"), c, g);
  EXPECT_EQ(s.snapshot_source, "secondary");
  EXPECT_EQ(s.filters["snapshot_id"], "42");
  Context bad = testing::retrieval_context({{"snapshot_id_b", {{"x", 1}}}});
  EXPECT_EQ(scope_error(g, bad), "node 'step': context key 'snapshot_id_b' must be a string, got {\"x\":1}");
}

TEST(SearchNodesScopeTest, SacredSnapshotAliasIsKeptAndChecked) {
  Graph g = testing::retrieval_graph("step", "search_nodes", {});
  Context same = testing::retrieval_context({{"retrieval_filters", {{"snapshot", "s1"}}}, {"snapshot_id", "s1"}});
  EXPECT_EQ(read_retrieval_scope(*g.node("step"), same, g).filters,
            json({{"snapshot", "s1"}, {"repository", "acme"}, {"branch", "main"}}));
  Context differs = testing::retrieval_context({{"retrieval_filters", {{"snapshot", "s0"}}}, {"snapshot_id", "s1"}});
  EXPECT_EQ(scope_error(g, differs),
            "node 'step': retrieval_filters.snapshot = \"s0\" disagrees with the scope value 's1'");
  Context sacred_only = testing::retrieval_context({{"retrieval_filters", {{"snapshot_id", "s0"}}}});
  EXPECT_EQ(read_retrieval_scope(*g.node("step"), sacred_only, g).filters["snapshot_id"], "s0");
}

TEST(SearchNodesScopeTest, EmptyActiveIndexIsAnError) {
  Graph g = testing::retrieval_graph("step", "search_nodes", {}, {{"active_index", ""}});
  Context c = testing::retrieval_context();
  EXPECT_EQ(scope_error(g, c), "node 'step': graph attribute active_index must not be empty when set");
}

}  // namespace
}  // namespace attractor
