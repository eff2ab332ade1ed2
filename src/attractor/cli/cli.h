#pragma once
/// \file
/// The `attractor` command table. Each subcommand lives in its own `cli_<name>.cc` and is listed
/// in `cli_commands()`; main.cc only dispatches.

#include <span>
#include <string_view>
#include <vector>

#include "attractor/launch/exit_code.h"

namespace attractor {

class RunDisk;
class InputFileReader;

/// One subcommand: `run` receives argv with argv[0] = "attractor <name>".
struct CliCommand {
  std::string_view name;
  std::string_view summary;
  int (*run)(int argc, char** argv);
  /// Set for the commands that write a run directory: `run` writing it through `disk`.
  int (*run_on_disk)(int argc, char** argv, RunDisk& disk) = nullptr;
};

/// All subcommands in the order `attractor help` lists them.
const std::vector<CliCommand>& cli_commands();

/// Entry point used by main(): dispatches argv[1], handles help and --version.
int run_cli(int argc, char** argv);
/// The same with run directories written and read through `disk` (main() uses the real file
/// system; a test executable passes a disk that fails or stops the process on purpose).
int run_cli(int argc, char** argv, RunDisk& disk);

int run_validate_command(int argc, char** argv);
int run_run_command(int argc, char** argv);
int run_run_command(int argc, char** argv, RunDisk& disk);
int run_resume_command(int argc, char** argv);
int run_resume_command(int argc, char** argv, RunDisk& disk);
/// `run` and `resume` reading the pipeline file through `files` (a test counts the reads).
int run_run_command(int argc, char** argv, RunDisk& disk, InputFileReader& files);
int run_resume_command(int argc, char** argv, RunDisk& disk, InputFileReader& files);
int run_render_command(int argc, char** argv);
int run_index_command(int argc, char** argv);
int run_search_command(int argc, char** argv);
/// `attractor graph callers|callees|deps|path ...` (cli_graph.cc).
int run_graph_command(int argc, char** argv);
int run_tokens_command(int argc, char** argv);
int run_runs_command(int argc, char** argv);
int run_status_command(int argc, char** argv);
int run_diff_command(int argc, char** argv);
/// `attractor rewind`: a worktree run back to a completed stage (docs/workspace.md, section 6).
int run_rewind_command(int argc, char** argv);
int run_rewind_command(int argc, char** argv, RunDisk& disk);
/// `attractor fork`: a new worktree run from a completed stage (docs/workspace.md, section 6).
int run_fork_command(int argc, char** argv);
int run_fork_command(int argc, char** argv, RunDisk& disk);
int run_serve_command(int argc, char** argv);
/// `attractor fmt`: the canonical layout of pipelines (docs/authoring.md).
int run_fmt_command(int argc, char** argv);
int run_fmt_command(int argc, char** argv, RunDisk& disk);
/// `attractor new`: a pipeline drafted from a description (docs/authoring.md).
int run_new_command(int argc, char** argv);
int run_new_command(int argc, char** argv, RunDisk& disk);
/// `attractor lsp`: the language server over stdio (docs/authoring.md).
int run_lsp_command(int argc, char** argv);

}  // namespace attractor
