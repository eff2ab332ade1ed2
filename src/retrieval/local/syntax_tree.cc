#include "retrieval/local/syntax_tree.h"

#include <stdexcept>

#include "attractor/base/input_file.h"
#include "attractor/base/utf8.h"

extern "C" {
const TSLanguage* tree_sitter_c_sharp(void);
}

namespace attractor::retrieval {

SyntaxTree::SyntaxTree(Grammar grammar, std::string_view source) : SyntaxTree(grammar, source, source) {}

SyntaxTree::SyntaxTree(Grammar grammar, std::string_view source, std::string_view parse_text) : source_(source) {
  parser_ = ts_parser_new();
  const TSLanguage* language = tree_sitter_c_sharp();
  if (!ts_parser_set_language(parser_, language)) {
    ts_parser_delete(parser_);
    throw std::runtime_error("tree-sitter runtime rejected the grammar (ABI version mismatch)");
  }
  tree_ = ts_parser_parse_string(parser_, nullptr, parse_text.data(), static_cast<uint32_t>(parse_text.size()));
}

SyntaxTree::~SyntaxTree() {
  ts_tree_delete(tree_);
  ts_parser_delete(parser_);
}

TSNode SyntaxTree::root() const { return ts_tree_root_node(tree_); }

std::string_view SyntaxTree::text(TSNode node) const {
  if (ts_node_is_null(node)) return {};
  uint32_t b = ts_node_start_byte(node), e = ts_node_end_byte(node);
  if (e > source_.size() || b > e) return {};
  return source_.substr(b, e - b);
}

std::string_view node_type(TSNode node) { return ts_node_is_null(node) ? "" : ts_node_type(node); }

TSNode field(TSNode node, const char* name) {
  if (ts_node_is_null(node)) return node;
  return ts_node_child_by_field_name(node, name, static_cast<uint32_t>(std::char_traits<char>::length(name)));
}

std::vector<TSNode> named_children(TSNode node) {
  std::vector<TSNode> out;
  if (ts_node_is_null(node)) return out;
  uint32_t n = ts_node_named_child_count(node);
  out.reserve(n);
  for (uint32_t i = 0; i < n; ++i) out.push_back(ts_node_named_child(node, i));
  return out;
}

TSNode named_child(TSNode node, uint32_t i) {
  if (ts_node_is_null(node) || i >= ts_node_named_child_count(node)) return TSNode{};
  return ts_node_named_child(node, i);
}

TSNode parent(TSNode node) { return ts_node_is_null(node) ? node : ts_node_parent(node); }

TSNode prev_sibling(TSNode node) { return ts_node_is_null(node) ? node : ts_node_prev_sibling(node); }

int start_line(TSNode node) { return ts_node_is_null(node) ? 0 : static_cast<int>(ts_node_start_point(node).row) + 1; }

int end_line(TSNode node) {
  if (ts_node_is_null(node)) return 0;
  TSPoint p = ts_node_end_point(node);
  int line = static_cast<int>(p.row) + 1;
  if (p.column == 0 && line > start_line(node)) --line;
  return line;
}

namespace {

/// The first 40 characters of an ERROR node's text on one line, safe to print.
std::string error_snippet(std::string_view text) {
  std::string snippet(text.substr(0, utf8_prefix_size(text, 40)));
  for (auto& c : snippet) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return escape_control_bytes(snippet);
}

/// How deep collect_issues looks for errors (the C# extractor reports deeper nesting itself).
constexpr int kMaxIssueDepth = 1000;

void collect_issues(const SyntaxTree& tree, TSNode node, size_t limit, std::vector<ParseIssue>& out, int depth) {
  if (out.size() >= limit || depth > kMaxIssueDepth || !ts_node_has_error(node)) return;
  if (ts_node_is_missing(node)) {
    TSPoint p = ts_node_start_point(node);
    out.push_back(
        {static_cast<int>(p.row) + 1, static_cast<int>(p.column) + 1, "missing " + std::string(ts_node_type(node))});
    return;
  }
  if (node_type(node) == "ERROR") {
    TSPoint p = ts_node_start_point(node);
    out.push_back({static_cast<int>(p.row) + 1, static_cast<int>(p.column) + 1,
                   "syntax error near '" + error_snippet(tree.text(node)) + "'"});
    return;
  }
  uint32_t n = ts_node_child_count(node);
  for (uint32_t i = 0; i < n; ++i) collect_issues(tree, ts_node_child(node, i), limit, out, depth + 1);
}

}  // namespace

std::vector<ParseIssue> parse_issues(const SyntaxTree& tree, size_t limit) {
  std::vector<ParseIssue> out;
  collect_issues(tree, tree.root(), limit, out, 0);
  return out;
}

}  // namespace attractor::retrieval
