#include "handlers/rag/jsonish_query.h"

#include <random>

#include <gtest/gtest.h>

namespace attractor {
namespace {

using nlohmann::json;

TEST(JsonishQueryTest, PlainTextIsTheTrimmedQuery) {
  auto q = parse_jsonish_query("  where is GetMeetingById defined?\n");
  EXPECT_EQ(q.query, "where is GetMeetingById defined?");
  EXPECT_FALSE(q.structured);
  EXPECT_EQ(q.filters, json::object());
  EXPECT_TRUE(q.warnings.empty());
  EXPECT_FALSE(q.search_type);
  EXPECT_FALSE(q.top_k);
  EXPECT_FALSE(q.match_operator);
}

TEST(JsonishQueryTest, StrictJsonWithMetadataAndFilters) {
  auto q = parse_jsonish_query(
      R"({"query": " cancel meeting ", "search_type": "hybrid", "top_k": 7, "rrf_k": 30, "match_operator": "AND",
          "filters": {"data_type": "sql"}, "language": "sql"})");
  EXPECT_TRUE(q.structured);
  EXPECT_EQ(q.query, "cancel meeting");
  EXPECT_EQ(q.search_type, "hybrid");
  EXPECT_EQ(q.top_k, 7);
  EXPECT_EQ(q.rrf_k, 30);
  EXPECT_EQ(q.match_operator, "and");
  EXPECT_EQ(q.filters, json({{"data_type", "sql"}, {"language", "sql"}}));
  EXPECT_TRUE(q.warnings.empty());
}

TEST(JsonishQueryTest, MetadataKeysNeverBecomeFilters) {
  auto q = parse_jsonish_query(
      R"({"query": "x", "mode": "bm25", "top_k": "nope", "match_operator": "xor",
          "filters": {"top_k": 3, "mode": "hybrid", "search_type": "bm25", "rrf_k": 1, "match_operator": "or", "query": "y", "tenant": "t1"}})");
  EXPECT_EQ(q.filters, json({{"tenant", "t1"}}));
  EXPECT_EQ(q.search_type, "bm25");
  EXPECT_FALSE(q.top_k);
  EXPECT_FALSE(q.match_operator);
  EXPECT_EQ(q.query, "x");
  ASSERT_EQ(q.warnings.size(), 8u);
  EXPECT_EQ(q.warnings[0], R"(payload top_k="nope" is not an integer; ignored)");
  EXPECT_EQ(q.warnings[1], R"(payload match_operator="xor" is not one of and | or; ignored)");
  EXPECT_EQ(q.warnings[2], "payload filter 'match_operator' ignored: metadata keys are never filters");
}

TEST(JsonishQueryTest, CodeFenceWithInfoString) {
  auto q = parse_jsonish_query(
      "Here you go:\n```json\n{\"query\": \"room capacity\", \"mode\": \"semantic_rerank\"}\n```\nThanks");
  EXPECT_TRUE(q.structured);
  EXPECT_EQ(q.query, "room capacity");
  EXPECT_EQ(q.search_type, "semantic_rerank");
  EXPECT_TRUE(q.warnings.empty());
}

TEST(JsonishQueryTest, FenceOnOneLineWithoutInfoString) {
  auto q = parse_jsonish_query("```{'query': 'a b'}```");
  EXPECT_TRUE(q.structured);
  EXPECT_EQ(q.query, "a b");
}

TEST(JsonishQueryTest, SingleQuotesTrailingCommasPythonLiteralsAndBareWords) {
  auto q = parse_jsonish_query(
      "Sure! {'query': 'it\\'s the \"Rooms\" table', mode: bm25, 'filters': {'data_type': 'sql', 'flag': True, "
      "'none': None,},} done");
  EXPECT_TRUE(q.structured);
  EXPECT_EQ(q.query, "it's the \"Rooms\" table");
  EXPECT_EQ(q.search_type, "bm25");
  EXPECT_EQ(q.filters, json({{"data_type", "sql"}, {"flag", true}, {"none", nullptr}}));
  EXPECT_EQ(q.warnings, std::vector<std::string>{"text around the payload object ignored"});
}

TEST(JsonishQueryTest, RawNewlinesInsideStringsAreTolerated) {
  auto q = parse_jsonish_query("{\"query\": \"line one\nline two\"}");
  EXPECT_TRUE(q.structured);
  EXPECT_EQ(q.query, "line one\nline two");
}

TEST(JsonishQueryTest, CountsAcceptIntegralNumbersAndDigitStrings) {
  EXPECT_EQ(parse_jsonish_query(R"({"query":"q","top_k":"12"})").top_k, 12);
  EXPECT_EQ(parse_jsonish_query(R"({"query":"q","top_k":12.0})").top_k, 12);
  EXPECT_FALSE(parse_jsonish_query(R"({"query":"q","top_k":12.5})").top_k);
  EXPECT_FALSE(parse_jsonish_query(R"({"query":"q","top_k":0})").top_k);
  EXPECT_FALSE(parse_jsonish_query(R"({"query":"q","top_k":-3})").top_k);
  EXPECT_FALSE(parse_jsonish_query(R"({"query":"q","top_k":3000000000})").top_k);
  EXPECT_FALSE(parse_jsonish_query(R"({"query":"q","top_k":"99999999999999999999999"})").top_k);
  EXPECT_EQ(parse_jsonish_query(R"({"query":"q","top_k":2147483647})").top_k, 2147483647);
  auto bad = parse_jsonish_query(R"({"query":"q","rrf_k":0})");
  EXPECT_EQ(bad.warnings, std::vector<std::string>{"payload rrf_k=0 is outside [1, 2147483647]; ignored"});
}

TEST(JsonishQueryTest, SearchTypeWinsOverModeWithWarning) {
  auto q = parse_jsonish_query(R"({"query":"q","search_type":"bm25","mode":"hybrid"})");
  EXPECT_EQ(q.search_type, "bm25");
  EXPECT_EQ(q.warnings,
            std::vector<std::string>{"payload search_type=bm25 and mode=hybrid disagree; search_type wins"});
  auto bad = parse_jsonish_query(R"({"query":"q","search_type":"vector","mode":"Semantic"})");
  EXPECT_EQ(bad.search_type, "semantic");
  EXPECT_EQ(bad.warnings,
            std::vector<std::string>{
                "payload search_type=\"vector\" is not one of semantic | bm25 | hybrid | semantic_rerank; ignored"});
}

TEST(JsonishQueryTest, UnparseableObjectFallsBackToTheWholeText) {
  auto q = parse_jsonish_query("find {the thing");
  EXPECT_FALSE(q.structured);
  EXPECT_EQ(q.query, "find {the thing");
  EXPECT_EQ(q.warnings,
            std::vector<std::string>{"no parseable JSON object in the payload; the whole text is the query"});
}

TEST(JsonishQueryTest, SkipsBracesThatAreNotTheObject) {
  auto q = parse_jsonish_query("use {braces} then {\"query\": \"real\"}");
  EXPECT_TRUE(q.structured);
  EXPECT_EQ(q.query, "real");
}

TEST(JsonishQueryTest, MissingOrNonStringQueryGivesEmptyQuery) {
  auto missing = parse_jsonish_query(R"({"mode":"bm25"})");
  EXPECT_EQ(missing.query, "");
  EXPECT_EQ(missing.warnings, std::vector<std::string>{"payload has no 'query' member"});
  auto number = parse_jsonish_query(R"({"query": 42})");
  EXPECT_EQ(number.query, "");
  EXPECT_EQ(number.warnings, std::vector<std::string>{"payload query=42 is not a string; ignored"});
  EXPECT_EQ(parse_jsonish_query("  ").query, "");
}

TEST(JsonishQueryTest, RerankAndNonObjectFiltersAreIgnored) {
  auto q = parse_jsonish_query(R"({"query":"q","rerank":"keyword_rerank","filters":[1,2]})");
  EXPECT_EQ(q.filters, json::object());
  ASSERT_EQ(q.warnings.size(), 2u);
  EXPECT_EQ(q.warnings[1], "payload filters=[1,2] is not an object; ignored");
}

TEST(JsonishQueryTest, DeepNestingIsNotParsed) {
  std::string deep = "{\"query\": \"q\", \"x\": " + std::string(100, '[') + std::string(100, ']') + "}";
  auto q = parse_jsonish_query(deep);
  EXPECT_FALSE(q.structured);
  EXPECT_EQ(q.warnings.front(), "payload nests deeper than 64 levels; not parsed as JSON");
  std::string ok = "{\"query\": \"q\", \"x\": " + std::string(60, '[') + std::string(60, ']') + "}";
  EXPECT_TRUE(parse_jsonish_query(ok).structured);
}

TEST(JsonishQueryTest, NormalizeRewritesToStrictJson) {
  EXPECT_EQ(normalize_jsonish("{'a': 'x\"y', b: [1, 2,], c: None,}"), R"({"a": "x\"y", "b": [1, 2], "c": null})");
  EXPECT_EQ(normalize_jsonish("{\"t\": \"a\tb\"}"), R"({"t": "a\tb"})");
}

TEST(JsonishQueryTest, RandomInputsNeverThrowAndAreDeterministic) {
  const std::vector<std::string> pieces = {"{",
                                           "}",
                                           "[",
                                           "]",
                                           "'",
                                           "\"",
                                           ",",
                                           ":",
                                           "\\",
                                           "```",
                                           "json\n",
                                           "query",
                                           "mode",
                                           "top_k",
                                           "filters",
                                           "True",
                                           "None",
                                           "1e999",
                                           "-",
                                           "\n",
                                           " ",
                                           "\x01",
                                           "\xff",
                                           "\xc3\xa9",
                                           "{'query': 'x',",
                                           "semantic_rerank",
                                           "null"};
  std::mt19937 rng(12345);
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    int n = static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) text += pieces[rng() % pieces.size()];
    JsonishQuery a, b;
    ASSERT_NO_THROW(a = parse_jsonish_query(text)) << text;
    b = parse_jsonish_query(text);
    EXPECT_EQ(a.query, b.query);
    EXPECT_EQ(a.filters, b.filters);
    EXPECT_EQ(a.warnings, b.warnings);
    for (auto it = a.filters.begin(); it != a.filters.end(); ++it) {
      EXPECT_FALSE(is_jsonish_metadata_key(it.key())) << text;
    }
  }
}

}  // namespace
}  // namespace attractor
