// Property test: whatever a payload says, the effective filters contain the base (sacred) filters unchanged.

#include <random>

#include <gtest/gtest.h>

#include "support/handler_test_support.h"
#include "handlers/rag/jsonish_query.h"
#include "support/retrieval_test_support.h"
#include "handlers/rag/search_nodes.h"
#include "retrieval/filters.h"

namespace attractor {
namespace {

using nlohmann::json;

class HostileGenerator {
 public:
  explicit HostileGenerator(unsigned seed) : rng_(seed) {}

  std::size_t pick(std::size_t n) { return rng_() % n; }

  json scalar() {
    static const std::vector<std::string> strings = {"acme",         "evil", "s0",           "s1",   "hr",
                                                     "public",       "",     "' OR 1=1 --",  "main", "dev",
                                                     "confidential", "t9",   "\u00e9t\u00e9"};
    switch (pick(5)) {
      case 0: return strings[pick(strings.size())];
      case 1: return static_cast<int>(pick(2000)) - 1000;
      case 2: return pick(2) == 0;
      case 3: return nullptr;
      default: return 0.5 * static_cast<double>(pick(10));
    }
  }

  std::string key() {
    static const std::vector<std::string> keys = {
        "repository",    "branch",         "snapshot_id", "snapshot", "acl_tags_any", "classification_labels_all",
        "tenant",        "data_type",      "language",    "kind",     "path",         "",
        "query",         "mode",           "top_k",       "rrf_k",    "filters",      "Repository",
        "acl_tags_any ", "match_operator", "search_type", "x"};
    return keys[pick(keys.size())];
  }

  json value(int depth) {
    int choice = static_cast<int>(pick(depth > 0 ? 4 : 2));
    if (choice <= 1) return scalar();
    if (choice == 2) {
      json list = json::array();
      for (std::size_t i = 0, n = pick(4); i < n; ++i) list.push_back(value(depth - 1));
      return list;
    }
    json object = json::object();
    for (std::size_t i = 0, n = pick(4); i < n; ++i) object[key()] = value(depth - 1);
    return object;
  }

  json payload() {
    json p = json::object();
    for (std::size_t i = 0, n = pick(8); i < n; ++i) p[key()] = value(3);
    if (pick(3) != 0) {
      json filters = json::object();
      for (std::size_t i = 0, n = pick(8); i < n; ++i) filters[key()] = value(2);
      p["filters"] = pick(8) == 0 ? value(2) : filters;
    }
    p["query"] = "meeting by id";
    return p;
  }

  std::string render(const json& p) {
    std::string strict = p.dump(-1, ' ', false, json::error_handler_t::replace);
    switch (pick(5)) {
      case 0: return strict;
      case 1: return "```json\n" + p.dump(2, ' ', false, json::error_handler_t::replace) + "\n```";
      case 2: return "Sure, here is the search: " + strict + " -- done";
      case 3: {
        std::string single = strict;
        for (char& c : single) c = c == '"' ? '\'' : c;
        return single;
      }
      default: {
        std::string trailing = strict;
        if (trailing.size() > 1) trailing.insert(trailing.size() - 1, ",");
        return trailing;
      }
    }
  }

  json base_filters() {
    json base = json::object();
    if (pick(2)) base["acl_tags_any"] = pick(2) ? json({"public"}) : json({"public", "dba"});
    if (pick(2)) base["classification_labels_all"] = json({"internal"});
    if (pick(2)) base["tenant"] = "acme";
    if (pick(3) == 0) base["data_type"] = "code";
    return base;
  }

 private:
  std::mt19937 rng_;
};

bool is_filter_value(const json& v) {
  auto scalar = [](const json& s) { return s.is_string() || s.is_number() || s.is_boolean(); };
  if (scalar(v)) return true;
  if (!v.is_array()) return false;
  for (const auto& item : v) {
    if (!scalar(item)) return false;
  }
  return true;
}

TEST(SearchNodesFilterProperty, HostilePayloadsNeverChangeTheBaseFilters) {
  auto backend = std::make_shared<testing::RecordingBackend>();
  backend->hits = {{"id:a", 1.0, 1}};
  SearchNodesHandler handler(std::make_shared<FixedRetrievalProvider>(backend));
  testing::StageFixture fixture;
  StageEnv env = fixture.env("retrieve");
  HostileGenerator gen(20261121);
  int structured = 0;
  int empty_queries = 0;
  const int kRuns = 600;
  for (int run = 0; run < kRuns; ++run) {
    json sacred = gen.base_filters();
    json extra = {{"retrieval_filters", sacred}};
    bool snapshot = gen.pick(2) == 0;
    if (snapshot) extra["snapshot_id"] = "s1";
    std::string text = gen.render(gen.payload());
    extra["last_model_response"] = text;
    Context context = testing::retrieval_context(extra);
    Graph graph = testing::retrieval_graph("retrieve", "search_nodes",
                                           {{"search_type", "semantic"},
                                            {"top_k", "3"},
                                            {"query_parser", "jsonish_v1"},
                                            {"allow_top_k_from_payload", gen.pick(2) ? "true" : "false"},
                                            {"allow_rrf_k_from_payload", "true"}});
    if (parse_jsonish_query(text).structured) ++structured;

    std::size_t calls = backend->searches.size();
    try {
      handler.execute(*graph.node("retrieve"), context, graph, env);
    } catch (const StageError& e) {
      // Mangling a quote inside a value can leave an object without its query: the one allowed failure.
      ASSERT_EQ(std::string(e.what()).rfind("node 'retrieve': query is empty", 0), 0u) << e.what() << " for " << text;
      ASSERT_EQ(backend->searches.size(), calls);
      ++empty_queries;
      continue;
    }
    ASSERT_EQ(backend->searches.size(), calls + 1);
    const json& effective = backend->searches.back().retrieval_filters;

    json base = sacred;
    base["repository"] = "acme";
    base["branch"] = "main";
    if (snapshot) base["snapshot_id"] = "s1";
    for (auto it = base.begin(); it != base.end(); ++it) {
      ASSERT_TRUE(effective.contains(it.key())) << it.key() << " missing for payload " << text;
      ASSERT_EQ(effective[it.key()], it.value()) << it.key() << " changed by payload " << text;
    }
    for (auto it = effective.begin(); it != effective.end(); ++it) {
      if (base.contains(it.key())) continue;
      EXPECT_FALSE(is_reserved_filter_key(it.key())) << it.key() << " from " << text;
      EXPECT_FALSE(is_jsonish_metadata_key(it.key())) << it.key() << " from " << text;
      EXPECT_TRUE(is_filter_value(it.value())) << it.key() << " from " << text;
    }
    EXPECT_NO_THROW(retrieval::NodeFilter::parse(effective)) << effective.dump();
  }
  // The generator must exercise the parser, not only its plain-text fallback.
  EXPECT_GT(structured, kRuns / 2);
  EXPECT_LT(empty_queries, kRuns / 20);
}

TEST(SearchNodesFilterProperty, MergeKeepsBaseForArbitraryParsedJson) {
  HostileGenerator gen(7);
  for (int run = 0; run < 2000; ++run) {
    json base = gen.base_filters();
    base["repository"] = "acme";
    json parsed = gen.pick(4) == 0 ? gen.value(3) : gen.payload();
    std::vector<std::string> warnings;
    json merged = merge_filters(parsed, base, &warnings);
    for (auto it = base.begin(); it != base.end(); ++it) ASSERT_EQ(merged.at(it.key()), it.value());
    for (auto it = merged.begin(); it != merged.end(); ++it) {
      if (!base.contains(it.key())) {
        ASSERT_TRUE(parsed.is_object());
        EXPECT_EQ(parsed.at(it.key()), it.value());
        EXPECT_FALSE(is_reserved_filter_key(it.key()));
      }
    }
  }
}

TEST(SearchNodesFilterProperty, MergeDropsReservedKeysEvenWithoutBase) {
  std::vector<std::string> warnings;
  json merged = merge_filters(json({{"snapshot", "old"},
                                    {"acl_tags_any", {"hr"}},
                                    {"data_type", "sql"},
                                    {"bad", {{"nested", 1}}},
                                    {"nulls", nullptr},
                                    {"list", {1, "a", true}}}),
                              json::object(), &warnings);
  EXPECT_EQ(merged, json({{"data_type", "sql"}, {"list", {1, "a", true}}}));
  EXPECT_EQ(warnings,
            (std::vector<std::string>{
                "payload filter 'acl_tags_any' ignored: scope and ACL filters come from the pipeline",
                "payload filter 'bad' ignored: values must be strings, numbers, booleans or a list of those",
                "payload filter 'nulls' ignored: values must be strings, numbers, booleans or a list of those",
                "payload filter 'snapshot' ignored: scope and ACL filters come from the pipeline"}));
}

}  // namespace
}  // namespace attractor
