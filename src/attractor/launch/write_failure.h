#pragma once
/// \file
/// One account of a run stopped by a failed write of its run directory (disk full, read-only, no
/// permission): the console, `attractor status`, `status --json` and `events.jsonl` all say the
/// write that failed, that the last checkpoint is intact, and that `attractor resume` goes on
/// (docs/run-directory.md, "When the disk fails").

#include <cstdint>
#include <string>

#include "attractor/run/run_disk.h"

namespace attractor {

/// Records that run `run_dir` stopped because a write failed with `error` (a RunWriteError's
/// message), and returns what the console prints. Frees the run's space reserve, then appends a
/// PipelineInterrupted event (reason kInterruptedByWriteFailure, `error`, `next_node`) to
/// `events.jsonl`; a disk that takes not even that gets nothing, and `status` then tells the
/// reason from the directory itself. Never throws.
std::string record_write_failure(RunDisk& disk, const std::string& run_dir, const std::string& error,
                                 std::int64_t now_ms);

}  // namespace attractor
