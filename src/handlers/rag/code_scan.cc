#include "handlers/rag/code_scan.h"

#include <cctype>

namespace attractor {
namespace {

bool word_start(char c) {
  auto u = static_cast<unsigned char>(c);
  return std::isalpha(u) || c == '_' || c == '@' || c == '#' || u >= 0x80;
}

bool word_char(char c) {
  auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || c == '@' || c == '#' || c == '$' || u >= 0x80;
}

std::size_t line_end(std::string_view text, std::size_t from) {
  std::size_t nl = text.find('\n', from);
  return nl == std::string_view::npos ? text.size() : nl;
}

std::size_t block_comment_end(std::string_view text, std::size_t from, bool nested) {
  int depth = 0;
  std::size_t i = from;
  while (i < text.size()) {
    if (text.compare(i, 2, "/*") == 0) {
      ++depth;
      i += 2;
      if (!nested && depth > 1) depth = 1;
    } else if (text.compare(i, 2, "*/") == 0) {
      i += 2;
      if (--depth == 0) return i;
    } else {
      ++i;
    }
  }
  return text.size();
}

/// End of a C# string literal starting at `i` (at its prefix or opening quote), or npos when no
/// string starts there.
std::size_t csharp_string_end(std::string_view text, std::size_t i) {
  std::size_t q = i;
  bool verbatim = false;
  while (q < text.size() && (text[q] == '@' || text[q] == '$')) {
    if (text[q] == '@') verbatim = true;
    ++q;
  }
  if (q >= text.size() || text[q] != '"') return std::string_view::npos;
  if (q > i && i > 0 && word_char(text[i - 1])) return std::string_view::npos;
  std::size_t quotes = 0;
  while (q + quotes < text.size() && text[q + quotes] == '"') ++quotes;
  if (quotes >= 3) {
    std::size_t j = q + quotes;
    while (j < text.size()) {
      if (text[j] == '"') {
        std::size_t run = 0;
        while (j + run < text.size() && text[j + run] == '"') ++run;
        if (run >= quotes) return j + run;
        j += run;
      } else {
        ++j;
      }
    }
    return text.size();
  }
  std::size_t j = q + 1;
  while (j < text.size()) {
    char c = text[j];
    if (verbatim) {
      if (c == '"') {
        if (j + 1 < text.size() && text[j + 1] == '"') {
          j += 2;
          continue;
        }
        return j + 1;
      }
    } else {
      if (c == '\\') {
        j += 2;
        continue;
      }
      if (c == '"') return j + 1;
      if (c == '\n') return j;
    }
    ++j;
  }
  return text.size();
}

std::size_t char_literal_end(std::string_view text, std::size_t i) {
  std::size_t j = i + 1;
  while (j < text.size()) {
    if (text[j] == '\\') {
      j += 2;
      continue;
    }
    if (text[j] == '\'') return j + 1;
    if (text[j] == '\n') return j;
    ++j;
  }
  return text.size();
}

std::size_t sql_string_end(std::string_view text, std::size_t quote) {
  std::size_t j = quote + 1;
  while (j < text.size()) {
    if (text[j] == '\'') {
      if (j + 1 < text.size() && text[j + 1] == '\'') {
        j += 2;
        continue;
      }
      return j + 1;
    }
    ++j;
  }
  return text.size();
}

std::size_t closing(std::string_view text, std::size_t open, char close) {
  std::size_t end = text.find(close, open + 1);
  return end == std::string_view::npos ? text.size() : end + 1;
}

class SegmentBuilder {
 public:
  explicit SegmentBuilder(std::vector<Segment>& out) : out_(out) {}
  void add(SegmentKind kind, std::size_t begin, std::size_t end) {
    if (begin >= end) return;
    if (kind == SegmentKind::kCode && !out_.empty() && out_.back().kind == SegmentKind::kCode &&
        out_.back().end == begin) {
      out_.back().end = end;
      return;
    }
    out_.push_back({kind, begin, end});
  }

 private:
  std::vector<Segment>& out_;
};

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::vector<Segment> scan_segments(std::string_view text, CodeDialect dialect) {
  std::vector<Segment> out;
  SegmentBuilder builder(out);
  std::size_t code_start = 0;
  std::size_t i = 0;
  auto special = [&](SegmentKind kind, std::size_t end) {
    builder.add(SegmentKind::kCode, code_start, i);
    builder.add(kind, i, end);
    i = end;
    code_start = end;
  };
  while (i < text.size()) {
    char c = text[i];
    if (dialect == CodeDialect::kCSharp) {
      if (text.compare(i, 2, "//") == 0) {
        special(SegmentKind::kComment, line_end(text, i));
      } else if (text.compare(i, 2, "/*") == 0) {
        special(SegmentKind::kComment, block_comment_end(text, i, false));
      } else if (c == '"' || c == '@' || c == '$') {
        std::size_t end = csharp_string_end(text, i);
        if (end == std::string_view::npos) {
          ++i;
        } else {
          special(SegmentKind::kString, end);
        }
      } else if (c == '\'') {
        special(SegmentKind::kString, char_literal_end(text, i));
      } else if (word_start(c)) {
        while (i < text.size() && word_char(text[i]) && text[i] != '@' && text[i] != '$') ++i;
      } else {
        ++i;
      }
    } else {
      if (text.compare(i, 2, "--") == 0) {
        special(SegmentKind::kComment, line_end(text, i));
      } else if (text.compare(i, 2, "/*") == 0) {
        special(SegmentKind::kComment, block_comment_end(text, i, true));
      } else if (c == '\'') {
        special(SegmentKind::kString, sql_string_end(text, i));
      } else if ((c == 'N' || c == 'n') && i + 1 < text.size() && text[i + 1] == '\'' &&
                 (i == 0 || !word_char(text[i - 1]))) {
        special(SegmentKind::kString, sql_string_end(text, i + 1));
      } else if (c == '[') {
        i = closing(text, i, ']');
      } else if (c == '"') {
        i = closing(text, i, '"');
      } else if (word_start(c)) {
        while (i < text.size() && word_char(text[i])) ++i;
      } else {
        ++i;
      }
    }
  }
  builder.add(SegmentKind::kCode, code_start, text.size());
  return out;
}

std::string_view string_content(std::string_view literal) {
  std::size_t q = 0;
  while (q < literal.size() && literal[q] != '"' && literal[q] != '\'') ++q;
  if (q >= literal.size()) return {};
  char quote = literal[q];
  std::size_t open = q;
  while (open < literal.size() && literal[open] == quote) ++open;
  std::size_t run = open - q;
  if (run >= 3 || run == 1) {
    std::size_t end = literal.size();
    std::size_t closing_run = 0;
    while (end > open && literal[end - 1] == quote && closing_run < run) {
      --end;
      ++closing_run;
    }
    return literal.substr(open, end - open);
  }
  return {};  // "" or '' : empty literal
}

std::vector<CodeToken> code_tokens(std::string_view text, const std::vector<Segment>& segments, CodeDialect dialect) {
  std::vector<CodeToken> out;
  for (const Segment& s : segments) {
    if (s.kind == SegmentKind::kComment) continue;
    if (s.kind == SegmentKind::kString) {
      out.push_back({text.substr(s.begin, s.end - s.begin), s.begin, false, true});
      continue;
    }
    std::size_t i = s.begin;
    while (i < s.end) {
      char c = text[i];
      auto u = static_cast<unsigned char>(c);
      if (std::isspace(u)) {
        ++i;
        continue;
      }
      std::size_t start = i;
      if (dialect == CodeDialect::kSql && (c == '[' || c == '"')) {
        i = std::min(closing(text, i, c == '[' ? ']' : '"'), s.end);
        out.push_back({text.substr(start, i - start), start, true, false});
        continue;
      }
      if (word_start(c) || std::isdigit(u)) {
        ++i;
        while (i < s.end && word_char(text[i])) ++i;
        out.push_back({text.substr(start, i - start), start, true, false});
        continue;
      }
      ++i;
      out.push_back({text.substr(start, 1), start, false, false});
    }
  }
  return out;
}

}  // namespace attractor
