#pragma once
/// \file
/// A loaded source text with byte offset -> line/column mapping, used by every diagnostic that
/// shows a source line with a caret.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

/// A position in a source file. Lines and columns are 1-based; 0 means "unknown".
/// Columns count bytes, matching what compilers print.
struct SourceLocation {
  int line = 0;
  int column = 0;
  std::size_t offset = 0;  ///< byte offset of the position in the file

  bool known() const { return line > 0; }
};

/// An immutable source file: its path as the user named it and its full text.
class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }

  /// Line/column of a byte offset (offsets past the end clamp to the end).
  SourceLocation locate(std::size_t offset) const;
  /// The text of 1-based line `line` without its newline ("" if out of range).
  std::string_view line_text(int line) const;

 private:
  std::string path_;
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

}  // namespace attractor
