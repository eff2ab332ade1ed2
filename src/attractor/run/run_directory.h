#pragma once
/// \file
/// The run directory (docs/run-directory.md): `manifest.json`, `checkpoint.json`, `events.jsonl`, one folder
/// per stage and `artifacts/`. Default location `./checkpoints/<graph-name>-<UTC
/// yyyymmddTHHMMSS>-<6 hex>/`.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "attractor/run/posix_run_disk.h"

namespace attractor {

/// `manifest.json`: what ran and from which file.
struct Manifest {
  std::string name;
  std::string goal;
  std::string graph_path;    ///< absolute path of the .dot file ("" for graphs built in code)
  std::string graph_sha256;  ///< of the file's bytes
  std::string run_id;
  std::string start_time;  ///< ISO-8601 UTC
  std::string version;     ///< attractor version
  std::string parent_run;  ///< set for loop restarts and child pipelines
  /// How the run was started, so `attractor resume` continues it the same way: `backend`,
  /// `simulate`, `index`, `answers`, `responses` (absolute paths), `auto_approve`, `strict`.
  /// Written by `attractor run`; absent (an empty object) for runs started in code.
  nlohmann::json options = nlohmann::json::object();
  /// The run's worktree (docs/workspace.md, section 1): `mode` "worktree",
  /// `repository`, `worktree`, `workdir`, `branch`, `base_commit`, `worktree_name`. Null for an
  /// `in-place` run, which writes no such member.
  nlohmann::json workspace;
  /// A run made by `attractor fork` (docs/workspace.md, "Fork"): the original's `run_dir` and
  /// `run_id`, the `point` forked at and its `commit`. Null otherwise.
  nlohmann::json forked_from;

  nlohmann::json to_json() const;
  static Manifest from_json(const nlohmann::json& json);
};

/// `<graph-name>-<yyyymmddTHHMMSS>-<6 hex>` for `epoch_ms`; `hex6` is the random suffix.
std::string run_directory_name(const std::string& graph_name, std::int64_t epoch_ms, const std::string& hex6);
/// Six random lower-case hex digits.
std::string random_hex6();
/// A new run id: `<epoch_ms>-<hex6>`.
std::string new_run_id(std::int64_t epoch_ms, const std::string& hex6 = random_hex6());

/// Writes `{run_dir}/manifest.json` atomically but leaves its directory unsynced: the run's first
/// checkpoint snapshot, written next into the same directory, syncs both names
/// (docs/run-directory.md §4, invariant 16).
void write_manifest(const Manifest& manifest, const std::string& run_dir, RunDisk& disk = posix_run_disk());
/// Throws std::runtime_error when missing or malformed.
Manifest read_manifest(const std::string& run_dir, RunDisk& disk = posix_run_disk());

/// Writes a whole file (not atomic) on the real file system (PosixRunDisk::write_file); throws
/// std::runtime_error on failure.
void write_text_file(const std::string& path, const std::string& content);
/// Reads a whole file from the real file system; throws std::runtime_error on failure.
std::string read_text_file(const std::string& path);

}  // namespace attractor
