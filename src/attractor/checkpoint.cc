#include "attractor/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "attractor/clock.h"

namespace attractor {

namespace fs = std::filesystem;

nlohmann::json Checkpoint::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  j["timestamp"] = format_iso8601(timestamp_ms);
  j["timestamp_ms"] = timestamp_ms;
  j["run_id"] = run_id;
  j["current_node"] = current_node;
  j["next_node"] = next_node;
  j["state"] = state;
  j["completed_nodes"] = completed_nodes;
  j["node_retries"] = node_retries;
  j["context"] = context;
  j["logs"] = logs;
  nlohmann::json outcomes = nlohmann::json::object();
  for (const auto& [id, o] : node_outcomes) {
    nlohmann::json oj = {{"status", status_name(o.status)}, {"outcome", status_name(o.status)}};
    if (!o.preferred_label.empty()) oj["preferred_label"] = o.preferred_label;
    if (!o.failure_reason.empty()) oj["failure_reason"] = o.failure_reason;
    if (o.status == StageStatus::kFail || o.status == StageStatus::kRetry) {
      oj["error_category"] = error_category_name(o.category);
    }
    outcomes[id] = std::move(oj);
  }
  j["node_outcomes"] = std::move(outcomes);
  j["visit_counts"] = visit_counts;
  j["total_executions"] = total_executions;
  j["last_fidelity"] = last_fidelity;
  j["inbox"] = inbox;
  j["final_outcome"] = final_outcome;
  j["seed_context"] = seed_context;
  j["restart_count"] = restart_count;
  return j;
}

Checkpoint Checkpoint::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("checkpoint is not a JSON object");
  Checkpoint c;
  try {
    c.timestamp_ms = j.value("timestamp_ms", std::int64_t{0});
    c.run_id = j.value("run_id", std::string());
    c.current_node = j.value("current_node", std::string());
    c.next_node = j.value("next_node", std::string());
    c.state = j.value("state", std::string("running"));
    if (j.contains("completed_nodes")) c.completed_nodes = j["completed_nodes"].get<std::vector<std::string>>();
    if (j.contains("node_retries")) c.node_retries = j["node_retries"].get<std::map<std::string, std::int64_t>>();
    if (j.contains("context") && j["context"].is_object()) c.context = j["context"];
    if (j.contains("logs")) c.logs = j["logs"].get<std::vector<std::string>>();
    if (j.contains("node_outcomes") && j["node_outcomes"].is_object()) {
      for (const auto& [id, o] : j["node_outcomes"].items()) c.node_outcomes[id] = outcome_from_json(o);
    }
    if (j.contains("visit_counts")) c.visit_counts = j["visit_counts"].get<std::map<std::string, std::int64_t>>();
    c.total_executions = j.value("total_executions", std::int64_t{0});
    c.last_fidelity = j.value("last_fidelity", std::string());
    if (j.contains("inbox") && j["inbox"].is_array()) c.inbox = j["inbox"];
    if (j.contains("final_outcome")) c.final_outcome = j["final_outcome"];
    if (j.contains("seed_context") && j["seed_context"].is_object()) c.seed_context = j["seed_context"];
    c.restart_count = j.value("restart_count", std::int64_t{0});
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed checkpoint: ") + e.what());
  }
  return c;
}

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) throw std::runtime_error("cannot sync " + tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + tmp + ": " + std::strerror(errno));
  }
  std::string dir = fs::path(path).parent_path().string();
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void save_checkpoint(const Checkpoint& checkpoint, const std::string& run_dir) {
  write_file_atomic((fs::path(run_dir) / "checkpoint.json").string(), checkpoint.to_json().dump() + "\n");
}

Checkpoint load_checkpoint(const std::string& run_dir) {
  fs::path path = fs::path(run_dir) / "checkpoint.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(buffer.str(), nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(path.string() + " is not valid JSON");
  return Checkpoint::from_json(j);
}

}  // namespace attractor
