#pragma once
/// \file
/// Read-only views of a run directory for the API: which run ids and node ids are acceptable,
/// a stage's files, the checkpoint, and the graph drawn with the run overlay. Every path built
/// here comes from a checked id, and files are read only from inside the run directory.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "attractor/launch/graphviz.h"

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

/// The result of drawing a run: SVG text, or an error for the user.
struct SvgResult {
  bool ok = false;
  std::string svg;
  std::string error;
};

/// The run's pipeline (manifest `graph_path`) drawn by Graphviz as SVG with the run overlay of
/// `render --run`; `current_node` (when not empty) replaces the checkpoint's current node.
SvgResult run_graph_svg(const std::string& run_dir, const std::string& current_node, GraphvizRenderer& renderer);

}  // namespace attractor
