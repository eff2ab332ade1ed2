#include "attractor/model/source_file.h"

#include <algorithm>

namespace attractor {

SourceFile::SourceFile(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
  // Counted first so the table is allocated once, at its final size, for large files.
  line_starts_.reserve(static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1);
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceLocation SourceFile::locate(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::size_t line_index = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
  SourceLocation loc;
  loc.line = static_cast<int>(line_index + 1);
  loc.column = static_cast<int>(offset - line_starts_[line_index] + 1);
  loc.offset = offset;
  return loc;
}

std::string_view SourceFile::line_text(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > line_starts_.size()) return {};
  std::size_t begin = line_starts_[line - 1];
  std::size_t end = static_cast<std::size_t>(line) < line_starts_.size() ? line_starts_[line] : text_.size();
  std::string_view view(text_.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r')) view.remove_suffix(1);
  return view;
}

}  // namespace attractor
