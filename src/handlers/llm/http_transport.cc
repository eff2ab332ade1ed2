#include "handlers/llm/http_transport.h"

#include "http/http_module.h"

namespace attractor {

HttpResponse HttplibTransport::post(const HttpRequest& request) {
  const HttpModule* module = nullptr;
  try {
    module = &HttpModule::get();
  } catch (const ModuleLoadError& e) {
    throw TransportError(TransportError::Kind::kUnavailable, e.what());
  }
  return module->post(request, default_timeout_ms_);
}

}  // namespace attractor
