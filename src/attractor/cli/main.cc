#include "attractor/cli/cli.h"

#include <cstdio>
#include <cstdlib>

#ifdef ATTRACTOR_WITH_JEMALLOC
/// jemalloc's built-in options, read at the first allocation (docs/decisions.md, "The binary
/// allocates with jemalloc"): one arena. By default every new thread (the run's writer, the token
/// table loader) gets an arena of its own, whose set-up costs a short run more than sharing one
/// behind the per-thread caches costs a long one. MALLOC_CONF still overrides it.
extern "C" {
const char* malloc_conf = "narenas:1";
}
#endif

/// The process ends without running static destructors: by the time run_cli returns, every file
/// is closed and every thread joined, and what is left (the handler catalog, token tables, parsed
/// grammars) is memory the kernel reclaims faster than the destructors would free it. Sanitizer
/// builds exit normally, so the leak checker still runs (docs/decisions.md, "The binary exits
/// without static destructors").
int main(int argc, char** argv) {
  const int code = attractor::run_cli(argc, argv);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return code;
#else
  std::fflush(nullptr);
  std::_Exit(code);
#endif
}
