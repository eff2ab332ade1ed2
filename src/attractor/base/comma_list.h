#pragma once
/// \file
/// Comma-separated attribute values ("fail, fail, success", "review,fast"): one way to read them.

#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// The blank characters of the C locale's isspace().
inline constexpr std::string_view kAllBlanks = " \t\n\v\f\r";

/// The items of `text` split on commas, with the characters of `blanks` trimmed from both ends of
/// each item and empty items dropped.
std::vector<std::string> split_comma_list(std::string_view text, std::string_view blanks = kAllBlanks);

}  // namespace attractor
