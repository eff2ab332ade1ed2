#include "attractor/cli/progress_display.h"
#include "attractor/engine/event_names.h"

#include <fmt/format.h>

namespace attractor {

std::string format_duration(std::int64_t ms) {
  if (ms < 1000) return fmt::format("{}ms", ms);
  if (ms < 60000) return fmt::format("{:.1f}s", static_cast<double>(ms) / 1000.0);
  return fmt::format("{}m{:02}s", ms / 60000, (ms / 1000) % 60);
}

void ProgressDisplay::clear_live() {
  if (live_shown_) {
    std::fputs("\r\033[2K", out_);
    live_shown_ = false;
  }
}

namespace {

/// `text` with control characters (other than tab) replaced by '?'.
std::string printable(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7f) c = '?';
  }
  return out;
}

/// `checkpoint after A (next: B)`; the first checkpoint of a run has no node before it, the last
/// no node after it.
std::string checkpoint_line(const std::string& node, const std::string& next) {
  if (node.empty()) return fmt::format("    checkpoint at the start (next: {})", next);
  if (next.empty()) return fmt::format("    checkpoint after {} (final)", node);
  return fmt::format("    checkpoint after {} (next: {})", node, next);
}

}  // namespace

std::string ProgressDisplay::output_tail(const nlohmann::json& fields) {
  for (const char* key : {"stderr_tail", "stdout_tail"}) {
    auto it = fields.find(key);
    if (it == fields.end() || !it->is_array() || it->empty()) continue;
    std::string out;
    for (const nlohmann::json& l : *it) {
      if (l.is_string()) out += "\n    │ " + printable(l.get<std::string>());
    }
    return out;
  }
  return "";
}

namespace {

/// "  (sandbox workspace)" for a stage whose commands ran confined, with how many operations the
/// sandbox denied ("  (sandbox strict, 2 denied)"); "" for none.
std::string sandbox_note(const nlohmann::json& fields) {
  auto it = fields.find("sandbox");
  if (it == fields.end() || !it->is_object() || it->value("level", "none") == "none") return "";
  std::size_t denied = it->contains("denied") && (*it)["denied"].is_array() ? (*it)["denied"].size() : 0;
  return fmt::format("  (sandbox {}{})", it->value("level", ""), denied ? fmt::format(", {} denied", denied) : "");
}

}  // namespace

void ProgressDisplay::on_event(const Event& e) {
  std::lock_guard lock(mutex_);
  const nlohmann::json& f = e.fields;
  auto s = [&](const char* key) {
    auto it = f.find(key);
    if (it == f.end() || it->is_null()) return std::string();
    return it->is_string() ? it->get<std::string>() : it->dump();
  };
  auto ms = [&](const char* key) { return f.contains(key) && f[key].is_number() ? f[key].get<std::int64_t>() : 0; };
  std::string line;
  if (e.name == kStageStartedEvent) {
    if (live_) {
      clear_live();
      std::string attempt = ms("attempt") > 1 ? fmt::format(" (attempt {})", ms("attempt")) : "";
      std::fputs(fmt::format("  … {} running{}", s("name"), attempt).c_str(), out_);
      live_shown_ = true;
    }
  } else if (e.name == kStageWaitingEvent) {
    std::string waiting = fmt::format("{} waiting on the {} ({})", s("name"), s("waiting_on"),
                                      format_duration(ms("elapsed_ms")));
    if (!live_) {
      line = "  … " + waiting;
    } else {
      clear_live();
      std::fputs(("  … " + waiting).c_str(), out_);
      live_shown_ = true;
    }
  } else if (e.name == kStageUsageEvent) {
    if (s("backend") == "simulation") simulated_.insert(s("name"));
  } else if (e.name == kStageCompletedEvent) {
    bool simulated = simulated_.erase(s("name")) > 0;
    line = fmt::format("  ✓ {:<24} {:<16} {}{}{}", s("name"), s("status"), format_duration(ms("duration_ms")),
                       simulated ? "  (simulated)" : "", sandbox_note(f));
  } else if (e.name == kStageFailedEvent) {
    bool simulated = simulated_.erase(s("name")) > 0;
    line = fmt::format("  ✗ {:<24} {:<16} {}  {}{}{}{}", s("name"), s("status"), format_duration(ms("duration_ms")),
                       s("error"), f.value("will_retry", false) ? " (will retry)" : "", simulated ? " (simulated)" : "",
                       sandbox_note(f));
    line += output_tail(f);
  } else if (e.name == kStageRetryingEvent) {
    line = fmt::format("  ↻ {} retrying in {} (attempt {})", s("name"), format_duration(ms("delay_ms")), ms("attempt"));
  } else if (e.name == kInterviewStartedEvent) {
    line = fmt::format("  ? {} asks: {}", s("stage"), s("question"));
  } else if (e.name == kInterviewCompletedEvent) {
    line = fmt::format("  ? {} answered: {} (by {})", s("stage"), printable(s("shown")), s("answered_by"));
  } else if (e.name == kInterviewTimeoutEvent) {
    line = fmt::format("  ? {} timed out waiting for an answer", s("stage"));
  } else if (e.name == kParallelStartedEvent) {
    line = fmt::format("  ⇉ {} fans out to {} branches ({})", s("name"), s("branch_count"), s("join_policy"));
  } else if (e.name == kParallelCompletedEvent) {
    line = fmt::format("  ⇇ {} joined: {} succeeded, {} failed in {}", s("name"), s("success_count"),
                       s("failure_count"), format_duration(ms("duration_ms")));
  } else if (e.name == kPipelineCompletedEvent) {
    line = fmt::format("pipeline completed in {}", format_duration(ms("duration_ms")));
  } else if (e.name == kPipelineFailedEvent) {
    line = fmt::format("pipeline failed after {}: {}", format_duration(ms("duration_ms")), s("error"));
  } else if (e.name == kPipelineRestartedEvent) {
    line = fmt::format("loop restart at {} (restart {})", s("target"), s("restart"));
  } else if (verbose_ && e.name == kCheckpointSavedEvent) {
    line = checkpoint_line(s("node_id"), s("next_node"));
  }
  if (line.empty()) {
    std::fflush(out_);
    return;
  }
  clear_live();
  std::fputs((line + "\n").c_str(), out_);
  std::fflush(out_);
}

}  // namespace attractor
