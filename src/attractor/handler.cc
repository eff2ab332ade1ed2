#include "attractor/handler.h"

#include "attractor/handler_types.h"
#include "attractor/run_directory.h"
#include "attractor/write_behind.h"

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
  if (writer) {
    writer->write_file(path, std::move(content));
  } else {
    write_text_file(path, content);
  }
}

void StageEnv::flush_writes() const {
  if (writer) writer->flush();
}

void HandlerRegistry::register_handler(const std::string& type, HandlerPtr handler) {
  register_known_handler_type(type);
  handlers_.insert_or_assign(type, std::move(handler));
}

Handler* HandlerRegistry::resolve(const NodeData& node) const {
  std::string type = node.type();
  if (!type.empty()) {
    auto it = handlers_.find(type);
    if (it != handlers_.end()) return it->second.get();
  }
  std::string_view mapped = handler_type_for_shape(node.shape());
  if (!mapped.empty()) {
    auto it = handlers_.find(mapped);
    if (it != handlers_.end()) return it->second.get();
  }
  return default_.get();
}

}  // namespace attractor
