#include "handlers/prompt_template.h"
#include "attractor/engine/event_names.h"

#include <algorithm>

namespace attractor {

namespace {

bool key_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool key_char(char c) { return key_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }

bool is_key(const std::string& s) {
  return !s.empty() && key_start(s[0]) && std::all_of(s.begin(), s.end(), key_char);
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

std::string expand_prompt_template(const std::string& text, const std::string& goal, const Context& context,
                                   std::vector<std::string>* unknown) {
  static const std::string kGoal = "$goal";
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$') {
      std::size_t next = text.find('$', i);
      if (next == std::string::npos) next = text.size();
      out.append(text, i, next - i);
      i = next;
      continue;
    }
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") == 0) {
      std::size_t close = text.find('}', i + 2);
      if (close != std::string::npos) {
        std::string key = text.substr(i + 2, close - i - 2);
        if (is_key(key)) {
          if (auto value = context.get(key)) {
            out += prompt_value_text(*value);
          } else {
            out.append(text, i, close + 1 - i);
            if (unknown && std::find(unknown->begin(), unknown->end(), key) == unknown->end()) {
              unknown->push_back(key);
            }
          }
          i = close + 1;
          continue;
        }
      }
    }
    if (text.compare(i, kGoal.size(), kGoal) == 0) {
      out += goal;
      i += kGoal.size();
      continue;
    }
    out += '$';
    ++i;
  }
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
