#include "handlers/prompt_template.h"
#include "attractor/engine/event_names.h"

#include <algorithm>

#include "attractor/check/transforms.h"
#include "attractor/model/prompt_variables.h"

namespace attractor {

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
    } else if (std::size_t end = prompt_reference_end(text, i); end != 0) {
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
