#include "attractor/server/run_views.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include "attractor/base/input_file.h"
#include "attractor/base/json_limits.h"
#include "attractor/check/pipeline_loader.h"
#include "attractor/launch/render_dot.h"
#include "attractor/launch/run_overlay.h"
#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/stage_visits.h"
#include "handlers/registry.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;

/// A directory entry that is what it says, not a symbolic link to something else.
bool is_plain(const fs::path& path, fs::file_type type) {
  std::error_code ec;
  fs::file_status st = fs::symlink_status(path, ec);
  return !ec && st.type() == type;
}

std::string read_prefix(const fs::path& path, std::size_t max, bool* truncated) {
  std::ifstream in(path, std::ios::binary);
  std::string text(max + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  *truncated = text.size() > max;
  if (*truncated) text.resize(max);
  return text;
}

/// The numbers of the earlier visits kept in `folder` (`{node}.visits/`), ascending.
std::vector<int> visit_numbers(const std::string& folder) {
  std::vector<int> numbers;
  if (!is_plain(folder, fs::file_type::directory)) return numbers;
  for (const auto& v : fs::directory_iterator(folder)) {
    const std::string n = v.path().filename().string();
    if (!n.empty() && std::all_of(n.begin(), n.end(), ::isdigit) && n.size() < 9) numbers.push_back(std::stoi(n));
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

/// The attempt folders (`attempt-<K>`, section 8 of docs/run-directory.md) of stage folder `dir`.
std::vector<std::string> attempt_folders(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    const std::string digits = n.substr(std::min(n.size(), std::strlen(kAttemptFolderPrefix)));
    if (n.starts_with(kAttemptFolderPrefix) && !digits.empty() && digits.size() < 9 &&
        std::all_of(digits.begin(), digits.end(), ::isdigit) && is_plain(e.path(), fs::file_type::directory)) {
      names.push_back(n);
    }
  }
  return names;
}

}  // namespace

bool is_safe_name(const std::string& name) {
  if (name.empty() || name.size() > 200 || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '.' || c == '_' || c == '-'; });
}

std::optional<std::string> run_directory_of(const std::string& logs_root, const std::string& id) {
  if (!is_safe_name(id)) return std::nullopt;
  fs::path dir = fs::path(logs_root) / id;
  if (!is_plain(dir, fs::file_type::directory)) return std::nullopt;
  return dir.string();
}

std::optional<nlohmann::json> stage_view(const std::string& run_dir, const std::string& node,
                                         std::size_t max_file_bytes) {
  if (!is_safe_name(node)) return std::nullopt;
  const fs::path dir = fs::path(run_dir) / node;
  if (!is_plain(dir, fs::file_type::directory)) return std::nullopt;
  nlohmann::json view = {{"node", node},
                         {"status", nullptr},
                         {"files", nlohmann::json::object()},
                         {"truncated", nlohmann::json::array()},
                         {"visits", nlohmann::json::array()}};
  std::vector<std::pair<fs::path, std::string>> entries;  // path, name in the view
  for (const auto& entry : fs::directory_iterator(dir))
    entries.emplace_back(entry.path(), entry.path().filename().string());
  for (const std::string& attempt : attempt_folders(dir)) {
    for (const auto& entry : fs::directory_iterator(dir / attempt)) {
      entries.emplace_back(entry.path(), attempt + "/" + entry.path().filename().string());
    }
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [path, name] : entries) {
    if (!is_plain(path, fs::file_type::regular)) continue;
    bool truncated = false;
    std::string text = read_prefix(path, max_file_bytes, &truncated);
    if (truncated) view["truncated"].push_back(name);
    if (name == kStageStatusFile) {
      nlohmann::json status = parse_json_or_discarded(text);
      if (!status.is_discarded()) view["status"] = std::move(status);
    }
    view["files"][name] = std::move(text);  // the response replaces invalid UTF-8
  }
  view["visits"] = visit_numbers(stage_visits_folder(dir.string()));
  return view;
}

std::optional<nlohmann::json> checkpoint_view(const std::string& run_dir) {
  InputFile file = read_input_file((fs::path(run_dir) / "checkpoint.json").string(), kJsonFileRules);
  if (!file.ok()) return std::nullopt;
  nlohmann::json j = parse_json_or_discarded(file.text);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    replay_journal(j, run_dir, posix_run_disk());
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
  return j;
}

SvgResult run_graph_svg(const std::string& run_dir, const std::string& current_node, GraphvizRenderer& renderer,
                        const std::string& graph_path) {
  SvgResult result;
  Manifest manifest;
  try {
    manifest = read_manifest(run_dir);
  } catch (const std::exception& e) {
    if (graph_path.empty()) {
      result.error = e.what();
      return result;
    }
    manifest.graph_path = graph_path;  // not written yet: the run is queued or starting
  }
  std::error_code ec;
  const auto bytes = fs::file_size(manifest.graph_path, ec);
  if (!ec && bytes > kMaxDrawnDotBytes) {
    result.status = 422;
    result.error = "the pipeline file is " + std::to_string(bytes) + " bytes; the page draws pipelines of up to " +
                   std::to_string(kMaxDrawnDotBytes) + " bytes and " + std::to_string(kMaxDrawnNodes) +
                   " nodes (GET /pipelines/{id} tells where the run stands)";
    return result;
  }
  LoadedPipeline loaded = load_pipeline(manifest.graph_path, builtin_handler_catalog());
  if (!loaded.graph) {
    result.error = "cannot read the pipeline " + manifest.graph_path;
    return result;
  }
  if (const std::size_t nodes = loaded.graph->node_count(); nodes > kMaxDrawnNodes) {
    result.status = 422;
    result.error = "the pipeline has " + std::to_string(nodes) + " nodes; the page draws pipelines of up to " +
                   std::to_string(kMaxDrawnNodes) + " nodes (GET /pipelines/{id} tells where the run stands)";
    return result;
  }
  RunOverlay overlay;
  try {
    overlay = load_run_overlay(run_dir);
  } catch (const std::exception&) {
    // no checkpoint yet: draw the graph without a run
  }
  if (!current_node.empty()) {
    overlay.current_node = current_node;
    if (overlay.path.empty() || overlay.path.back() != current_node) overlay.path.push_back(current_node);
    overlay.node_status.try_emplace(current_node, "running");
  }
  std::string dot = render_dot(*loaded.graph, builtin_handler_catalog(), &overlay);
  RenderResult rendered = renderer.render(dot, "svg");
  if (rendered.ok) {
    result.svg = std::move(rendered.image);
    result.ok = true;
  } else {
    result.error = rendered.error;
  }
  return result;
}

nlohmann::json capped_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  CappedDiagnostics capped = cap_diagnostics(diagnostics, kMaxDiagnosticsPerRule, kDiagnosticsInAll);
  nlohmann::json out = nlohmann::json::array();
  for (const Diagnostic& d : capped.kept) out.push_back(diagnostic_to_json(d));
  for (const LeftOut& cut : capped.left_out) {
    out.push_back({{"rule", "diagnostics_left_out"},
                   {"severity", "info"},
                   {"message", std::to_string(cut.count) + " more '" + cut.rule + "' diagnostics left out (" +
                                   std::to_string(cut.total) + " in all)"},
                   {"left_out", cut.count},
                   {"of_rule", cut.rule}});
  }
  return out;
}

}  // namespace attractor
