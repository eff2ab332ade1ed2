#pragma once
/// \file
/// `compact_code` of `manage_context_budget` (docs/retrieval.md): the JSON attribute
/// `{"rules": [{"language": "sql"|"dotnet", "policy": "always"|"threshold"|"demand",
/// "threshold": (0, 1], "inbox_key": "..."}, ...]}` and its validation, shared by the lint rule
/// `compact_code_rules` (validation time) and the handler (run time).
///
/// Invalid, each with a message naming the rule index and field: text that is not a JSON object,
/// keys other than `rules`, `rules` missing or not a list, a rule that is not an object, unknown
/// rule keys, `language` missing or not sql | dotnet, `policy` missing or not always | threshold |
/// demand, `threshold` policy without a numeric `threshold` or with one outside (0, 1],
/// `threshold` given with another policy, `demand` without a non-empty string `inbox_key`,
/// `inbox_key` given with another policy.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// When a rule compacts a node of its language.
enum class CompactPolicy { kAlways, kThreshold, kDemand };

/// "always", "threshold" or "demand".
std::string_view to_string(CompactPolicy policy);

/// One validated rule.
struct CompactRule {
  std::string language;  ///< "sql" or "dotnet"
  CompactPolicy policy = CompactPolicy::kAlways;
  double threshold = 0;   ///< fraction of max_context_tokens, only for kThreshold
  std::string inbox_key;  ///< topic of the demand message, only for kDemand
};

/// A validation failure and the byte offset inside the attribute text it points at.
struct CompactRulesError {
  std::string message;
  std::size_t offset = 0;
};

/// The rules in order, or the first error.
struct CompactRulesParse {
  std::vector<CompactRule> rules;
  std::optional<CompactRulesError> error;
};

/// Parses and validates the text of a `compact_code` attribute.
CompactRulesParse parse_compact_code_rules(std::string_view text);

}  // namespace attractor
