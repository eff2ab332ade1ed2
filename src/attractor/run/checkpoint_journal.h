#pragma once
/// \file
/// The checkpoint journal (docs/run-directory.md, "Checkpoint journal"): instead of rewriting the
/// whole checkpoint after every stage, the engine appends what changed to `checkpoint.journal`
/// and rewrites `checkpoint.json` (the snapshot) only now and then. Reading a checkpoint is the
/// snapshot with the journal's records after it replayed on top.
///
/// A record is one line: `<seq> <crc32> <delta>\n`, where `seq` is the record's number (1, 2, ...
/// since the run started, decimal), `crc32` the zlib CRC-32 of the delta text (8 lower-case hex
/// digits), and `delta` compact JSON with up to four members:
///   - `set`: top-level checkpoint members replaced whole (`current_node`, `usage`, ...);
///   - `append`: arrays extended (`completed_nodes`, `completed_statuses`, `logs`);
///   - `merge`: objects whose members are set (`context`, `node_outcomes`, `visit_counts`);
///   - `remove`: objects whose members are deleted (`context`: a list of keys).
/// The snapshot's `journal_seq` is the last record it already contains (0 or absent: none).
///
/// Invariants:
///   1. A record is appended and synced before the stage after it starts; a record never changes.
///   2. Records are replayed in order from `journal_seq + 1`; the first line that is torn (no
///      newline), fails its CRC or breaks the sequence ends the replay, and it and everything
///      after it are ignored. Records at or below `journal_seq` are skipped. A line whose CRC
///      matches was written whole: when it is not JSON, nests too deep or does not fit the record
///      schema (checkpoint_schema.h), the journal is damaged and reading it fails, naming the
///      record and its byte offset, instead of silently dropping state.
///   3. A snapshot is written atomically (temp file, fsync, rename, directory fsync) before the
///      journal is emptied, so at every instant snapshot + journal give the last saved state.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/run/run_disk.h"

namespace attractor {

/// The journal's file name inside a run directory.
inline constexpr std::string_view kCheckpointJournalFile = "checkpoint.journal";

/// The line of record `seq` holding `delta_text` (compact JSON, no newline).
std::string encode_journal_record(std::uint64_t seq, std::string_view delta_text);

struct JournalRecord {
  std::uint64_t seq = 0;
  nlohmann::json delta;
  std::size_t offset = 0;  ///< byte offset of the record's line in the journal
};

/// Why one line (without its newline) is not a record, or "" with `out` filled. A line whose
/// checksum matches was written whole: what is wrong with its content sets `damaged` (it is not
/// torn). The checkpoint history (checkpoint_history.h) reads its lines with it too.
std::string parse_journal_line(std::string_view line, JournalRecord& out, bool& damaged);

/// What a journal's text holds after a snapshot.
struct JournalScan {
  std::vector<JournalRecord> records;  ///< the records to replay, in order
  std::uint64_t last_seq = 0;          ///< the last valid record's seq (`after_seq` when none)
  std::size_t valid_bytes = 0;         ///< length of the prefix of whole, valid records
  std::string stopped_at;              ///< why the scan stopped before the end ("" when it did not)
  /// A whole record (its checksum matches) that is not a valid record: "record N (byte B): WHY"
  /// ("" when none). The scan stops there; readers refuse the journal (invariant 2).
  std::string damaged;
};

/// The records of `text` to replay on a snapshot whose `journal_seq` is `after_seq` (invariant 2).
JournalScan scan_journal(std::string_view text, std::uint64_t after_seq);

/// Applies one record's delta to a checkpoint document. Throws std::runtime_error when the delta
/// names a member of the wrong kind (an `append` to something that is not an array, ...).
void apply_journal_delta(nlohmann::json& checkpoint, const nlohmann::json& delta);

/// Replays the journal of `run_dir` on `snapshot` (its `checkpoint.json`, already parsed) and
/// sets `journal_seq` to the last record applied. A missing journal changes nothing; a torn
/// tail is ignored (invariant 2). Throws std::runtime_error naming the journal, the record and
/// its byte offset when a whole record is damaged or does not fit the snapshot.
void replay_journal(nlohmann::json& snapshot, const std::string& run_dir, RunDisk& disk);

/// The checkpoint of `run_dir` as a document: `checkpoint.json` with the journal replayed, and
/// `journal_seq` set to the last record applied. Throws std::runtime_error naming the file when
/// the snapshot is missing or malformed; a damaged journal tail is ignored (invariant 2).
nlohmann::json read_checkpoint_document(const std::string& run_dir, RunDisk& disk);

}  // namespace attractor
