#pragma once
/// \file
/// Small helpers shared by the subcommands: CLI11 parsing with the project's exit codes and
/// diagnostic printing.

#include <optional>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "attractor/model/diagnostic.h"

namespace attractor {

/// The environment variable that sets `--log-level` when the flag is not given.
inline constexpr std::string_view kLogLevelVariable = "ATTRACTOR_LOG_LEVEL";

/// Adds `--log-level` (every command has it), parses argv with CLI11 and sets the process log
/// level (attractor/base/log.h). Returns nullopt to continue, or the exit code to return at once
/// (0 after --help, 2 after a usage error, with the message on stderr).
std::optional<int> parse_cli(CLI::App& app, int argc, char** argv);

/// Prints diagnostics in compiler form on stderr.
void print_diagnostics(const std::vector<Diagnostic>& diagnostics, const SourceFile* file);

}  // namespace attractor
