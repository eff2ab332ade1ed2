#include "attractor/cli/cli_support.h"

#include <cstdio>
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
  for (const auto& d : diagnostics) std::fputs(format_diagnostic(d, file).c_str(), stderr);
}

}  // namespace attractor
