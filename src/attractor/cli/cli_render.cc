#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <CLI/CLI.hpp>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/cli/graphviz.h"
#include "attractor/check/pipeline_loader.h"
#include "handlers/registry.h"
#include "attractor/cli/render_dot.h"
#include "attractor/cli/run_overlay.h"

namespace attractor {

int run_render_command(int argc, char** argv) {
  CLI::App app{"Draw a pipeline with Graphviz. The output format follows the extension of -o: "
               ".svg, .png and .pdf run Graphviz `dot`; .dot writes the presentation DOT itself. "
               "Without -o the presentation DOT goes to stdout. With --run, nodes are coloured by "
               "their outcome in that run and the path taken is drawn in bold."};
  app.name("attractor render");
  std::string path, output, run_dir;
  app.add_option("GRAPH", path, "pipeline .dot file")->required();
  app.add_option("-o,--output", output, "output file: OUT.svg, OUT.png, OUT.pdf or OUT.dot");
  app.add_option("--run", run_dir, "run directory whose outcomes to draw");
  if (auto code = parse_cli(app, argc, argv)) return *code;

  std::string format;
  if (!output.empty()) {
    format = std::filesystem::path(output).extension().string();
    if (!format.empty()) format.erase(0, 1);
    if (format != "svg" && format != "png" && format != "pdf" && format != "dot") {
      std::fprintf(stderr, "attractor render: cannot tell the format of '%s'; use .svg, .png, .pdf or .dot\n",
                   output.c_str());
      return kExitUsage;
    }
  }

  // Deliberately never freed: the process exits right after, and tearing down a large graph
  // costs more than a tenth of the command's time.
  std::optional<std::string> text = read_input_or_report(app.get_name(), path, kDotFileRules);
  if (!text) return kExitUsage;
  LoadedPipeline& loaded = *new LoadedPipeline(load_pipeline_text(path, std::move(*text), builtin_handler_catalog()));
  print_diagnostics(loaded.diagnostics, loaded.source.get());
  if (!loaded.graph) return kExitUsage;

  RunOverlay overlay;
  if (!run_dir.empty()) {
    if (auto problem = run_directory_problem(run_dir, false)) {
      std::fprintf(stderr, "attractor render: %s\n", problem->c_str());
      return kExitUsage;
    }
    try {
      overlay = load_run_overlay(run_dir);
    } catch (const RunDirectoryError& e) {
      std::fprintf(stderr, "attractor render: %s\n", e.what());
      return kExitUsage;
    }
  }
  std::string dot = render_dot(*loaded.graph, builtin_handler_catalog(), run_dir.empty() ? nullptr : &overlay);

  if (output.empty()) {
    std::fwrite(dot.data(), 1, dot.size(), stdout);
    return kExitSuccess;
  }
  if (format == "dot") {
    std::ofstream out(output, std::ios::binary);
    out << dot;
    if (!out.flush()) {
      std::fprintf(stderr, "attractor render: cannot write '%s'\n", output.c_str());
      return kExitRuntime;
    }
  } else {
    DotProcessRenderer renderer;
    RenderResult result = renderer.render(dot, format, output);
    if (!result.ok) {
      std::fprintf(stderr, "attractor render: %s\n", result.error.c_str());
      return kExitRuntime;
    }
  }
  std::fprintf(stderr, "wrote %s\n", output.c_str());
  return kExitSuccess;
}

}  // namespace attractor
