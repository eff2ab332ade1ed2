#pragma once
/// \file
/// Small helpers shared by the subcommands: CLI11 parsing with the project's exit codes and
/// diagnostic printing.

#include <optional>
#include <vector>

#include <CLI/CLI.hpp>

#include "attractor/model/diagnostic.h"

namespace attractor {

/// Parses argv with CLI11. Returns nullopt to continue, or the exit code to return at once
/// (0 after --help, 2 after a usage error, with the message on stderr).
std::optional<int> parse_cli(CLI::App& app, int argc, char** argv);

/// Prints diagnostics in compiler form on stderr.
void print_diagnostics(const std::vector<Diagnostic>& diagnostics, const SourceFile* file);

}  // namespace attractor
