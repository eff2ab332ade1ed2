#include "attractor/authoring/cursor_context.h"

#include <cctype>

namespace attractor {

namespace {

bool is_value_token(SyntaxKind kind) { return kind == SyntaxKind::kWord || kind == SyntaxKind::kString; }

class ContextReader {
 public:
  ContextReader(const PipelineDocument& doc, std::size_t offset)
      : doc_(doc), tree_(doc.syntax()), tokens_(tree_.tokens), offset_(offset) {}

  CursorContext run() {
    find_current();
    if (current_ != kNoToken && tokens_[current_].kind == SyntaxKind::kComment) return ctx_;
    TokenIndex before = previous(current_ != kNoToken ? current_ : first_after_offset());
    TokenIndex open = open_bracket(before);
    if (open != kNoToken) {
      in_list(open, before);
    } else {
      outside_list(before);
    }
    return ctx_;
  }

 private:
  /// The word or string the cursor is in or right after.
  void find_current() {
    TokenIndex t = doc_.token_at(offset_);
    ctx_.replace = {offset_, offset_};
    if (t != kNoToken && t > 0 && tokens_[t].begin == offset_ && tokens_[t - 1].end == offset_ &&
        is_value_token(tokens_[t - 1].kind)) {
      --t;
    }
    if (t == kNoToken || offset_ < tokens_[t].begin) return;
    const SyntaxToken& tok = tokens_[t];
    if (tok.kind == SyntaxKind::kComment) {
      current_ = offset_ > tok.begin ? t : kNoToken;
      return;
    }
    if (!is_value_token(tok.kind)) return;
    current_ = t;
    if (tok.kind == SyntaxKind::kWord) {
      ctx_.replace = {tok.begin, offset_};
    } else if (offset_ > tok.begin && (offset_ < tok.end || tok.unterminated)) {
      in_string_ = true;
      ctx_.replace = {tok.begin + 1, offset_};
    } else {
      ctx_.replace = {tok.begin, tok.end};
      return;
    }
    ctx_.prefix = doc_.text().substr(ctx_.replace.begin, offset_ - ctx_.replace.begin);
  }

  TokenIndex first_after_offset() const {
    TokenIndex t = doc_.token_at(offset_);
    if (t == kNoToken) {
      for (TokenIndex i = 0; i < tokens_.size(); ++i) {
        if (tokens_[i].begin >= offset_) return i;
      }
      return static_cast<TokenIndex>(tokens_.size());
    }
    return tokens_[t].begin >= offset_ ? t : t + 1;
  }

  /// The last token before `t` that is not a comment, or kNoToken.
  TokenIndex previous(TokenIndex t) const {
    while (t > 0) {
      --t;
      if (tokens_[t].kind != SyntaxKind::kComment) return t;
    }
    return kNoToken;
  }

  /// The `[` the cursor is inside, when it is inside one.
  TokenIndex open_bracket(TokenIndex t) const {
    for (; t != kNoToken; t = previous(t)) {
      switch (tokens_[t].kind) {
        case SyntaxKind::kLBracket: return t;
        case SyntaxKind::kRBracket:
        case SyntaxKind::kLBrace:
        case SyntaxKind::kRBrace: return kNoToken;
        default: break;
      }
    }
    return kNoToken;
  }

  void in_list(TokenIndex open, TokenIndex before) {
    head_of(open);
    if (before != kNoToken && tokens_[before].kind == SyntaxKind::kEquals) {
      TokenIndex key = previous(before);
      if (key != kNoToken) value_of(key);
      return;
    }
    ctx_.where = CursorContext::Where::kAttributeName;
  }

  void value_of(TokenIndex key) {
    std::optional<std::string_view> name = plain_token_text(tree_, key);
    ctx_.key = name ? std::string(*name) : std::string();
    ctx_.where = CursorContext::Where::kAttributeValue;
    if (in_string_ && ctx_.key == "condition") condition();
  }

  void condition() {
    ctx_.where = CursorContext::Where::kCondition;
    const std::string& text = doc_.text();
    std::size_t start = offset_;
    std::size_t floor = tokens_[current_].begin + 1;
    while (start > floor && is_key_char(text[start - 1])) --start;
    ctx_.replace = {start, offset_};
    ctx_.prefix = text.substr(start, offset_ - start);
    std::size_t clause = start;
    while (clause > floor && text[clause - 1] != '&') --clause;
    ctx_.condition_before = text.substr(clause, start - clause);
  }

  /// The statement a `[` belongs to: its keyword or its ids.
  void head_of(TokenIndex open) {
    TokenIndex t = previous(open);
    TokenIndex first = t;
    bool edge = false;
    while (t != kNoToken && is_value_token(tokens_[t].kind)) {
      first = t;
      TokenIndex p = previous(t);
      if (p == kNoToken || tokens_[p].kind != SyntaxKind::kArrow) break;
      edge = true;
      t = previous(p);
    }
    if (first == kNoToken) return;
    std::string_view head = tree_.token_text(first);
    if (!edge && tokens_[first].kind == SyntaxKind::kWord &&
        (is_keyword_token(head, "graph") || is_keyword_token(head, "node") || is_keyword_token(head, "edge"))) {
      ctx_.defaults = true;
      ctx_.scope = is_keyword_token(head, "graph")  ? AttributeScope::kGraph
                   : is_keyword_token(head, "edge") ? AttributeScope::kEdge
                                                    : AttributeScope::kNode;
      return;
    }
    ctx_.scope = edge ? AttributeScope::kEdge : AttributeScope::kNode;
    if (edge) return;
    if (std::optional<std::string_view> id = plain_token_text(tree_, first)) ctx_.node_id = std::string(*id);
    ctx_.node_type = node_type_in(open);
  }

  /// `type` in the statement's own list, else the type its `shape` selects, else the loaded node's.
  std::string node_type_in(TokenIndex open) const {
    std::string type, shape;
    for (TokenIndex t = open + 1; t + 2 < tokens_.size(); ++t) {
      SyntaxKind kind = tokens_[t].kind;
      if (kind == SyntaxKind::kRBracket || kind == SyntaxKind::kLBrace || kind == SyntaxKind::kRBrace) break;
      if (tokens_[t + 1].kind != SyntaxKind::kEquals || !is_value_token(tokens_[t + 2].kind)) continue;
      std::optional<std::string_view> key = plain_token_text(tree_, t);
      std::optional<std::string_view> value = plain_token_text(tree_, t + 2);
      if (!key || !value) continue;
      if (*key == "type") type = *value;
      if (*key == "shape") shape = *value;
    }
    const HandlerCatalog& handlers = *doc_.catalog().handlers;
    if (!type.empty()) return type;
    if (!shape.empty()) return std::string(handlers.type_for_shape(shape));
    return "";
  }

  /// True when more than the graph's own `{` is open before `t` (inclusive).
  bool inside_subgraph(TokenIndex t) const {
    int depth = 0;
    for (TokenIndex i = 0; t != kNoToken && i <= t && i < tokens_.size(); ++i) {
      if (tokens_[i].kind == SyntaxKind::kLBrace) ++depth;
      if (tokens_[i].kind == SyntaxKind::kRBrace) --depth;
    }
    return depth >= 2;
  }

  void outside_list(TokenIndex before) {
    ctx_.in_subgraph = inside_subgraph(before);
    ctx_.scope = AttributeScope::kGraph;
    if (before == kNoToken) {
      ctx_.where = CursorContext::Where::kStatementStart;
      return;
    }
    switch (tokens_[before].kind) {
      case SyntaxKind::kArrow:
        ctx_.where = CursorContext::Where::kEdgeTarget;
        ctx_.scope = AttributeScope::kEdge;
        return;
      case SyntaxKind::kEquals: {
        TokenIndex key = previous(before);
        ctx_.scope = AttributeScope::kGraph;
        if (key != kNoToken) value_of(key);
        return;
      }
      case SyntaxKind::kLBrace:
      case SyntaxKind::kRBrace:
      case SyntaxKind::kRBracket:
      case SyntaxKind::kSemicolon: ctx_.where = CursorContext::Where::kStatementStart; return;
      default:
        if (is_value_token(tokens_[before].kind) && tokens_[before].end_line < line_of_cursor()) {
          ctx_.where = CursorContext::Where::kStatementStart;
        }
        return;
    }
  }

  std::uint32_t line_of_cursor() const { return static_cast<std::uint32_t>(doc_.lines().line_of(offset_)); }

  const PipelineDocument& doc_;
  const SyntaxTree& tree_;
  const std::vector<SyntaxToken>& tokens_;
  std::size_t offset_;
  TokenIndex current_ = kNoToken;
  bool in_string_ = false;
  CursorContext ctx_;
};

}  // namespace

CursorContext cursor_context(const PipelineDocument& doc, std::size_t offset) {
  return ContextReader(doc, std::min(offset, doc.text().size())).run();
}

}  // namespace attractor
