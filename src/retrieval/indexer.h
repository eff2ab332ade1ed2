#pragma once
/// \file
/// `attractor index`: walks a source tree (respecting .gitignore), extracts C# and SQL symbols,
/// links the unified graph, applies the ACL file and writes the local index (SQLite + FAISS).
///
/// Incremental: a file whose content hash (FNV-1a 64 of its bytes plus its ACL decision) is
/// unchanged is skipped; nodes of deleted files are removed; the graph is relinked over the whole
/// scope so edges into changed files stay current; only new nodes are embedded. Node ids are unique
/// per scope: a second definition of the same id (e.g. partial classes) gets `@path` appended.

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "retrieval/embedder_spec.h"

namespace attractor::retrieval {

/// The default of IndexOptions::max_file_bytes (`attractor index --max-file-bytes`): 2 MiB.
inline constexpr int64_t kDefaultMaxFileBytes = int64_t{2} << 20;

struct IndexOptions {
  std::string src_dir;
  std::string index_dir;
  std::string repository;
  std::string branch;
  std::string snapshot;  ///< "" when not given
  std::string acl_file;  ///< "" for none
  std::string active_index = "default";
  EmbedderSpec embedder;             ///< provider for node vectors (default: lexical)
  std::string vector_kind = "flat";  ///< "flat" (exact) or "hnsw"
  /// A larger file is skipped with a warning (docs/decisions.md, "A 2 MiB limit per source file").
  int64_t max_file_bytes = kDefaultMaxFileBytes;
  /// `--include GLOB`: when any, only files matching one are indexed (docs/retrieval.md 8.3).
  std::vector<std::string> include_globs;
  /// `--exclude GLOB`: files and directories matching one are never indexed (docs/retrieval.md 8.3).
  std::vector<std::string> exclude_globs;
};

/// A problem with one file: a syntax error (the rest of the file is still indexed), or with line 0
/// a problem with the whole file (its encoding was guessed, or it was skipped: binary, too large,
/// unreadable). The message never holds raw control or invalid bytes.
struct FileIssue {
  std::string path;
  int line = 0;
  int column = 0;
  std::string message;
};

struct IndexSummary {
  int64_t files_seen = 0;
  int64_t files_indexed = 0;
  int64_t files_unchanged = 0;
  int64_t files_removed = 0;
  int64_t files_skipped = 0;  ///< binary, larger than max_file_bytes or unreadable; each has an issue
  int64_t nodes_added = 0;
  int64_t nodes_removed = 0;
  int64_t vectors_embedded = 0;
  std::map<std::string, int64_t> nodes_by_kind;  ///< whole scope after the run
  std::map<std::string, int64_t> edges_by_type;  ///< whole scope after the run
  std::vector<FileIssue> issues;                 ///< every file's, the unchanged files' (recorded earlier) too
  int64_t issues_unchanged = 0;                  ///< how many of `issues` belong to files not re-read this run
  double seconds = 0;
  int64_t index_bytes = 0;
};

/// Indexes `options.src_dir`. `progress` (may be null) receives a one-line progress bar redrawn with
/// '\r' when `interactive`, and the issues as `path:line:col: warning: message` lines
/// (`path: warning: message` for a whole-file issue). One bad file never fails the run: it is
/// skipped, listed in `issues` and counted in `files_skipped`.
/// Throws RetrievalError or std::invalid_argument (bad ACL file) on failure. The work is done by the
/// retrieval module (retrieval_module.h), loaded on first use: RetrievalModuleError when it is missing.
IndexSummary index_repository(const IndexOptions& options, std::ostream* progress = nullptr, bool interactive = false);

/// Human-readable summary (files, nodes and edges by type, time, index size).
std::string format_summary(const IndexSummary& summary);

}  // namespace attractor::retrieval
