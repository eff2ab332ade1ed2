// The entry point of libattractor_retrieval.so (retrieval/module_abi.h): the table of the functions
// behind make_retrieval_backend and index_repository, and the module's adopt_log. The only symbol
// the module exports.

#include "retrieval/local/local_backend.h"
#include "retrieval/local/local_indexer.h"
#include "retrieval/module_abi.h"

namespace rt = ::attractor::retrieval;

extern "C" __attribute__((visibility("default"))) const attractor::ModuleHeader* attractor_retrieval_module() {
  static const rt::RetrievalModuleTable table{
      {rt::kRetrievalModuleAbiVersion, rt::retrieval_module_layout()},
      &rt::make_local_backend,
      &rt::run_local_indexer,
      &attractor::adopt_log,
  };
  return &table.header;
}
