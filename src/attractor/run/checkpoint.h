#pragma once
/// \file
/// The checkpoint (spec §5.3, docs/run-directory.md): everything needed to continue a run exactly, written
/// atomically after every node (temp file, fsync, rename), as compact JSON (it is rewritten after
/// every node, so its size matters).
///
/// JSON keys: `timestamp`, `run_id`, `current_node` (last completed node; the exit node at the
/// end), `next_node` ("" when finished), `state` ("running", "success", "fail"),
/// `completed_nodes` (every execution in order), `completed_statuses`, `completed_commits`, `node_retries`, `context`,
/// `logs`, `node_outcomes` (id -> `status`/`outcome`, plus `preferred_label`, `failure_reason` and `error_category`
/// when set; context updates are already in `context`), `visit_counts`, `node_attempts` (handler attempts per node,
/// retries included), `total_executions`, `last_fidelity`, `inbox` (pending messages for later stages),
/// `final_outcome`, `seed_context`, `restart_count`.

#include <cstdint>
#include <optional>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/model/context.h"
#include "attractor/run/member_table.h"
#include "attractor/model/outcome.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/write_behind.h"

namespace attractor {

struct Checkpoint {
  std::int64_t timestamp_ms = 0;
  std::string run_id;
  std::string current_node;
  std::string next_node;
  std::string state = "running";
  std::vector<std::string> completed_nodes;
  /// The status of each `completed_nodes` entry, in the same order (empty in checkpoints written
  /// before this key existed), so a resumed run's history says which visits failed.
  std::vector<std::string> completed_statuses;
  /// In a `worktree` run (docs/workspace.md), the commit each `completed_nodes` entry made on the
  /// run's branch, in the same order: "" for a stage that changed no file (and for the branch
  /// stages of a parallel node, whose changes its own entry commits). Empty in an `in-place` run.
  std::vector<std::string> completed_commits;
  std::map<std::string, std::int64_t> node_retries;
  nlohmann::json context = nlohmann::json::object();
  std::vector<std::string> logs;
  std::map<std::string, Outcome> node_outcomes;
  std::map<std::string, std::int64_t> visit_counts;
  /// Handler attempts per node over the run, retries included, as of each node's last recorded
  /// execution (StageEnv::prior_attempts): bookkeeping kept out of the context.
  std::map<std::string, std::int64_t> node_attempts;
  std::int64_t total_executions = 0;
  std::string last_fidelity;
  nlohmann::json inbox = nlohmann::json::array();
  nlohmann::json final_outcome;                            ///< null while running
  nlohmann::json seed_context = nlohmann::json::object();  ///< `--set`/`--context` values, for loop_restart
  std::int64_t restart_count = 0;
  /// Token usage of the LLM calls so far (UsageTally::to_json), so a resumed run's totals include
  /// the calls made before the interruption.
  nlohmann::json usage = nlohmann::json::object();
  /// The number of the last journal record this state includes (checkpoint_journal.h): the
  /// engine counts it up by one for every save, so a save is record `journal_seq` or a snapshot
  /// holding records up to it.
  std::uint64_t journal_seq = 0;

  /// The checkpoint as compact JSON with its members in key order, made by a fresh
  /// CheckpointWriter: the one serializer of checkpoints (what a run's writer saves is the same
  /// text, kept up to date incrementally). Throws nlohmann::json::exception on invalid UTF-8.
  std::string to_text() const;
  /// `to_text()` parsed, for code that reads members.
  nlohmann::json to_json() const;
  /// Throws std::runtime_error on a malformed document.
  static Checkpoint from_json(const nlohmann::json& json);
};

/// Writes `content` to `path` atomically on the real file system: `path.tmp`, fsync, rename,
/// fsync of the directory (RunDisk::write_file_atomic). Throws std::runtime_error on failure.
void write_file_atomic(const std::string& path, const std::string& content);
/// The same for content given in parts, written with writev (no joined copy). `written`, if set,
/// is called once the parts are no longer needed (written, not yet synced).
void write_file_atomic(const std::string& path, std::span<const std::string_view> parts,
                       const std::function<void()>& written = nullptr);

/// Saves to `{run_dir}/checkpoint.json` atomically.
void save_checkpoint(const Checkpoint& checkpoint, const std::string& run_dir, RunDisk& disk = posix_run_disk());

/// The `node_outcomes` entry of one outcome (see the file comment).
nlohmann::json outcome_entry_json(const Outcome& outcome);

/// The checkpoint serializer. It turns successive checkpoints of one run into the same bytes a
/// fresh writer gives for each (Checkpoint::to_text), compact JSON in key order as
/// `nlohmann::json::dump()` would write it, keeping the growing parts as serialized text:
/// `completed_nodes` and `logs` are treated as append-only, and the `node_outcomes` /
/// `visit_counts` entries are re-serialized only for the nodes completed since the previous call.
/// A different `run_id`, a shrunk list or a map whose size no longer matches the cache makes it
/// start over from the whole checkpoint. tests/attractor/run/checkpoint_test.cc checks both
/// properties on random runs.
class CheckpointWriter {
 public:
  /// The compact JSON of `checkpoint`, byte-identical to `checkpoint.to_text()`.
  std::string serialize(const Checkpoint& checkpoint);
  /// Tells which `context` keys changed since the previous call; without it, `context` is
  /// assumed unchanged apart from its size being checked.
  void note_context_changes(const ContextChanges& changes);
  /// Saves `serialize(checkpoint)` plus a newline to `{run_dir}/checkpoint.json` atomically,
  /// writing the cached parts directly instead of joining them first.
  void save(const Checkpoint& checkpoint, const std::string& run_dir, RunDisk& disk = posix_run_disk());
  /// Same, as an operation queued on `writer` (which must outlive this object's next call) that
  /// writes through the writer's disk. The queued operation reads this object's cached parts, so
  /// the next serialization first waits until they are written (not until they are synced).
  void save(const Checkpoint& checkpoint, const std::string& run_dir, WriteBehind& writer);

  /// `serialize` with the `context` and `logs` members taken from the live `context` instead of
  /// the checkpoint (whose members are not read): only the keys `context` reports as written
  /// since the previous call (`Context::changes_since`) are serialized again, and only new log
  /// entries are appended. `note_context_changes` is not needed on this path.
  std::string serialize(const Checkpoint& checkpoint, const Context& context);
  /// The queued `save` with `context` and `logs` from the live `context` (see above). `context`
  /// is read before this returns, not by the queued operation.
  void save(const Checkpoint& checkpoint, const Context& context, const std::string& run_dir, WriteBehind& writer);

  /// Journal policy (docs/run-directory.md, "Checkpoint journal"): after a snapshot, saves append
  /// records until the journal would outgrow both the snapshot and this many bytes; then the
  /// save is a snapshot again. Bytes written per save then stay proportional to one save's
  /// changes, amortized.
  static constexpr std::size_t kMinJournalBytes = 64 * 1024;
  /// While the last snapshot was at most this big, every save is a snapshot: rewriting a small
  /// checkpoint is cheap, and `checkpoint.json` then holds the state after every stage for the
  /// tools that read it without the journal (the common case; docs/run-directory.md 2.2.1).
  static constexpr std::size_t kRewriteBelowBytes = 4 * 1024;
  /// Also makes every `records`-th save after a snapshot a snapshot (0: only the size policy).
  /// `run --snapshot-every N`; the crash tests use it to put kills inside compactions.
  void set_snapshot_every(std::size_t records) { snapshot_every_ = records; }
  /// Changes kRewriteBelowBytes for this writer (0: journal records after the first snapshot as
  /// the size policy says). `run --checkpoint-rewrite-below BYTES`.
  void set_rewrite_below(std::size_t bytes) { rewrite_below_ = bytes; }
  /// Also appends every journaled or last save to `checkpoint.history` (checkpoint_history.h),
  /// before the save itself: what `attractor rewind` and `fork` replay. Worktree runs turn it on.
  void set_history(bool on) { history_ = on; }
  /// Saves through the journal, queued on `writer`: the save's record (`journal_delta`, numbered
  /// `checkpoint.journal_seq`) appended and synced, or, when there is no delta or the policy says
  /// so, the whole checkpoint written atomically as `checkpoint.json` and the journal emptied.
  void save_journaled(const Checkpoint& checkpoint, const Context& context, const std::string& run_dir,
                      WriteBehind& writer);
  /// The run's last save, queued as a snapshot without a journal record first (the snapshot
  /// makes it durable as one), then the journal removed: `checkpoint.json` alone holds the end.
  void save_last(const Checkpoint& checkpoint, const Context& context, const std::string& run_dir, WriteBehind& writer);
  /// Queues the last serialization as a snapshot (a compaction), then removes the journal:
  /// `checkpoint.json` alone then holds the last saved state. For interruptions.
  void compact(const std::string& run_dir, WriteBehind& writer);

  /// The journal record (checkpoint_journal.h) of the last serialization from a live context:
  /// what changed since the serialization before it, as compact JSON. Empty when the last
  /// serialization was the first, started over, rebuilt the whole context or did not read a
  /// live context: then only a snapshot can carry the state.
  const std::string& journal_delta() const { return delta_; }

 private:
  /// A JSON array of strings kept as text, extended with the elements added since the last call.
  struct AppendedArray {
    std::string text;  ///< the elements joined with commas, without brackets
    std::size_t count = 0;
    void update(const std::vector<std::string>& items);
    /// Appends `items`, the elements after the first `count`.
    void extend(const std::vector<std::string>& items);
  };

  void start_over(const Checkpoint& checkpoint);
  /// The serialized checkpoint as views (see serialize_views), with `context` and `logs` from
  /// `live` when it is set.
  const std::vector<std::string_view>& serialize_views(const Checkpoint& checkpoint, const Context* live);
  /// Brings the cached `context` members and `logs` up to date with the live `context`.
  void read_live(const Context& context);
  void refresh_entries(const Checkpoint& checkpoint, std::size_t first_new);
  /// The serialized checkpoint as views of cached text, valid until the next call.
  const std::vector<std::string_view>& serialize_views(const Checkpoint& checkpoint);
  /// Brings the cached parts and the journal delta up to date with `checkpoint` (and `live`),
  /// without assembling the whole document: a journaled save needs only the delta.
  void update(const Checkpoint& checkpoint, const Context* live);
  /// views_ for the last update, assembled on first use after it.
  const std::vector<std::string_view>& views();
  /// Brings the cached `context` members up to date, re-serializing only the noted keys.
  void update_context(const nlohmann::json& context);
  /// Queues the atomic write of views_ plus a newline to `{run_dir}/checkpoint.json` on `writer`.
  void enqueue_save(const std::string& run_dir, WriteBehind& writer);
  /// Waits until the last queued save has read views_ (they are about to change).
  void wait_for_queued_save();

  /// What one serialization changed, collected while it runs (see journal_delta).
  struct DeltaParts {
    bool whole = false;  ///< started over or rebuilt the context: no delta
    std::vector<std::string> logs;
    std::map<std::string, std::string> outcomes;  ///< id -> `"id":{...}`
    std::map<std::string, std::string> visits;    ///< id -> `"id":n`
    std::map<std::string, std::string> attempts;  ///< id -> `"id":n`
    std::map<std::string, std::string> context;   ///< key -> `"key":value`
    std::vector<std::string> removed;             ///< context keys
  };
  /// Builds delta_ from delta_parts_, the checkpoint's new list entries from `first_completed`
  /// and `first_status`, and the top-level members in scalars_.
  void build_delta(const Checkpoint& checkpoint, std::size_t first_completed, std::size_t first_status,
                   std::size_t first_commit);

  /// Queues the history record of the last update (its delta, else the whole checkpoint) when
  /// set_history is on.
  void enqueue_history(std::uint64_t seq, const std::string& run_dir, WriteBehind& writer);

  /// What a snapshot does to the journal it folded in, once it is durable.
  enum class JournalAfter {
    /// Truncated, and created before the snapshot when missing, so the snapshot's directory
    /// sync also makes the journal's name durable and the next record needs none of its own.
    kEmptied,
    kRemoved,  ///< removed: the run stops here
  };
  /// Queues views_ as `checkpoint.json`, with the journal handled as `after` says.
  void enqueue_snapshot(const std::string& run_dir, WriteBehind& writer, JournalAfter after);

  /// The journal as the writer's operations append to it, kept open between records (only those
  /// operations touch it, one at a time); closed before the journal is removed.
  struct OpenJournal {
    std::string path;
    std::unique_ptr<SyncedAppendFile> file;
  };

  DeltaParts delta_parts_;
  std::string delta_;
  bool history_ = false;
  /// The history file, as the writer's history operations keep it open (reopened when the run
  /// directory changes: a loop_restart continues in a directory of its own).
  struct OpenHistory {
    std::string path;
    std::shared_ptr<AppendFile> file;
  };
  std::shared_ptr<OpenHistory> history_file_ = std::make_shared<OpenHistory>();
  std::shared_ptr<OpenJournal> journal_ = std::make_shared<OpenJournal>();
  std::size_t snapshot_bytes_ = 0;                  ///< size of the last snapshot queued
  std::size_t journal_bytes_ = 0;                   ///< bytes appended to the journal since then
  std::size_t journal_records_ = 0;                 ///< records appended since then
  std::size_t snapshot_every_ = 0;                  ///< see set_snapshot_every
  std::size_t rewrite_below_ = kRewriteBelowBytes;  ///< see set_rewrite_below
  std::string empty_journal_;                       ///< the journal this writer's last snapshot left empty ("" = none)
  std::string run_id_;
  AppendedArray completed_;
  AppendedArray statuses_;
  AppendedArray commits_;
  AppendedArray logs_;
  MemberTable outcomes_;  ///< `"id":{...}` per node
  MemberTable visits_;    ///< `"id":n` per node
  MemberTable attempts_;  ///< `"id":n` per node
  MemberTable context_;   ///< `"key":value` per context key
  std::vector<std::string> context_dirty_;
  /// The members that are neither lists nor tables, serialized, in key order.
  std::vector<std::pair<std::string_view, std::string>> scalars_;
  std::optional<std::string> context_text_;  ///< a `context` that is not an object, serialized
  std::vector<std::string_view> views_;      ///< the current serialization
  bool views_current_ = false;               ///< views_ shows the last update
  bool serialized_ = false;                  ///< an update has been made
  WriteBehind* queued_on_ = nullptr;         ///< where the last queued save went
  std::uint64_t queued_seq_ = 0;             ///< its operation, which reads views_
  bool context_all_ = true;
  const Context* live_ = nullptr;  ///< the live context read by the previous serialization, if any
  std::uint64_t live_cursor_ = 0;  ///< its changes already in `context_`
};
/// Loads `{run_dir}/checkpoint.json`; throws std::runtime_error when missing or malformed.
Checkpoint load_checkpoint(const std::string& run_dir, RunDisk& disk = posix_run_disk());

}  // namespace attractor
