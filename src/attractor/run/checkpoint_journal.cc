#include "attractor/run/checkpoint_journal.h"

#include <charconv>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <zlib.h>

#include "attractor/base/json_limits.h"
#include "attractor/run/checkpoint_schema.h"

namespace attractor {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::uint32_t crc_of(std::string_view text) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (!text.empty()) {
    const auto n = static_cast<uInt>(std::min<std::size_t>(text.size(), 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(text.data()), n);
    text.remove_prefix(n);
  }
  return static_cast<std::uint32_t>(crc);
}

}  // namespace

std::string parse_journal_line(std::string_view line, JournalRecord& out, bool& damaged) {
  damaged = false;
  const std::size_t space1 = line.find(' ');
  if (space1 == std::string_view::npos || line.size() < space1 + 10 || line[space1 + 9] != ' ') return "malformed";
  std::uint64_t seq = 0;
  auto [end, ec] = std::from_chars(line.data(), line.data() + space1, seq);
  if (ec != std::errc() || end != line.data() + space1) return "malformed sequence number";
  std::uint32_t crc = 0;
  const char* hex = line.data() + space1 + 1;
  auto [hex_end, hex_ec] = std::from_chars(hex, hex + 8, crc, 16);
  if (hex_ec != std::errc() || hex_end != hex + 8) return "malformed checksum";
  const std::string_view delta = line.substr(space1 + 10);
  if (crc_of(delta) != crc) return "checksum mismatch";
  out.seq = seq;
  damaged = true;
  try {
    out.delta = parse_json_limited(delta, "the record");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  if (std::string problem = journal_delta_problem(out.delta); !problem.empty()) return problem;
  damaged = false;
  return "";
}

namespace {

json& member_of_kind(json& checkpoint, const std::string& name, json::value_t kind, const char* what) {
  json& m = checkpoint[name];
  if (m.is_null()) m = kind == json::value_t::array ? json::array() : json::object();
  if (m.type() != kind) throw std::runtime_error("journal: checkpoint member `" + name + "` is not " + what);
  return m;
}

}  // namespace

std::string encode_journal_record(std::uint64_t seq, std::string_view delta_text) {
  return fmt::format("{} {:08x} {}\n", seq, crc_of(delta_text), delta_text);
}

JournalScan scan_journal(std::string_view text, std::uint64_t after_seq) {
  JournalScan scan;
  scan.last_seq = after_seq;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) {
      scan.stopped_at = fmt::format("torn record at byte {}", at);
      break;
    }
    JournalRecord record;
    record.offset = at;
    bool damaged = false;
    if (std::string why = parse_journal_line(text.substr(at, nl - at), record, damaged); !why.empty()) {
      if (damaged) {
        scan.damaged = fmt::format("record {} (byte {}): {}", record.seq, at, why);
      } else {
        scan.stopped_at = fmt::format("{} at byte {}", why, at);
      }
      break;
    }
    if (record.seq > scan.last_seq && record.seq != scan.last_seq + 1) {
      scan.stopped_at = fmt::format("record {} follows {} at byte {}", record.seq, scan.last_seq, at);
      break;
    }
    if (record.seq > scan.last_seq) {
      scan.last_seq = record.seq;
      scan.records.push_back(std::move(record));
    }
    at = nl + 1;
    scan.valid_bytes = at;
  }
  return scan;
}

void apply_journal_delta(json& checkpoint, const json& delta) {
  if (auto it = delta.find("set"); it != delta.end() && it->is_object()) {
    for (const auto& [name, value] : it->items()) checkpoint[name] = value;
  }
  if (auto it = delta.find("append"); it != delta.end() && it->is_object()) {
    for (const auto& [name, items] : it->items()) {
      json& array = member_of_kind(checkpoint, name, json::value_t::array, "an array");
      for (const json& item : items) array.push_back(item);
    }
  }
  if (auto it = delta.find("merge"); it != delta.end() && it->is_object()) {
    for (const auto& [name, members] : it->items()) {
      json& object = member_of_kind(checkpoint, name, json::value_t::object, "an object");
      for (const auto& [key, value] : members.items()) object[key] = value;
    }
  }
  if (auto it = delta.find("remove"); it != delta.end() && it->is_object()) {
    for (const auto& [name, keys] : it->items()) {
      json& object = member_of_kind(checkpoint, name, json::value_t::object, "an object");
      for (const json& key : keys) {
        if (key.is_string()) object.erase(key.get<std::string>());
      }
    }
  }
}

void replay_journal(json& snapshot, const std::string& run_dir, RunDisk& disk) {
  const std::uint64_t after = snapshot.value("journal_seq", std::uint64_t{0});
  const std::string journal_path = (fs::path(run_dir) / kCheckpointJournalFile).string();
  std::uint64_t last = after;
  if (disk.exists(journal_path)) {
    JournalScan scan = scan_journal(disk.read_file(journal_path), after);
    if (!scan.damaged.empty()) throw std::runtime_error(journal_path + ": " + scan.damaged);
    for (const JournalRecord& r : scan.records) {
      try {
        apply_journal_delta(snapshot, r.delta);
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(fmt::format("{}: record {} (byte {}): {}", journal_path, r.seq, r.offset, e.what()));
      }
    }
    last = scan.last_seq;
  }
  snapshot["journal_seq"] = last;
}

json read_checkpoint_document(const std::string& run_dir, RunDisk& disk) {
  const std::string snapshot_path = (fs::path(run_dir) / "checkpoint.json").string();
  json checkpoint = parse_json_limited(disk.read_file(snapshot_path), snapshot_path);
  if (!checkpoint.is_object()) throw std::runtime_error(snapshot_path + ": checkpoint is not a JSON object");
  if (std::string problem = checkpoint_schema_problem(checkpoint); !problem.empty()) {
    throw std::runtime_error(snapshot_path + ": " + problem);
  }
  replay_journal(checkpoint, run_dir, disk);
  return checkpoint;
}

}  // namespace attractor
