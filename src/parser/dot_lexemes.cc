#include "parser/dot_lexemes.h"

#include <cstring>

#include "attractor/base/utf8.h"

namespace attractor::dot {
namespace {

bool at_line_start(const char* p, const char* begin) {
  while (p > begin && (p[-1] == ' ' || p[-1] == '\t')) --p;
  return p == begin || p[-1] == '\n';
}

}  // namespace

const char* skip_space(const char* p, const char* begin, const char* end) {
  while (p < end) {
    char c = *p;
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++p;
    } else if (c == '/' && p + 1 < end && p[1] == '/') {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
      p = nl ? static_cast<const char*>(nl) + 1 : end;
    } else if (c == '/' && p + 1 < end && p[1] == '*') {
      const char* q = p + 2;
      for (;;) {
        const void* star = q < end ? std::memchr(q, '*', static_cast<std::size_t>(end - q)) : nullptr;
        if (star == nullptr) {
          throw DotError(p, "unterminated_comment", "unterminated block comment: '/*' is never closed",
                         "close the comment with '*/'");
        }
        q = static_cast<const char*>(star) + 1;
        if (q < end && *q == '/') break;
      }
      p = q + 1;
    } else if (c == '#' && at_line_start(p, begin)) {
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
      p = nl ? static_cast<const char*>(nl) + 1 : end;
    } else {
      break;
    }
  }
  return p;
}

const char* scan_quoted(const char* p, const char* end, bool& has_escape) {
  const char* q = p + 1;
  while (q < end) {
    char c = *q;
    if (c == '"') return q + 1;
    if (c == '\\') {
      has_escape = true;
      q += 2;
      continue;
    }
    ++q;
  }
  throw DotError(p, "unterminated_string", "unterminated string: the closing '\"' is missing",
                 "close the string with '\"' (write \\\" for a quote inside it)");
}

void append_unescaped(const char* first, const char* last, std::string& out) {
  const char* p = first + 1;
  const char* stop = last - 1;
  while (p < stop) {
    const char* slash = static_cast<const char*>(std::memchr(p, '\\', static_cast<std::size_t>(stop - p)));
    if (slash == nullptr) {
      out.append(p, stop);
      return;
    }
    out.append(p, slash);
    char next = slash + 1 < stop ? slash[1] : '\0';
    switch (next) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '\n': break;
      case '\r':
        if (slash + 2 < stop && slash[2] == '\n') ++slash;
        break;
      default:
        out += '\\';
        out += next;
        break;
    }
    p = slash + 2;
  }
}

std::size_t match_keyword(const char* p, const char* end, std::string_view word) {
  if (static_cast<std::size_t>(end - p) < word.size()) return 0;
  for (std::size_t i = 0; i < word.size(); ++i) {
    char c = p[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return 0;
  }
  const char* after = p + word.size();
  if (after < end && (is_id_char(*after) || static_cast<unsigned char>(*after) >= 0x80)) return 0;
  return word.size();
}

bool is_dot_keyword(std::string_view text) {
  for (std::string_view kw : {"node", "edge", "graph", "digraph", "subgraph", "strict"}) {
    if (text.size() == kw.size() && match_keyword(text.data(), text.data() + text.size(), kw) != 0) return true;
  }
  return false;
}

bool is_attribute_key(std::string_view text) {
  std::size_t start = 0;
  for (;;) {
    std::size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!is_identifier(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool classify_unquoted(std::string_view text, ValueKind& kind) {
  if (text.empty()) return false;
  char c = text[0];
  if (is_id_head(c) || static_cast<unsigned char>(c) >= 0x80) {
    kind = (text == "true" || text == "false") ? ValueKind::kBoolean : ValueKind::kBare;
    return true;
  }
  if (parse_integer(text)) {
    kind = ValueKind::kInteger;
    return true;
  }
  if (parse_float(text)) {
    kind = ValueKind::kFloat;
    return true;
  }
  if (parse_duration_ms(text)) {
    kind = ValueKind::kDuration;
    return true;
  }
  return false;
}

std::string describe_found(const char* p, const char* end) {
  if (p >= end) return "end of file";
  unsigned char c = static_cast<unsigned char>(*p);
  if (c == '"') return "a string";
  if (is_id_char(*p) || c >= 0x80 || ((c == '-' || c == '.') && p + 1 < end && is_digit(p[1]))) {
    const char* q = p;
    while (q < end && q - p < 32 &&
           (is_id_char(*q) || *q == '.' || *q == ':' || static_cast<unsigned char>(*q) >= 0x80 ||
            (*q == '-' && !(q + 1 < end && (q[1] == '>' || q[1] == '-'))))) {
      ++q;
    }
    if (q == p) ++q;
    std::string token(p, q);
    if (find_invalid_utf8(token) == std::string::npos) return "'" + token + "'";
  }
  if (c >= 0x21 && c < 0x7f) {
    if (c == '-' && p + 1 < end && (p[1] == '>' || p[1] == '-')) return std::string("'-") + p[1] + "'";
    return std::string("'") + static_cast<char>(c) + "'";
  }
  static const char* hex = "0123456789abcdef";
  std::string out = "byte 0x";
  out += hex[c >> 4];
  out += hex[c & 15];
  return out;
}

}  // namespace attractor::dot
