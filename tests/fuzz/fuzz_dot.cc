// libFuzzer target: DOT text -> parse -> transforms -> lint, then the diagnostics are formatted
// (which re-reads source lines and columns). Nothing may crash, hang or grow without bound. The
// fuzz build has no handlers, so lint runs against an empty handler catalog (every type unknown).
#include <cstddef>
#include <cstdint>
#include <string>

#include "attractor/check/pipeline_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor;
  static const HandlerCatalog no_handlers;
  LoadedPipeline loaded = load_pipeline_text("fuzz.dot", std::string(reinterpret_cast<const char*>(data), size),
                                             no_handlers);
  std::size_t total = 0;
  for (const Diagnostic& d : loaded.diagnostics) total += format_diagnostic(d, loaded.source.get()).size();
  if (loaded.ok() && loaded.graph->nodes().empty()) __builtin_trap();  // a valid pipeline has start and exit
  return total == static_cast<std::size_t>(-1);
}
