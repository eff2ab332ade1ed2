// `attractor index`: builds or updates the local code index of a C# + SQL repository.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "retrieval/backend.h"
#include "retrieval/indexer.h"

namespace attractor {

namespace rt = ::attractor::retrieval;

namespace {

/// The problem with the paths the user named (checked before indexing starts, exit 2): SRC_DIR
/// must be a directory, `--index` a directory or not exist yet, `--acl` a readable JSON file.
std::optional<std::string> index_input_problem(const rt::IndexOptions& o) {
  if (auto problem = input_directory_problem(o.src_dir, "a source directory")) return problem;
  if (std::filesystem::exists(o.index_dir)) {
    if (auto problem = input_directory_problem(o.index_dir, "an index directory")) return problem;
  }
  if (!o.acl_file.empty()) {
    if (InputFile acl = read_input_file(o.acl_file, kJsonFileRules); !acl.ok()) return acl.message;
  }
  return std::nullopt;
}

/// True (after saying so on stderr) when the tree had files but every one was skipped.
bool nothing_read(const rt::IndexSummary& s) {
  if (s.files_seen == 0 || s.files_skipped < s.files_seen) return false;
  std::fprintf(stderr,
               "attractor index: error: none of the %lld source files could be read (each was skipped; the "
               "warnings name them, run without --quiet to see them)\n",
               static_cast<long long>(s.files_seen));
  return true;
}

}  // namespace

int run_index_command(int argc, char** argv) {
  CLI::App app{
      "Index a C# + SQL source tree (tree-sitter symbols, unified dependency graph, BM25 and vectors) "
      "into a local index directory. Re-running skips unchanged files and drops deleted ones. "
      "A binary, too large or unreadable file is skipped with a warning; exit 2 on usage errors (bad "
      "options, unreadable ACL file), 3 on index or embedding failures or when no file could be read."};
  app.name("attractor index");
  rt::IndexOptions o;
  o.embedder = rt::EmbedderSpec::from_environment();
  bool quiet = false;
  app.add_option("SRC_DIR", o.src_dir, "source tree to index (.gitignore is respected)")->required();
  app.add_option("--index", o.index_dir, "index directory (created when missing)")->required();
  app.add_option("--repository", o.repository, "repository name (part of every node's scope)")->required();
  app.add_option("--branch", o.branch, "branch name (part of every node's scope)")->required();
  app.add_option("--snapshot", o.snapshot, "snapshot id, e.g. a commit; searches default to the latest indexed");
  app.add_option("--acl", o.acl_file, "ACL file: glob patterns -> acl_tags, classification_labels, metadata (JSON)");
  app.add_option("--active-index", o.active_index, "named index inside the directory (default: default)");
  app.add_option("--embedder", o.embedder.provider,
                 "embedding provider: lexical (offline, default) or openai (OpenAI-compatible /v1/embeddings); "
                 "env ATTRACTOR_EMBEDDINGS_PROVIDER");
  app.add_option("--embedding-model", o.embedder.model, "model name (env ATTRACTOR_EMBEDDINGS_MODEL)");
  app.add_option("--embedding-base-url", o.embedder.base_url,
                 "OpenAI-compatible base URL (env ATTRACTOR_EMBEDDINGS_BASE_URL; key from "
                 "ATTRACTOR_EMBEDDINGS_API_KEY or OPENAI_API_KEY)");
  app.add_option("--embedding-dimensions", o.embedder.dimension, "vector dimension (lexical default 256)");
  app.add_option("--vector-index", o.vector_kind, "flat (exact, default) or hnsw (approximate, for large indexes)");
  app.add_option("--max-file-bytes", o.max_file_bytes,
                 "skip (with a warning) any source file larger than this many bytes (default 2097152, 2 MiB)")
      ->check(CLI::PositiveNumber);
  app.add_option("--include", o.include_globs,
                 "index only files matching GLOB (repeatable; a match on a parent directory counts; "
                 ".gitignore still applies)")
      ->type_name("GLOB")
      ->allow_extra_args(false);
  app.add_option("--exclude", o.exclude_globs,
                 "never index files or directories matching GLOB (repeatable; wins over --include)")
      ->type_name("GLOB")
      ->allow_extra_args(false);
  app.add_flag("--quiet,-q", quiet, "no progress bar, no warnings; summary only");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (auto problem = index_input_problem(o)) {
    std::fprintf(stderr, "attractor index: %s\n", problem->c_str());
    return kExitUsage;
  }

  try {
    bool interactive = !quiet && isatty(STDERR_FILENO);
    auto summary = rt::index_repository(o, quiet ? nullptr : &std::cerr, interactive);
    std::cout << rt::format_summary(summary);
    return nothing_read(summary) ? kExitRuntime : kExitSuccess;
  } catch (const rt::RetrievalError& e) {
    std::fprintf(stderr, "attractor index: error: %s\n", e.what());
    return e.kind() == rt::RetrievalError::Kind::kInvalidArgument ? kExitUsage : kExitRuntime;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "attractor index: error: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor index: error: %s\n", e.what());
    return kExitRuntime;
  }
}

}  // namespace attractor
