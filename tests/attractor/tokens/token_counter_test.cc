#include "attractor/tokens/token_counter.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/model/graph.h"
#include "attractor/base/sha256.h"
#include "attractor/tokens/tiktoken_encoding.h"
#include "support/token_test_support.h"

namespace attractor {
namespace {

using test::join_ids;
using test::reference_case_text;
using test::token_reference;

AllowedSpecial allowed_of(const nlohmann::json& c) {
  if (!c.contains("allowed_special")) return AllowedSpecial::none();
  const auto& a = c.at("allowed_special");
  if (a.is_string() && a.get<std::string>() == "all") return AllowedSpecial::everything();
  return AllowedSpecial{false, a.get<std::vector<std::string>>()};
}

class ReferenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceTest, IdsMatchTheJavaScriptReferenceExactly) {
  const std::string encoding = GetParam();
  auto counter = token_counter_for(encoding);
  const auto& cases = token_reference().at("cases");
  ASSERT_GE(cases.size(), 200u);
  std::size_t checked = 0;
  for (const auto& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    SCOPED_TRACE(name);
    const std::string text = reference_case_text(c);
    const AllowedSpecial allowed = allowed_of(c);
    const std::vector<TokenId> ids = counter->encode(text, allowed);
    const auto& expected = c.at(encoding);
    if (c.contains("generate")) {
      ASSERT_EQ(text.size(), c.at("text_bytes").get<std::size_t>());
      ASSERT_EQ(ids.size(), expected.at("count").get<std::size_t>());
      const auto head = expected.at("head").get<std::vector<TokenId>>();
      const auto tail = expected.at("tail").get<std::vector<TokenId>>();
      EXPECT_EQ(std::vector<TokenId>(ids.begin(), ids.begin() + head.size()), head);
      EXPECT_EQ(std::vector<TokenId>(ids.end() - tail.size(), ids.end()), tail);
      EXPECT_EQ(sha256_hex(join_ids(ids)), expected.at("sha256").get<std::string>());
    } else {
      EXPECT_EQ(ids, expected.get<std::vector<TokenId>>());
    }
    EXPECT_EQ(counter->count(text, allowed), ids.size());
    ++checked;
  }
  EXPECT_EQ(checked, cases.size());
}

TEST_P(ReferenceTest, DecodeRestoresValidText) {
  auto counter = token_counter_for(GetParam());
  for (const auto& c : token_reference().at("cases")) {
    if (c.contains("bytes_hex")) continue;  // decoding gives the lossy text, checked elsewhere
    SCOPED_TRACE(c.at("name").get<std::string>());
    const std::string text = reference_case_text(c);
    EXPECT_EQ(counter->decode(counter->encode(text, allowed_of(c))), text);
  }
}

TEST_P(ReferenceTest, CountManyEqualsCountOnEachText) {
  auto counter = token_counter_for(GetParam());
  std::vector<std::string> texts;
  for (const auto& c : token_reference().at("cases")) {
    if (!c.contains("allowed_special")) texts.push_back(reference_case_text(c));
  }
  std::vector<std::size_t> serial;
  for (const auto& t : texts) serial.push_back(counter->count(t));
  EXPECT_EQ(counter->count_many(texts, 4), serial);
  EXPECT_EQ(counter->count_many(texts, 1), serial);
  EXPECT_EQ(counter->count_many(texts), serial);
  EXPECT_TRUE(counter->count_many(std::vector<std::string>{}).empty());
}

INSTANTIATE_TEST_SUITE_P(Encodings, ReferenceTest, ::testing::Values("o200k_base", "cl100k_base"),
                         [](const auto& info) { return info.param; });

TEST(TokenCounter, FactoryReturnsOneSharedInstancePerEncoding) {
  auto a = token_counter_for("o200k_base");
  auto b = token_counter_for("o200k_base");
  auto c = token_counter_for("cl100k_base");
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(a->encoding_name(), "o200k_base");
  EXPECT_EQ(c->encoding_name(), "cl100k_base");
  EXPECT_EQ(kDefaultTokenEncoding, "o200k_base");
}

TEST(TokenCounter, FactoryIsThreadSafe) {
  std::vector<const TokenCounter*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&seen, i] { seen[i] = token_counter_for(i % 2 ? "cl100k_base" : "o200k_base").get(); });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 2; i < seen.size(); ++i) EXPECT_EQ(seen[i], seen[i % 2]);
}

TEST(TokenCounter, UnknownEncodingIsAClearError) {
  try {
    token_counter_for("p50k_base");
    FAIL() << "expected UnknownEncodingError";
  } catch (const UnknownEncodingError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown token encoding 'p50k_base' (known: o200k_base, cl100k_base)");
  }
  EXPECT_EQ(known_token_encodings(), (std::vector<std::string_view>{"o200k_base", "cl100k_base"}));
}

TEST(TokenCounter, GraphAttributeSelectsTheEncoding) {
  Graph graph;
  EXPECT_EQ(token_counter_for_graph(graph)->encoding_name(), "o200k_base");
  graph.data().set("token_encoding", "cl100k_base");
  EXPECT_EQ(token_counter_for_graph(graph)->encoding_name(), "cl100k_base");
  graph.data().set("token_encoding", "gpt2");
  EXPECT_THROW(token_counter_for_graph(graph), UnknownEncodingError);
}

TEST(TokenCounter, SpecialTokensOnlyWhenAllowed) {
  auto o200k = token_counter_for("o200k_base");
  auto cl100k = token_counter_for("cl100k_base");
  const std::string text = "a<|endoftext|>b<|endofprompt|>";
  EXPECT_EQ(o200k->encode(text, AllowedSpecial::everything()), (std::vector<TokenId>{64, 199999, 65, 200018}));
  EXPECT_EQ(cl100k->encode(text, AllowedSpecial::everything()), (std::vector<TokenId>{64, 100257, 65, 100276}));
  EXPECT_EQ(o200k->encode(text, AllowedSpecial{false, {"<|endofprompt|>"}}).back(), 200018u);
  const auto plain = o200k->encode(text);
  EXPECT_GT(plain.size(), 4u);
  for (TokenId id : plain) EXPECT_LT(id, 199998u);
  EXPECT_EQ(o200k->count(text, AllowedSpecial::everything()), 4u);
  // Names that are special only in other encodings stay text.
  EXPECT_EQ(o200k->encode("<|fim_prefix|>", AllowedSpecial::everything()), o200k->encode("<|fim_prefix|>"));
  EXPECT_EQ(cl100k->encode("<|fim_prefix|>", AllowedSpecial::everything()), (std::vector<TokenId>{100258}));
}

TEST(TokenCounter, DecodeSpecialAndUnknownIds) {
  auto o200k = token_counter_for("o200k_base");
  const std::vector<TokenId> ids = {13225, 199999};
  EXPECT_EQ(o200k->decode(ids), "Hello<|endoftext|>");
  const std::vector<TokenId> bad = {199998};
  EXPECT_THROW(o200k->decode(bad), std::out_of_range);
  const std::vector<TokenId> none;
  EXPECT_EQ(o200k->decode(none), "");
}

TEST(TokenCounter, InvalidUtf8IsDecodedLossilyFirst) {
  auto counter = token_counter_for("o200k_base");
  EXPECT_EQ(counter->encode("caf\xE9"), counter->encode("caf\xEF\xBF\xBD"));
  EXPECT_EQ(counter->decode(counter->encode("x\xF0\x9F\x98 y")), "x\xEF\xBF\xBD y");
}

TEST(TokenCounter, EmptyText) {
  for (auto name : known_token_encodings()) {
    auto counter = token_counter_for(name);
    EXPECT_TRUE(counter->encode("").empty());
    EXPECT_EQ(counter->count(""), 0u);
  }
}

TEST(TokenCounter, ConcurrentEncodingGivesTheSameIds) {
  auto counter = token_counter_for("o200k_base");
  std::vector<std::string> texts;
  for (const auto& c : token_reference().at("cases")) {
    if (c.contains("text") && !c.contains("allowed_special")) texts.push_back(c.at("text").get<std::string>());
  }
  std::vector<std::vector<TokenId>> expected;
  for (const auto& t : texts) expected.push_back(counter->encode(t));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      for (int round = 0; round < 5; ++round) {
        for (std::size_t i = 0; i < texts.size(); ++i) {
          const std::size_t k = (i * 7 + static_cast<std::size_t>(w + round)) % texts.size();
          if (counter->encode(texts[k]) != expected[k]) ++mismatches[w];
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace attractor
