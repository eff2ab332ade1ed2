#pragma once
/// \file
/// Where a handler, and the helpers it calls with a request instead of its StageEnv (an LLM
/// backend, a tool hook), write the files of a stage: through the run's writer, so a failed write
/// stops the run like any other run-directory write (exit 3, docs/run-directory.md) and the crash
/// tests' disk sees it. Without a writer (a backend or hook called outside the engine) the files
/// are written inline on the real file system.

#include <string>

#include "attractor/run/run_disk.h"

namespace attractor {

class WriteBehind;

/// A handle on the run's writer; cheap to copy. The writer must outlive every copy.
class StageFiles {
 public:
  /// Inline writes on the real file system.
  StageFiles() = default;
  /// Writes queued on `writer` (nullptr: inline on the real file system).
  explicit StageFiles(WriteBehind* writer) : writer_(writer) {}

  /// Writes `content` to `path` (RunDisk::write_file), queued behind the run's earlier writes.
  /// Throws the writer's failure, or inline the disk's.
  void write(const std::string& path, std::string content) const;
  /// Waits until every queued write is on disk; call it before anything outside the process (a
  /// subprocess, an LLM, a human) may read what was written. Throws the writer's failure.
  void flush() const;
  /// The disk the run directory is written on (a child run inside the stage writes there too).
  RunDisk& disk() const;

 private:
  WriteBehind* writer_ = nullptr;
};

}  // namespace attractor
