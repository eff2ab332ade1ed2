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
  if (request.timeout_ms || request.idle_timeout_ms) return module->post(request, default_timeout_ms_);
  HttpRequest idle = request;
  idle.idle_timeout_ms = idle_timeout_ms_;
  try {
    return module->post(idle, default_timeout_ms_);
  } catch (const TransportError& e) {
    if (e.kind() != TransportError::Kind::kIdle) throw;
    throw TransportError(e.kind(), std::string(e.what()) + "; the server may be hung (" + kLlmIdleTimeoutVariable +
                                       " sets how long to wait, a node `timeout` replaces both deadlines)");
  }
}

}  // namespace attractor
