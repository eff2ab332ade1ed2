#include "parser/stylesheet.h"

#include <string>

#include <gtest/gtest.h>

namespace attractor {
namespace {

using Kind = StyleSelector::Kind;

Stylesheet parse_ok(std::string_view text) {
  StylesheetParseResult result = parse_stylesheet(text);
  EXPECT_TRUE(result.ok()) << text << ": " << (result.error ? result.error->message : "");
  EXPECT_FALSE(result.error.has_value());
  return result.stylesheet.value_or(Stylesheet{});
}

void expect_declaration(const StyleDeclaration& d, const std::string& property, const std::string& value,
                        std::size_t offset) {
  EXPECT_EQ(d.property, property);
  EXPECT_EQ(d.value, value);
  EXPECT_EQ(d.offset, offset);
}

TEST(StylesheetParse, EmptyAndBlank) {
  EXPECT_TRUE(parse_ok("").rules.empty());
  EXPECT_TRUE(parse_ok(" \n\t ").rules.empty());
}

TEST(StylesheetParse, SpecExample) {
  const std::string text =
      "\n"
      "            * { llm_model: claude-sonnet-4-5; llm_provider: anthropic; }\n"
      "            .code { llm_model: claude-opus-4-6; llm_provider: anthropic; }\n"
      "            #critical_review { llm_model: gpt-5.2; llm_provider: openai; reasoning_effort: high; }\n"
      "        ";
  Stylesheet sheet = parse_ok(text);
  ASSERT_EQ(sheet.rules.size(), 3u);
  EXPECT_EQ(sheet.rules[0].selector.kind, Kind::kUniversal);
  EXPECT_EQ(sheet.rules[0].selector.name, "");
  EXPECT_EQ(sheet.rules[0].offset, text.find('*'));
  ASSERT_EQ(sheet.rules[0].declarations.size(), 2u);
  expect_declaration(sheet.rules[0].declarations[0], "llm_model", "claude-sonnet-4-5", text.find("llm_model"));
  expect_declaration(sheet.rules[0].declarations[1], "llm_provider", "anthropic", text.find("llm_provider"));
  EXPECT_EQ(sheet.rules[1].selector.kind, Kind::kClass);
  EXPECT_EQ(sheet.rules[1].selector.name, "code");
  EXPECT_EQ(sheet.rules[1].offset, text.find(".code"));
  ASSERT_EQ(sheet.rules[1].declarations.size(), 2u);
  expect_declaration(sheet.rules[1].declarations[0], "llm_model", "claude-opus-4-6",
                     text.find("llm_model", text.find(".code")));
  EXPECT_EQ(sheet.rules[2].selector.kind, Kind::kId);
  EXPECT_EQ(sheet.rules[2].selector.name, "critical_review");
  ASSERT_EQ(sheet.rules[2].declarations.size(), 3u);
  expect_declaration(sheet.rules[2].declarations[0], "llm_model", "gpt-5.2",
                     text.find("llm_model", text.find("#critical")));
  expect_declaration(sheet.rules[2].declarations[1], "llm_provider", "openai", text.find("llm_provider: openai"));
  expect_declaration(sheet.rules[2].declarations[2], "reasoning_effort", "high", text.find("reasoning_effort"));
}

TEST(StylesheetParse, EverySelectorKind) {
  Stylesheet sheet = parse_ok(
      "* {llm_model: a} box {llm_model: b} Mdiamond{llm_model:c} .fast_lane-2 {llm_model: d} "
      "#review {reasoning_effort: low}");
  ASSERT_EQ(sheet.rules.size(), 5u);
  EXPECT_EQ(sheet.rules[0].selector.kind, Kind::kUniversal);
  EXPECT_EQ(sheet.rules[1].selector.kind, Kind::kShape);
  EXPECT_EQ(sheet.rules[1].selector.name, "box");
  EXPECT_EQ(sheet.rules[1].offset, 17u);
  EXPECT_EQ(sheet.rules[2].selector.kind, Kind::kShape);
  EXPECT_EQ(sheet.rules[2].selector.name, "Mdiamond");
  EXPECT_EQ(sheet.rules[3].selector.kind, Kind::kClass);
  EXPECT_EQ(sheet.rules[3].selector.name, "fast_lane-2");
  EXPECT_EQ(sheet.rules[4].selector.kind, Kind::kId);
  EXPECT_EQ(sheet.rules[4].selector.name, "review");
  expect_declaration(sheet.rules[4].declarations[0], "reasoning_effort", "low", 95);
}

TEST(StylesheetParse, Specificity) {
  EXPECT_EQ((StyleSelector{Kind::kUniversal, ""}.specificity()), 0);
  EXPECT_EQ((StyleSelector{Kind::kShape, "box"}.specificity()), 1);
  EXPECT_EQ((StyleSelector{Kind::kClass, "code"}.specificity()), 2);
  EXPECT_EQ((StyleSelector{Kind::kId, "plan"}.specificity()), 3);
}

TEST(StylesheetParse, QuotedValuesAndOptionalTrailingSemicolon) {
  Stylesheet sheet = parse_ok(R"(box { llm_model: "claude opus \"4\""; llm_provider: x/y@z:1 })");
  ASSERT_EQ(sheet.rules.size(), 1u);
  ASSERT_EQ(sheet.rules[0].declarations.size(), 2u);
  expect_declaration(sheet.rules[0].declarations[0], "llm_model", "claude opus \"4\"", 6);
  expect_declaration(sheet.rules[0].declarations[1], "llm_provider", "x/y@z:1", 38);
}

TEST(StylesheetParse, EmptyBody) {
  Stylesheet sheet = parse_ok("#a {}");
  ASSERT_EQ(sheet.rules.size(), 1u);
  EXPECT_TRUE(sheet.rules[0].declarations.empty());
}

struct ErrorCase {
  const char* text;
  const char* message;
  std::size_t offset;
};

class StylesheetErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(StylesheetErrors, ReportsMessageAndOffset) {
  const ErrorCase& c = GetParam();
  StylesheetParseResult result = parse_stylesheet(c.text);
  ASSERT_FALSE(result.ok()) << c.text;
  ASSERT_TRUE(result.error.has_value());
  EXPECT_EQ(result.error->message, c.message) << c.text;
  EXPECT_EQ(result.error->offset, c.offset) << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    All, StylesheetErrors,
    ::testing::Values(
        ErrorCase{"* { llm_modle: x; }",
                  "unknown property 'llm_modle'; expected llm_model, llm_provider or reasoning_effort", 4},
        ErrorCase{"box { llm_model x }", "expected ':' after the property name", 16},
        ErrorCase{"box { llm_model: }", "expected a value after ':'", 17},
        ErrorCase{"box { llm_model: a llm_provider: b }", "expected ';' or '}'", 19},
        ErrorCase{"box { llm_model: a; 42 }",
                  "expected a property (llm_model, llm_provider or reasoning_effort) or '}'", 20},
        ErrorCase{"box { llm_model: a;; }", "expected a property (llm_model, llm_provider or reasoning_effort) or '}'",
                  19},
        ErrorCase{"box { ; }", "expected a property (llm_model, llm_provider or reasoning_effort) or '}'", 6},
        ErrorCase{"box { llm_model: a", "expected ';' or '}'", 18},
        ErrorCase{"box llm_model: a }", "expected '{' after the selector", 4},
        ErrorCase{"box", "expected '{' after the selector", 3},
        ErrorCase{"{ llm_model: a }", "expected a selector ('*', a shape name, '#id' or '.class')", 0},
        ErrorCase{"* { llm_model: a }\n  } ", "expected a selector ('*', a shape name, '#id' or '.class')", 21},
        ErrorCase{"# { llm_model: a }", "expected a node id after '#'", 2},
        ErrorCase{". { llm_model: a }", "expected a class name after '.'", 2},
        ErrorCase{"* { llm_model: \"abc }", "unterminated string in stylesheet", 15},
        ErrorCase{"box.code { llm_model: a }", "expected '{' after the selector", 3}));

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

// Bytes above 0x7F are negative in a signed char; x3::space asserted on them.
TEST(StylesheetParse, BytesAboveAsciiAreTextNotACrash) {
  EXPECT_TRUE(parse_stylesheet("* { llm_model: \"mod\xC3\xA8le\"; }").ok());
  auto unquoted = parse_stylesheet("* { llm_model: mod\xC3\xA8le; }");
  ASSERT_TRUE(unquoted.error.has_value());
  EXPECT_EQ(unquoted.error->message, "expected ';' or '}'");
  EXPECT_EQ(unquoted.error->offset, 18u);
  auto trailing = parse_stylesheet("* { llm_model: gpt; }\n\xC3\xA9");
  ASSERT_TRUE(trailing.error.has_value());
  EXPECT_EQ(trailing.error->offset, 22u);
}

}  // namespace
}  // namespace attractor
