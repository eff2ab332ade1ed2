#include "handlers/prompt_template.h"
#include "attractor/engine/event_names.h"

#include <algorithm>

#include "attractor/check/transforms.h"

namespace attractor {

namespace {

bool key_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool key_char(char c) { return key_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }

bool is_key(const std::string& s) {
  return !s.empty() && key_start(s[0]) && std::all_of(s.begin(), s.end(), key_char);
}

/// The end (one past '}') of a `${key}` reference starting at `i`, or 0 when none starts there.
std::size_t reference_end(const std::string& text, std::size_t i) {
  if (text.compare(i, 2, "${") != 0) return 0;
  std::size_t close = text.find('}', i + 2);
  if (close == std::string::npos || !is_key(text.substr(i + 2, close - i - 2))) return 0;
  return close + 1;
}

}  // namespace

std::string prompt_value_text(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); })) {
    std::string out;
    for (const nlohmann::json& item : value) {
      if (!out.empty()) out += "\n\n";
      out += item.get<std::string>();
    }
    return out;
  }
  if (value.is_array() || value.is_object()) return value.dump(2);
  return value.dump();
}

namespace {

/// Appends the value of the reference `${key}`, or the reference itself (noting the key in
/// `unknown`, once) when the context has no such key.
void append_reference(const std::string& reference, const Context& context, std::string& out,
                      std::vector<std::string>* unknown) {
  std::string key = reference.substr(2, reference.size() - 3);
  if (auto value = context.get(key)) {
    out += prompt_value_text(*value);
    return;
  }
  out += reference;
  if (unknown && std::find(unknown->begin(), unknown->end(), key) == unknown->end()) unknown->push_back(key);
}

}  // namespace

std::string expand_prompt_template(const std::string& text, const std::string& goal, const Context& context,
                                   std::vector<std::string>* unknown) {
  std::string out;
  out.reserve(text.size());
  std::string literal;  // text outside `${key}` and `$${`: where `$goal` expands
  auto flush = [&] {
    out += expand_goal(std::move(literal), goal);
    literal.clear();
  };
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t next = std::min(text.find('$', i), text.size());
    literal.append(text, i, next - i);
    i = next;
    if (i == text.size()) break;
    if (text.compare(i, 3, "$${") == 0) {
      flush();
      out += "${";
      i += 3;
    } else if (std::size_t end = reference_end(text, i); end != 0) {
      flush();
      append_reference(text.substr(i, end - i), context, out, unknown);
      i = end;
    } else {
      literal += '$';
      ++i;
    }
  }
  flush();
  return out;
}

std::string expand_stage_prompt(const std::string& text, const NodeData& node, const Graph& graph,
                                const Context& context, const StageEnv& env) {
  std::vector<std::string> unknown;
  std::string prompt = expand_prompt_template(text, graph.data().goal(), context, &unknown);
  if (!unknown.empty()) env.emit(kPromptVariableUnknownEvent, {{"name", node.id}, {"keys", unknown}});
  return prompt;
}

}  // namespace attractor
