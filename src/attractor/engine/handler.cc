#include "attractor/engine/handler.h"

namespace attractor {

void StageEnv::emit(const std::string& name, nlohmann::json fields) const {
  if (!events) return;
  Event e;
  e.name = name;
  e.timestamp_ms = clock ? clock->now_ms() : system_clock().now_ms();
  e.fields = std::move(fields);
  events->on_event(e);
}

void StageEnv::write_file(const std::string& path, std::string content) const {
  files().write(path, std::move(content));
}

void StageEnv::flush_writes() const { files().flush(); }

void HandlerRegistry::register_handler(HandlerDescription description, HandlerPtr handler) {
  handlers_.insert_or_assign(description.type, std::move(handler));
  catalog_.add(std::move(description));
}

void HandlerRegistry::register_handler(const std::string& type, HandlerPtr handler) {
  HandlerDescription description;
  description.type = type;
  register_handler(std::move(description), std::move(handler));
}

Handler* HandlerRegistry::resolve(const NodeData& node) const {
  std::string type = node.type();
  if (!type.empty()) {
    auto it = handlers_.find(type);
    if (it != handlers_.end()) return it->second.get();
  }
  for (std::string_view candidate :
       {catalog_.type_for_shape(node.shape()), std::string_view(catalog_.default_type())}) {
    if (candidate.empty()) continue;
    auto it = handlers_.find(candidate);
    if (it != handlers_.end()) return it->second.get();
  }
  return nullptr;
}

const HandlerTraits& HandlerRegistry::traits(const NodeData& node) const {
  static const HandlerTraits none;
  const HandlerDescription* d = catalog_.find(node.type());
  if (d == nullptr || !handlers_.count(d->type)) {
    std::string_view mapped = catalog_.type_for_shape(node.shape());
    d = catalog_.find(mapped.empty() ? std::string_view(catalog_.default_type()) : mapped);
  }
  return d == nullptr ? none : d->traits;
}

}  // namespace attractor
