#pragma once
/// \file
/// `attractor lsp`: a Language Server Protocol 3.17 server (JSON-RPC 2.0) for `.dot` pipelines,
/// built on the same parser, catalog and lint as `attractor validate` (docs/authoring.md,
/// "Language server"). Single-threaded: it reads a message, answers it, and publishes the
/// diagnostics of the documents that changed once no further message is waiting, so a burst of
/// edits costs one lint.

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "attractor/authoring/lsp_channel.h"
#include "attractor/authoring/pipeline_document.h"

namespace attractor {

/// JSON-RPC and LSP error codes the server answers with.
enum class LspError {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
  kRequestFailed = -32803,
};

/// Serves one client over `channel`.
class LspServer {
 public:
  LspServer(MessageChannel& channel, const AuthoringCatalog& catalog);
  ~LspServer();

  /// Serves until `exit` or the end of the input. Returns 0 when `shutdown` came before the end,
  /// 1 otherwise (as LSP asks).
  int serve();

  /// Handles one message body; public for the tests that feed messages without a channel.
  void handle(const std::string& body);
  /// Publishes the diagnostics of every document changed since the last publication.
  void publish_pending();

 private:
  struct OpenDocument;

  void dispatch(const nlohmann::json& message);
  nlohmann::json request(const std::string& method, const nlohmann::json& params);
  void notification(const std::string& method, const nlohmann::json& params);
  nlohmann::json initialize(const nlohmann::json& params);
  void did_open(const nlohmann::json& params);
  void did_change(const nlohmann::json& params);
  void did_close(const nlohmann::json& params);
  const OpenDocument& document(const nlohmann::json& params) const;
  std::size_t offset_of(const OpenDocument& doc, const nlohmann::json& position) const;
  nlohmann::json range_json(const PipelineDocument& doc, ByteRange range) const;
  nlohmann::json diagnostics_json(const OpenDocument& doc) const;
  nlohmann::json completion(const nlohmann::json& params) const;
  nlohmann::json hover(const nlohmann::json& params) const;
  nlohmann::json definition(const nlohmann::json& params) const;
  nlohmann::json references(const nlohmann::json& params) const;
  nlohmann::json prepare_rename(const nlohmann::json& params) const;
  nlohmann::json rename(const nlohmann::json& params) const;
  nlohmann::json symbols(const nlohmann::json& params) const;
  nlohmann::json folding(const nlohmann::json& params) const;
  nlohmann::json formatting(const nlohmann::json& params, bool range) const;
  nlohmann::json code_actions(const nlohmann::json& params) const;
  nlohmann::json edits_json(const PipelineDocument& doc, const std::vector<TextEdit>& edits) const;
  void send(const nlohmann::json& message);

  MessageChannel& channel_;
  const AuthoringCatalog& catalog_;
  std::map<std::string, std::unique_ptr<OpenDocument>> documents_;
  PositionEncoding encoding_ = PositionEncoding::kUtf16;
  bool initialized_ = false;
  bool shut_down_ = false;
  bool exited_ = false;
};

/// The file path of a `file://` URI (percent-decoded), or the URI itself for other schemes.
std::string path_of_uri(const std::string& uri);

}  // namespace attractor
