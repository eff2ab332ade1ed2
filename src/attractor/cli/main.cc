#include "attractor/cli/cli.h"

#ifdef ATTRACTOR_WITH_JEMALLOC
/// jemalloc's built-in options, read at the first allocation (docs/decisions.md, "The binary
/// allocates with jemalloc"): one arena. By default every new thread (the run's writer, the token
/// table loader) gets an arena of its own, whose set-up costs a short run more than sharing one
/// behind the per-thread caches costs a long one. MALLOC_CONF still overrides it.
extern "C" {
const char* malloc_conf = "narenas:1";
}
#endif

int main(int argc, char** argv) { return attractor::run_cli(argc, argv); }
