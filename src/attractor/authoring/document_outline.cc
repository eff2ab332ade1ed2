#include "attractor/authoring/document_outline.h"

#include <algorithm>
#include <set>

namespace attractor {

namespace {

class OutlineBuilder {
 public:
  explicit OutlineBuilder(const PipelineDocument& doc) : doc_(doc), tree_(doc.syntax()) {}

  std::vector<OutlineSymbol> run() {
    if (tree_.graph_kw == kNoToken) return {};
    OutlineSymbol graph;
    graph.kind = OutlineSymbol::kModule;
    graph.name = tree_.name != kNoToken ? std::string(tree_.token_text(tree_.name)) : "digraph";
    graph.selection = doc_.range_of(tree_.name != kNoToken ? tree_.name : tree_.graph_kw);
    std::size_t end = tree_.body.close != kNoToken ? tree_.tokens[tree_.body.close].end : doc_.text().size();
    graph.range = {tree_.tokens[tree_.graph_kw].begin, end};
    block(tree_.body, graph.children);
    return {std::move(graph)};
  }

 private:
  ByteRange span(const SyntaxStmt& s) const {
    std::size_t end = s.last != kNoToken ? tree_.tokens[s.last].end : tree_.tokens[s.first].end;
    return {tree_.tokens[s.first].begin, end};
  }

  void block(const SyntaxBlock& b, std::vector<OutlineSymbol>& out) {
    for (const SyntaxStmt& s : b.stmts) {
      if (s.kind == SyntaxStmt::Kind::kSubgraph) {
        OutlineSymbol sub;
        sub.kind = OutlineSymbol::kNamespace;
        TokenIndex name = s.ids.empty() ? s.first : s.ids[0];
        sub.name = s.ids.empty() ? "{ }" : std::string(tree_.token_text(name));
        sub.range = span(s);
        sub.selection = doc_.range_of(name);
        block(s.body.front(), sub.children);
        out.push_back(std::move(sub));
      } else if (s.kind == SyntaxStmt::Kind::kNode || s.kind == SyntaxStmt::Kind::kEdge) {
        for (TokenIndex id : s.ids) node(s, id, out);
      }
    }
  }

  void node(const SyntaxStmt& s, TokenIndex id, std::vector<OutlineSymbol>& out) {
    std::optional<std::string_view> name = plain_token_text(tree_, id);
    if (!name || !seen_.insert(std::string(*name)).second) return;
    OutlineSymbol sym;
    sym.name = std::string(*name);
    sym.range = s.kind == SyntaxStmt::Kind::kNode ? span(s) : doc_.range_of(id);
    sym.selection = doc_.range_of(id);
    if (doc_.loaded().graph) {
      if (const NodeData* n = doc_.loaded().graph->node(*name)) sym.detail = doc_.catalog().handlers->type_of(*n);
    }
    out.push_back(std::move(sym));
  }

  const PipelineDocument& doc_;
  const SyntaxTree& tree_;
  std::set<std::string> seen_;
};

void add_fold(std::vector<FoldingLines>& out, std::uint32_t from, std::uint32_t to, bool comment) {
  if (to > from) out.push_back({from, to, comment});
}

/// Every `{`/`[` with its matching closer, as line ranges (the closer's line stays visible).
void bracket_folds(const SyntaxTree& tree, std::vector<FoldingLines>& out) {
  std::vector<TokenIndex> open;
  for (TokenIndex i = 0; i < tree.tokens.size(); ++i) {
    SyntaxKind kind = tree.tokens[i].kind;
    if (kind == SyntaxKind::kLBrace || kind == SyntaxKind::kLBracket) {
      open.push_back(i);
    } else if ((kind == SyntaxKind::kRBrace || kind == SyntaxKind::kRBracket) && !open.empty()) {
      TokenIndex o = open.back();
      open.pop_back();
      if (tree.tokens[i].line > 0) add_fold(out, tree.tokens[o].line, tree.tokens[i].line - 1, false);
    } else if (kind == SyntaxKind::kComment) {
      add_fold(out, tree.tokens[i].line, tree.tokens[i].end_line, true);
    }
  }
}

/// Runs of line comments on consecutive lines.
void comment_run_folds(const SyntaxTree& tree, std::vector<FoldingLines>& out) {
  std::size_t i = 0;
  while (i < tree.tokens.size()) {
    const SyntaxToken& t = tree.tokens[i];
    if (t.kind != SyntaxKind::kComment || t.end_line != t.line) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < tree.tokens.size() && tree.tokens[j + 1].kind == SyntaxKind::kComment &&
           tree.tokens[j + 1].line == tree.tokens[j].line + 1 &&
           tree.tokens[j + 1].end_line == tree.tokens[j + 1].line) {
      ++j;
    }
    add_fold(out, t.line, tree.tokens[j].line, true);
    i = j + 1;
  }
}

}  // namespace

std::vector<OutlineSymbol> document_symbols(const PipelineDocument& doc) { return OutlineBuilder(doc).run(); }

std::vector<FoldingLines> folding_ranges(const PipelineDocument& doc) {
  std::vector<FoldingLines> out;
  bracket_folds(doc.syntax(), out);
  comment_run_folds(doc.syntax(), out);
  std::sort(out.begin(), out.end(), [](const FoldingLines& a, const FoldingLines& b) {
    return a.start_line != b.start_line ? a.start_line < b.start_line : a.end_line > b.end_line;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace attractor
