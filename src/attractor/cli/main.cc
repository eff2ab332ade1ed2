#include "attractor/cli/cli.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef ATTRACTOR_WITH_JEMALLOC
/// jemalloc's built-in options, read at the first allocation (docs/decisions.md, "The binary
/// allocates with jemalloc"): one arena. By default every new thread (the run's writer, the token
/// table loader) gets an arena of its own, whose set-up costs a short run more than sharing one
/// behind the per-thread caches costs a long one. MALLOC_CONF still overrides it.
extern "C" {
const char* malloc_conf = "narenas:1";
}
#endif

namespace {

/// True when jemalloc was asked to print its statistics at exit (`MALLOC_CONF=stats_print:true`),
/// which happens in an exit handler: then the process exits the usual way. The environment is
/// read rather than jemalloc's mallctl, whose first call sets up jemalloc's statistics tree.
bool allocator_reports_at_exit() {
#ifdef ATTRACTOR_WITH_JEMALLOC
  const char* conf = std::getenv("MALLOC_CONF");
  return conf != nullptr && std::strstr(conf, "stats_print:true") != nullptr;
#else
  return false;
#endif
}

}  // namespace

/// The process ends without running static destructors: by the time run_cli returns, every file
/// is closed and every thread joined, and what is left (the handler catalog, token tables, parsed
/// grammars) is memory the kernel reclaims faster than the destructors would free it. Sanitizer
/// builds exit normally, so the leak checker still runs, and so does a run asked for allocator
/// statistics (docs/decisions.md, "The binary exits without static destructors").
int main(int argc, char** argv) {
  const int code = attractor::run_cli(argc, argv);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return code;
#else
  if (allocator_reports_at_exit()) std::exit(code);
  std::fflush(nullptr);
  std::_Exit(code);
#endif
}
