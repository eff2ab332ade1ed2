// The compiled part of spdlog (Debian's libspdlog-dev 1.10 headers, with the external fmt), built
// into attractor instead of loading libspdlog.so: one fewer shared library for every process
// (bench/startup). Consumers compile with SPDLOG_COMPILED_LIB, so the headers declare the
// functions that the *-inl.h files define here, and the sink templates attractor uses are
// instantiated here once.

#ifndef SPDLOG_COMPILED_LIB
#error "src/external/spdlog.cc needs SPDLOG_COMPILED_LIB (set by the attractor_external target)"
#endif

// File sinks (run.log) open their file close-on-exec: no program attractor starts inherits it.
#define SPDLOG_PREVENT_CHILD_FD

#include <mutex>

#include <spdlog/common-inl.h>
#include <spdlog/details/backtracer-inl.h>
#include <spdlog/details/file_helper-inl.h>
#include <spdlog/details/log_msg-inl.h>
#include <spdlog/details/log_msg_buffer-inl.h>
#include <spdlog/details/os-inl.h>
#include <spdlog/details/periodic_worker-inl.h>
#include <spdlog/details/registry-inl.h>
#include <spdlog/logger-inl.h>
#include <spdlog/pattern_formatter-inl.h>
#include <spdlog/sinks/ansicolor_sink-inl.h>
#include <spdlog/sinks/base_sink-inl.h>
#include <spdlog/sinks/basic_file_sink-inl.h>
#include <spdlog/sinks/sink-inl.h>
#include <spdlog/sinks/stdout_color_sinks-inl.h>
#include <spdlog/sinks/stdout_sinks-inl.h>
#include <spdlog/spdlog-inl.h>

template SPDLOG_API spdlog::logger::logger(std::string name, sinks_init_list::iterator begin,
                                           sinks_init_list::iterator end);

// Only the thread-safe (`_mt`) sinks: attractor's process logger (attractor/base/log.cc) and the
// default logger that spdlog's registry creates.
template class SPDLOG_API spdlog::sinks::base_sink<std::mutex>;
template class SPDLOG_API spdlog::sinks::basic_file_sink<std::mutex>;
template class SPDLOG_API spdlog::sinks::stdout_sink_base<spdlog::details::console_mutex>;
template class SPDLOG_API spdlog::sinks::stderr_sink<spdlog::details::console_mutex>;
template class SPDLOG_API spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>;
template class SPDLOG_API spdlog::sinks::ansicolor_stdout_sink<spdlog::details::console_mutex>;
