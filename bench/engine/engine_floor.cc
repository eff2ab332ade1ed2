// The floor for bench/engine: the file-system work any crash-safe engine must do for a finished
// run, without an engine. For every execution in the run's `completed_nodes` it creates a folder
// of its own where the engine leaves that execution's files (`{out}/{node}/` for a node's last
// visit, `{out}/{node}.visits/{k}/` for its k-th visit before that: each file is written once, in
// place, where the engine moves each earlier visit's folder there with one rename) and writes
// prompt.md, response.md and status.json with the sizes the engine wrote, appends the run's
// average events.jsonl bytes per execution to events.jsonl, and appends one small durable record
// (kRecordBytes, then fdatasync) to a journal: the least a run can make durable per stage and
// still resume after a crash. The final checkpoint is written once, atomically, at the end.
// Usage: engine_floor RUN_DIR OUT_DIR

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

std::uintmax_t size_or_zero(const fs::path& p) {
  std::error_code ec;
  auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

void write_plain(const fs::path& p, std::size_t n) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  std::string data(n, 'x');
  std::fwrite(data.data(), 1, data.size(), f);
  std::fclose(f);
}

void write_atomic(const fs::path& p, std::size_t n) {
  std::string tmp = p.string() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string data(n, 'x');
  if (::write(fd, data.data(), data.size()) < 0) std::perror("write");
  ::fsync(fd);
  ::close(fd);
  ::rename(tmp.c_str(), p.c_str());
  int dfd = ::open(p.parent_path().c_str(), O_RDONLY | O_DIRECTORY);
  ::fsync(dfd);
  ::close(dfd);
}

/// Bytes of the per-stage durable record: a node id, a status and a next node.
constexpr std::size_t kRecordBytes = 128;

void append_synced(int fd, const std::string& record) {
  if (::write(fd, record.data(), record.size()) < 0) std::perror("write");
  ::fdatasync(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: engine_floor RUN_DIR OUT_DIR\n");
    return 2;
  }
  fs::path run(argv[1]);
  fs::path out(argv[2]);
  std::ifstream in(run / "checkpoint.json");
  std::stringstream buffer;
  buffer << in.rdbuf();
  nlohmann::json cp = nlohmann::json::parse(buffer.str());
  auto nodes = cp["completed_nodes"].get<std::vector<std::string>>();
  std::size_t final_size = size_or_zero(run / "checkpoint.json");
  std::size_t initial_size = 600;
  fs::create_directories(out);
  write_plain(out / "manifest.json", size_or_zero(run / "manifest.json"));
  std::size_t events_per_node = nodes.empty() ? 0 : size_or_zero(run / "events.jsonl") / nodes.size();
  std::FILE* events = std::fopen((out / "events.jsonl").c_str(), "ab");
  std::string event_bytes(events_per_node, 'x');
  write_atomic(out / "checkpoint.json", initial_size);
  int journal = ::open((out / "checkpoint.journal").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const std::string record(kRecordBytes - 1, 'x');
  std::map<std::string, std::size_t> total_visits;
  for (const std::string& node : nodes) ++total_visits[node];
  std::map<std::string, std::size_t> visits;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::size_t visit = ++visits[nodes[i]];
    fs::path stage = visit == total_visits[nodes[i]] ? out / nodes[i]
                                                     : out / (nodes[i] + ".visits") / std::to_string(visit);
    fs::create_directories(stage);
    for (const char* name : {"prompt.md", "response.md", "status.json"}) {
      std::size_t n = size_or_zero(run / nodes[i] / name);
      if (n > 0) write_plain(stage / name, n);
    }
    std::fwrite(event_bytes.data(), 1, event_bytes.size(), events);
    std::fflush(events);
    append_synced(journal, record + "\n");
  }
  ::close(journal);
  std::fclose(events);
  write_atomic(out / "checkpoint.json", final_size);
  return 0;
}
