#include <algorithm>
#include <map>

#include "attractor/check/lint_rules.h"

/// \file
/// Spelling suggestions for the attribute_spelling rule: an attribute nobody reads is usually a
/// typo. Names within edit distance 2 (1 for names shorter than 5 characters) of a known attribute
/// get a warning with the likely intended name. Known names: known_attribute_names (attributes.h),
/// i.e. the attributes of every node, edge and graph, those of the handler descriptions and the
/// Graphviz presentation attributes.

namespace attractor::lint_detail {
namespace {

/// Names people write for an attribute that is spelt differently here (edit distance would
/// suggest the wrong thing, e.g. `command` -> `comment`).
const std::map<std::string_view, std::string, std::less<>>& aliases() {
  static const std::map<std::string_view, std::string, std::less<>> table = {
      {"cmd", "tool_command"},        {"command", "tool_command"}, {"model", "llm_model"},
      {"provider", "llm_provider"},   {"retries", "max_retries"},  {"max_retry", "max_retries"},
      {"effort", "reasoning_effort"}, {"retry", "retry_target"}};
  return table;
}

}  // namespace

const std::string& SpellingChecker::suggestion(std::string_view name) {
  auto it = cache_.find(name);
  if (it != cache_.end()) return it->second;
  std::string guess;
  if (auto alias = aliases().find(name); alias != aliases().end()) {
    guess = alias->second;
  } else if (!std::binary_search(known_.begin(), known_.end(), name)) {
    guess = closest_match(name, known_, name.size() < 5 ? 1 : 2);
  }
  return cache_.emplace(name, std::move(guess)).first->second;
}

}  // namespace attractor::lint_detail
