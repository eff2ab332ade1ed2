#include "handlers/rag/expand_dependency_tree.h"

#include <gtest/gtest.h>

#include "support/handler_test_support.h"
#include "support/retrieval_test_support.h"

namespace attractor {
namespace {

using nlohmann::json;
using retrieval::RetrievalError;
using testing::RecordingBackend;
using testing::retrieval_context;
using testing::retrieval_graph;
using Attrs = std::vector<std::pair<std::string, std::string>>;

const Attrs kMappings = {{"max_depth_from_settings", "graph_max_depth"},
                         {"max_nodes_from_settings", "graph_max_nodes"},
                         {"edge_allowlist_from_settings", "graph_edge_allowlist"}};
const Attrs kSettings = {
    {"graph_max_depth", "2"}, {"graph_max_nodes", "10"}, {"graph_edge_allowlist", "calls, reads,~calls"}};

class ExpandDependencyTreeTest : public ::testing::Test {
 protected:
  ExpandDependencyTreeTest() {
    backend_ = std::make_shared<RecordingBackend>();
    auto& r = backend_->expand_result;
    r.seed_ids = {"s:1", "s:2"};
    r.nodes = {
        {"s:1", 0, std::nullopt}, {"s:2", 0, std::nullopt}, {"n:b", 1, "s:1"}, {"n:a", 1, "s:2"}, {"n:c", 2, "n:b"}};
    r.edges = {{"s:1", "n:b", "calls"}, {"n:a", "s:2", "calls"}, {"n:b", "n:c", "reads"}};
    r.truncated = false;
    r.reason = "ok";
  }

  Outcome run(const Attrs& attrs, Context& context, const Attrs& settings = kSettings) {
    graph_ = retrieval_graph("expand", "expand_dependency_tree", attrs, settings);
    ExpandDependencyTreeHandler handler(std::make_shared<FixedRetrievalProvider>(backend_));
    return handler.execute(*graph_.node("expand"), context, graph_, fixture_.env("expand"));
  }

  std::string error_of(const Attrs& attrs, Context& context, const Attrs& settings = kSettings) {
    try {
      run(attrs, context, settings);
    } catch (const StageError& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
      return e.what();
    }
    ADD_FAILURE() << "no StageError";
    return {};
  }

  static Attrs without(const std::string& key) {
    Attrs out;
    for (const auto& kv : kMappings) {
      if (kv.first != key) out.push_back(kv);
    }
    return out;
  }

  std::shared_ptr<RecordingBackend> backend_;
  Graph graph_;
  testing::StageFixture fixture_;
};

TEST_F(ExpandDependencyTreeTest, ExpandsThroughTheBackendInScope) {
  Context c = retrieval_context({{"retrieval_seed_nodes", {"s:1", "s:2", "s:1"}},
                                 {"retrieval_filters", {{"acl_tags_any", {"public"}}}},
                                 {"snapshot_id", "s7"}});
  Outcome o = run(kMappings, c,
                  {{"graph_max_depth", "2"},
                   {"graph_max_nodes", "10"},
                   {"graph_edge_allowlist", "calls, reads,~calls"},
                   {"active_index", "main_idx"}});
  ASSERT_EQ(backend_->expands.size(), 1u);
  const auto& r = backend_->expands[0];
  EXPECT_EQ(r.seed_ids, (std::vector<std::string>{"s:1", "s:2", "s:1"}));
  EXPECT_EQ(r.edge_allowlist, (std::vector<std::string>{"calls", "reads", "~calls"}));
  EXPECT_EQ(r.max_depth, 2);
  EXPECT_EQ(r.max_nodes, 10);
  EXPECT_EQ(r.repository, "acme");
  EXPECT_EQ(r.branch, "main");
  EXPECT_EQ(r.retrieval_filters,
            json({{"acl_tags_any", {"public"}}, {"repository", "acme"}, {"branch", "main"}, {"snapshot_id", "s7"}}));
  EXPECT_EQ(r.active_index, "main_idx");
  EXPECT_TRUE(backend_->searches.empty());
  EXPECT_TRUE(backend_->fetches.empty());

  EXPECT_EQ(o.context_updates["graph_seed_nodes"], json({"s:1", "s:2"}));
  EXPECT_EQ(o.context_updates["graph_expanded_nodes"], json({"s:1", "s:2", "n:b", "n:a", "n:c"}));
  EXPECT_EQ(o.context_updates["graph_edges"], json::parse(R"([{"from_id":"s:1","to_id":"n:b","edge_type":"calls"},
      {"from_id":"n:a","to_id":"s:2","edge_type":"calls"},{"from_id":"n:b","to_id":"n:c","edge_type":"reads"}])"));
  EXPECT_EQ(o.context_updates["graph_nodes"], json::parse(R"([{"id":"s:1","depth":0,"parent_id":null},
      {"id":"s:2","depth":0,"parent_id":null},{"id":"n:b","depth":1,"parent_id":"s:1"},
      {"id":"n:a","depth":1,"parent_id":"s:2"},{"id":"n:c","depth":2,"parent_id":"n:b"}])"));
  EXPECT_EQ(o.context_updates["graph_debug"], json({{"seed_count", 2},
                                                    {"expanded_count", 5},
                                                    {"edges_count", 3},
                                                    {"truncated", false},
                                                    {"reason", "ok"},
                                                    {"max_depth", 2},
                                                    {"max_nodes", 10},
                                                    {"edge_allowlist", {"calls", "reads", "~calls"}}}));
  auto events = fixture_.events.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "EXPAND_DEPENDENCY_TREE");
  EXPECT_EQ(events[0].fields["graph_debug"], o.context_updates["graph_debug"]);
}

TEST_F(ExpandDependencyTreeTest, LimitReachedIsReported) {
  backend_->expand_result.truncated = true;
  backend_->expand_result.reason = "limit_reached";
  Context c = retrieval_context({{"retrieval_seed_nodes", {"s:1"}}});
  Outcome o = run(kMappings, c);
  EXPECT_EQ(o.context_updates["graph_debug"]["truncated"], true);
  EXPECT_EQ(o.context_updates["graph_debug"]["reason"], "limit_reached");
}

TEST_F(ExpandDependencyTreeTest, NoSeedsSkipsTheBackend) {
  Context c = retrieval_context({{"retrieval_seed_nodes", json::array()}});
  Outcome o = run(kMappings, c);
  EXPECT_TRUE(backend_->expands.empty());
  EXPECT_EQ(o.context_updates["graph_seed_nodes"], json::array());
  EXPECT_EQ(o.context_updates["graph_expanded_nodes"], json::array());
  EXPECT_EQ(o.context_updates["graph_edges"], json::array());
  EXPECT_EQ(o.context_updates["graph_debug"], json({{"seed_count", 0},
                                                    {"expanded_count", 0},
                                                    {"edges_count", 0},
                                                    {"truncated", false},
                                                    {"reason", "no_seeds"},
                                                    {"max_depth", 2},
                                                    {"max_nodes", 10},
                                                    {"edge_allowlist", {"calls", "reads", "~calls"}}}));
}

TEST_F(ExpandDependencyTreeTest, EveryMappingIsRequired) {
  Context c = retrieval_context({{"retrieval_seed_nodes", {"s:1"}}});
  EXPECT_EQ(error_of(without("max_depth_from_settings"), c),
            "node 'expand': max_depth_from_settings is required (the name of a graph attribute)");
  EXPECT_EQ(error_of(without("max_nodes_from_settings"), c),
            "node 'expand': max_nodes_from_settings is required (the name of a graph attribute)");
  EXPECT_EQ(error_of(without("edge_allowlist_from_settings"), c),
            "node 'expand': edge_allowlist_from_settings is required (the name of a graph attribute)");
  EXPECT_TRUE(backend_->expands.empty());
}

TEST_F(ExpandDependencyTreeTest, NamedSettingsMustExistAndBeValid) {
  Context c = retrieval_context({{"retrieval_seed_nodes", {"s:1"}}});
  EXPECT_EQ(error_of(kMappings, c, {{"graph_max_nodes", "10"}, {"graph_edge_allowlist", "calls"}}),
            "node 'expand': max_depth_from_settings='graph_max_depth' names a graph attribute that is not set");
  EXPECT_EQ(error_of(kMappings, c, {{"graph_max_depth", "1"}, {"graph_edge_allowlist", "calls"}}),
            "node 'expand': max_nodes_from_settings='graph_max_nodes' names a graph attribute that is not set");
  EXPECT_EQ(
      error_of(kMappings, c, {{"graph_max_depth", "1"}, {"graph_max_nodes", "10"}}),
      "node 'expand': edge_allowlist_from_settings='graph_edge_allowlist' names a graph attribute that is not set");
  EXPECT_EQ(
      error_of(kMappings, c, {{"graph_max_depth", "-1"}, {"graph_max_nodes", "10"}, {"graph_edge_allowlist", "calls"}}),
      "node 'expand': graph attribute graph_max_depth (from max_depth_from_settings) must be an integer >= 0, got "
      "'-1'");
  EXPECT_EQ(
      error_of(kMappings, c, {{"graph_max_depth", "1"}, {"graph_max_nodes", "0"}, {"graph_edge_allowlist", "calls"}}),
      "node 'expand': graph attribute graph_max_nodes (from max_nodes_from_settings) must be an integer >= 1, got '0'");
  EXPECT_EQ(
      error_of(kMappings, c,
               {{"graph_max_depth", "1"}, {"graph_max_nodes", "5"}, {"graph_edge_allowlist", "calls,imports"}}),
      "node 'expand': graph attribute graph_edge_allowlist (from edge_allowlist_from_settings) has unknown edge type "
      "'imports'; allowed entries: contains | inherits | implements | calls | uses_type | reads | writes | references "
      "| "
      "executes | maps_to (prefix ~ to follow backwards)");
  EXPECT_TRUE(backend_->expands.empty());
}

TEST_F(ExpandDependencyTreeTest, ParsesAllowlistForms) {
  std::string error;
  EXPECT_EQ(parse_edge_allowlist(R"(["calls", "~reads"])", &error), (std::vector<std::string>{"calls", "~reads"}));
  EXPECT_EQ(parse_edge_allowlist(" contains ,, maps_to ", &error), (std::vector<std::string>{"contains", "maps_to"}));
  EXPECT_FALSE(parse_edge_allowlist(" , ", &error));
  EXPECT_EQ(error, "is empty");
  EXPECT_FALSE(parse_edge_allowlist("[1]", &error));
  EXPECT_EQ(error, "must list strings only");
  EXPECT_FALSE(parse_edge_allowlist("[calls", &error));
  EXPECT_EQ(error, "is not a valid JSON list");
  EXPECT_FALSE(parse_edge_allowlist("~", &error));
  EXPECT_EQ(error, "has unknown edge type '~'");
}

TEST_F(ExpandDependencyTreeTest, SeedsAndScopeAreRequired) {
  Context none = retrieval_context();
  EXPECT_EQ(
      error_of(kMappings, none),
      "node 'expand': context key 'retrieval_seed_nodes' is required (a list of node ids; run search_nodes first)");
  Context bad = retrieval_context({{"retrieval_seed_nodes", {"a", 3}}});
  EXPECT_EQ(error_of(kMappings, bad),
            "node 'expand': context key 'retrieval_seed_nodes' must be a list of non-empty strings");
  Context no_branch;
  no_branch.set("repository", "acme");
  no_branch.set("retrieval_seed_nodes", json({"s:1"}));
  EXPECT_EQ(error_of(kMappings, no_branch), "node 'expand': context key 'branch' is required (a non-empty string)");
  EXPECT_TRUE(backend_->expands.empty());
}

TEST_F(ExpandDependencyTreeTest, SecondarySnapshotScope) {
  Context c = retrieval_context({{"retrieval_seed_nodes", {"s:1"}}, {"snapshot_id", "a"}, {"snapshot_id_b", "b"}});
  Attrs attrs = kMappings;
  attrs.push_back({"snapshot_source", "secondary"});
  run(attrs, c);
  ASSERT_EQ(backend_->expands.size(), 1u);
  EXPECT_EQ(backend_->expands[0].retrieval_filters["snapshot_id"], "b");
}

TEST_F(ExpandDependencyTreeTest, RoutesAndMapsBackendErrors) {
  Context c = retrieval_context({{"retrieval_seed_nodes", {"s:1"}}});
  Attrs attrs = kMappings;
  attrs.push_back({"next", "fetch"});
  EXPECT_EQ(run(attrs, c).suggested_next_ids, std::vector<std::string>{"fetch"});
  backend_->expand_error = RetrievalError(RetrievalError::Kind::kInvalidArgument, "bad filter");
  EXPECT_EQ(error_of(kMappings, c), "node 'expand': expand failed: bad filter");
}

}  // namespace
}  // namespace attractor
