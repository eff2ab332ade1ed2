#pragma once
/// \file
/// The canonical layout of a pipeline file, for `attractor fmt` and the language server's
/// formatting (docs/authoring.md, "attractor fmt"):
///
///   1. One statement per line, four spaces per level of subgraph nesting, no `;`.
///   2. A node's, an edge's or a default block's attribute lists become one `[...]`; attributes
///      are ordered as the attribute tables list them for that statement (node, edge or graph:
///      `label`, `shape`, `type`, `prompt`, ... for a node), then every other name alphabetically;
///      attributes with the same name keep their order, so the last still wins.
///   3. `key=value` with `, ` between attributes, on one line when it fits in kFormatWidth columns
///      and holds no comment or multi-line value; otherwise one attribute per line, each followed
///      by `,`, and `]` on a line of its own.
///   4. Quoted ids and keys that need no quotes lose them; values are written as they were (a
///      quoted `"3"` is a string, a bare `3` an integer), concatenations as `"a" + "b"`.
///   5. Every comment is kept: on the lines before the statement or attribute it preceded, or
///      after the one it followed on the same line. A single empty line between statements, or
///      between a statement's comments and itself, is kept; several become one.
///
/// Formatting is idempotent, and `format_pipeline_text` checks that the result reads back to the
/// same graph before it returns it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/authoring/dot_syntax.h"
#include "attractor/model/diagnostic.h"

namespace attractor {

/// Width an attribute list may fill before it is broken onto one line per attribute.
inline constexpr std::size_t kFormatWidth = 100;

/// The canonical text of `tree`. Precondition: tree.complete and no kError statement (a
/// half-typed file is not formatted).
std::string format_syntax(const SyntaxTree& tree);

/// The canonical text of `stmt` of `tree` at nesting `level` (1 for the graph's body), each line
/// indented and ending with a newline, its leading and trailing comments included.
std::string format_statement(const SyntaxTree& tree, const SyntaxStmt& stmt, int level);

/// True when `tree` can be formatted: complete, no error statements, every list closed.
bool formattable(const SyntaxTree& tree);

/// What formatting a file gave.
struct FormatResult {
  std::optional<std::string> text;      ///< the formatted text; absent when the file does not parse
  std::vector<Diagnostic> diagnostics;  ///< the parse errors that prevented formatting
};

/// Parses `text` (the diagnostics name `path`), formats it and checks that the result parses to
/// the same graph. Lint is not run: a pipeline with lint errors is still formatted.
FormatResult format_pipeline_text(const std::string& path, std::string_view text);

}  // namespace attractor
