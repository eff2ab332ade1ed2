#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/check/pipeline_loader.h"
#include "handlers/registry.h"

namespace attractor {

namespace {

/// A graph file that cannot be read as text: one line on stderr, or with --json one diagnostic
/// (rule "input_file") on stdout.
int report_bad_input(const InputFile& input, bool json) {
  if (json) {
    SourceLocation at;
    at.line = input.line;
    at.column = input.column;
    Diagnostic d = make_diagnostic("input_file", Severity::kError, input.message, "", "", at);
    std::printf("%s\n", nlohmann::json::array({diagnostic_to_json(d)}).dump(2).c_str());
  } else {
    std::fprintf(stderr, "attractor validate: %s\n", input.message.c_str());
  }
  return kExitUsage;
}

}  // namespace

int run_validate_command(int argc, char** argv) {
  CLI::App app{
      "Parse, transform and lint a pipeline. Prints diagnostics in compiler form "
      "(FILE:LINE:COL: severity: [rule] message); exit 0 when there are no errors, 2 otherwise (with --strict, "
      "warnings count as errors)."};
  app.name("attractor validate");
  std::string path;
  bool json = false;
  LintOptions options;
  app.add_option("GRAPH", path, "pipeline .dot file")->required();
  app.add_flag("--json", json, "print the diagnostics as a JSON array on stdout");
  app.add_flag("--strict", options.strict, "treat warnings as errors (as graph attribute strict=true does), for CI");
  if (auto code = parse_cli(app, argc, argv)) return *code;

  InputFile input = read_input_file(path, kDotFileRules);
  if (!input.ok()) return report_bad_input(input, json);
  // Deliberately never freed: the process exits right after, and tearing down a large graph
  // costs more than a tenth of the command's time.
  LoadedPipeline& loaded = *new LoadedPipeline(
      load_pipeline_text(path, std::move(input.text), builtin_handler_catalog(), options));
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : diagnostics_capped_per_rule(loaded.diagnostics)) out.push_back(diagnostic_to_json(d));
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    print_diagnostics(loaded.diagnostics, loaded.source.get());
    std::size_t errors = 0, warnings = 0;
    for (const auto& d : loaded.diagnostics) {
      if (d.severity == Severity::kError) ++errors;
      if (d.severity == Severity::kWarning) ++warnings;
    }
    if (errors == 0) {
      const Graph& g = *loaded.graph;
      std::fprintf(stderr, "%s: ok: %zu nodes, %zu edges, %zu warning%s\n", path.c_str(), g.node_count(),
                   g.edge_count(), warnings, warnings == 1 ? "" : "s");
    } else {
      std::fprintf(stderr, "%s: %zu error%s, %zu warning%s\n", path.c_str(), errors, errors == 1 ? "" : "s", warnings,
                   warnings == 1 ? "" : "s");
    }
  }
  return loaded.ok() ? kExitSuccess : kExitUsage;
}

}  // namespace attractor
