#pragma once
/// \file
/// Small helpers shared by the subcommands: CLI11 parsing with the project's exit codes and
/// diagnostic printing.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "attractor/authoring/pipeline_document.h"
#include "attractor/base/input_file.h"
#include "attractor/model/diagnostic.h"

namespace attractor {

/// The environment variable that sets `--log-level` when the flag is not given.
inline constexpr std::string_view kLogLevelVariable = "ATTRACTOR_LOG_LEVEL";

/// Adds `--log-level` (every command has it), parses argv with CLI11 and sets the process log
/// level (attractor/base/log.h). Returns nullopt to continue, or the exit code to return at once
/// (0 after --help, 2 after a usage error, with the message on stderr).
std::optional<int> parse_cli(CLI::App& app, int argc, char** argv);

/// The handler catalog and provider names of the built-in registries, for the editing tools
/// (`lsp`, `new`).
AuthoringCatalog builtin_authoring_catalog();

/// Prints diagnostics in compiler form on stderr, at most kMaxDiagnosticsPerRule of each rule
/// (diagnostics_capped_per_rule: the count of the rest is printed instead).
void print_diagnostics(const std::vector<Diagnostic>& diagnostics, const SourceFile* file);

/// Reads the file the user named as `path` (attractor/base/input_file.h). On a problem prints
/// `COMMAND: MESSAGE` on stderr (COMMAND is e.g. "attractor validate") and returns nullopt; the
/// caller then exits with kExitUsage.
std::optional<std::string> read_input_or_report(std::string_view command, const std::string& path,
                                                const InputFileRules& rules);

/// The problem with `run_dir` as the run directory of `resume` or `render --run`, checked on the
/// real file system before its JSON is parsed: not a directory, no `manifest.json` (when
/// `needs_manifest`), or a `manifest.json` / `checkpoint.json` that is a directory, unreadable,
/// empty or binary. One line without the command prefix; nullopt when none of these applies.
std::optional<std::string> run_directory_problem(const std::string& run_dir, bool needs_manifest);

/// The problem with `DIR/index.sqlite` of an existing index directory: missing, unreadable, empty
/// or not an SQLite database. These are environment errors (exit 3), like a missing `--index`
/// directory: the index needs building or rebuilding. A file given as `--index` is exit 2.
std::optional<std::string> index_database_problem(const std::string& index_dir);

/// Checks `--index DIR` of a command that reads an index: prints `COMMAND: problem` on stderr and
/// returns the exit code (3 missing or not an index database, 2 not a directory), or nullopt.
std::optional<int> check_index_directory(std::string_view command, const std::string& index_dir);

}  // namespace attractor
