#pragma once
/// \file
/// RAII wrappers over the tree-sitter C API and the grammar the indexer uses (C#; T-SQL is read by
/// tsql_lexer / tsql_script, see docs/retrieval-sql.md).

#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

namespace attractor::retrieval {

/// The grammars compiled into attractor_third_party.
enum class Grammar { kCSharp };

/// A parse tree that owns its TSTree and keeps a view of the source it was parsed from.
class SyntaxTree {
 public:
  /// Parses `source` (which must outlive the tree). Throws std::runtime_error if the runtime rejects
  /// the grammar (ABI mismatch).
  SyntaxTree(Grammar grammar, std::string_view source);
  /// Parses `parse_text` (same length as `source`, e.g. with preprocessor lines masked) while
  /// text() keeps reading `source`; `parse_text` may be dropped after construction.
  SyntaxTree(Grammar grammar, std::string_view source, std::string_view parse_text);
  ~SyntaxTree();
  SyntaxTree(const SyntaxTree&) = delete;
  SyntaxTree& operator=(const SyntaxTree&) = delete;

  TSNode root() const;
  std::string_view source() const { return source_; }
  /// Source text of a node.
  std::string_view text(TSNode node) const;

 private:
  std::string_view source_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
};

/// The node's grammar type name.
inline std::string_view node_type(TSNode node) { return ts_node_type(node); }
/// Child by field name, possibly null (check with ts_node_is_null).
TSNode field(TSNode node, const char* name);
/// Named children of a node.
std::vector<TSNode> named_children(TSNode node);
/// 1-based line of the node's first byte.
inline int start_line(TSNode node) { return static_cast<int>(ts_node_start_point(node).row) + 1; }
/// 1-based line of the node's last byte.
int end_line(TSNode node);

/// A syntax error found in a tree: 1-based line and column.
struct ParseIssue {
  int line = 0;
  int column = 0;
  std::string message;
};

/// ERROR and MISSING nodes of a tree, in source order, at most `limit`.
std::vector<ParseIssue> parse_issues(const SyntaxTree& tree, size_t limit = 20);

}  // namespace attractor::retrieval
