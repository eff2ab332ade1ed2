#pragma once
/// \file
/// The options `attractor run` and `attractor resume` share, how they seed a run's context, and
/// how a run records them in its manifest so that `resume` continues the run the way it started
/// (docs/decisions.md, "resume keeps how the run was started").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "attractor/engine/run_budget.h"
#include "attractor/run/checkpoint.h"

namespace attractor {

struct RunFlags {
  std::string logs_root;
  bool simulate = false;
  std::string backend;
  bool auto_approve = false;
  std::string answers;
  std::string responses;
  std::vector<std::string> sets;       ///< `--set KEY=VALUE`: VALUE stored as text
  std::vector<std::string> set_jsons;  ///< `--set-json KEY=JSON`: typed values
  std::string context_file;
  bool quiet = false;
  bool verbose = false;
  bool json_events = false;
  bool force = false;
  bool strict = false;    ///< `--strict`: lint warnings are errors
  std::string index_dir;  ///< `--index DIR`: the retrieval index, overriding graph attribute index_dir
  std::optional<std::int64_t> max_total_tokens;  ///< `--max-total-tokens N`
  std::optional<double> max_cost;                ///< `--max-cost USD`
  std::string prices;                            ///< `--prices FILE.json`
  std::size_t snapshot_every = 0;                ///< `--snapshot-every N` (0: size policy)
  /// `--checkpoint-rewrite-below BYTES`: every save a snapshot while the checkpoint is this small
  std::size_t checkpoint_rewrite_below = CheckpointWriter::kRewriteBelowBytes;
  bool dry_run = false;     ///< `run --dry-run`: print the plan, run nothing
  bool plan_json = false;   ///< `run --dry-run --json`
  bool move_aside = false;  ///< `run --move-aside`: move a run the run directory holds to DIR.old-N
  /// `--sandbox LEVEL`: the level of the run's commands whose node sets none ("" = each kind's
  /// default; docs/security.md).
  std::string sandbox;
  /// The weakest level any command of the run may have ("" = none): the server's `--sandbox`.
  /// Not a command-line option; kept in the manifest, so a resume cannot lower it.
  std::string sandbox_floor;
  /// `run --workspace worktree|in-place` ("" = the graph's `workspace`, else in-place;
  /// docs/workspace.md). A resume keeps the manifest's.
  std::string workspace;
};

/// Adds the options both commands take to `app`, bound to `flags`.
void add_common_options(CLI::App& app, RunFlags& flags);

/// Adds `--set`, `--set-json` and `--context`, which seed a new run's context. `shown` false adds
/// them hidden from `--help` (resume parses them only to refuse them with a reason).
void add_seed_options(CLI::App& app, RunFlags& flags, bool shown = true);

/// The budget of `--max-total-tokens`, `--max-cost` and `--prices` (engine/run_budget.h). Throws
/// std::runtime_error for an unreadable or malformed price file, or `--max-cost` without one.
RunBudget run_budget(const RunFlags& flags);

/// The initial context of a new run: the `--context` file's object, then each `--set` (the text
/// after the first '=' as a string), then each `--set-json` (parsed). Throws std::runtime_error
/// naming the bad argument.
nlohmann::json seed_context(const RunFlags& flags);

/// The manifest's `options` for a run started with `flags` (paths made absolute): backend,
/// simulate, auto_approve, answers, responses, index, strict.
nlohmann::json manifest_options(const RunFlags& flags);

/// Fills in, from a manifest's `options`, every choice the resume command line did not make
/// itself (`app` tells which options were given; the backend pair --simulate/--backend and the
/// answer pair --auto-approve/--answers count as one choice each). Returns one line per restored
/// setting, e.g. "--backend openai", for the console.
std::vector<std::string> restore_manifest_options(const nlohmann::json& options, const CLI::App& app, RunFlags& flags);

}  // namespace attractor
