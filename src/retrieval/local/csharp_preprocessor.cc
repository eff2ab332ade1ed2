#include "retrieval/local/csharp_preprocessor.h"

#include <vector>

namespace attractor::retrieval {

namespace {

/// The directive word of a line (`if`, `endif`, ...), empty when the line is not a directive.
std::string_view directive_of(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return {};
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos) return {};
  size_t end = i;
  while (end < line.size() && line[end] >= 'a' && line[end] <= 'z') ++end;
  return line.substr(i, end - i);
}

void blank(std::string& out, size_t from, size_t to) {
  for (size_t k = from; k < to; ++k) {
    if (out[k] != '\n' && out[k] != '\r') out[k] = ' ';
  }
}

}  // namespace

std::string mask_csharp_preprocessor(std::string_view source) {
  std::string out(source);
  std::vector<bool> skipping;  // per open #if: whether its current branch is blanked
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string_view word = directive_of(std::string_view(out).substr(start, end - start));
    bool outer_skip = !skipping.empty() && skipping.back();
    if (word == "if") {
      skipping.push_back(outer_skip);
    } else if ((word == "elif" || word == "else") && !skipping.empty()) {
      skipping.back() = true;
    } else if (word == "endif" && !skipping.empty()) {
      skipping.pop_back();
    }
    if (!word.empty() || outer_skip) blank(out, start, end);
    start = end + 1;
  }
  return out;
}

}  // namespace attractor::retrieval
