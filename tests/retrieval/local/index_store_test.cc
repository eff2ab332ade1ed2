#include "retrieval/local/index_store.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "retrieval/local/code_tokens.h"
#include "retrieval/local/fts_fields.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

using testing::TempDir;

const Scope kScope{"default", "acme", "main", "s1"};

std::vector<GraphEdge> stored_edges(IndexStore& store) {
  auto s = store.db().prepare("SELECT from_id, to_id, edge_type FROM edges ORDER BY from_id, edge_type, to_id");
  std::vector<GraphEdge> out;
  while (s.step()) out.push_back({s.text(0), s.text(1), s.text(2)});
  return out;
}

int64_t changes(IndexStore& store) {
  auto s = store.db().prepare("SELECT total_changes()");
  return s.step() ? s.integer(0) : -1;
}

TEST(IndexStoreSyncTest, SyncingTheSameEdgesWritesNoRow) {
  TempDir dir;
  IndexStore store(dir.str(), true);
  std::vector<GraphEdge> edges{{"a", "b", "calls"}, {"a", "c", "calls"}, {"b", "c", "reads"}};
  auto first = store.sync_edges(kScope, edges);
  EXPECT_EQ(first.added, 3);
  EXPECT_EQ(first.removed, 0);
  int64_t before = changes(store);
  auto again = store.sync_edges(kScope, {edges[2], edges[0], edges[1], edges[0]});
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.removed, 0);
  EXPECT_EQ(changes(store), before);
}

TEST(IndexStoreSyncTest, SyncingEdgesDeletesAndInsertsOnlyTheDifference) {
  TempDir dir;
  IndexStore store(dir.str(), true);
  store.sync_edges(kScope, {{"a", "b", "calls"}, {"a", "c", "calls"}});
  store.sync_edges(Scope{"default", "acme", "dev", "s1"}, {{"x", "y", "calls"}});
  auto diff = store.sync_edges(kScope, {{"a", "c", "calls"}, {"a", "c", "reads"}});
  EXPECT_EQ(diff.added, 1);
  EXPECT_EQ(diff.removed, 1);
  std::vector<GraphEdge> want{{"a", "c", "calls"}, {"a", "c", "reads"}, {"x", "y", "calls"}};
  EXPECT_EQ(stored_edges(store), want);  // the other branch's edge is untouched
}

TEST(IndexStoreSyncTest, SyncingDuplicatesWritesOnlyWhatChanged) {
  TempDir dir;
  IndexStore store(dir.str(), true);
  StoredNode n;
  n.id = "sql:dbo.T";
  n.path = "a.sql";
  n.language = "sql";
  n.kind = "table";
  n.name = "dbo.T";
  n.text = "CREATE TABLE dbo.T (Id INT)";
  store.insert_node(kScope, n);
  auto first = store.sync_duplicates(kScope, {{"sql:dbo.T@b.sql", "sql:dbo.T"}}, {{"sql:dbo.T", {"b.sql"}}});
  EXPECT_EQ(first.added, 2);  // the duplicate row and the canonical node's also_defined_in
  int64_t before = changes(store);
  auto again = store.sync_duplicates(kScope, {{"sql:dbo.T@b.sql", "sql:dbo.T"}}, {{"sql:dbo.T", {"b.sql"}}});
  EXPECT_EQ(again.added + again.removed, 0);
  EXPECT_EQ(changes(store), before);
  auto cleared = store.sync_duplicates(kScope, {}, {});
  EXPECT_EQ(cleared.removed, 2);
  auto s = store.db().prepare("SELECT json_extract(metadata, '$.also_defined_in') IS NULL FROM nodes");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.integer(0), 1);
}

}  // namespace
}  // namespace attractor::retrieval

namespace attractor::retrieval {
namespace {

/// The ranking as one SQL join of the full-text matches with the scope's nodes under `filter`,
/// best first, ties by id: what bm25_among must equal.
std::vector<std::pair<std::string, double>> joined_bm25(IndexStore& store, const NodeFilter& filter,
                                                        const std::string& expr, int limit) {
  std::vector<std::string> binds;
  std::string cond = filter.sql_condition("n", binds);
  auto s = store.db().prepare(
      fmt::format("SELECT n.id, bm25(nodes_fts, {}, {}, {}, {}) AS score FROM nodes_fts JOIN nodes n ON n.rowid = "
                  "nodes_fts.rowid WHERE nodes_fts MATCH ? AND n.index_name = ? AND n.repository = ? AND n.branch = ? "
                  "AND n.snapshot = ? AND {} ORDER BY score ASC, n.id ASC LIMIT ?",
                  kFtsWeights[0], kFtsWeights[1], kFtsWeights[2], kFtsWeights[3], cond));
  s.bind(1, expr).bind(2, kScope.index_name).bind(3, kScope.repository).bind(4, kScope.branch);
  s.bind(5, kScope.snapshot);
  s.bind(s.bind_all(6, binds), static_cast<int64_t>(limit));
  std::vector<std::pair<std::string, double>> out;
  while (s.step()) out.emplace_back(s.text(0), -s.real(1));
  return out;
}

TEST(IndexStoreBm25Test, RankingAmongTheVisibleRowidsIsTheJoinedRanking) {
  TempDir dir;
  IndexStore store(dir.str(), true);
  const Scope other{"default", "acme", "dev", "s1"};
  for (int i = 0; i < 60; ++i) {
    StoredNode n;
    n.id = "cs:N" + std::to_string(i);
    n.path = "f" + std::to_string(i % 7) + ".cs";
    n.language = "csharp";
    n.kind = i % 3 == 0 ? "class" : "method";
    n.name = "Shop.N" + std::to_string(i);
    // Every fifth node has the same text as the one before: equal scores, decided by id.
    int words = i % 5 == 0 && i > 0 ? i - 1 : i;
    n.text = "void N() { invoice(" + std::string(static_cast<size_t>(words % 9), 'x') + "); order(); }";
    store.insert_node(i % 4 == 0 ? other : kScope, n);
  }
  for (const char* filter : {R"({})", R"({"kind": "method"})"}) {
    auto parsed = NodeFilter::parse(nlohmann::json::parse(filter));
    auto visible = store.visible_rowids(kScope, parsed);
    for (int limit : {1, 5, 12, 100}) {
      for (const char* words : {"invoice", "order", "invoice xxxx"}) {
        auto expr = fts_match_expression(words, MatchOperator::kOr);
        EXPECT_EQ(store.bm25_among(visible, expr, limit), joined_bm25(store, parsed, expr, limit))
            << filter << " " << words << " " << limit;
      }
    }
  }
}

}  // namespace
}  // namespace attractor::retrieval
