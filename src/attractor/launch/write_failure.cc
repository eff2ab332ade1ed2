#include "attractor/launch/write_failure.h"

#include <filesystem>

#include <fmt/format.h>

#include "attractor/engine/event_names.h"
#include "attractor/engine/events.h"
#include "attractor/launch/run_summary.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/write_behind.h"

namespace attractor {

namespace {

/// The node the run goes on with, from its checkpoint; "" when it cannot be read.
std::string next_node_of(RunDisk& disk, const std::string& run_dir) {
  try {
    return load_checkpoint(run_dir, disk).next_node;
  } catch (const std::exception&) {
    return "";
  }
}

void append_interrupted_event(RunDisk& disk, const std::string& run_dir, const std::string& error,
                              const std::string& next, std::int64_t now_ms) {
  const std::string events = (std::filesystem::path(run_dir) / "events.jsonl").string();
  Event e;
  e.name = kPipelineInterruptedEvent;
  e.timestamp_ms = now_ms;
  e.fields = {{"reason", kInterruptedByWriteFailure}, {"error", error}, {"next_node", next}};
  try {
    disk.remove_file((std::filesystem::path(run_dir) / kSpaceReserveFile).string());
    if (disk.exists(events)) disk.cut_torn_tail(events);
    disk.append_synced(events, e.to_json_line());
  } catch (const std::exception&) {
    // Nothing more can be written (status reads the reason from the directory); a line cut
    // short by the failure goes, so the events file still ends in a whole line.
    try {
      if (disk.exists(events)) disk.cut_torn_tail(events);
    } catch (const std::exception&) {
    }
  }
}

}  // namespace

std::string record_write_failure(RunDisk& disk, const std::string& run_dir, const std::string& error,
                                 std::int64_t now_ms) {
  const std::string next = next_node_of(disk, run_dir);
  append_interrupted_event(disk, run_dir, error, next, now_ms);
  if (next.empty()) {
    return fmt::format(
        "attractor: runtime error: {}\n"
        "the run stopped before its first checkpoint. Free space or make {} writable, then start it again\n",
        error, run_dir);
  }
  return fmt::format(
      "attractor: runtime error: {}\n"
      "the run stopped; its last checkpoint (it goes on with `{}`) is intact. Free space or make {} writable, "
      "then: attractor resume {}\n",
      error, next, run_dir, run_dir);
}

}  // namespace attractor
