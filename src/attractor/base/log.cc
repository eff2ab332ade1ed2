#include "attractor/base/log.h"

#include <algorithm>
#include <mutex>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace attractor {

namespace {

constexpr const char* kConsolePattern = "%n: %l: %v";
constexpr const char* kFilePattern = "%Y-%m-%dT%H:%M:%S.%eZ [%l] %v";

/// The logger and the sinks whose levels follow the console level.
struct ProcessLog {
  std::mutex mutex;
  spdlog::level::level_enum console_level = spdlog::level::warn;
  std::shared_ptr<spdlog::sinks::sink> console;
  std::shared_ptr<spdlog::sinks::dist_sink_mt> files;
  std::size_t file_count = 0;
  std::shared_ptr<spdlog::logger> logger;

  ProcessLog() {
    console = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    console->set_pattern(kConsolePattern);
    files = std::make_shared<spdlog::sinks::dist_sink_mt>();
    logger = std::make_shared<spdlog::logger>("attractor", spdlog::sinks_init_list{console, files});
    logger->set_error_handler([](const std::string&) {});
    logger->flush_on(spdlog::level::trace);
    apply_levels();
  }

  spdlog::level::level_enum file_level() const { return std::min(console_level, spdlog::level::info); }

  /// Call with `mutex` held (or from the constructor).
  void apply_levels() {
    console->set_level(console_level);
    files->set_level(file_level());
    logger->set_level(file_count > 0 ? std::min(console_level, file_level()) : console_level);
  }
};

ProcessLog& process_log() {
  static ProcessLog* instance = new ProcessLog();  // never destroyed: threads may log during exit
  return *instance;
}

}  // namespace

spdlog::logger& log() { return *process_log().logger; }

std::shared_ptr<spdlog::logger> shared_log() { return process_log().logger; }

void adopt_log(std::shared_ptr<spdlog::logger> logger) {
  ProcessLog& p = process_log();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.logger = std::move(logger);
}

const std::vector<std::string>& log_level_names() {
  static const std::vector<std::string> names = {"trace", "debug", "info", "warn", "error", "off"};
  return names;
}

std::optional<spdlog::level::level_enum> parse_log_level(std::string_view name) {
  static const spdlog::level::level_enum levels[] = {spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
                                                     spdlog::level::warn,  spdlog::level::err,   spdlog::level::off};
  const auto& names = log_level_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return levels[i];
  }
  return std::nullopt;
}

void set_log_level(spdlog::level::level_enum level) {
  ProcessLog& p = process_log();
  std::lock_guard lock(p.mutex);
  p.console_level = level;
  p.apply_levels();
}

spdlog::level::level_enum log_level() {
  ProcessLog& p = process_log();
  std::lock_guard lock(p.mutex);
  return p.console_level;
}

namespace {

/// A sink that hands each formatted line to a function.
class CallbackSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit CallbackSink(std::function<void(std::string_view)> append) : append_(std::move(append)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    append_(std::string_view(formatted.data(), formatted.size()));
  }
  void flush_() override {}

 private:
  std::function<void(std::string_view)> append_;
};

}  // namespace

LogFile::LogFile(const std::string& path) {
  std::shared_ptr<spdlog::sinks::sink> sink;
  try {
    sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, false);
  } catch (const spdlog::spdlog_ex& e) {
    log().warn("cannot open log file {}: {}", path, e.what());
    return;
  }
  attach(std::move(sink));
}

LogFile::LogFile(std::function<void(std::string_view line)> append) {
  attach(std::make_shared<CallbackSink>(std::move(append)));
}

void LogFile::attach(std::shared_ptr<spdlog::sinks::sink> sink) {
  sink->set_formatter(std::make_unique<spdlog::pattern_formatter>(kFilePattern, spdlog::pattern_time_type::utc));
  ProcessLog& p = process_log();
  std::lock_guard lock(p.mutex);
  p.files->add_sink(sink);
  ++p.file_count;
  p.apply_levels();
  sink_ = std::move(sink);
}

LogFile::~LogFile() {
  if (!sink_) return;
  ProcessLog& p = process_log();
  std::lock_guard lock(p.mutex);
  p.files->remove_sink(sink_);
  --p.file_count;
  p.apply_levels();
}

}  // namespace attractor
