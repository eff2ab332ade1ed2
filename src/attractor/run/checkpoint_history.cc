#include "attractor/run/checkpoint_history.h"

#include <filesystem>
#include <stdexcept>

#include "attractor/run/checkpoint_journal.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::size_t list_size(const json& delta, const char* part) {
  auto p = delta.find(part);
  if (p == delta.end() || !p->is_object()) return 0;
  auto list = p->find("completed_nodes");
  return list != p->end() && list->is_array() ? list->size() : 0;
}

bool is_full(const json& delta) {
  auto set = delta.find("set");
  return delta.size() == 1 && set != delta.end() && set->is_object() && set->contains("run_id") &&
         set->contains("completed_nodes");
}

}  // namespace

std::string full_history_record(std::uint64_t seq, std::string_view checkpoint_text) {
  std::string delta;
  delta.reserve(checkpoint_text.size() + 8);
  delta += "{\"set\":";
  delta += checkpoint_text;
  delta += '}';
  return encode_journal_record(seq, delta);
}

CheckpointHistory CheckpointHistory::read(const std::string& run_dir, RunDisk& disk) {
  const std::string path = (fs::path(run_dir) / kCheckpointHistoryFile).string();
  if (!disk.exists(path)) return {};
  return parse(disk.read_file(path));
}

CheckpointHistory CheckpointHistory::parse(std::string_view text) {
  CheckpointHistory history;
  bool broken = false;  // the line before was torn or damaged: the chain after it is cut
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) break;
    JournalRecord record;
    bool damaged = false;
    const std::string_view line = text.substr(at, nl + 1 - at);
    at = nl + 1;
    if (!parse_journal_line(line.substr(0, line.size() - 1), record, damaged).empty()) {
      broken = true;
      continue;
    }
    HistoryEntry entry;
    entry.seq = record.seq;
    entry.full = is_full(record.delta);
    entry.line = std::string(line);
    entry.delta = std::move(record.delta);
    entry.reachable = !broken || entry.full;
    broken = false;
    history.add(std::move(entry));
  }
  return history;
}

void CheckpointHistory::add(HistoryEntry entry) {
  while (!entries_.empty() && entries_.back().seq >= entry.seq) entries_.pop_back();
  const HistoryEntry* before = entries_.empty() ? nullptr : &entries_.back();
  if (entry.full) {
    entry.completed = list_size(entry.delta, "set");
  } else if (!entry.reachable || !before || !before->reachable || before->seq + 1 != entry.seq) {
    entry.reachable = false;
  } else {
    entry.completed = before->completed + list_size(entry.delta, "append");
  }
  entries_.push_back(std::move(entry));
}

std::optional<std::size_t> CheckpointHistory::save_recording(std::size_t entry) const {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (!entries_[i].reachable || entries_[i].completed <= entry) continue;
    const bool first = i == 0 ? entry == 0 : entries_[i - 1].reachable && entries_[i - 1].completed == entry;
    if (first) return i;
  }
  return std::nullopt;
}

std::vector<bool> CheckpointHistory::recorded_entries(std::size_t count) const {
  std::vector<bool> recorded(count, false);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (!entries_[i].reachable) continue;
    const std::size_t first = i == 0                      ? 0
                              : entries_[i - 1].reachable ? entries_[i - 1].completed
                                                          : entries_[i].completed;
    if (first < entries_[i].completed && first < count) recorded[first] = true;
  }
  return recorded;
}

json CheckpointHistory::state_at(std::size_t index) const {
  if (index >= entries_.size() || !entries_[index].reachable) {
    throw std::logic_error("checkpoint history: no reachable state at that save");
  }
  std::size_t first = index;
  while (!entries_[first].full) --first;
  json state = json::object();
  for (std::size_t i = first; i <= index; ++i) apply_journal_delta(state, entries_[i].delta);
  state["journal_seq"] = entries_[index].seq;
  return state;
}

std::string CheckpointHistory::text_through(std::size_t index) const {
  std::string text;
  for (std::size_t i = 0; i <= index && i < entries_.size(); ++i) text += entries_[i].line;
  return text;
}

}  // namespace attractor
