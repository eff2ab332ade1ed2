#pragma once
/// \file
/// The run directory's writer: file operations performed in order by one background thread, so
/// the engine computes the next stage while the kernel creates, writes and syncs the files of the
/// previous one.
///
/// Order is the contract. Operations run one at a time in the order they were queued, so the disk
/// always holds a prefix of the run's writes: whatever happens to the process, the run directory
/// looks as if the writes had been made inline and the process had stopped at that point (a
/// checkpoint is never on disk before the files of the node it records, and a node's files are
/// never on disk before the previous checkpoint). Code that lets anything outside the process
/// observe the run directory (a subprocess, an LLM or CLI agent, a human) calls `flush` first.
///
/// The first operation that throws stops the writer: later operations are dropped, and every
/// later call rethrows that error on the caller's thread. Thread-safe (parallel branches queue
/// concurrently).
///
/// The file helpers (`write_file`, `make_directories`, `remove_file`) and the operations queued
/// by `CheckpointWriter` and the events file write through the writer's `RunDisk`.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "attractor/run/run_disk.h"

namespace attractor {

/// A write of the run directory that failed (disk full, read-only, no permission): every failure
/// of a WriteBehind operation is rethrown as this type, message unchanged ("cannot write PATH:
/// REASON"), so a caller can tell it from the run's other errors.
class RunWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The name of the run directory's space reserve (docs/run-directory.md): written when a run
/// starts or resumes, removed when it ends, and freed to record a failed write on a full disk.
inline constexpr const char* kSpaceReserveFile = "space.reserve";
/// Its size: room for the records of a run stopped by a full disk.
inline constexpr std::size_t kSpaceReserveBytes = 64 * 1024;

class WriteBehind {
 public:
  using Operation = std::function<void()>;
  static constexpr std::size_t kDefaultBacklogBytes = std::size_t{64} << 20;

  /// `max_backlog_bytes`: `enqueue` waits while the queued operations hold more bytes than this.
  /// `background` false runs every operation inline on the caller's thread (same interface).
  /// Writes to the real file system (`posix_run_disk()`).
  explicit WriteBehind(bool background = true, std::size_t max_backlog_bytes = kDefaultBacklogBytes);
  /// Writes through `disk`, which must outlive the writer.
  explicit WriteBehind(RunDisk& disk, bool background = true, std::size_t max_backlog_bytes = kDefaultBacklogBytes);
  /// Runs what is still queued (nothing after a failure), then stops the thread. Never throws.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  /// Queues `op`, which holds `bytes` of data (counted toward the backlog), and returns its
  /// sequence number (1, 2, ...). Throws the writer's failure, if any.
  std::uint64_t enqueue(Operation op, std::size_t bytes = 0);
  /// Waits until operation `seq` and every operation before it have run (0: returns at once).
  /// Throws the writer's failure, if any.
  void wait_for(std::uint64_t seq);
  /// Waits until operation `seq` has called `release_running` or finished (and every operation
  /// before it has run). Throws the writer's failure, if any.
  void wait_released(std::uint64_t seq);
  /// Called by the running operation: lets `wait_released` callers of it go on before it ends
  /// (a checkpoint releases the buffers it reads once they are written, before the fsync).
  void release_running();
  /// Waits until every queued operation has run. Throws the writer's failure, if any.
  void flush();
  /// How many times `flush` was called: a handler that flushed may have let something outside
  /// the process write into its stage directory.
  std::uint64_t flush_count() const;

  /// The disk the operations write to.
  RunDisk& disk() const { return disk_; }

  /// Queues writing `content` to `path` (RunDisk::write_file).
  void write_file(std::string path, std::string content);
  /// Queues creating `path` and its parents; fails with "cannot create PATH: REASON".
  void make_directories(std::string path);
  /// Queues removing `path` (a missing file is not an error).
  void remove_file(std::string path);
  /// Queues making `stage_dir` ready for visit `visit` of its node (open_stage_visit in
  /// stage_visits.h: the previous visit archived, the directory made, no status.json left).
  void open_stage_visit(std::string stage_dir, std::int64_t visit);

 private:
  void loop();
  /// Wakes the callers waiting on progress_ when one of them waits for `seq` or earlier.
  void notify_progress(std::uint64_t seq);
  /// Waits on progress_ until `done()` (mutex held through `lock`); `wake_at` is the operation
  /// whose completion or release can make it true (0: any progress, for backlog room).
  template <typename Predicate>
  void wait_progress(std::unique_lock<std::mutex>& lock, std::uint64_t wake_at, Predicate done);
  void throw_if_failed_locked() const;

  struct Queued {
    std::uint64_t seq = 0;
    Operation op;
    std::size_t bytes = 0;
  };

  RunDisk& disk_;
  const bool background_;
  const std::size_t max_backlog_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;  ///< the thread waits for work
  std::condition_variable progress_;    ///< callers wait for completions and backlog room
  std::deque<Queued> queue_;            ///< not yet taken by the thread (mutex_)
  std::uint64_t next_seq_ = 1;          ///< mutex_
  std::uint64_t flushes_ = 0;           ///< mutex_
  bool writer_waiting_ = false;         ///< the thread sleeps on work_ready_ (mutex_; notify only then)
  bool stopping_ = false;               ///< mutex_
  std::exception_ptr failure_;          ///< mutex_
  // Progress is published without the mutex; the thread takes it only to wake announced waiters.
  std::atomic<std::size_t> backlog_bytes_{0};
  std::atomic<std::uint64_t> done_seq_{0};      ///< every operation up to this one has run (or was dropped)
  std::atomic<std::uint64_t> running_seq_{0};   ///< the operation running now
  std::atomic<std::uint64_t> released_seq_{0};  ///< the last operation that called release_running
  std::atomic<int> callers_waiting_{0};
  static constexpr std::uint64_t kNobodyWaits = ~std::uint64_t{0};
  std::atomic<std::uint64_t> wake_seq_{kNobodyWaits};  ///< the earliest operation a waiter needs
  std::atomic<bool> failed_{false};
  std::thread thread_;
};

}  // namespace attractor
