#include "handlers/rag/compact_code_rules.h"
#include "attractor/base/json_limits.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace attractor {
namespace {

/// Byte offsets of the objects directly inside the array that is the value of the root object's
/// members (the rule objects of `{"rules": [ {...}, {...} ]}`), in order.
std::vector<std::size_t> rule_offsets(std::string_view text) {
  std::vector<std::size_t> out;
  std::string stack;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (c == '{' && stack == "{[") out.push_back(i);
      stack += c;
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    }
  }
  return out;
}

/// Offset of the member name `"key"` (followed by a colon) at or after `from`, else `from`.
std::size_t key_offset(std::string_view text, std::size_t from, std::string_view key) {
  std::string quoted = fmt::format("\"{}\"", key);
  for (std::size_t at = text.find(quoted, from); at != std::string_view::npos; at = text.find(quoted, at + 1)) {
    std::size_t next = text.find_first_not_of(" \t\r\n", at + quoted.size());
    if (next != std::string_view::npos && text[next] == ':') return at;
  }
  return from;
}

}  // namespace

std::string_view to_string(CompactPolicy policy) {
  switch (policy) {
    case CompactPolicy::kAlways: return "always";
    case CompactPolicy::kThreshold: return "threshold";
    case CompactPolicy::kDemand: break;
  }
  return "demand";
}

CompactRulesParse parse_compact_code_rules(std::string_view text) {
  CompactRulesParse result;
  auto fail = [&](std::string message, std::size_t offset) {
    result.rules.clear();
    result.error = CompactRulesError{std::move(message), offset};
    return result;
  };
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::size_t offset = e.byte > 0 ? std::min<std::size_t>(e.byte - 1, text.size()) : 0;
    return fail(fmt::format("compact_code is not valid JSON: {}", e.what()), offset);
  }
  if (std::string deep = json_depth_problem(root, kMaxJsonDepth); !deep.empty()) {
    return fail("compact_code is " + deep, 0);
  }
  if (!root.is_object()) return fail("compact_code must be a JSON object {\"rules\": [...]}", 0);
  for (const auto& [key, value] : root.items()) {
    if (key != "rules") {
      return fail(fmt::format("compact_code has unknown key '{}' (allowed: rules)", key), key_offset(text, 0, key));
    }
  }
  if (!root.contains("rules")) return fail("compact_code.rules is required (a list of rules)", 0);
  const nlohmann::json& rules = root["rules"];
  if (!rules.is_array()) return fail("compact_code.rules must be a list", key_offset(text, 0, "rules"));
  std::vector<std::size_t> offsets = rule_offsets(text);
  std::size_t rules_at = key_offset(text, 0, "rules");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const nlohmann::json& r = rules[i];
    std::size_t at = i < offsets.size() ? offsets[i] : rules_at;
    std::string where = fmt::format("compact_code.rules[{}]", i);
    if (!r.is_object()) return fail(fmt::format("{} must be an object, got {}", where, r.dump()), rules_at);
    for (const auto& [key, value] : r.items()) {
      if (key != "language" && key != "policy" && key != "threshold" && key != "inbox_key") {
        return fail(
            fmt::format("{} has unknown key '{}' (allowed: language, policy, threshold, inbox_key)", where, key),
            key_offset(text, at, key));
      }
    }
    CompactRule rule;
    if (!r.contains("language")) return fail(fmt::format("{}.language is required (sql | dotnet)", where), at);
    const nlohmann::json& language = r["language"];
    if (!language.is_string() || (language != "sql" && language != "dotnet")) {
      return fail(fmt::format("{}.language must be sql | dotnet, got {}", where, language.dump()),
                  key_offset(text, at, "language"));
    }
    rule.language = language.get<std::string>();
    if (!r.contains("policy"))
      return fail(fmt::format("{}.policy is required (always | threshold | demand)", where), at);
    const nlohmann::json& policy = r["policy"];
    if (policy == "always") {
      rule.policy = CompactPolicy::kAlways;
    } else if (policy == "threshold") {
      rule.policy = CompactPolicy::kThreshold;
    } else if (policy == "demand") {
      rule.policy = CompactPolicy::kDemand;
    } else {
      return fail(fmt::format("{}.policy must be always | threshold | demand, got {}", where, policy.dump()),
                  key_offset(text, at, "policy"));
    }
    if (rule.policy == CompactPolicy::kThreshold) {
      if (!r.contains("threshold")) {
        return fail(fmt::format("{} has policy threshold but no threshold (a number in (0, 1])", where), at);
      }
      const nlohmann::json& t = r["threshold"];
      if (!t.is_number()) {
        return fail(fmt::format("{}.threshold must be a number in (0, 1], got {}", where, t.dump()),
                    key_offset(text, at, "threshold"));
      }
      rule.threshold = t.get<double>();
      if (!(rule.threshold > 0 && rule.threshold <= 1)) {
        return fail(fmt::format("{}.threshold must be in (0, 1], got {}", where, t.dump()),
                    key_offset(text, at, "threshold"));
      }
    } else if (r.contains("threshold")) {
      return fail(
          fmt::format("{}.threshold is only valid with policy threshold (policy is {})", where, to_string(rule.policy)),
          key_offset(text, at, "threshold"));
    }
    if (rule.policy == CompactPolicy::kDemand) {
      if (!r.contains("inbox_key") || !r["inbox_key"].is_string() || r["inbox_key"].get<std::string>().empty()) {
        return fail(fmt::format("{} has policy demand but no inbox_key (a non-empty string)", where),
                    r.contains("inbox_key") ? key_offset(text, at, "inbox_key") : at);
      }
      rule.inbox_key = r["inbox_key"].get<std::string>();
    } else if (r.contains("inbox_key")) {
      return fail(
          fmt::format("{}.inbox_key is only valid with policy demand (policy is {})", where, to_string(rule.policy)),
          key_offset(text, at, "inbox_key"));
    }
    result.rules.push_back(std::move(rule));
  }
  return result;
}

}  // namespace attractor
