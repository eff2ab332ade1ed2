#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "attractor/authoring/dot_format.h"
#include "attractor/base/input_file.h"
#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/run/posix_run_disk.h"

namespace attractor {

namespace {

struct FmtOptions {
  std::vector<std::string> paths;
  bool check = false;
  bool write = false;
};

/// Formats one file as `options` say; returns its exit code and counts a file that differs.
int format_one(const std::string& path, const FmtOptions& options, RunDisk& disk, bool& differs) {
  InputFile input = read_input_file(path, kDotFileRules);
  if (!input.ok()) {
    std::fprintf(stderr, "attractor fmt: %s\n", input.message.c_str());
    return kExitUsage;
  }
  FormatResult result = format_pipeline_text(path, input.text);
  if (!result.text) {
    SourceFile file(path, input.text);
    print_diagnostics(result.diagnostics, &file);
    return kExitUsage;
  }
  differs = *result.text != input.text;
  if (options.check) {
    if (differs) std::fprintf(stderr, "%s: not formatted (run `attractor fmt -w %s`)\n", path.c_str(), path.c_str());
    return kExitSuccess;
  }
  if (!options.write) {
    std::fwrite(result.text->data(), 1, result.text->size(), stdout);
    return kExitSuccess;
  }
  if (!differs) return kExitSuccess;
  try {
    std::string_view parts[] = {*result.text};
    disk.write_file_atomic(path, parts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attractor fmt: %s\n", e.what());
    return kExitRuntime;
  }
  return kExitSuccess;
}

}  // namespace

int run_fmt_command(int argc, char** argv) { return run_fmt_command(argc, argv, posix_run_disk()); }

int run_fmt_command(int argc, char** argv, RunDisk& disk) {
  CLI::App app{
      "Format pipelines in the canonical layout (docs/authoring.md): one statement per line, attributes in "
      "table order, comments kept. Prints the result, or with -w rewrites the files; --check only reports "
      "the files that would change and exits 1 if any would. Exit 2 when a file does not parse."};
  app.name("attractor fmt");
  FmtOptions options;
  app.add_option("GRAPH", options.paths, "pipeline .dot files")->required();
  app.add_flag("--check", options.check, "change nothing; exit 1 when a file is not formatted (for CI)");
  app.add_flag("-w,--write", options.write, "rewrite each file in place (atomically) instead of printing it");
  if (auto code = parse_cli(app, argc, argv)) return *code;
  if (options.check && options.write) {
    std::fprintf(stderr, "attractor fmt: --check and -w exclude each other\n");
    return kExitUsage;
  }
  if (!options.check && !options.write && options.paths.size() > 1) {
    std::fprintf(stderr, "attractor fmt: printing formats one file; pass -w or --check for several\n");
    return kExitUsage;
  }
  int worst = kExitSuccess;
  std::size_t differing = 0;
  for (const std::string& path : options.paths) {
    bool differs = false;
    int code = format_one(path, options, disk, differs);
    if (code != kExitSuccess && worst == kExitSuccess) worst = code;
    if (differs) ++differing;
  }
  if (worst != kExitSuccess) return worst;
  return options.check && differing > 0 ? kExitFail : kExitSuccess;
}

}  // namespace attractor
