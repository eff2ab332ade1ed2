#include "retrieval/local/tsql_lexer.h"

#include <cctype>

#include <fmt/format.h>

namespace attractor::retrieval {

namespace {

using Kind = TsqlToken::Kind;

bool word_byte(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c == '@' || c == '#' || c >= 0x80; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {
    if (s_.starts_with("\xEF\xBB\xBF")) i_ = line_start_ = 3;  // a UTF-8 byte order mark
  }

  TsqlTokens run() {
    while (i_ < s_.size()) step();
    return std::move(out_);
  }

 private:
  void step() {
    char c = s_[i_];
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') {
      ++line_;
      line_start_ = ++i_;
    } else if (space(c)) {
      ++i_;
    } else if (c == '-' && peek(1) == '-') {
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    } else if (c == '/' && peek(1) == '*') {
      block_comment();
    } else if (c == '\'' || ((c == 'N' || c == 'n') && peek(1) == '\'')) {
      delimited(c == '\'' ? 1 : 2, '\'', Kind::kString, "string");
    } else if (c == '[') {
      delimited(1, ']', Kind::kQuotedName, "bracketed name");
    } else if (c == '"') {
      delimited(1, '"', Kind::kQuotedName, "quoted name");
    } else if (c == '{') {
      delimited(1, '}', Kind::kQuotedName, "placeholder");
    } else if (std::isdigit(u)) {
      number();
    } else if (word_byte(u)) {
      word();
    } else {
      push(Kind::kPunct, i_, i_ + 1, line_);
      ++i_;
    }
  }

  char peek(size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }

  void push(Kind kind, size_t b, size_t e, int line) { out_.tokens.push_back({kind, s_.substr(b, e - b), b, e, line}); }

  void unclosed(size_t b, int line, size_t line_start, const char* what) {
    out_.issues.push_back({line, static_cast<int>(b - line_start) + 1, fmt::format("unterminated {}", what)});
  }

  /// Advances over `n` bytes, counting the lines inside them.
  void skip_counting(size_t to) {
    for (; i_ < to; ++i_) {
      if (s_[i_] == '\n') {
        ++line_;
        line_start_ = i_ + 1;
      }
    }
  }

  void block_comment() {
    size_t b = i_;
    int line = line_;
    size_t start = line_start_;
    int depth = 0;
    size_t j = i_;
    while (j < s_.size()) {
      if (s_[j] == '/' && j + 1 < s_.size() && s_[j + 1] == '*') {
        ++depth;
        j += 2;
      } else if (s_[j] == '*' && j + 1 < s_.size() && s_[j + 1] == '/') {
        j += 2;
        if (--depth == 0) break;
      } else {
        ++j;
      }
    }
    if (depth > 0) unclosed(b, line, start, "block comment");
    skip_counting(j);
  }

  /// A token from `i_` to its closing `close`, where a doubled `close` stands for itself; the
  /// opening delimiter takes `open_size` bytes (`'`, `N'`, `[`, `"`, `{`).
  void delimited(size_t open_size, char close, Kind kind, const char* what) {
    size_t b = i_;
    int line = line_;
    size_t start = line_start_;
    size_t j = i_ + open_size;
    bool closed = false;
    while (j < s_.size()) {
      if (s_[j] != close) {
        ++j;
      } else if (j + 1 < s_.size() && s_[j + 1] == close) {
        j += 2;
      } else {
        ++j;
        closed = true;
        break;
      }
    }
    if (!closed) unclosed(b, line, start, what);
    skip_counting(j);
    push(kind, b, j, line);
  }

  void number() {
    size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
    push(Kind::kNumber, b, i_, line_);
  }

  void word() {
    size_t b = i_;
    while (i_ < s_.size() && word_byte(static_cast<unsigned char>(s_[i_]))) ++i_;
    Kind kind = s_[b] == '@' ? Kind::kVariable : s_[b] == '#' ? Kind::kTempName : Kind::kWord;
    if (kind == Kind::kWord && batch_separator(b)) kind = Kind::kBatchEnd;
    push(kind, b, i_, line_);
  }

  /// `GO` alone on its line, optionally followed by a repeat count and a line comment.
  bool batch_separator(size_t b) const {
    if (i_ - b != 2 || std::tolower(static_cast<unsigned char>(s_[b])) != 'g' ||
        std::tolower(static_cast<unsigned char>(s_[b + 1])) != 'o') {
      return false;
    }
    for (size_t k = line_start_; k < b; ++k) {
      if (!space(s_[k])) return false;
    }
    size_t k = i_;
    while (k < s_.size() && space(s_[k])) ++k;
    while (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) ++k;
    while (k < s_.size() && space(s_[k])) ++k;
    if (k + 1 < s_.size() && s_[k] == '-' && s_[k + 1] == '-') return true;
    return k >= s_.size() || s_[k] == '\n';
  }

  std::string_view s_;
  size_t i_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  TsqlTokens out_;
};

}  // namespace

bool TsqlToken::is(std::string_view keyword) const {
  if (kind != Kind::kWord || text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != keyword[i]) return false;
  }
  return true;
}

TsqlTokens lex_tsql(std::string_view source) { return Lexer(source).run(); }

std::string unquote_tsql_name(std::string_view part) {
  if (part.size() < 2) return std::string(part);
  char open = part.front();
  char close = open == '[' ? ']' : open == '"' ? '"' : open == '`' ? '`' : '\0';
  if (close == '\0') return std::string(part);
  std::string_view inner = part.substr(1, part.back() == close ? part.size() - 2 : part.size() - 1);
  std::string out;
  for (size_t i = 0; i < inner.size(); ++i) {
    out += inner[i];
    if (inner[i] == close && i + 1 < inner.size() && inner[i + 1] == close) ++i;
  }
  return out;
}

}  // namespace attractor::retrieval
