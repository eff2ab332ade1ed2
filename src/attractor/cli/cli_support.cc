#include "attractor/cli/cli_support.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "attractor/base/closest_match.h"
#include "attractor/base/log.h"
#include "attractor/cli/cli.h"
#include "handlers/llm/provider_table.h"
#include "handlers/registry.h"

namespace attractor {

AuthoringCatalog builtin_authoring_catalog() {
  AuthoringCatalog catalog;
  catalog.handlers = &builtin_handler_catalog();
  catalog.providers = builtin_providers()->spellings();
  return catalog;
}

namespace {

/// "did you mean" lines for the arguments `app` did not expect that look like misspelt options.
std::string option_suggestions(const CLI::App& app) {
  std::vector<std::string> known;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) known.push_back("--" + name);
  }
  std::string out;
  for (const std::string& arg : app.remaining()) {
    if (arg.rfind("--", 0) != 0) continue;
    const std::string name = arg.substr(0, arg.find('='));
    std::string match = closest_match(name, known, std::max<std::size_t>(2, name.size() / 4));
    if (!match.empty()) out += fmt::format("unknown option {}; did you mean {}?\n", name, match);
  }
  return out;
}

}  // namespace

std::optional<int> parse_cli(CLI::App& app, int argc, char** argv) {
  std::string level = "warn";
  app.add_option("--log-level", level,
                 "operational messages on stderr from this level up (default warn); a run's run.log gets info and "
                 "up, or this level when lower")
      ->envname(std::string(kLogLevelVariable))
      ->check(CLI::IsMember(log_level_names()));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", app.help().c_str());
    return kExitSuccess;
  } catch (const CLI::CallForAllHelp&) {
    std::printf("%s", app.help("", CLI::AppFormatMode::All).c_str());
    return kExitSuccess;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\n%s(see `%s --help`)\n", app.get_name().c_str(), e.what(),
                 option_suggestions(app).c_str(), app.get_name().c_str());
    return kExitUsage;
  }
  set_log_level(*parse_log_level(level));
  return std::nullopt;
}

void print_diagnostics(const std::vector<Diagnostic>& diagnostics, const SourceFile* file) {
  for (const auto& d : diagnostics_capped_per_rule(diagnostics)) std::fputs(format_diagnostic(d, file).c_str(), stderr);
}

std::optional<std::string> read_input_or_report(std::string_view command, const std::string& path,
                                                const InputFileRules& rules) {
  InputFile file = read_input_file(path, rules);
  if (file.ok()) return std::move(file.text);
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(command.size()), command.data(), file.message.c_str());
  return std::nullopt;
}

std::optional<std::string> run_directory_problem(const std::string& run_dir, bool needs_manifest) {
  namespace fs = std::filesystem;
  if (auto problem = input_directory_problem(run_dir, "a run directory")) return problem;
  std::error_code ec;
  if (needs_manifest && !fs::exists(fs::path(run_dir) / "manifest.json", ec)) {
    return escape_control_bytes(run_dir) + ": not a run directory (no manifest.json)";
  }
  for (const char* name : {"manifest.json", "checkpoint.json"}) {
    const std::string path = (fs::path(run_dir) / name).string();
    if (!needs_manifest && !fs::exists(path, ec)) continue;  // the caller reports what is missing
    InputFile file = read_input_file(path, kJsonFileRules);
    if (!file.ok()) return file.message;
  }
  return std::nullopt;
}

std::optional<std::string> index_database_problem(const std::string& index_dir) {
  const std::string path = (std::filesystem::path(index_dir) / "index.sqlite").string();
  const std::string rebuild = " (build it with `attractor index`)";
  InputFile db = read_input_file(path, {"an index database", false, /*allow_binary=*/true, /*read_limit=*/16});
  if (db.problem == InputFileProblem::kMissing)
    return escape_control_bytes(index_dir) + ": no index database" + rebuild;
  if (db.problem == InputFileProblem::kEmpty) return escape_control_bytes(path) + ": file is empty" + rebuild;
  if (!db.ok()) return db.message;
  static constexpr std::string_view kSqliteHeader{"SQLite format 3\0", 16};
  if (db.text.compare(0, kSqliteHeader.size(), kSqliteHeader) != 0) {
    return escape_control_bytes(path) + ": not an index database" + rebuild;
  }
  return std::nullopt;
}

std::optional<int> check_index_directory(std::string_view command, const std::string& index_dir) {
  std::string prefix(command);
  if (!std::filesystem::exists(index_dir)) {
    std::fprintf(stderr, "%s: %s: no such directory (build the index with `attractor index`)\n", prefix.c_str(),
                 escape_control_bytes(index_dir).c_str());
    return kExitRuntime;
  }
  if (auto problem = input_directory_problem(index_dir, "an index directory")) {
    std::fprintf(stderr, "%s: %s\n", prefix.c_str(), problem->c_str());
    return kExitUsage;
  }
  if (auto problem = index_database_problem(index_dir)) {
    std::fprintf(stderr, "%s: %s\n", prefix.c_str(), problem->c_str());
    return kExitRuntime;
  }
  return std::nullopt;
}

}  // namespace attractor
