#pragma once
/// \file
/// The attempt folders of one visit of a stage (docs/run-directory.md §2.5).
///
/// Invariants:
///  1. Every attempt that started a program has a folder of its own, made before the program
///     starts; nothing of another attempt, or of another run, is ever written into it.
///  2. Once a visit makes a second attempt, every attempt of it has a folder, and each folder
///     holds the files that attempt kept (prompt.md, response.md, the agent's transcript).
///  3. The stage folder holds the latest attempt's kept files.
///  4. A visit with a single attempt makes no folder unless the attempt starts a program: its
///     files are the stage folder's, as they were before attempt folders existed, and cost no
///     extra directory. So a resumed run's tree equals an uninterrupted one's.
///  5. Folders are numbered 1, 2, ... in order. In a stage folder that only this run has written
///     (`numbered_here`) the numbers need no look at the disk; in one that was there before (a
///     resume) the numbering goes on after the folders already on disk, found after a flush.

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "attractor/run/run_disk.h"
#include "attractor/run/write_behind.h"

namespace attractor {

class AttemptFolders {
 public:
  /// The attempts of one visit of `stage_dir`, written through `writer`. `numbered_here`: the
  /// stage folder was made by this run and only it writes there (invariant 5).
  AttemptFolders(WriteBehind& writer, std::string stage_dir, bool numbered_here);

  /// Starts attempt `attempt` (1, 2, ...): files the previous attempt's kept files, when they are
  /// in the stage folder alone, into a folder of their own (invariant 2).
  void begin(std::int64_t attempt);
  /// The current attempt's folder, made on the first call (StageEnv::attempt_directory).
  std::string folder();
  /// Writes the current attempt's file `name` into the stage folder and into its attempt folder
  /// (StageEnv::keep_attempt_file).
  void keep(const std::string& name, std::string content);
  /// True when the current attempt has a folder.
  bool has_folder() const;
  /// True when the current attempt's folder was found by looking at the disk, which waited for
  /// the writer: something outside the process may have written there.
  bool looked_at_disk() const;

 private:
  std::string make_folder();

  WriteBehind& writer_;
  const std::string stage_dir_;
  const bool numbered_here_;
  mutable std::mutex mutex_;
  std::int64_t last_ = 0;             ///< the number of the last folder made
  std::int64_t attempt_ = 0;          ///< the current attempt
  std::string current_;               ///< its folder, "" until made
  std::vector<std::string> unfiled_;  ///< files it kept in the stage folder alone
};

}  // namespace attractor
