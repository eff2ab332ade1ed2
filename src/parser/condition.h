#pragma once
/// \file
/// The edge condition language (spec §10): `Clause ( '&&' Clause )*` where a clause is
/// `Key = Literal`, `Key != Literal` or a bare key (truthiness). Parsed by its own X3 grammar into
/// an AST that the engine evaluates with a key resolver.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// One clause of a condition.
struct ConditionClause {
  enum class Op { kEquals, kNotEquals, kTruthy };
  std::string key;      ///< `outcome`, `preferred_label`, `context.a.b` or a bare key
  Op op = Op::kTruthy;
  std::string literal;  ///< unescaped literal ("" for kTruthy)
  std::size_t offset = 0;  ///< byte offset of the clause in the condition text
};

/// A parsed condition: clauses AND-combined left to right. Empty means "always true".
struct Condition {
  std::vector<ConditionClause> clauses;
};

/// Where and why a condition failed to parse.
struct ConditionError {
  std::string message;     ///< says what was expected, e.g. "expected a literal after '='"
  std::size_t offset = 0;  ///< byte offset in the condition text
};

struct ConditionParseResult {
  std::optional<Condition> condition;
  std::optional<ConditionError> error;
  bool ok() const { return condition.has_value(); }
};

/// Parses condition text (already unescaped from its DOT string). Beyond §10.2 it accepts bare keys
/// (`ready`, looked up in the context), `==` as a spelling of `=` (graphs/fidelity.dot writes it), and literals
/// that start with a digit or `-` (`-3`, `0.5`); quoted literals take the escapes \" \\ \n \t.
/// Whitespace-only text is the empty (always true) condition.
ConditionParseResult parse_condition(std::string_view text);

/// Returns the string value of a key (§10.4); "" for missing keys.
using ConditionKeyResolver = std::function<std::string(std::string_view key)>;

/// Evaluates a parsed condition (§10.5): string comparison, bare keys truthy when non-empty and
/// not "false"/"0".
bool evaluate_condition(const Condition& condition, const ConditionKeyResolver& resolve);

}  // namespace attractor
