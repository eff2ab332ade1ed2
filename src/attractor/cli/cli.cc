#include "attractor/cli/cli.h"

#include <cstdio>
#include <optional>
#include <string>

#include "attractor/cli/reference.h"
#include "handlers/llm/provider_reference.h"
#include "handlers/registry.h"
#include "attractor/run/posix_run_disk.h"

namespace attractor {

const std::vector<CliCommand>& cli_commands() {
  static const std::vector<CliCommand> commands = {
      {"run", "run a pipeline (checkpoint after every node)", run_run_command, run_run_command},
      {"resume", "continue an interrupted run from its checkpoint", run_resume_command, run_resume_command},
      {"runs", "list the runs under a logs root with their status", run_runs_command},
      {"status", "show where a run stands; --follow prints its events until it ends", run_status_command},
      {"diff", "what a worktree run, or one of its stages, changed, as a unified diff", run_diff_command},
      {"rewind", "take a worktree run back to just after one of its stages", run_rewind_command, run_rewind_command},
      {"fork", "make a new worktree run from one of a run's stages", run_fork_command, run_fork_command},
      {"serve", "serve the HTTP API and web page: start, watch, answer gates", run_serve_command},
      {"validate", "parse, transform and lint a pipeline; print diagnostics", run_validate_command},
      {"fmt", "format pipelines in the canonical layout; --check for CI", run_fmt_command, run_fmt_command},
      {"new", "draft a pipeline from a plain-English description with an LLM", run_new_command, run_new_command},
      {"lsp", "serve the Language Server Protocol for .dot files (editors start it)", run_lsp_command},
      {"render", "draw a pipeline (and optionally a run) with Graphviz", run_render_command},
      {"index", "index a C# + SQL repository for retrieval (tree-sitter, FTS5, FAISS)", run_index_command},
      {"search", "search a code index (bm25, semantic, hybrid) as the pipeline will", run_search_command},
      {"graph", "who calls what: callers, callees, deps and paths in a code index", run_graph_command},
      {"tokens", "count tokens exactly (o200k_base, cl100k_base) in files or stdin", run_tokens_command},
  };
  return commands;
}

namespace {

void print_help() {
  std::printf("attractor %s — run multi-stage AI workflows written as Graphviz DOT files\n\n", ATTRACTOR_VERSION);
  std::printf("usage: attractor <command> [options]\n\ncommands:\n");
  for (const auto& c : cli_commands()) {
    std::printf("  %-10s %.*s\n", std::string(c.name).c_str(), static_cast<int>(c.summary.size()), c.summary.data());
  }
  std::printf("  %-10s %s\n", "help", "show this help, or `attractor help COMMAND` for one command");
  std::printf("  %-10s %s\n", "", "`attractor help shapes|attributes`: shapes, handler types, attributes");
  std::printf("  %-10s %s\n", "", "`attractor help reference`: all of it as Markdown (docs/pipelines.md)");
  std::printf("  %-10s %s\n", "", "`attractor help providers`: the LLM providers, their variables (docs/llm.md)");
  std::printf(
      "\nexit codes: 0 success, 1 pipeline failed, 2 usage/parse/validation error,\n"
      "            3 runtime or environment error, 4 budget spent (resumable), 130 interrupted\n");
}

/// The text of `attractor help TOPIC` for the reference topics; nullopt for any other topic.
std::optional<std::string> reference_topic(std::string_view topic) {
  const HandlerCatalog& handlers = builtin_handler_catalog();
  if (topic == "shapes") return shapes_reference(handlers);
  if (topic == "attributes") return attributes_reference(handlers);
  if (topic == "reference") return pipeline_reference(handlers);
  if (topic == "providers") return providers_reference(*builtin_providers());
  return std::nullopt;
}

}  // namespace

int run_cli(int argc, char** argv) { return run_cli(argc, argv, posix_run_disk()); }

int run_cli(int argc, char** argv, RunDisk& disk) {
  if (argc < 2) {
    print_help();
    return kExitUsage;
  }
  std::string name = argv[1];
  if (name == "--version" || name == "version") {
    std::printf("attractor %s\n", ATTRACTOR_VERSION);
    return kExitSuccess;
  }
  if (name == "help" || name == "--help" || name == "-h") {
    if (argc >= 3) {
      if (std::optional<std::string> text = reference_topic(argv[2])) {
        std::fwrite(text->data(), 1, text->size(), stdout);
        return kExitSuccess;
      }
      for (const auto& c : cli_commands()) {
        if (c.name == argv[2]) {
          std::string self = std::string("attractor ") + argv[2];
          std::string help = "--help";
          char* args[] = {self.data(), help.data(), nullptr};
          return c.run(2, args);
        }
      }
      std::fprintf(stderr, "attractor: unknown command '%s'\n", argv[2]);
      return kExitUsage;
    }
    print_help();
    return kExitSuccess;
  }
  for (const auto& c : cli_commands()) {
    if (c.name == name) {
      std::string self = "attractor " + name;
      std::vector<char*> args;
      args.push_back(self.data());
      for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
      args.push_back(nullptr);
      const int count = static_cast<int>(args.size() - 1);
      return c.run_on_disk ? c.run_on_disk(count, args.data(), disk) : c.run(count, args.data());
    }
  }
  std::fprintf(stderr, "attractor: unknown command '%s' (see `attractor help`)\n", name.c_str());
  return kExitUsage;
}

}  // namespace attractor
