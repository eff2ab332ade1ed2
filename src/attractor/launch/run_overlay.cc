#include "attractor/launch/run_overlay.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "attractor/base/input_file.h"
#include "attractor/base/json_limits.h"
#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/stage_visits.h"

namespace attractor {
namespace {

nlohmann::json read_json(const std::filesystem::path& path) {
  InputFile file = read_input_file(path.string(), kJsonFileRules);
  if (!file.ok()) throw RunDirectoryError(file.message);
  try {
    return parse_json_limited(file.text, path.string());
  } catch (const std::runtime_error& e) {
    throw RunDirectoryError(e.what());
  }
}

}  // namespace

RunOverlay load_run_overlay(const std::string& run_dir) {
  namespace fs = std::filesystem;
  fs::path dir(run_dir);
  fs::path checkpoint_path = dir / "checkpoint.json";
  if (!fs::exists(checkpoint_path)) {
    throw RunDirectoryError(checkpoint_path.string() + ": no checkpoint; is '" + run_dir + "' a run directory?");
  }
  nlohmann::json checkpoint = read_json(checkpoint_path);
  if (!checkpoint.is_object()) throw RunDirectoryError(checkpoint_path.string() + ": not a JSON object");
  try {
    replay_journal(checkpoint, run_dir, posix_run_disk());
  } catch (const std::runtime_error& e) {
    throw RunDirectoryError(e.what());
  }
  RunOverlay overlay;
  if (checkpoint.contains("completed_nodes") && checkpoint["completed_nodes"].is_array()) {
    for (const auto& id : checkpoint["completed_nodes"]) {
      if (id.is_string()) overlay.path.push_back(id.get<std::string>());
    }
  }
  if (checkpoint.contains("current_node") && checkpoint["current_node"].is_string()) {
    overlay.current_node = checkpoint["current_node"].get<std::string>();
    if (!overlay.current_node.empty() && (overlay.path.empty() || overlay.path.back() != overlay.current_node)) {
      overlay.path.push_back(overlay.current_node);
    }
  }
  if (checkpoint.contains("node_outcomes") && checkpoint["node_outcomes"].is_object()) {
    for (const auto& [id, outcome] : checkpoint["node_outcomes"].items()) {
      if (outcome.is_string()) overlay.node_status[id] = outcome.get<std::string>();
      else if (outcome.is_object() && outcome.contains("status") && outcome["status"].is_string())
        overlay.node_status[id] = outcome["status"].get<std::string>();
    }
  }
  for (const auto& id : overlay.path) {
    if (overlay.node_status.count(id)) continue;
    fs::path status_path = dir / id / kStageStatusFile;
    if (!fs::exists(status_path)) continue;
    nlohmann::json status = read_json(status_path);
    if (status.contains("outcome") && status["outcome"].is_string()) {
      overlay.node_status[id] = status["outcome"].get<std::string>();
    }
  }
  return overlay;
}

}  // namespace attractor
