#pragma once
/// \file
/// A new run never writes into a directory that holds another run (docs/cli.md, "Run
/// directories"): `attractor run --logs-root DIR` into a directory with a manifest, a checkpoint,
/// a journal, events or stage folders is refused, naming the run it holds and the ways on, or
/// (`--move-aside`) moves that run to `DIR.old-N` first. Nothing is ever deleted.

#include <cstdint>
#include <optional>
#include <string>

#include "attractor/run/run_disk.h"

namespace attractor {

/// What in `dir` belongs to a run: the first of manifest.json, checkpoint.json,
/// checkpoint.journal and events.jsonl it holds, else its first folder (a stage's); "" when it
/// holds none of them (missing, empty, or only other files such as a stale run.lock).
std::string run_content_of(RunDisk& disk, const std::string& dir);

/// The refusal of a new run into `dir`: "DIR already holds a run (graph 'G', STATUS, started T);
/// nothing was written. ..." with the ways on; nullopt when `dir` holds no run. `now_ms` dates a
/// running run.
std::optional<std::string> existing_run_problem(RunDisk& disk, const std::string& dir, std::int64_t now_ms);

/// The first of `DIR.old-1`, `DIR.old-2`, ... that does not exist: where `--move-aside` puts the
/// run `dir` holds.
std::string aside_path(RunDisk& disk, const std::string& dir);

}  // namespace attractor
