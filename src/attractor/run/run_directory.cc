#include "attractor/run/run_directory.h"

#include <ctime>
#include <filesystem>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "attractor/base/json_limits.h"

namespace attractor {

namespace fs = std::filesystem;

nlohmann::json Manifest::to_json() const {
  nlohmann::json j = {{"name", name},
                      {"goal", goal},
                      {"graph_path", graph_path},
                      {"graph_sha256", graph_sha256},
                      {"run_id", run_id},
                      {"start_time", start_time},
                      {"attractor_version", version}};
  if (!parent_run.empty()) j["parent_run"] = parent_run;
  if (options.is_object() && !options.empty()) j["options"] = options;
  if (workspace.is_object()) j["workspace"] = workspace;
  if (forked_from.is_object()) j["forked_from"] = forked_from;
  return j;
}

Manifest Manifest::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("manifest is not a JSON object");
  Manifest m;
  m.name = j.value("name", std::string());
  m.goal = j.value("goal", std::string());
  m.graph_path = j.value("graph_path", std::string());
  m.graph_sha256 = j.value("graph_sha256", std::string());
  m.run_id = j.value("run_id", std::string());
  m.start_time = j.value("start_time", std::string());
  m.version = j.value("attractor_version", std::string());
  m.parent_run = j.value("parent_run", std::string());
  if (auto it = j.find("options"); it != j.end()) {
    if (!it->is_object()) throw std::runtime_error("\"options\" is not an object");
    m.options = *it;
  }
  if (auto it = j.find("workspace"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) throw std::runtime_error("\"workspace\" is not an object");
    m.workspace = *it;
  }
  if (auto it = j.find("forked_from"); it != j.end() && it->is_object()) {
    m.forked_from = *it;
  }
  return m;
}

std::string run_directory_name(const std::string& graph_name, std::int64_t epoch_ms, const std::string& hex6) {
  std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string name = graph_name.empty() ? "pipeline" : graph_name;
  for (char& c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  }
  return fmt::format("{}-{:04}{:02}{:02}T{:02}{:02}{:02}-{}", name, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, hex6);
}

std::string new_run_id(std::int64_t epoch_ms, const std::string& hex6) { return fmt::format("{}-{}", epoch_ms, hex6); }

std::string random_hex6() {
  std::random_device rd;
  return fmt::format("{:06x}", rd() & 0xffffff);
}

void write_manifest(const Manifest& manifest, const std::string& run_dir, RunDisk& disk) {
  const std::string content = manifest.to_json().dump(2) + "\n";
  const std::string_view view = content;
  disk.write_file_atomic((fs::path(run_dir) / "manifest.json").string(), std::span<const std::string_view>(&view, 1),
                         nullptr, DirectorySync::kLater);
}

Manifest read_manifest(const std::string& run_dir, RunDisk& disk) {
  const std::string path = (fs::path(run_dir) / "manifest.json").string();
  if (!disk.is_directory(run_dir)) throw std::runtime_error(run_dir + " is not a directory");
  if (!disk.exists(path)) throw std::runtime_error(path + " is missing: " + run_dir + " is not a run directory");
  std::string text = disk.read_file(path);
  nlohmann::json j = parse_json_or_discarded(text);
  if (j.is_discarded()) throw std::runtime_error(path + " is not valid JSON");
  try {
    return Manifest::from_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": malformed manifest: " + e.what());
  }
}

void write_text_file(const std::string& path, const std::string& content) {
  posix_run_disk().write_file(path, content);
}

std::string read_text_file(const std::string& path) { return posix_run_disk().read_file(path); }

}  // namespace attractor
