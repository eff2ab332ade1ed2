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
  /// Source text of a node; "" for a null node or a span outside the source.
  std::string_view text(TSNode node) const;

 private:
  std::string_view source_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
};

// Every accessor below takes a null node (a missing field, a parent of the root), which the
// tree-sitter C API would dereference: text and type are empty, children none, lines 0. The
// extractors read nodes only through them (docs/retrieval.md, "Parse issues").

/// The node's grammar type name; "" for a null node.
std::string_view node_type(TSNode node);
/// Child by field name; a null node when absent or when `node` is null.
TSNode field(TSNode node, const char* name);
/// Named children of a node; none for a null node.
std::vector<TSNode> named_children(TSNode node);
/// Named child `i`; a null node when there is none.
TSNode named_child(TSNode node, uint32_t i);
/// The parent; a null node for the root or a null node.
TSNode parent(TSNode node);
/// The previous sibling (named or not); a null node when there is none.
TSNode prev_sibling(TSNode node);
/// 1-based line of the node's first byte; 0 for a null node.
int start_line(TSNode node);
/// 1-based line of the node's last byte; 0 for a null node.
int end_line(TSNode node);

/// A syntax error found in a tree: 1-based line and column.
struct ParseIssue {
  int line = 0;
  int column = 0;
  std::string message;
};

/// ERROR and MISSING nodes of a tree, in source order, at most `limit`. A message quotes at most 40
/// characters of the source, with control and invalid bytes escaped (`\x01`).
std::vector<ParseIssue> parse_issues(const SyntaxTree& tree, size_t limit = 20);

}  // namespace attractor::retrieval
