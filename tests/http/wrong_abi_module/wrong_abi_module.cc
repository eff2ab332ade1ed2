// An HTTP module from "another build": its entry point answers with ABI version 999. The loader
// must refuse it with a clear error instead of calling into it (http_module_test.cc).

#include "http/module_abi.h"

extern "C" __attribute__((visibility("default"))) const attractor::ModuleHeader* attractor_http_module() {
  static const attractor::HttpModuleTable table{{999, attractor::http_module_layout()}, nullptr, nullptr};
  return &table.header;
}
