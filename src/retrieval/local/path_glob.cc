#include "retrieval/local/path_glob.h"

namespace attractor::retrieval {

namespace {

bool class_match(std::string_view pattern, size_t& p, char c) {
  size_t i = p + 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  bool matched = false;
  bool first = true;
  while (i < pattern.size() && (pattern[i] != ']' || first)) {
    first = false;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      if (c >= pattern[i] && c <= pattern[i + 2]) matched = true;
      i += 3;
    } else {
      if (c == pattern[i]) matched = true;
      ++i;
    }
  }
  p = i < pattern.size() ? i + 1 : i;
  return matched != negate;
}

bool match(std::string_view pat, size_t p, std::string_view s, size_t i) {
  while (p < pat.size()) {
    char pc = pat[p];
    if (pc == '*') {
      bool globstar = p + 1 < pat.size() && pat[p + 1] == '*';
      if (globstar) {
        size_t next = p + 2;
        bool slash_after = next < pat.size() && pat[next] == '/';
        if (slash_after) {
          // "**/" matches zero or more whole segments.
          if (match(pat, next + 1, s, i)) return true;
          for (size_t k = i; k < s.size(); ++k) {
            if (s[k] == '/' && match(pat, next + 1, s, k + 1)) return true;
          }
          return false;
        }
        for (size_t k = i; k <= s.size(); ++k) {
          if (match(pat, next, s, k)) return true;
        }
        return false;
      }
      for (size_t k = i; k <= s.size(); ++k) {
        if (match(pat, p + 1, s, k)) return true;
        if (k < s.size() && s[k] == '/') break;
      }
      return false;
    }
    if (i >= s.size()) return false;
    if (pc == '?') {
      if (s[i] == '/') return false;
      ++p;
      ++i;
    } else if (pc == '[') {
      if (!class_match(pat, p, s[i])) return false;
      ++i;
    } else {
      if (pc == '\\' && p + 1 < pat.size()) pc = pat[++p];
      if (pc != s[i]) return false;
      ++p;
      ++i;
    }
  }
  return i == s.size();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) { return match(pattern, 0, path, 0); }

}  // namespace attractor::retrieval
