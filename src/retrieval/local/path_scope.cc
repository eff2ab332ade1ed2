#include "retrieval/local/path_scope.h"

#include <utility>

#include "retrieval/local/path_glob.h"

namespace attractor::retrieval {

namespace {

/// True when a pattern of `patterns` matches `path` or one of its leading directories.
bool scope_pattern_covers(const std::vector<std::string>& patterns, std::string_view path) {
  for (const auto& pattern : patterns) {
    for (size_t end = path.find('/'); end != std::string_view::npos; end = path.find('/', end + 1)) {
      if (glob_match(pattern, path.substr(0, end))) return true;
    }
    if (glob_match(pattern, path)) return true;
  }
  return false;
}

}  // namespace

PathScope::PathScope(std::vector<std::string> includes, std::vector<std::string> excludes)
    : includes_(std::move(includes)), excludes_(std::move(excludes)) {}

bool PathScope::enters(std::string_view dir) const { return !scope_pattern_covers(excludes_, dir); }

bool PathScope::selects(std::string_view path) const {
  if (scope_pattern_covers(excludes_, path)) return false;
  return includes_.empty() || scope_pattern_covers(includes_, path);
}

}  // namespace attractor::retrieval
