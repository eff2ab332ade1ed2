// The entry point of libattractor_http.so (http/module_abi.h): the table of the POST and the server
// factory, both with cpp-httplib. The only symbol the module exports.

#include "http/httplib/httplib_client.h"
#include "http/httplib/httplib_server.h"
#include "http/module_abi.h"

extern "C" __attribute__((visibility("default"))) const attractor::ModuleHeader* attractor_http_module() {
  static const attractor::HttpModuleTable table{
      {attractor::kHttpModuleAbiVersion, attractor::http_module_layout()},
      &attractor::httplib_post,
      &attractor::make_httplib_server,
  };
  return &table.header;
}
