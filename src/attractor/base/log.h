#pragma once
/// \file
/// The process logger: operational messages for operators (retries, provider errors, write
/// failures, a run's stages), as opposed to events (events.h, for programs), the progress display
/// and command results. Every layer logs through `log()` without knowing who configured it; the
/// CLI sets the level (`--log-level`, `ATTRACTOR_LOG_LEVEL`) and the engine adds a file sink for
/// each run's `run.log` (docs/run-directory.md).
///
/// A dlopened module (the code index, src/retrieval/module) has its own copy of this file and of
/// spdlog, both linked from static archives; the executable hands its logger to the module through
/// the module's table (`shared_log()`, `adopt_log()`), so the module's `log()` writes to the same
/// sinks at the same levels.
///
/// Sinks: stderr with the pattern `attractor: LEVEL: message` at the console level (default
/// `warn`), and any number of files at `info` or the console level when lower. Logging never
/// throws: a sink that cannot write drops the message.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/logger.h>

namespace attractor {

/// The process logger (created on first use).
spdlog::logger& log();

/// The process logger, to hand to a module's `adopt_log`.
std::shared_ptr<spdlog::logger> shared_log();

/// Makes `log()` return `logger` from now on. For a module's copy of this file: called once through
/// the module's table right after the executable loads it, before any module code logs.
void adopt_log(std::shared_ptr<spdlog::logger> logger);

/// `trace`, `debug`, `info`, `warn`, `error` or `off`; nullopt for anything else.
std::optional<spdlog::level::level_enum> parse_log_level(std::string_view name);

/// The names `parse_log_level` accepts, most verbose first.
const std::vector<std::string>& log_level_names();

/// Sets the console level; file sinks follow it when it is below `info`.
void set_log_level(spdlog::level::level_enum level);

/// The console level.
spdlog::level::level_enum log_level();

/// A file that receives the process logger's messages while this object lives (appended to, one
/// line per message: `2026-01-31T12:00:00.123Z [info] message`, UTC). A file that cannot be
/// opened is skipped (`attached()` is false) and logged at `warn`.
class LogFile {
 public:
  explicit LogFile(const std::string& path);
  /// Sends each formatted line (with its newline) to `append` instead of a file of its own, so a
  /// run's log goes through the run's disk interface like the rest of the run directory.
  explicit LogFile(std::function<void(std::string_view line)> append);
  ~LogFile();
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;

  /// The file is receiving messages.
  bool attached() const { return sink_ != nullptr; }

 private:
  void attach(std::shared_ptr<spdlog::sinks::sink> sink);

  std::shared_ptr<spdlog::sinks::sink> sink_;
};

}  // namespace attractor
