#include "attractor/authoring/dot_syntax.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace attractor {

namespace {

bool is_space_byte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

bool ends_word(std::string_view text, std::size_t i) {
  char c = text[i];
  if (is_space_byte(c)) return true;
  switch (c) {
    case '{':
    case '}':
    case '[':
    case ']':
    case ';':
    case ',':
    case '=':
    case '"':
    case '+': return true;
    case '-': return i + 1 < text.size() && (text[i + 1] == '>' || text[i + 1] == '-');
    case '/': return i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*');
    default: return false;
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<SyntaxToken> run() {
    std::vector<SyntaxToken> out;
    std::size_t i = 0;
    int newlines = 0;
    bool line_start = true;
    while (i < text_.size()) {
      char c = text_[i];
      if (is_space_byte(c)) {
        if (c == '\n') {
          ++newlines;
          ++line_;
          line_start = true;
        }
        ++i;
        continue;
      }
      SyntaxToken t;
      t.begin = static_cast<std::uint32_t>(i);
      t.line = line_;
      t.blank_line_before = newlines >= 2;
      std::size_t end = scan(i, line_start, t);
      t.end = static_cast<std::uint32_t>(end);
      t.end_line = line_;
      out.push_back(t);
      i = end;
      newlines = 0;
      line_start = false;
    }
    return out;
  }

 private:
  std::size_t scan(std::size_t i, bool line_start, SyntaxToken& t) {
    char c = text_[i];
    char next = i + 1 < text_.size() ? text_[i + 1] : '\0';
    if (c == '#' && line_start) return line_comment(i, t);
    if (c == '/' && next == '/') return line_comment(i, t);
    if (c == '/' && next == '*') return block_comment(i, t);
    if (c == '"') return quoted(i, t);
    if (c == '-' && (next == '>' || next == '-')) {
      t.kind = SyntaxKind::kArrow;
      return i + 2;
    }
    t.kind = punctuation(c);
    if (t.kind != SyntaxKind::kWord) return i + 1;
    std::size_t j = i + 1;
    while (j < text_.size() && !ends_word(text_, j)) ++j;
    return j;
  }

  static SyntaxKind punctuation(char c) {
    switch (c) {
      case '{': return SyntaxKind::kLBrace;
      case '}': return SyntaxKind::kRBrace;
      case '[': return SyntaxKind::kLBracket;
      case ']': return SyntaxKind::kRBracket;
      case ';': return SyntaxKind::kSemicolon;
      case ',': return SyntaxKind::kComma;
      case '=': return SyntaxKind::kEquals;
      case '+': return SyntaxKind::kPlus;
      default: return static_cast<unsigned char>(c) < 0x20 ? SyntaxKind::kOther : SyntaxKind::kWord;
    }
  }

  std::size_t line_comment(std::size_t i, SyntaxToken& t) {
    t.kind = SyntaxKind::kComment;
    std::size_t end = text_.find('\n', i);
    if (end == std::string_view::npos) return text_.size();
    return end > i && text_[end - 1] == '\r' ? end - 1 : end;
  }

  std::size_t block_comment(std::size_t i, SyntaxToken& t) {
    t.kind = SyntaxKind::kComment;
    std::size_t close = text_.find("*/", i + 2);
    std::size_t end = close == std::string_view::npos ? text_.size() : close + 2;
    t.unterminated = close == std::string_view::npos;
    count_lines(i, end);
    return end;
  }

  std::size_t quoted(std::size_t i, SyntaxToken& t) {
    t.kind = SyntaxKind::kString;
    std::size_t j = i + 1;
    while (j < text_.size() && text_[j] != '"') j += text_[j] == '\\' ? 2 : 1;
    std::size_t end = std::min(j + 1, text_.size());
    t.unterminated = j >= text_.size();
    count_lines(i, end);
    return end;
  }

  void count_lines(std::size_t from, std::size_t to) {
    line_ += static_cast<std::uint32_t>(std::count(text_.begin() + from, text_.begin() + to, '\n'));
  }

  std::string_view text_;
  std::uint32_t line_ = 0;
};

/// Recursive descent over the tokens with comments set aside: each comment is attached to the
/// next item that starts (leading), to the item it follows on the same line (trailing), or to the
/// enclosing block or list when nothing follows (dangling).
class TreeReader {
 public:
  explicit TreeReader(SyntaxTree& tree) : tree_(tree), tokens_(tree.tokens) {}

  void run() {
    skip_comments();
    tree_.leading = take_pending();
    if (at_word("strict")) tree_.strict_kw = advance();
    if (at_word("digraph") || at_word("graph")) tree_.graph_kw = advance();
    if (at(SyntaxKind::kWord) || at(SyntaxKind::kString)) tree_.name = advance();
    bool header = tree_.graph_kw != kNoToken;
    if (at(SyntaxKind::kLBrace)) {
      read_block(tree_.body, 0);
    } else {
      tree_.body.dangling = take_pending();
      read_statements(tree_.body, 0);
    }
    tree_.trailing = take_pending();
    while (pos_ < tokens_.size()) {
      if (tokens_[pos_].kind == SyntaxKind::kComment) {
        tree_.trailing.push_back(static_cast<TokenIndex>(pos_));
      } else {
        tree_.stray.push_back(static_cast<TokenIndex>(pos_));
      }
      ++pos_;
    }
    tree_.complete = header && tree_.body.open != kNoToken && tree_.body.close != kNoToken && tree_.stray.empty();
  }

 private:
  bool at(SyntaxKind kind) const { return pos_ < tokens_.size() && tokens_[pos_].kind == kind; }
  bool at_word(std::string_view keyword) const {
    return at(SyntaxKind::kWord) && is_keyword_token(tree_.token_text(static_cast<TokenIndex>(pos_)), keyword);
  }
  bool at_id() const { return at(SyntaxKind::kWord) || at(SyntaxKind::kString); }

  TokenIndex advance() {
    TokenIndex i = static_cast<TokenIndex>(pos_++);
    last_ = i;
    skip_comments();
    return i;
  }

  void skip_comments() {
    while (pos_ < tokens_.size() && tokens_[pos_].kind == SyntaxKind::kComment) {
      pending_.push_back(static_cast<TokenIndex>(pos_++));
    }
  }

  std::vector<TokenIndex> take_pending() { return std::exchange(pending_, {}); }

  /// Comments pending that start on the line `last_` ends on, removed from pending.
  std::vector<TokenIndex> take_same_line() {
    std::vector<TokenIndex> out;
    if (last_ == kNoToken) return out;
    std::uint32_t line = tokens_[last_].end_line;
    while (!pending_.empty() && tokens_[pending_.front()].line == line) {
      out.push_back(pending_.front());
      pending_.erase(pending_.begin());
    }
    return out;
  }

  void read_block(SyntaxBlock& block, int depth) {
    block.open = advance();
    read_statements(block, depth);
    if (at(SyntaxKind::kRBrace)) {
      block.dangling = take_pending();
      block.close = advance();
    } else {
      block.dangling = take_pending();
    }
  }

  void read_statements(SyntaxBlock& block, int depth) {
    while (pos_ < tokens_.size() && !at(SyntaxKind::kRBrace)) {
      SyntaxStmt stmt;
      stmt.leading = take_pending();
      TokenIndex first = static_cast<TokenIndex>(pos_);
      stmt.blank_line_before = tokens_[stmt.leading.empty() ? first : stmt.leading.front()].blank_line_before;
      stmt.first = first;
      read_statement(stmt, depth);
      stmt.last = last_;
      if (at(SyntaxKind::kSemicolon)) stmt.last = advance();
      if (stmt.kind != SyntaxStmt::Kind::kSubgraph || stmt.body.front().close != kNoToken) {
        stmt.trailing = take_same_line();
      }
      block.stmts.push_back(std::move(stmt));
    }
  }

  void read_statement(SyntaxStmt& stmt, int depth) {
    if (at_word("graph") || at_word("node") || at_word("edge")) {
      stmt.kind = SyntaxStmt::Kind::kDefaults;
      stmt.keyword = advance();
      read_lists(stmt);
    } else if (at_word("subgraph") || at(SyntaxKind::kLBrace)) {
      read_subgraph(stmt, depth);
    } else if (at_id()) {
      read_node_or_edge(stmt);
    } else {
      stmt.kind = SyntaxStmt::Kind::kError;
      advance();
    }
  }

  /// The next token of `stmt`: comments since its previous token become its inner comments.
  TokenIndex take(SyntaxStmt& stmt) {
    move_pending(stmt.inner);
    return advance();
  }

  void move_pending(std::vector<TokenIndex>& into) {
    for (TokenIndex c : take_pending()) into.push_back(c);
  }

  void read_subgraph(SyntaxStmt& stmt, int depth) {
    stmt.kind = SyntaxStmt::Kind::kSubgraph;
    if (at_word("subgraph")) stmt.keyword = advance();
    if (stmt.keyword != kNoToken && at_id()) stmt.ids.push_back(take(stmt));
    stmt.body.emplace_back();
    if (!at(SyntaxKind::kLBrace)) return;
    if (depth + 1 >= kMaxSyntaxDepth) {
      stmt.kind = SyntaxStmt::Kind::kError;
      advance();
      return;
    }
    move_pending(stmt.inner);
    read_block(stmt.body.front(), depth + 1);
  }

  void read_node_or_edge(SyntaxStmt& stmt) {
    stmt.ids.push_back(advance());
    if (at(SyntaxKind::kEquals)) {
      stmt.kind = SyntaxStmt::Kind::kAssign;
      take(stmt);
      if (at_id()) stmt.value = read_value(stmt.inner);
      return;
    }
    stmt.kind = SyntaxStmt::Kind::kNode;
    while (at(SyntaxKind::kArrow)) {
      stmt.kind = SyntaxStmt::Kind::kEdge;
      take(stmt);
      if (!at_id()) break;
      stmt.ids.push_back(take(stmt));
    }
    read_lists(stmt);
  }

  /// A value; comments inside it (between the pieces of a concatenation) go to `comments`.
  SyntaxValue read_value(std::vector<TokenIndex>& comments) {
    SyntaxValue v;
    move_pending(comments);
    v.first = v.last = advance();
    while (tokens_[v.last].kind == SyntaxKind::kString && at(SyntaxKind::kPlus) && next_is(SyntaxKind::kString)) {
      move_pending(comments);
      advance();
      move_pending(comments);
      v.last = advance();
    }
    return v;
  }

  bool next_is(SyntaxKind kind) const {
    std::size_t j = pos_ + 1;
    while (j < tokens_.size() && tokens_[j].kind == SyntaxKind::kComment) ++j;
    return j < tokens_.size() && tokens_[j].kind == kind;
  }

  void read_lists(SyntaxStmt& stmt) {
    while (at(SyntaxKind::kLBracket)) {
      SyntaxAttrList list;
      list.open = take(stmt);
      read_attrs(list);
      list.dangling = take_pending();
      if (at(SyntaxKind::kRBracket)) list.close = take(stmt);
      stmt.lists.push_back(std::move(list));
    }
  }

  void read_attrs(SyntaxAttrList& list) {
    while (at_id()) {
      SyntaxAttr attr;
      attr.leading = take_pending();
      attr.key = advance();
      if (at(SyntaxKind::kEquals)) {
        move_pending(attr.leading);
        advance();
        if (at_id()) attr.value = read_value(attr.leading);
      }
      if (at(SyntaxKind::kComma) || at(SyntaxKind::kSemicolon)) {
        move_pending(attr.leading);
        advance();
      }
      attr.trailing = take_same_line();
      list.attrs.push_back(std::move(attr));
    }
  }

  SyntaxTree& tree_;
  const std::vector<SyntaxToken>& tokens_;
  std::size_t pos_ = 0;
  TokenIndex last_ = kNoToken;
  std::vector<TokenIndex> pending_;
};

}  // namespace

bool is_keyword_token(std::string_view word, std::string_view keyword) {
  if (word.size() != keyword.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(word[i])) != keyword[i]) return false;
  }
  return true;
}

std::vector<SyntaxToken> tokenize_dot(std::string_view text) { return Lexer(text).run(); }

SyntaxTree read_syntax(std::string_view text) {
  SyntaxTree tree;
  tree.text = text;
  tree.tokens = tokenize_dot(text);
  TreeReader(tree).run();
  return tree;
}

std::optional<std::string_view> plain_token_text(const SyntaxTree& tree, TokenIndex i) {
  std::string_view raw = tree.token_text(i);
  if (tree.tokens[i].kind != SyntaxKind::kString) return raw;
  if (tree.tokens[i].unterminated || raw.size() < 2) return std::nullopt;
  std::string_view inner = raw.substr(1, raw.size() - 2);
  if (inner.find('\\') != std::string_view::npos) return std::nullopt;
  return inner;
}

}  // namespace attractor
