// A retrieval module from "another build": its entry point answers with ABI version 999. The
// loader must refuse it with a clear error instead of calling into it (retrieval_module_test.cc).

#include "retrieval/module_abi.h"

namespace rt = ::attractor::retrieval;

extern "C" __attribute__((visibility("default"))) const attractor::ModuleHeader* attractor_retrieval_module() {
  static const rt::RetrievalModuleTable table{{999, rt::retrieval_module_layout()}, nullptr, nullptr};
  return &table.header;
}
