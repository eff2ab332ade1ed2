#pragma once
/// \file
/// Prompt variables for codergen prompts, an extension of the spec's `$goal`:
/// - `$goal` is replaced by the graph's `goal` (as before);
/// - `${key}` is replaced by the value of context key `key` (key characters: letters, digits,
///   `_`, `.`, `-`; it starts with a letter or `_`), so a model stage can see the evidence:
///   `${context_blocks}`, `${user_question_en}`, `${graph.goal}`. Strings are inserted as they
///   are, null as nothing, a list of strings as its items separated by a blank line (the shape of
///   `context_blocks`), numbers and booleans in their JSON form, other values as indented JSON.
/// - `$${` writes a literal `${`.
/// Substitution is one pass: inserted text is never expanded again. A `${...}` whose content is not
/// a key name (`${HOME:-x}`) stays as written; so does `${key}` when the context has no such key,
/// and the key is reported in `unknown` (codergen emits a `PromptVariableUnknown` event).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/model/context.h"
#include "attractor/engine/handler.h"

namespace attractor {

/// The text inserted for a context value (see the file comment).
std::string prompt_value_text(const nlohmann::json& value);

/// Expands `$goal` and `${key}` in `text`; unknown keys are appended to `unknown` (once each).
std::string expand_prompt_template(const std::string& text, const std::string& goal, const Context& context,
                                   std::vector<std::string>* unknown = nullptr);

/// What codergen does with a node's prompt: `expand_prompt_template` with the graph's goal and
/// the stage's context, emitting `PromptVariableUnknown` {name, keys} when keys are unknown.
std::string expand_stage_prompt(const std::string& text, const NodeData& node, const Graph& graph,
                                const Context& context, const StageEnv& env);

}  // namespace attractor
