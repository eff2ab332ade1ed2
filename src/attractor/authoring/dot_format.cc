#include "attractor/authoring/dot_format.h"

#include <algorithm>
#include <memory>

#include "attractor/authoring/attribute_lookup.h"
#include "attractor/model/value.h"
#include "parser/dot_lexemes.h"
#include "parser/dot_parser.h"
#include "parser/dot_writer.h"

namespace attractor {

namespace {

constexpr std::string_view kIndentUnit = "    ";

std::size_t rank_in(const std::vector<AttributeSpec>& specs, std::string_view key) {
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name == key) return i;
  }
  return specs.size();
}

class Formatter {
 public:
  explicit Formatter(const SyntaxTree& tree) : tree_(tree) {}

  std::string one(const SyntaxStmt& s, int level) {
    statement(s, level);
    return std::move(out_);
  }

  std::string run() {
    comments(tree_.leading, 0, true);
    if (!tree_.leading.empty() && tree_.tokens[tree_.graph_kw].blank_line_before) out_ += '\n';
    if (tree_.strict_kw != kNoToken) out_ += "strict ";
    out_ += "digraph";
    if (tree_.name != kNoToken) {
      out_ += ' ';
      out_ += id_text(tree_.name);
    }
    out_ += " {\n";
    block(tree_.body, 1);
    out_ += "}\n";
    comments(tree_.trailing, 0, true);
    return std::move(out_);
  }

 private:
  std::string_view text(TokenIndex i) const { return tree_.token_text(i); }

  /// Token `i` without its quotes when `bare_ok` accepts the text and it is no DOT keyword.
  std::string unquoted(TokenIndex i, bool (*bare_ok)(std::string_view)) const {
    std::optional<std::string_view> plain = plain_token_text(tree_, i);
    if (tree_.tokens[i].kind == SyntaxKind::kString && plain && bare_ok(*plain) && !dot::is_dot_keyword(*plain)) {
      return std::string(*plain);
    }
    return std::string(text(i));
  }
  /// A key (dotted names allowed) without quotes when it needs none.
  std::string id_text(TokenIndex i) const { return unquoted(i, dot::is_attribute_key); }
  /// A node id without quotes when it needs none.
  std::string node_id_text(TokenIndex i) const { return unquoted(i, is_identifier); }

  std::string value_text(const SyntaxValue& v) const {
    std::string out;
    for (TokenIndex i = v.first; i <= v.last; ++i) {
      SyntaxKind kind = tree_.tokens[i].kind;
      if (kind == SyntaxKind::kComment) continue;
      if (kind == SyntaxKind::kPlus) {
        out += " + ";
      } else {
        out += text(i);
      }
    }
    return out;
  }

  void indent(int level) {
    for (int i = 0; i < level; ++i) out_ += kIndentUnit;
  }

  /// Each comment on a line of its own at `level` (block comments as written).
  void comments(const std::vector<TokenIndex>& list, int level, bool keep_blank_lines = false) {
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (keep_blank_lines && k > 0 && tree_.tokens[list[k]].blank_line_before) out_ += '\n';
      indent(level);
      out_ += text(list[k]);
      out_ += '\n';
    }
  }

  void trailing(const std::vector<TokenIndex>& list) {
    for (TokenIndex c : list) {
      out_ += ' ';
      out_ += text(c);
    }
  }

  void block(const SyntaxBlock& b, int level) {
    for (std::size_t k = 0; k < b.stmts.size(); ++k) {
      if (k > 0 && b.stmts[k].blank_line_before) out_ += '\n';
      statement(b.stmts[k], level);
    }
    if (!b.dangling.empty() && !b.stmts.empty() && tree_.tokens[b.dangling.front()].blank_line_before) out_ += '\n';
    comments(b.dangling, level);
  }

  void statement(const SyntaxStmt& s, int level) {
    comments(s.leading, level, true);
    comments(s.inner, level);
    if ((!s.leading.empty() || !s.inner.empty()) && tree_.tokens[s.first].blank_line_before) out_ += '\n';
    indent(level);
    switch (s.kind) {
      case SyntaxStmt::Kind::kDefaults: {
        std::string head(text(s.keyword));
        std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
        attr_lists(head, s,
                   head == "graph"  ? AttributeScope::kGraph
                   : head == "edge" ? AttributeScope::kEdge
                                    : AttributeScope::kNode,
                   level);
        break;
      }
      case SyntaxStmt::Kind::kAssign:
        out_ += id_text(s.ids[0]);
        out_ += '=';
        if (s.value) out_ += value_text(*s.value);
        trailing(s.trailing);
        out_ += '\n';
        break;
      case SyntaxStmt::Kind::kNode: attr_lists(node_id_text(s.ids[0]), s, AttributeScope::kNode, level); break;
      case SyntaxStmt::Kind::kEdge: {
        std::string head;
        for (std::size_t k = 0; k < s.ids.size(); ++k) {
          if (k > 0) head += " -> ";
          head += node_id_text(s.ids[k]);
        }
        attr_lists(head, s, AttributeScope::kEdge, level);
        break;
      }
      case SyntaxStmt::Kind::kSubgraph: subgraph(s, level); break;
      case SyntaxStmt::Kind::kError:
        out_ += text(s.first);
        out_ += '\n';
        break;
    }
  }

  void subgraph(const SyntaxStmt& s, int level) {
    if (s.keyword != kNoToken) {
      out_ += "subgraph ";
      if (!s.ids.empty()) {
        out_ += node_id_text(s.ids[0]);
        out_ += ' ';
      }
    }
    out_ += '{';
    trailing(s.trailing);
    out_ += '\n';
    block(s.body.front(), level + 1);
    indent(level);
    out_ += "}\n";
  }

  struct Item {
    const SyntaxAttr* attr;
    std::size_t rank;
    std::string name;
    std::string text;
  };

  std::vector<Item> items_of(const SyntaxStmt& s, AttributeScope scope) const {
    std::vector<Item> items;
    const auto& table = attribute_table(scope);
    for (const SyntaxAttrList& list : s.lists) {
      for (const SyntaxAttr& a : list.attrs) {
        std::string name = id_text(a.key);
        std::optional<std::string_view> plain = plain_token_text(tree_, a.key);
        std::size_t rank = plain ? rank_in(table, *plain) : table.size();
        std::string item = name + "=" + (a.value ? value_text(*a.value) : std::string());
        items.push_back({&a, rank, plain ? std::string(*plain) : name, std::move(item)});
      }
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
      if (x.rank != y.rank) return x.rank < y.rank;
      return x.name < y.name;
    });
    return items;
  }

  bool needs_break(const std::string& head, const SyntaxStmt& s, const std::vector<Item>& items, int level) const {
    std::size_t width = level * kIndentUnit.size() + head.size() + 3;
    for (const Item& item : items) {
      if (!item.attr->leading.empty() || !item.attr->trailing.empty()) return true;
      if (item.text.find('\n') != std::string::npos) return true;
      width += item.text.size() + 2;
    }
    for (const SyntaxAttrList& list : s.lists) {
      if (!list.dangling.empty()) return true;
    }
    return width > kFormatWidth;
  }

  void attr_lists(const std::string& head, const SyntaxStmt& s, AttributeScope scope, int level) {
    out_ += head;
    std::vector<Item> items = items_of(s, scope);
    if (items.empty()) {
      if (!s.lists.empty() && s.keyword != kNoToken) out_ += " []";
      std::vector<TokenIndex> dangling;
      for (const SyntaxAttrList& list : s.lists)
        dangling.insert(dangling.end(), list.dangling.begin(), list.dangling.end());
      trailing(s.trailing);
      out_ += '\n';
      comments(dangling, level);
      return;
    }
    if (!needs_break(head, s, items, level)) {
      out_ += " [";
      for (std::size_t k = 0; k < items.size(); ++k) {
        if (k > 0) out_ += ", ";
        out_ += items[k].text;
      }
      out_ += ']';
      trailing(s.trailing);
      out_ += '\n';
      return;
    }
    out_ += " [\n";
    for (const Item& item : items) {
      comments(item.attr->leading, level + 1);
      indent(level + 1);
      out_ += item.text;
      out_ += ',';
      trailing(item.attr->trailing);
      out_ += '\n';
    }
    for (const SyntaxAttrList& list : s.lists) comments(list.dangling, level + 1);
    indent(level);
    out_ += ']';
    trailing(s.trailing);
    out_ += '\n';
  }

  const SyntaxTree& tree_;
  std::string out_;
};

bool block_formattable(const SyntaxBlock& block) {
  if (block.open == kNoToken || block.close == kNoToken) return false;
  for (const SyntaxStmt& s : block.stmts) {
    if (s.kind == SyntaxStmt::Kind::kError) return false;
    if (s.kind == SyntaxStmt::Kind::kAssign && !s.value) return false;
    if (s.kind == SyntaxStmt::Kind::kEdge && s.ids.size() < 2) return false;
    if (s.kind == SyntaxStmt::Kind::kDefaults && s.lists.empty()) return false;
    for (const SyntaxAttrList& list : s.lists) {
      if (list.close == kNoToken) return false;
      for (const SyntaxAttr& a : list.attrs) {
        if (!a.value) return false;
      }
    }
    for (const SyntaxBlock& inner : s.body) {
      if (!block_formattable(inner)) return false;
    }
  }
  return true;
}

}  // namespace

bool formattable(const SyntaxTree& tree) {
  if (!tree.complete) return false;
  for (const SyntaxToken& t : tree.tokens) {
    if (t.unterminated) return false;
  }
  return block_formattable(tree.body);
}

std::string format_syntax(const SyntaxTree& tree) { return Formatter(tree).run(); }

std::string format_statement(const SyntaxTree& tree, const SyntaxStmt& stmt, int level) {
  return Formatter(tree).one(stmt, level);
}

FormatResult format_pipeline_text(const std::string& path, std::string_view text) {
  FormatResult result;
  ParseResult before = parse_dot(std::make_shared<SourceFile>(path, std::string(text)));
  if (!before.ok()) {
    result.diagnostics = std::move(before.diagnostics);
    return result;
  }
  SyntaxTree tree = read_syntax(text);
  if (!formattable(tree)) {
    result.diagnostics.push_back(make_diagnostic("format", Severity::kError,
                                                 "the file parses, but its layout is not one the formatter reads", "",
                                                 "report it with the file attached", {}));
    return result;
  }
  std::string formatted = format_syntax(tree);
  ParseResult after = parse_dot(std::make_shared<SourceFile>(path, formatted));
  if (!after.ok() || write_dot(*after.graph) != write_dot(*before.graph)) {
    result.diagnostics.push_back(make_diagnostic("format", Severity::kError,
                                                 "formatting would change the graph; the file is left as it is", "",
                                                 "report it with the file attached", {}));
    return result;
  }
  result.text = std::move(formatted);
  return result;
}

}  // namespace attractor
