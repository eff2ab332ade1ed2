#include "http/http_module.h"

namespace attractor {

namespace fs = std::filesystem;

const ModuleSpec& HttpModule::spec() {
  static const ModuleSpec spec{
      "HTTP module",
      "an HTTP module",
      kHttpModuleFileName,
      kHttpModuleEntryName,
      "build the attractor_http_module target next to the attractor binary (make binary), or install attractor "
      "with `make install` / `cmake --install`, which puts it in PREFIX/lib/attractor/",
      kHttpModuleAbiVersion,
      http_module_layout()};
  return spec;
}

std::vector<fs::path> http_module_candidates(const fs::path& executable) {
  return module_candidates(executable, kHttpModuleFileName);
}

const HttpModule& HttpModule::get() {
  static const HttpModule module = load(module_candidates_of_this_process(spec()));
  return module;
}

HttpModule HttpModule::load(const std::vector<fs::path>& candidates) {
  LoadedModule loaded = load_module(candidates, spec());
  return HttpModule(std::move(loaded.path), reinterpret_cast<const HttpModuleTable*>(loaded.header));
}

HttpResponse HttpModule::post(const HttpRequest& request, std::int64_t default_timeout_ms) const {
  return table_->post(request, default_timeout_ms);
}

std::unique_ptr<HttpServerBackend> HttpModule::make_server(const HttpServerSettings& settings) const {
  return table_->make_server(settings);
}

std::string http_module_problem() {
  try {
    HttpModule::get();
    return "";
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
}

}  // namespace attractor
