#pragma once
/// \file
/// The checkpoint history of a `worktree` run (docs/workspace.md, "Rewind and fork"):
/// `checkpoint.history`, append-only, one record per checkpoint save in the journal's line format
/// (checkpoint_journal.h). A save the checkpoint writer could describe as a delta is that delta;
/// the first save of a writer (a run's start, every resume) is a *full* record, `{"set": the
/// whole checkpoint}`. Replaying the records gives the run's state after any completed stage,
/// which is what `attractor rewind` and `attractor fork` go back to.
///
/// Invariants:
///   1. A save's record is appended before the save's journal record or snapshot is written, so
///      the history always holds the state the checkpoint holds (a SIGKILL between the two
///      leaves a record the next resume's full record supersedes).
///   2. A record numbered `seq` supersedes every earlier record numbered `seq` or more: a resume
///      continues from the checkpoint's `journal_seq`, so what the killed process appended after
///      it never happened. The records left form the run's *lineage*.
///   3. A delta record applies only to the record just before it in the lineage with the number
///      one less; a gap (a lost or torn record) makes the states after it unreachable until the
///      next full record. Unreachable states are never offered as rewind points.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/run/run_disk.h"

namespace attractor {

/// The history's file name inside a run directory.
inline constexpr std::string_view kCheckpointHistoryFile = "checkpoint.history";

/// The full history record of a checkpoint serialized as `checkpoint_text` (compact JSON).
std::string full_history_record(std::uint64_t seq, std::string_view checkpoint_text);

/// One save of the lineage.
struct HistoryEntry {
  std::uint64_t seq = 0;
  std::size_t completed = 0;  ///< `completed_nodes` entries in the state after this save
  bool full = false;
  bool reachable = true;  ///< invariant 3
  std::string line;       ///< the record's line, newline included
  nlohmann::json delta;
};

/// A run's checkpoint history, read.
class CheckpointHistory {
 public:
  /// Reads `{run_dir}/checkpoint.history`; an empty history when it is missing. Lines that are
  /// torn or fail their checksum end a chain (invariant 3) but not the reading.
  static CheckpointHistory read(const std::string& run_dir, RunDisk& disk);
  /// The same from the file's text.
  static CheckpointHistory parse(std::string_view text);

  /// The lineage, in order.
  const std::vector<HistoryEntry>& entries() const { return entries_; }
  /// The index in entries() of the reachable save that recorded `completed_nodes` entry `entry`
  /// first (a parallel stage's save records its fan-out node and then its branches: only the
  /// fan-out node's entry is recorded first). nullopt when there is none.
  std::optional<std::size_t> save_recording(std::size_t entry) const;
  /// Of the first `count` entries of `completed_nodes`, which ones save_recording finds.
  std::vector<bool> recorded_entries(std::size_t count) const;
  /// The checkpoint document after entries()[index] (full record at or before it, deltas after).
  nlohmann::json state_at(std::size_t index) const;
  /// The lineage's lines up to and including entries()[index]: the history of a run rewound or
  /// forked there.
  std::string text_through(std::size_t index) const;

 private:
  void add(HistoryEntry entry);
  std::vector<HistoryEntry> entries_;
};

}  // namespace attractor
