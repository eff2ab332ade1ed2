#pragma once
/// \file
/// The syntax of prompt variables (`${key}`, with `$${` for a literal `${`): where a reference
/// starts and ends, and which keys a prompt names. The handlers expand them
/// (handlers/prompt_template.h); preambles leave out what a stage's prompt already carries.

#include <cstddef>
#include <string>
#include <vector>

namespace attractor {

/// The end (one past `}`) of a `${key}` reference starting at `i`, or 0 when none starts there.
/// Key characters: letters, digits, `_`, `.`, `-`; the first is a letter or `_`.
std::size_t prompt_reference_end(const std::string& text, std::size_t i);

/// The keys `text` references, in order of first appearance, each once (`$${` is not a reference).
std::vector<std::string> prompt_variable_keys(const std::string& text);

}  // namespace attractor
