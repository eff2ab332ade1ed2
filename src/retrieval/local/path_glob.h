#pragma once
/// \file
/// Glob matching for repository-relative paths ('/'-separated), shared by .gitignore handling and
/// ACL files: `*` matches within one path segment, `**` across segments (`a/**/b`, `**/x`, `dir/**`),
/// `?` one character, `[abc]` / `[!a-z]` a character class.

#include <string_view>

namespace attractor::retrieval {

/// True when the whole of `path` matches `pattern`.
bool glob_match(std::string_view pattern, std::string_view path);

}  // namespace attractor::retrieval
