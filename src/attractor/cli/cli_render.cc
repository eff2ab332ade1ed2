#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/launch/graphviz.h"
#include "attractor/check/pipeline_loader.h"
#include "handlers/registry.h"
#include "attractor/launch/render_dot.h"
#include "attractor/launch/run_overlay.h"
#include "attractor/base/sha256.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_directory.h"

namespace attractor {

namespace {

/// Whether the run in `run_dir` is a run of `graph` (read from `path` as `text`): "" when it is or
/// when its manifest cannot tell; otherwise the problem. A run of the same pipeline from an edited
/// file is drawn with a warning on stderr.
std::string run_of_another_graph(const std::string& run_dir, const std::string& path, const std::string& sha256,
                                 const Graph& graph) {
  Manifest manifest;
  try {
    manifest = read_manifest(run_dir);
  } catch (const std::exception&) {
    return "";
  }
  if (manifest.graph_sha256.empty() || manifest.graph_sha256 == sha256) return "";
  if (manifest.name != graph.name()) {
    return fmt::format(
        "{} is a run of pipeline `{}` ({}), not of `{}` ({}); pass that file, or --force to draw it "
        "anyway",
        run_dir, manifest.name, manifest.graph_path, graph.name(), path);
  }
  std::fprintf(stderr,
               "attractor render: warning: %s changed since the run in %s (its sha256 differs from the "
               "manifest's); nodes it no longer has are not drawn\n",
               path.c_str(), run_dir.c_str());
  return "";
}

/// Writes `bytes` to `path` whole or not at all: a temp file renamed into place, with Ctrl-C,
/// SIGTERM and SIGHUP held back meanwhile (delivered once the file is whole). False, with the
/// reason on stderr, when the write fails.
bool write_whole_output(const std::string& path, std::string_view bytes) {
  sigset_t stops, old;
  sigemptyset(&stops);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, sig);
  ::sigprocmask(SIG_BLOCK, &stops, &old);
  bool ok = true;
  try {
    PosixRunDisk disk;
    std::string_view parts[] = {bytes};
    disk.write_file_atomic(path, parts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor render: %s\n", e.what());
    ok = false;
  }
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

}  // namespace

int run_render_command(int argc, char** argv) {
  CLI::App app{
      "Draw a pipeline with Graphviz. The output format follows the extension of -o: "
      ".svg, .png and .pdf run Graphviz `dot`; .dot writes the presentation DOT itself. "
      "Without -o the presentation DOT goes to stdout. With --run, nodes are coloured by "
      "their outcome in that run and the path taken is drawn in bold."};
  app.name("attractor render");
  std::string path, output, run_dir;
  app.add_option("GRAPH", path, "pipeline .dot file")->required();
  app.add_option("-o,--output", output, "output file: OUT.svg, OUT.png, OUT.pdf or OUT.dot");
  app.add_option("--run", run_dir, "run directory whose outcomes to draw");
  bool force = false;
  app.add_flag("--force", force, "draw --run even when it is a run of another pipeline");
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
  const std::string sha256 = sha256_hex(*text);
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
    if (std::string other = run_of_another_graph(run_dir, path, sha256, *loaded.graph); !other.empty() && !force) {
      std::fprintf(stderr, "attractor render: %s\n", other.c_str());
      return kExitUsage;
    }
  }
  std::string dot = render_dot(*loaded.graph, builtin_handler_catalog(), run_dir.empty() ? nullptr : &overlay);

  if (output.empty()) {
    std::fwrite(dot.data(), 1, dot.size(), stdout);
    return kExitSuccess;
  }
  std::string image;
  if (format == "dot") {
    image = std::move(dot);
  } else {
    DotProcessRenderer renderer;
    RenderResult result = renderer.render(dot, format);
    if (!result.ok) {
      std::fprintf(stderr, "attractor render: %s\n", result.error.c_str());
      return kExitRuntime;
    }
    image = std::move(result.image);
  }
  if (!write_whole_output(output, image)) return kExitRuntime;
  std::fprintf(stderr, "wrote %s\n", output.c_str());
  return kExitSuccess;
}

}  // namespace attractor
