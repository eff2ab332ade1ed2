#pragma once
/// \file
/// A parsed edge condition (spec §10): clauses AND-combined left to right, each `Key = Literal`,
/// `Key != Literal` or a bare key (truthiness), and its evaluation with a key resolver. The text
/// is parsed by parser/condition.h, once per edge when a pipeline is loaded
/// (parse_edge_conditions), and kept on the edge (EdgeData::parsed_condition).

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
  std::string key;  ///< `outcome`, `preferred_label`, `context.a.b` or a bare key
  Op op = Op::kTruthy;
  std::string literal;     ///< unescaped literal ("" for kTruthy)
  std::size_t offset = 0;  ///< byte offset of the clause in the condition text
};

/// A parsed condition: clauses AND-combined left to right. Empty means "always true".
struct Condition {
  std::vector<ConditionClause> clauses;
};

/// An edge's `condition` attribute as parsed at load.
struct EdgeCondition {
  std::string text;                    ///< the attribute value it was parsed from
  std::optional<Condition> condition;  ///< empty: the text does not parse (lint reports it)
};

/// Returns the string value of a key (§10.4); "" for missing keys.
using ConditionKeyResolver = std::function<std::string(std::string_view key)>;

/// Evaluates a parsed condition (§10.5): string comparison, bare keys truthy when non-empty and
/// not "false"/"0".
bool evaluate_condition(const Condition& condition, const ConditionKeyResolver& resolve);

}  // namespace attractor
