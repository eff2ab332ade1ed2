#include "attractor/cli/cli_support.h"

#include <cstdio>

#include "attractor/cli/cli.h"

namespace attractor {

std::optional<int> parse_cli(CLI::App& app, int argc, char** argv) {
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
  return std::nullopt;
}

void print_diagnostics(const std::vector<Diagnostic>& diagnostics, const SourceFile* file) {
  for (const auto& d : diagnostics) std::fputs(format_diagnostic(d, file).c_str(), stderr);
}

}  // namespace attractor
