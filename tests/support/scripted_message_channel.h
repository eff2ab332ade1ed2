#pragma once
/// \file
/// A MessageChannel for language-server tests: the messages to read are queued by the test, the
/// messages written are kept as parsed JSON.

#include <deque>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/authoring/lsp_channel.h"

namespace attractor {

class ScriptedMessageChannel : public MessageChannel {
 public:
  /// Queues `message` for the server to read.
  void push(const nlohmann::json& message) { inbox_.push_back(message.dump()); }
  std::optional<std::string> read() override;
  bool pending() override { return !inbox_.empty(); }
  void write(std::string_view body) override;

  /// Everything the server wrote, in order.
  const std::vector<nlohmann::json>& written() const { return written_; }
  /// The response to request `id`, or null.
  nlohmann::json response(int id) const;
  /// The last publishDiagnostics params for `uri`, or null.
  nlohmann::json last_diagnostics(const std::string& uri) const;
  void clear() { written_.clear(); }

 private:
  std::deque<std::string> inbox_;
  std::vector<nlohmann::json> written_;
};

}  // namespace attractor
