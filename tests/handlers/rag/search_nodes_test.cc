#include "handlers/rag/search_nodes.h"

#include <gtest/gtest.h>

#include "support/handler_test_support.h"
#include "handlers/registry.h"
#include "support/retrieval_test_support.h"

namespace attractor {
namespace {

using nlohmann::json;
using retrieval::RetrievalError;
using retrieval::SearchHit;
using retrieval::SearchType;
using testing::RecordingBackend;
using testing::retrieval_context;
using testing::retrieval_graph;
using Attrs = std::vector<std::pair<std::string, std::string>>;

class SearchNodesTest : public ::testing::Test {
 protected:
  SearchNodesTest() {
    backend_ = std::make_shared<RecordingBackend>();
    backend_->hits = {{"id:a", 0.9, 1}, {"id:b", 0.8, 2}, {"id:c", 0.7, 3}, {"id:d", 0.6, 4},
                      {"id:e", 0.5, 5}, {"id:f", 0.4, 6}, {"id:g", 0.3, 7}};
  }

  Outcome run(const Attrs& attrs, Context& context, const Attrs& settings = {}, int widen = 6) {
    graph_ = retrieval_graph("retrieve", "search_nodes", attrs, settings);
    SearchNodesHandler handler(std::make_shared<FixedRetrievalProvider>(backend_), widen);
    return handler.execute(*graph_.node("retrieve"), context, graph_, fixture_.env("retrieve"));
  }

  /// Runs and returns the StageError message (fails the test when nothing is thrown).
  std::string error_of(const Attrs& attrs, Context& context, const Attrs& settings = {}) {
    try {
      run(attrs, context, settings);
    } catch (const StageError& e) {
      EXPECT_EQ(e.category(), ErrorCategory::kTerminal);
      return e.what();
    }
    ADD_FAILURE() << "no StageError";
    return {};
  }

  Context context_with(const std::string& query, json extra = json::object()) {
    extra["last_model_response"] = query;
    return retrieval_context(extra);
  }

  std::shared_ptr<RecordingBackend> backend_;
  Graph graph_;
  testing::StageFixture fixture_;
};

const Attrs kSemantic = {{"search_type", "semantic"}, {"top_k", "3"}};

TEST_F(SearchNodesTest, WritesSeedsHitsAndNullOperator) {
  Context c = context_with("meeting by id");
  Outcome o = run(kSemantic, c);
  ASSERT_EQ(o.status, StageStatus::kSuccess);
  EXPECT_EQ(o.context_updates["retrieval_seed_nodes"], json({"id:a", "id:b", "id:c"}));
  EXPECT_EQ(o.context_updates["retrieval_hits"], json::parse(R"([{"id":"id:a","score":0.9,"rank":1},
      {"id":"id:b","score":0.8,"rank":2},{"id":"id:c","score":0.7,"rank":3}])"));
  EXPECT_TRUE(o.context_updates["last_search_bm25_operator"].is_null());
  ASSERT_EQ(backend_->searches.size(), 1u);
  const auto& r = backend_->searches[0];
  EXPECT_EQ(r.search_type, SearchType::kSemantic);
  EXPECT_EQ(r.query, "meeting by id");
  EXPECT_EQ(r.top_k, 3);
  EXPECT_EQ(r.repository, "acme");
  EXPECT_EQ(r.branch, "main");
  EXPECT_EQ(r.retrieval_filters, json({{"repository", "acme"}, {"branch", "main"}}));
  EXPECT_FALSE(r.active_index);
  EXPECT_FALSE(r.match_operator);
  EXPECT_TRUE(backend_->fetches.empty());
  EXPECT_EQ(backend_->describes, 0);
  EXPECT_TRUE(o.suggested_next_ids.empty());
}

TEST_F(SearchNodesTest, CleanupResetsEveryKeyEvenWhenValidationFails) {
  json stale = {{"retrieval_seed_nodes", {"old"}},     {"retrieval_hits", {{{"id", "old"}}}},
                {"graph_seed_nodes", {"old"}},         {"graph_expanded_nodes", {"old"}},
                {"graph_edges", {{{"from_id", "a"}}}}, {"graph_debug", {{"reason", "ok"}}},
                {"graph_node_texts", {"t"}},           {"graph_nodes", {"n"}},
                {"context_blocks", {"block"}},         {"node_texts", {{{"id", "old"}}}},
                {"last_search_bm25_operator", "and"}};
  Context c = context_with("q", stale);
  error_of({{"top_k", "3"}}, c);  // search_type missing
  for (const char* key : {"retrieval_seed_nodes", "retrieval_hits", "graph_seed_nodes", "graph_expanded_nodes",
                          "graph_edges", "graph_node_texts", "graph_nodes", "context_blocks", "node_texts"}) {
    EXPECT_EQ(c.get(key), json::array()) << key;
  }
  EXPECT_EQ(c.get("graph_debug"), json::object());
  EXPECT_EQ(c.get("last_search_bm25_operator"), json(nullptr));
  EXPECT_TRUE(backend_->searches.empty());
}

TEST_F(SearchNodesTest, NodeTextsIsResetOnlyWhenPresent) {
  Context c = context_with("q");
  run(kSemantic, c);
  EXPECT_FALSE(c.has("node_texts"));
}

TEST_F(SearchNodesTest, RepositoryAndBranchAreRequired) {
  Context no_repo;
  no_repo.set("branch", "main");
  no_repo.set("last_model_response", "q");
  EXPECT_EQ(error_of(kSemantic, no_repo), "node 'retrieve': context key 'repository' is required (a non-empty string)");
  Context empty_branch = context_with("q", {{"branch", ""}});
  EXPECT_EQ(error_of(kSemantic, empty_branch),
            "node 'retrieve': context key 'branch' is required (a non-empty string)");
  Context number = context_with("q", {{"repository", 5}});
  EXPECT_EQ(error_of(kSemantic, number),
            "node 'retrieve': context key 'repository' is required (a non-empty string), got 5");
}

TEST_F(SearchNodesTest, SnapshotSourceSelectsTheSnapshot) {
  Context c = context_with("q", {{"snapshot_id", "s1"}, {"snapshot_id_b", "s2"}});
  run(kSemantic, c);
  Attrs secondary = kSemantic;
  secondary.push_back({"snapshot_source", "secondary"});
  run(secondary, c);
  ASSERT_EQ(backend_->searches.size(), 2u);
  EXPECT_EQ(backend_->searches[0].retrieval_filters["snapshot_id"], "s1");
  EXPECT_EQ(backend_->searches[1].retrieval_filters["snapshot_id"], "s2");
}

TEST_F(SearchNodesTest, SnapshotSourceErrors) {
  Context c = context_with("q", {{"snapshot_id", "s1"}});
  Attrs bad = kSemantic;
  bad.push_back({"snapshot_source", "tertiary"});
  EXPECT_EQ(error_of(bad, c), "node 'retrieve': snapshot_source must be one of primary | secondary, got 'tertiary'");
  Attrs secondary = kSemantic;
  secondary.push_back({"snapshot_source", "secondary"});
  EXPECT_EQ(error_of(secondary, c),
            "node 'retrieve': snapshot_source=secondary requires context key 'snapshot_id_b' (a non-empty string)");
}

TEST_F(SearchNodesTest, SearchTypeIsRequiredAndValidated) {
  Context c = context_with("q");
  EXPECT_EQ(error_of({{"top_k", "3"}}, c),
            "node 'retrieve': search_type is required (one of semantic | bm25 | hybrid)");
  EXPECT_EQ(error_of({{"search_type", "semantic_rerank"}, {"top_k", "3"}}, c),
            "node 'retrieve': search_type must be one of semantic | bm25 | hybrid, got 'semantic_rerank'");
}

TEST_F(SearchNodesTest, TopKFromNodeElseSettingElseError) {
  Context c = context_with("q");
  run({{"search_type", "bm25"}}, c, {{"top_k", "2"}});
  run({{"search_type", "bm25"}, {"top_k", "4"}}, c, {{"top_k", "2"}});
  ASSERT_EQ(backend_->searches.size(), 2u);
  EXPECT_EQ(backend_->searches[0].top_k, 2);
  EXPECT_EQ(backend_->searches[1].top_k, 4);
  EXPECT_EQ(error_of({{"search_type", "bm25"}}, c),
            "node 'retrieve': top_k is required: set node attribute top_k or graph attribute top_k (an integer >= 1)");
  EXPECT_EQ(error_of({{"search_type", "bm25"}, {"top_k", "0"}}, c),
            "node 'retrieve': top_k (node attribute) must be an integer >= 1, got '0'");
  EXPECT_EQ(error_of({{"search_type", "bm25"}}, c, {{"top_k", "many"}}),
            "node 'retrieve': top_k (graph attribute) must be an integer >= 1, got 'many'");
}

TEST_F(SearchNodesTest, RrfKIsValidatedAndUsedOnlyForHybrid) {
  Context c = context_with("q");
  run({{"search_type", "hybrid"}, {"top_k", "3"}}, c);
  run({{"search_type", "hybrid"}, {"top_k", "3"}, {"rrf_k", "10"}}, c);
  run({{"search_type", "bm25"}, {"top_k", "3"}, {"rrf_k", "10"}}, c);
  ASSERT_EQ(backend_->searches.size(), 3u);
  EXPECT_EQ(backend_->searches[0].rrf_k, 60);
  EXPECT_EQ(backend_->searches[1].rrf_k, 10);
  EXPECT_EQ(backend_->searches[2].rrf_k, 60);
  EXPECT_EQ(error_of({{"search_type", "hybrid"}, {"top_k", "3"}, {"rrf_k", "0"}}, c),
            "node 'retrieve': rrf_k (node attribute) must be an integer >= 1, got '0'");
  EXPECT_EQ(error_of({{"search_type", "hybrid"}, {"top_k", "3"}, {"rrf_k", "2.5"}}, c),
            "node 'retrieve': rrf_k (node attribute) must be an integer >= 1, got '2.5'");
}

TEST_F(SearchNodesTest, RerankValuesAndSemanticOnlyRule) {
  Context c = context_with("q");
  EXPECT_EQ(error_of({{"search_type", "semantic"}, {"top_k", "3"}, {"rerank", "cross_encoder"}}, c),
            "node 'retrieve': rerank must be one of none | keyword_rerank | codebert_rerank, got 'cross_encoder'");
  EXPECT_EQ(error_of({{"search_type", "bm25"}, {"top_k", "3"}, {"rerank", "keyword_rerank"}}, c),
            "node 'retrieve': rerank=keyword_rerank is only allowed with search_type=semantic, got search_type=bm25 "
            "(allowed rerank for bm25: none)");
  EXPECT_EQ(error_of({{"search_type", "hybrid"}, {"top_k", "3"}, {"rerank", "codebert_rerank"}}, c),
            "node 'retrieve': rerank=codebert_rerank is only allowed with search_type=semantic, got search_type=hybrid "
            "(allowed rerank for hybrid: none)");
  run({{"search_type", "bm25"}, {"top_k", "3"}, {"rerank", "none"}}, c);
  EXPECT_EQ(backend_->searches.size(), 1u);
}

TEST_F(SearchNodesTest, CodebertRerankFailsAtRunTimeWithoutBackendCall) {
  Context c = context_with("q");
  EXPECT_EQ(error_of({{"search_type", "semantic"}, {"top_k", "3"}, {"rerank", "codebert_rerank"}}, c),
            "node 'retrieve': rerank=codebert_rerank is reserved and not available in this build "
            "(allowed today: none | keyword_rerank)");
  EXPECT_TRUE(backend_->searches.empty());
}

TEST_F(SearchNodesTest, EmptyQueryIsAnError) {
  Context blank = context_with("  \n ");
  EXPECT_EQ(error_of(kSemantic, blank),
            "node 'retrieve': query is empty after parsing last_model_response (query_parser=none); "
            "allowed: a non-empty query text");
  Context payload = context_with(R"({"query": "", "data_type": "sql"})");
  Attrs jsonish = kSemantic;
  jsonish.push_back({"query_parser", "jsonish_v1"});
  EXPECT_EQ(error_of(jsonish, payload),
            "node 'retrieve': query is empty after parsing last_model_response (query_parser=jsonish_v1); "
            "allowed: a non-empty query text");
  Context missing = retrieval_context();
  EXPECT_EQ(error_of(kSemantic, missing),
            "node 'retrieve': context key 'last_model_response' is required (it is the query)");
  EXPECT_TRUE(backend_->searches.empty());
}

TEST_F(SearchNodesTest, UnknownQueryParserAndFlagsAreErrors) {
  Context c = context_with("q");
  Attrs parser = kSemantic;
  parser.push_back({"query_parser", "yaml"});
  EXPECT_EQ(error_of(parser, c), "node 'retrieve': query_parser must be one of none | jsonish_v1, got 'yaml'");
  Attrs flag = kSemantic;
  flag.push_back({"allow_top_k_from_payload", "yes"});
  EXPECT_EQ(error_of(flag, c), "node 'retrieve': allow_top_k_from_payload must be one of true | false, got 'yes'");
}

TEST_F(SearchNodesTest, WithoutParserTheJsonTextIsThePlainQuery) {
  Context c = context_with(R"({"query": "x", "mode": "bm25"})");
  run(kSemantic, c);
  ASSERT_EQ(backend_->searches.size(), 1u);
  EXPECT_EQ(backend_->searches[0].query, R"({"query": "x", "mode": "bm25"})");
  EXPECT_EQ(backend_->searches[0].search_type, SearchType::kSemantic);
}

const Attrs kJsonish = {{"search_type", "semantic"}, {"top_k", "3"}, {"query_parser", "jsonish_v1"}};

TEST_F(SearchNodesTest, PayloadSearchTypeAndModeOverrideTheNode) {
  Context bm25 = context_with(R"({"query": "q", "search_type": "bm25"})");
  run(kJsonish, bm25);
  Context hybrid = context_with(R"({"query": "q", "mode": "hybrid"})");
  run(kJsonish, hybrid);
  ASSERT_EQ(backend_->searches.size(), 2u);
  EXPECT_EQ(backend_->searches[0].search_type, SearchType::kBm25);
  EXPECT_EQ(backend_->searches[1].search_type, SearchType::kHybrid);
}

TEST_F(SearchNodesTest, PayloadTopKOnlyWhenAllowed) {
  Context c = context_with(R"({"query": "q", "top_k": 5})");
  run(kJsonish, c);
  Attrs allowed = kJsonish;
  allowed.push_back({"allow_top_k_from_payload", "true"});
  run(allowed, c);
  ASSERT_EQ(backend_->searches.size(), 2u);
  EXPECT_EQ(backend_->searches[0].top_k, 3);
  EXPECT_EQ(backend_->searches[1].top_k, 5);
  auto events = fixture_.events.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "SEARCH_NODES");
  EXPECT_EQ(events[0].fields["warnings"], json({"payload top_k ignored: allow_top_k_from_payload is not true"}));
  EXPECT_EQ(events[1].fields["warnings"], json::array());
}

TEST_F(SearchNodesTest, PayloadRrfKOnlyWhenAllowedAndHybrid) {
  Attrs allowed = {
      {"search_type", "hybrid"}, {"top_k", "3"}, {"query_parser", "jsonish_v1"}, {"allow_rrf_k_from_payload", "true"}};
  Context c = context_with(R"({"query": "q", "rrf_k": 7})");
  run(allowed, c);
  Attrs not_allowed = {{"search_type", "hybrid"}, {"top_k", "3"}, {"query_parser", "jsonish_v1"}};
  run(not_allowed, c);
  Context semantic = context_with(R"({"query": "q", "rrf_k": 7, "search_type": "semantic"})");
  run(allowed, semantic);
  Context to_hybrid = context_with(R"({"query": "q", "rrf_k": 9, "mode": "hybrid"})");
  Attrs semantic_node = {{"search_type", "semantic"},
                         {"top_k", "3"},
                         {"query_parser", "jsonish_v1"},
                         {"allow_rrf_k_from_payload", "true"}};
  run(semantic_node, to_hybrid);
  ASSERT_EQ(backend_->searches.size(), 4u);
  EXPECT_EQ(backend_->searches[0].rrf_k, 7);
  EXPECT_EQ(backend_->searches[1].rrf_k, 60);
  EXPECT_EQ(backend_->searches[2].search_type, SearchType::kSemantic);
  EXPECT_EQ(backend_->searches[2].rrf_k, 60);
  EXPECT_EQ(backend_->searches[3].search_type, SearchType::kHybrid);
  EXPECT_EQ(backend_->searches[3].rrf_k, 9);
  auto events = fixture_.events.events();
  EXPECT_EQ(events[1].fields["warnings"], json({"payload rrf_k ignored: allow_rrf_k_from_payload is not true"}));
  EXPECT_EQ(events[2].fields["warnings"], json({"payload rrf_k ignored: the search is not hybrid"}));
}

TEST_F(SearchNodesTest, MatchOperatorOnlyForBm25) {
  Attrs bm25 = {{"search_type", "bm25"}, {"top_k", "3"}, {"query_parser", "jsonish_v1"}};
  Context with_and = context_with(R"({"query": "q", "match_operator": "and"})");
  Outcome o1 = run(bm25, with_and);
  EXPECT_EQ(o1.context_updates["last_search_bm25_operator"], "and");
  EXPECT_EQ(with_and.get("last_search_bm25_operator"), json(nullptr));  // reset; the engine applies the update
  Context invalid = context_with(R"({"query": "q", "match_operator": "xor"})");
  Outcome o2 = run(bm25, invalid);
  EXPECT_TRUE(o2.context_updates["last_search_bm25_operator"].is_null());
  Context absent = context_with(R"({"query": "q"})");
  Outcome o3 = run(bm25, absent);
  EXPECT_TRUE(o3.context_updates["last_search_bm25_operator"].is_null());
  Outcome o4 = run(kJsonish, with_and);
  EXPECT_TRUE(o4.context_updates["last_search_bm25_operator"].is_null());
  ASSERT_EQ(backend_->searches.size(), 4u);
  EXPECT_EQ(backend_->searches[0].match_operator, retrieval::MatchOperator::kAnd);
  EXPECT_FALSE(backend_->searches[1].match_operator);
  EXPECT_FALSE(backend_->searches[2].match_operator);
  EXPECT_FALSE(backend_->searches[3].match_operator);
}

TEST_F(SearchNodesTest, PayloadFiltersAddButNeverOverrideBase) {
  Context c = context_with(
      R"({"query": "q", "data_type": "sql", "repository": "evil", "filters": {"tenant": "t9", "acl_tags_any": ["hr"], "snapshot": "old"}})",
      {{"retrieval_filters", {{"acl_tags_any", {"public"}}, {"tenant", "acme"}}}, {"snapshot_id", "s1"}});
  run(kJsonish, c);
  ASSERT_EQ(backend_->searches.size(), 1u);
  EXPECT_EQ(backend_->searches[0].retrieval_filters, json({{"acl_tags_any", {"public"}},
                                                           {"tenant", "acme"},
                                                           {"repository", "acme"},
                                                           {"branch", "main"},
                                                           {"snapshot_id", "s1"},
                                                           {"data_type", "sql"}}));
  auto warnings = fixture_.events.events().at(0).fields["warnings"];
  EXPECT_EQ(warnings, json({"payload filter 'acl_tags_any' ignored: scope and ACL filters come from the pipeline",
                            "payload filter 'repository' ignored: scope and ACL filters come from the pipeline",
                            "payload filter 'snapshot' ignored: scope and ACL filters come from the pipeline",
                            "payload filter 'tenant' ignored: the pipeline's retrieval_filters set it"}));
}

TEST_F(SearchNodesTest, ConflictingSacredScopeIsAnError) {
  Context c = context_with("q", {{"retrieval_filters", {{"repository", "other"}}}});
  EXPECT_EQ(error_of(kSemantic, c),
            "node 'retrieve': retrieval_filters.repository = \"other\" disagrees with the scope value 'acme'");
  Context snap = context_with("q", {{"retrieval_filters", {{"snapshot_id", "s0"}}}, {"snapshot_id", "s1"}});
  EXPECT_EQ(error_of(kSemantic, snap),
            "node 'retrieve': retrieval_filters.snapshot_id = \"s0\" disagrees with the scope value 's1'");
  Context filters = context_with("q", {{"retrieval_filters", {"acl"}}});
  EXPECT_EQ(error_of(kSemantic, filters),
            "node 'retrieve': context key 'retrieval_filters' must be a JSON object, got [\"acl\"]");
}

TEST_F(SearchNodesTest, ActiveIndexComesFromTheGraph) {
  Context c = context_with("q");
  run(kSemantic, c, {{"active_index", "cs_only"}});
  ASSERT_EQ(backend_->searches.size(), 1u);
  EXPECT_EQ(backend_->searches[0].active_index, "cs_only");
}

TEST_F(SearchNodesTest, KeywordRerankWidensFetchesInScopeReordersAndTrims) {
  backend_->texts = {{"id:a", "void Unrelated() {}"},
                     {"id:b", "SELECT * FROM Meetings WHERE Id = @id"},
                     {"id:c", "class MeetingService { GetMeetingById(int id) }"},
                     {"id:d", "nothing"},
                     {"id:e", "GetMeetingById Meetings"},
                     {"id:f", "Meetings"}};
  backend_->extra_texts = {{"id:intruder", "GetMeetingById Meetings GetMeetingById"}};
  Context c = context_with("where is GetMeetingById reading Meetings?",
                           {{"retrieval_filters", {{"acl_tags_any", {"public"}}}}, {"snapshot_id", "s1"}});
  Outcome o = run({{"search_type", "semantic"}, {"top_k", "2"}, {"rerank", "keyword_rerank"}}, c,
                  {{"active_index", "main_idx"}}, 3);
  ASSERT_EQ(backend_->searches.size(), 1u);
  EXPECT_EQ(backend_->searches[0].top_k, 6);
  EXPECT_EQ(backend_->searches[0].search_type, SearchType::kSemantic);
  ASSERT_EQ(backend_->fetches.size(), 1u);
  const auto& f = backend_->fetches[0];
  EXPECT_EQ(f.ids, (std::vector<std::string>{"id:a", "id:b", "id:c", "id:d", "id:e", "id:f"}));
  EXPECT_EQ(f.repository, "acme");
  EXPECT_EQ(f.branch, "main");
  EXPECT_EQ(f.filters, backend_->searches[0].retrieval_filters);
  EXPECT_EQ(f.active_index, "main_idx");
  // evidence: e=2 (getmeetingbyid, meetings), b=1, c=1, f=1, a=0, d=0; "reading" matches nothing.
  EXPECT_EQ(o.context_updates["retrieval_seed_nodes"], json({"id:e", "id:b"}));
  EXPECT_EQ(o.context_updates["retrieval_hits"],
            json::parse(R"([{"id":"id:e","score":2.0,"rank":1},{"id":"id:b","score":1.0,"rank":2}])"));
}

TEST_F(SearchNodesTest, SemanticRerankModeMeansSemanticPlusKeywordRerank) {
  backend_->texts = {{"id:c", "Rooms capacity"}};
  Attrs bm25_node = {{"search_type", "bm25"}, {"top_k", "2"}, {"query_parser", "jsonish_v1"}};
  Context c = context_with(R"({"query": "rooms", "mode": "semantic_rerank"})");
  Outcome o = run(bm25_node, c);
  ASSERT_EQ(backend_->searches.size(), 1u);
  EXPECT_EQ(backend_->searches[0].search_type, SearchType::kSemantic);
  EXPECT_EQ(backend_->searches[0].top_k, 12);
  EXPECT_EQ(backend_->fetches.size(), 1u);
  EXPECT_EQ(o.context_updates["retrieval_seed_nodes"], json({"id:c", "id:a"}));
  EXPECT_EQ(fixture_.events.events().at(0).fields["rerank"], "keyword_rerank");
}

TEST_F(SearchNodesTest, PayloadSwitchingAwayFromSemanticDropsTheRerank) {
  Attrs node = {
      {"search_type", "semantic"}, {"top_k", "2"}, {"query_parser", "jsonish_v1"}, {"rerank", "keyword_rerank"}};
  Context c = context_with(R"({"query": "rooms", "mode": "bm25"})");
  Outcome o = run(node, c);
  ASSERT_EQ(backend_->searches.size(), 1u);
  EXPECT_EQ(backend_->searches[0].search_type, SearchType::kBm25);
  EXPECT_EQ(backend_->searches[0].top_k, 2);
  EXPECT_TRUE(backend_->fetches.empty());
  EXPECT_EQ(fixture_.events.events().at(0).fields["warnings"],
            json({"rerank=keyword_rerank not applied: the payload selected search_type=bm25"}));
}

TEST_F(SearchNodesTest, WidenFactorMustBePositive) {
  EXPECT_THROW(SearchNodesHandler(std::make_shared<FixedRetrievalProvider>(backend_), 0), std::invalid_argument);
}

TEST_F(SearchNodesTest, RoutesToOnOkOrNext) {
  Context c = context_with("q");
  Attrs next = kSemantic;
  next.push_back({"next", "expand"});
  EXPECT_EQ(run(next, c).suggested_next_ids, std::vector<std::string>{"expand"});
  next.push_back({"on_ok", "other"});
  EXPECT_EQ(run(next, c).suggested_next_ids, std::vector<std::string>{"other"});
}

TEST_F(SearchNodesTest, BackendErrorsBecomeStageErrors) {
  Context c = context_with("q");
  backend_->search_error = RetrievalError(RetrievalError::Kind::kNotFound, "unknown branch");
  EXPECT_EQ(error_of(kSemantic, c), "node 'retrieve': search failed: unknown branch");
  backend_->search_error = RetrievalError(RetrievalError::Kind::kUnavailable, "index locked");
  try {
    run(kSemantic, c);
    ADD_FAILURE();
  } catch (const StageError& e) {
    EXPECT_EQ(e.category(), ErrorCategory::kRetryable);
  }
}

TEST_F(SearchNodesTest, TraceEventCarriesTheResolvedSearch) {
  Context c = context_with(R"(```json
{"query": "cancel", "search_type": "hybrid", "filters": {"data_type": "sql"}}
```)");
  run(kJsonish, c);
  auto events = fixture_.events.events();
  ASSERT_EQ(events.size(), 1u);
  json f = events[0].fields;
  EXPECT_EQ(f["node_id"], "retrieve");
  EXPECT_EQ(f["query"], "cancel");
  EXPECT_EQ(f["query_parser"], "jsonish_v1");
  EXPECT_EQ(f["search_type"], "hybrid");
  EXPECT_EQ(f["top_k"], 3);
  EXPECT_EQ(f["rrf_k"], 60);
  EXPECT_EQ(f["rerank"], "none");
  EXPECT_EQ(f["filters_effective"], json({{"repository", "acme"}, {"branch", "main"}, {"data_type", "sql"}}));
  EXPECT_EQ(f["hit_count"], 3);
  EXPECT_EQ(f["warnings"], json::array());
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

TEST(SearchNodesRegistryTest, BothHandlersUseTheInjectedProvider) {
  auto backend = std::make_shared<testing::RecordingBackend>();
  backend->hits = {{"id:a", 1.0, 1}};
  backend->expand_result.seed_ids = {"id:a"};
  backend->expand_result.nodes = {{"id:a", 0, std::nullopt}};
  backend->expand_result.reason = "ok";
  HandlerServices services;
  services.retrieval = std::make_shared<FixedRetrievalProvider>(backend);
  HandlerRegistry registry = make_default_registry(services);
  ASSERT_TRUE(registry.has("search_nodes"));
  ASSERT_TRUE(registry.has("expand_dependency_tree"));

  Graph g = testing::retrieval_graph("retrieve", "search_nodes", {{"search_type", "bm25"}, {"top_k", "1"}},
                                     {{"m", "1"}, {"allow", "calls"}});
  Vertex e = g.add_node("expand");
  g.node(e).set("type", "expand_dependency_tree");
  g.node(e).set("max_depth_from_settings", "m");
  g.node(e).set("max_nodes_from_settings", "m");
  g.node(e).set("edge_allowlist_from_settings", "allow");
  testing::StageFixture fixture;
  Context c = testing::retrieval_context({{"last_model_response", "q"}});
  Handler* search = registry.resolve(*g.node("retrieve"));
  ASSERT_NE(search, nullptr);
  Outcome o = search->execute(*g.node("retrieve"), c, g, fixture.env("retrieve"));
  c.apply_updates(o.context_updates);
  Handler* expand = registry.resolve(*g.node("expand"));
  ASSERT_NE(expand, nullptr);
  Outcome x = expand->execute(*g.node("expand"), c, g, fixture.env("expand"));
  EXPECT_EQ(backend->searches.size(), 1u);
  ASSERT_EQ(backend->expands.size(), 1u);
  EXPECT_EQ(backend->expands[0].seed_ids, std::vector<std::string>{"id:a"});
  EXPECT_EQ(x.context_updates["graph_expanded_nodes"], nlohmann::json({"id:a"}));
}

}  // namespace
}  // namespace attractor
