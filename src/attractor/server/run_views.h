#pragma once
/// \file
/// Read-only views of a run directory for the API: which run ids and node ids are acceptable,
/// a stage's files, the checkpoint, and the graph drawn with the run overlay. Every path built
/// here comes from a checked id, and files are read only from inside the run directory.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/launch/graphviz.h"
#include "attractor/model/diagnostic.h"

namespace attractor {

/// A name that may appear as one path component: letters, digits, '.', '_', '-', not starting
/// with '.', at most 200 characters.
bool is_safe_name(const std::string& name);

/// The run directory of `id` under `logs_root` when `id` is a safe name and that directory
/// exists (not through a symbolic link); nullopt otherwise.
std::optional<std::string> run_directory_of(const std::string& logs_root, const std::string& id);

/// `{"node", "status", "files": {name: text}, "truncated": [names], "visits": [numbers]}` for the
/// stage folder `node` of `run_dir` (the numbers are those of `{node}.visits/`, its earlier visits);
/// nullopt when `node` is not a safe name or has no folder.
/// Regular files only (no symbolic links), each cut at `max_file_bytes`.
std::optional<nlohmann::json> stage_view(const std::string& run_dir, const std::string& node,
                                         std::size_t max_file_bytes = 256 * 1024);

/// The run's checkpoint.json parsed; nullopt when it is missing or unreadable.
std::optional<nlohmann::json> checkpoint_view(const std::string& run_dir);

/// At most this many diagnostics go into an answer.
inline constexpr std::size_t kDiagnosticsInAll = 200;

/// The diagnostics as `validate --json` prints them, at most kMaxDiagnosticsPerRule of each rule and
/// kDiagnosticsInAll in all, followed by one `diagnostics_left_out` entry (severity `info`,
/// `left_out`, `of_rule`) per rule that was cut, saying how many of it were left out.
nlohmann::json capped_diagnostics(const std::vector<Diagnostic>& diagnostics);

/// The result of drawing a run: SVG text, or an error for the user with its HTTP status.
struct SvgResult {
  bool ok = false;
  std::string svg;
  std::string error;
  int status = 500;  ///< when not ok: 422 for a pipeline too large to draw, else 500
};

/// The largest pipeline `run_graph_svg` draws: Graphviz takes minutes beyond this.
inline constexpr std::size_t kMaxDrawnNodes = 2000;
inline constexpr std::size_t kMaxDrawnDotBytes = 1 << 20;

/// The run's pipeline (manifest `graph_path`, or `graph_path` when the run has no manifest yet:
/// it is queued or just starting) drawn by Graphviz as SVG with the run overlay of
/// `render --run`; `current_node` (when not empty) replaces the checkpoint's current node.
/// A pipeline file over kMaxDrawnDotBytes or with more than kMaxDrawnNodes nodes is not drawn
/// (422, saying so) and its file is not parsed beyond its size.
SvgResult run_graph_svg(const std::string& run_dir, const std::string& current_node, GraphvizRenderer& renderer,
                        const std::string& graph_path = "");

}  // namespace attractor
