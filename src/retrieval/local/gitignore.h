#pragma once
/// \file
/// `.gitignore` rules for the indexer's tree walk: every `.gitignore` from the root down applies to
/// its directory; later and deeper rules win; `!` re-includes, a trailing `/` matches directories
/// only, a pattern with a `/` elsewhere is anchored to its directory, otherwise it matches a name at
/// any depth. `.git` is always skipped.

#include <string>
#include <vector>

namespace attractor::retrieval {

class GitIgnore {
 public:
  /// Adds the rules of `content`, read from the `.gitignore` in `dir` (relative, "" for the root).
  void add_file(const std::string& dir, const std::string& content);
  /// True when the relative path (a directory when `is_dir`) is ignored.
  bool ignored(const std::string& path, bool is_dir) const;

 private:
  struct Rule {
    std::string base;
    std::string pattern;
    bool negate = false;
    bool dir_only = false;
    bool anchored = false;
  };
  std::vector<Rule> rules_;
};

}  // namespace attractor::retrieval
