#include "support/scripted_message_channel.h"

namespace attractor {

std::optional<std::string> ScriptedMessageChannel::read() {
  if (inbox_.empty()) return std::nullopt;
  std::string body = std::move(inbox_.front());
  inbox_.pop_front();
  return body;
}

void ScriptedMessageChannel::write(std::string_view body) { written_.push_back(nlohmann::json::parse(body)); }

nlohmann::json ScriptedMessageChannel::response(int id) const {
  for (const nlohmann::json& m : written_) {
    if (m.contains("id") && m["id"] == id) return m;
  }
  return nullptr;
}

nlohmann::json ScriptedMessageChannel::last_diagnostics(const std::string& uri) const {
  for (auto it = written_.rbegin(); it != written_.rend(); ++it) {
    if (it->value("method", "") == "textDocument/publishDiagnostics" && (*it)["params"]["uri"] == uri) {
      return (*it)["params"];
    }
  }
  return nullptr;
}

}  // namespace attractor
