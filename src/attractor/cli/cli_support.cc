#include "attractor/cli/cli_support.h"

#include <cstdio>
#include <filesystem>
#include <string>

#include "attractor/base/log.h"
#include "attractor/cli/cli.h"

namespace attractor {

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
    std::fprintf(stderr, "%s: %s\n(see `%s --help`)\n", app.get_name().c_str(), e.what(), app.get_name().c_str());
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

}  // namespace attractor
