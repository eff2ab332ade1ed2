#include "parser/condition.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace attractor {
namespace {

using Op = ConditionClause::Op;

Condition parse_ok(std::string_view text) {
  ConditionParseResult result = parse_condition(text);
  EXPECT_TRUE(result.ok()) << text << ": " << (result.error ? result.error->message : "");
  EXPECT_FALSE(result.error.has_value());
  return result.condition.value_or(Condition{});
}

ConditionError parse_error(std::string_view text) {
  ConditionParseResult result = parse_condition(text);
  EXPECT_FALSE(result.ok()) << text;
  return result.error.value_or(ConditionError{"<no error>", 9999});
}

void expect_clause(const ConditionClause& clause, const std::string& key, Op op, const std::string& literal,
                   std::size_t offset) {
  EXPECT_EQ(clause.key, key);
  EXPECT_EQ(clause.op, op);
  EXPECT_EQ(clause.literal, literal);
  EXPECT_EQ(clause.offset, offset);
}

TEST(ConditionParse, EmptyAndBlankAreAlwaysTrue) {
  EXPECT_TRUE(parse_ok("").clauses.empty());
  EXPECT_TRUE(parse_ok("  \t ").clauses.empty());
}

TEST(ConditionParse, OutcomeEquals) {
  Condition c = parse_ok("outcome=success");
  ASSERT_EQ(c.clauses.size(), 1u);
  expect_clause(c.clauses[0], "outcome", Op::kEquals, "success", 0);
}

TEST(ConditionParse, ConjunctionWithWhitespace) {
  Condition c = parse_ok(" outcome = success && context.tests_passed=true ");
  ASSERT_EQ(c.clauses.size(), 2u);
  expect_clause(c.clauses[0], "outcome", Op::kEquals, "success", 1);
  expect_clause(c.clauses[1], "context.tests_passed", Op::kEquals, "true", 22);
}

TEST(ConditionParse, NotEquals) {
  Condition c = parse_ok("context.loop_state!=exhausted");
  ASSERT_EQ(c.clauses.size(), 1u);
  expect_clause(c.clauses[0], "context.loop_state", Op::kNotEquals, "exhausted", 0);
}

TEST(ConditionParse, PreferredLabel) {
  Condition c = parse_ok("preferred_label=Fix");
  ASSERT_EQ(c.clauses.size(), 1u);
  expect_clause(c.clauses[0], "preferred_label", Op::kEquals, "Fix", 0);
}

TEST(ConditionParse, BareKeysAreTruthinessClauses) {
  Condition c = parse_ok("context.tests_passed && ready");
  ASSERT_EQ(c.clauses.size(), 2u);
  expect_clause(c.clauses[0], "context.tests_passed", Op::kTruthy, "", 0);
  expect_clause(c.clauses[1], "ready", Op::kTruthy, "", 24);
}

TEST(ConditionParse, DoubleEqualsIsEquals) {
  Condition c = parse_ok("review_passed == false");
  ASSERT_EQ(c.clauses.size(), 1u);
  expect_clause(c.clauses[0], "review_passed", Op::kEquals, "false", 0);
}

TEST(ConditionParse, QuotedLiteralWithEscapes) {
  Condition c = parse_ok(R"(context.msg="a \"b\" \\ c\td" && context.empty="")");
  ASSERT_EQ(c.clauses.size(), 2u);
  expect_clause(c.clauses[0], "context.msg", Op::kEquals, "a \"b\" \\ c\td", 0);
  expect_clause(c.clauses[1], "context.empty", Op::kEquals, "", 33);
}

TEST(ConditionParse, NumbersAndBareLiterals) {
  Condition c = parse_ok("context.n=-3 && context.score=0.5 && context.v=v1.2:beta-3 && context.ok=true");
  ASSERT_EQ(c.clauses.size(), 4u);
  expect_clause(c.clauses[0], "context.n", Op::kEquals, "-3", 0);
  expect_clause(c.clauses[1], "context.score", Op::kEquals, "0.5", 16);
  expect_clause(c.clauses[2], "context.v", Op::kEquals, "v1.2:beta-3", 37);
  expect_clause(c.clauses[3], "context.ok", Op::kEquals, "true", 62);
}

TEST(ConditionParse, NestedContextPath) {
  Condition c = parse_ok("context.a.b_2.c=x");
  ASSERT_EQ(c.clauses.size(), 1u);
  expect_clause(c.clauses[0], "context.a.b_2.c", Op::kEquals, "x", 0);
}

struct ErrorCase {
  const char* text;
  const char* message;
  std::size_t offset;
};

class ConditionErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConditionErrors, ReportsMessageAndOffset) {
  const ErrorCase& c = GetParam();
  ConditionError error = parse_error(c.text);
  EXPECT_EQ(error.message, c.message) << c.text;
  EXPECT_EQ(error.offset, c.offset) << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    All, ConditionErrors,
    ::testing::Values(ErrorCase{"outcome=", "expected a value after '='", 8},
                      ErrorCase{"outcome!=  ", "expected a value after '!='", 11},
                      ErrorCase{"outcome==", "expected a value after '=='", 9},
                      ErrorCase{"outcome = = x", "expected a value after '='", 10},
                      ErrorCase{"outcome=success && ", "expected a clause after '&&'", 19},
                      ErrorCase{"outcome=success &&", "expected a clause after '&&'", 18},
                      ErrorCase{"outcome=success foo", "expected '&&' or end of condition", 16},
                      ErrorCase{"outcome=success & x", "expected '&&' or end of condition", 16},
                      ErrorCase{"context.x=hello world", "expected '&&' or end of condition", 16},
                      ErrorCase{"outcome=success || outcome=fail", "'||' is not supported; use separate edges", 16},
                      ErrorCase{"|| outcome=fail", "'||' is not supported; use separate edges", 0},
                      ErrorCase{"context.x=\"abc", "unterminated string in condition", 10},
                      ErrorCase{"context.x=\"a\" && context.y=\"b", "unterminated string in condition", 27},
                      ErrorCase{"context.x=\"a\\qb\"", "expected \\\", \\\\, \\n or \\t after '\\'", 13},
                      ErrorCase{"context.", "expected an identifier after '.'", 8},
                      ErrorCase{"context..x=1", "expected an identifier after '.'", 8},
                      ErrorCase{"= success", "expected a key such as outcome, preferred_label or context.NAME", 0},
                      ErrorCase{"  && x", "expected a key such as outcome, preferred_label or context.NAME", 2},
                      ErrorCase{"context.n > 3", "operator '>' is not supported; use '=' or '!='", 10},
                      ErrorCase{"context.n>=3", "operator '>=' is not supported; use '=' or '!='", 9},
                      ErrorCase{"context.n <= 3", "operator '<=' is not supported; use '=' or '!='", 10}));

std::string lookup(const std::map<std::string, std::string>& values, std::string_view key) {
  auto it = values.find(std::string(key));
  return it == values.end() ? "" : it->second;
}

bool eval(std::string_view text, const std::map<std::string, std::string>& values) {
  Condition c = parse_ok(text);
  return evaluate_condition(c, [&](std::string_view key) { return lookup(values, key); });
}

TEST(ConditionEvaluate, EmptyConditionIsTrue) { EXPECT_TRUE(eval("", {})); }

TEST(ConditionEvaluate, SpecExamples) {
  EXPECT_TRUE(eval("outcome=success", {{"outcome", "success"}}));
  EXPECT_FALSE(eval("outcome=success", {{"outcome", "fail"}}));
  EXPECT_TRUE(eval("outcome=fail", {{"outcome", "fail"}}));
  EXPECT_TRUE(
      eval("outcome=success && context.tests_passed=true", {{"outcome", "success"}, {"context.tests_passed", "true"}}));
  EXPECT_FALSE(eval("outcome=success && context.tests_passed=true",
                    {{"outcome", "success"}, {"context.tests_passed", "false"}}));
  EXPECT_FALSE(eval("outcome=success && context.tests_passed=true", {{"outcome", "success"}}));
  EXPECT_TRUE(eval("context.loop_state!=exhausted", {{"context.loop_state", "running"}}));
  EXPECT_FALSE(eval("context.loop_state!=exhausted", {{"context.loop_state", "exhausted"}}));
  EXPECT_TRUE(eval("preferred_label=Fix", {{"preferred_label", "Fix"}}));
  EXPECT_FALSE(eval("preferred_label=Fix", {{"preferred_label", "fix"}}));
}

TEST(ConditionEvaluate, MissingKeysAreEmptyStrings) {
  EXPECT_TRUE(eval("context.loop_state!=exhausted", {}));
  EXPECT_FALSE(eval("context.loop_state=exhausted", {}));
  EXPECT_TRUE(eval("context.loop_state=\"\"", {}));
}

TEST(ConditionEvaluate, Truthiness) {
  EXPECT_TRUE(eval("ready", {{"ready", "yes"}}));
  EXPECT_TRUE(eval("ready", {{"ready", "False"}}));
  EXPECT_TRUE(eval("ready", {{"ready", "1"}}));
  EXPECT_FALSE(eval("ready", {{"ready", "false"}}));
  EXPECT_FALSE(eval("ready", {{"ready", "0"}}));
  EXPECT_FALSE(eval("ready", {{"ready", ""}}));
  EXPECT_FALSE(eval("ready", {}));
}

TEST(ConditionEvaluate, StopsAtFirstFalseClause) {
  int calls = 0;
  Condition c = parse_ok("outcome=fail && context.x=1");
  bool result = evaluate_condition(c, [&](std::string_view key) {
    ++calls;
    return std::string(key == "outcome" ? "success" : "1");
  });
  EXPECT_FALSE(result);
  EXPECT_EQ(calls, 1);
}

TEST(ConditionEvaluate, NumbersCompareAsStrings) {
  EXPECT_TRUE(eval("context.n=3", {{"context.n", "3"}}));
  EXPECT_FALSE(eval("context.n=3", {{"context.n", "3.0"}}));
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

// Bytes above 0x7F are negative in a signed char; x3::space asserted on them (found by
// LspRandomEditsTest under the sanitizer build, which keeps assertions).
TEST(ConditionParse, BytesAboveAsciiAreTextNotACrash) {
  Condition c = parse_ok("context.name=\"caf\xC3\xA9\" && outcome=success");
  ASSERT_EQ(c.clauses.size(), 2u);
  EXPECT_EQ(c.clauses[0].literal, "caf\xC3\xA9");
  EXPECT_EQ(parse_error("outcome=success \xC3\xA9").offset, 16u);
  parse_error("\xFF\xFE outcome=success");
}

}  // namespace
}  // namespace attractor
