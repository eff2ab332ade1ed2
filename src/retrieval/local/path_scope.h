#pragma once
/// \file
/// Which files `attractor index` reads beyond .gitignore: `--include GLOB` and `--exclude GLOB`
/// (repeatable, path_glob.h syntax, relative to the source root). A pattern matches a path when it
/// matches the path itself or one of its leading directories (`src/Legacy` covers
/// `src/Legacy/Old.cs`). With includes, a file must match one of them; a file or directory that
/// matches an exclude is never read, whatever the includes say (docs/retrieval.md section 8.3).

#include <string>
#include <string_view>
#include <vector>

namespace attractor::retrieval {

class PathScope {
 public:
  /// Everything (no includes, no excludes).
  PathScope() = default;
  PathScope(std::vector<std::string> includes, std::vector<std::string> excludes);

  /// True when the directory `dir` may hold selected files (false: an exclude matches it).
  bool enters(std::string_view dir) const;
  /// True when the file `path` is to be indexed.
  bool selects(std::string_view path) const;

 private:
  std::vector<std::string> includes_;
  std::vector<std::string> excludes_;
};

}  // namespace attractor::retrieval
