#include "attractor/authoring/lsp_server.h"

#include <cstdio>

#include "attractor/authoring/completion.h"
#include "attractor/authoring/document_outline.h"
#include "attractor/authoring/dot_format.h"
#include "attractor/authoring/editor_diagnostics.h"
#include "attractor/authoring/hover.h"
#include "attractor/authoring/lsp_json.h"
#include "attractor/authoring/node_references.h"

namespace attractor {

using nlohmann::json;

namespace {

/// An error answered to a request.
struct RequestError : std::runtime_error {
  RequestError(LspError code, const std::string& message) : std::runtime_error(message), code(code) {}
  LspError code;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool intersects(ByteRange a, ByteRange b) { return a.begin <= b.end && b.begin <= a.end; }

}  // namespace

std::string path_of_uri(const std::string& uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.rfind(kScheme, 0) != 0) return uri;
  std::string out;
  for (std::size_t i = kScheme.size(); i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex_value(uri[i + 1]) >= 0 && hex_value(uri[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(uri[i + 1]) * 16 + hex_value(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

struct LspServer::OpenDocument {
  std::string uri;
  std::int64_t version = 0;
  std::unique_ptr<PipelineDocument> doc;
  bool dirty = true;
};

LspServer::LspServer(MessageChannel& channel, const AuthoringCatalog& catalog) : channel_(channel), catalog_(catalog) {}

LspServer::~LspServer() = default;

int LspServer::serve() {
  while (!exited_) {
    std::optional<std::string> body;
    try {
      body = channel_.read();
    } catch (const LspFramingError& e) {
      std::fprintf(stderr, "attractor lsp: %s; stopping\n", e.what());
      return 1;
    }
    if (!body) break;
    handle(*body);
    if (!channel_.pending()) publish_pending();
  }
  return shut_down_ ? 0 : 1;
}

void LspServer::handle(const std::string& body) {
  json message = json::parse(body, nullptr, false);
  if (message.is_discarded() || !message.is_object()) {
    send({{"jsonrpc", "2.0"},
          {"id", nullptr},
          {"error",
           {{"code", static_cast<int>(LspError::kParseError)}, {"message", "the message is not a JSON object"}}}});
    return;
  }
  dispatch(message);
}

void LspServer::dispatch(const json& message) {
  bool is_request = message.contains("id");
  json id = is_request ? message["id"] : json();
  if (!message.contains("method") || !message["method"].is_string()) {
    if (is_request && !message.contains("result") && !message.contains("error")) {
      send({{"jsonrpc", "2.0"},
            {"id", id},
            {"error", {{"code", static_cast<int>(LspError::kInvalidRequest)}, {"message", "no method"}}}});
    }
    return;
  }
  const std::string method = message["method"];
  const json params = message.value("params", json::object());
  if (!is_request) {
    try {
      notification(method, params);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attractor lsp: %s: %s\n", method.c_str(), e.what());
    }
    return;
  }
  try {
    json result = request(method, params);
    send({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
  } catch (const RequestError& e) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", static_cast<int>(e.code)}, {"message", e.what()}}}});
  } catch (const json::exception& e) {
    send({{"jsonrpc", "2.0"},
          {"id", id},
          {"error", {{"code", static_cast<int>(LspError::kInvalidParams)}, {"message", e.what()}}}});
  } catch (const std::exception& e) {
    send({{"jsonrpc", "2.0"},
          {"id", id},
          {"error", {{"code", static_cast<int>(LspError::kInternalError)}, {"message", e.what()}}}});
  }
}

json LspServer::request(const std::string& method, const json& params) {
  if (method == "initialize") return initialize(params);
  if (!initialized_) throw RequestError(LspError::kServerNotInitialized, "initialize first");
  if (method == "shutdown") {
    shut_down_ = true;
    return nullptr;
  }
  if (method == "textDocument/completion") return completion(params);
  if (method == "textDocument/hover") return hover(params);
  if (method == "textDocument/definition") return definition(params);
  if (method == "textDocument/references") return references(params);
  if (method == "textDocument/prepareRename") return prepare_rename(params);
  if (method == "textDocument/rename") return rename(params);
  if (method == "textDocument/documentSymbol") return symbols(params);
  if (method == "textDocument/foldingRange") return folding(params);
  if (method == "textDocument/formatting") return formatting(params, false);
  if (method == "textDocument/rangeFormatting") return formatting(params, true);
  if (method == "textDocument/codeAction") return code_actions(params);
  throw RequestError(LspError::kMethodNotFound, "attractor lsp does not handle " + method);
}

void LspServer::notification(const std::string& method, const json& params) {
  if (method == "exit") {
    exited_ = true;
    return;
  }
  if (!initialized_) return;
  if (method == "textDocument/didOpen") did_open(params);
  if (method == "textDocument/didChange") did_change(params);
  if (method == "textDocument/didClose") did_close(params);
}

json LspServer::initialize(const json& params) {
  initialized_ = true;
  json encodings = params.value("/capabilities/general/positionEncodings"_json_pointer, json::array());
  for (const json& e : encodings) {
    if (e == "utf-8") encoding_ = PositionEncoding::kUtf8;
  }
  json capabilities = {
      {"positionEncoding", encoding_ == PositionEncoding::kUtf8 ? "utf-8" : "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}}},
      {"completionProvider", {{"triggerCharacters", {"=", "[", ",", ">", "\"", " "}}}},
      {"hoverProvider", true},
      {"definitionProvider", true},
      {"referencesProvider", true},
      {"renameProvider", {{"prepareProvider", true}}},
      {"documentSymbolProvider", true},
      {"foldingRangeProvider", true},
      {"documentFormattingProvider", true},
      {"documentRangeFormattingProvider", true},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
  };
  return {{"capabilities", capabilities}, {"serverInfo", {{"name", "attractor"}, {"version", ATTRACTOR_VERSION}}}};
}

void LspServer::did_open(const json& params) {
  const json& item = params.at("textDocument");
  auto doc = std::make_unique<OpenDocument>();
  doc->uri = item.at("uri").get<std::string>();
  doc->version = item.value("version", 0);
  std::string text = item.at("text").get<std::string>();
  if (text.size() > kMaxLspMessageBytes) throw std::runtime_error("document too large");
  doc->doc = std::make_unique<PipelineDocument>(path_of_uri(doc->uri), std::move(text), catalog_);
  documents_[doc->uri] = std::move(doc);
}

void LspServer::did_change(const json& params) {
  const std::string uri = params.at("/textDocument/uri"_json_pointer).get<std::string>();
  auto it = documents_.find(uri);
  if (it == documents_.end()) return;
  OpenDocument& open = *it->second;
  std::string text = open.doc->text();
  for (const json& change : params.at("contentChanges")) {
    if (!change.contains("range")) {
      text = change.at("text").get<std::string>();
      continue;
    }
    TextLines lines(text);
    const json& range = change["range"];
    std::size_t begin = lines.offset({range.at("/start/line"_json_pointer).get<std::size_t>(),
                                      range.at("/start/character"_json_pointer).get<std::size_t>()},
                                     encoding_);
    std::size_t end = lines.offset({range.at("/end/line"_json_pointer).get<std::size_t>(),
                                    range.at("/end/character"_json_pointer).get<std::size_t>()},
                                   encoding_);
    if (end < begin) std::swap(begin, end);
    text = apply_edits(text, {TextEdit{{begin, end}, change.at("text").get<std::string>()}});
  }
  open.version = params.at("/textDocument"_json_pointer).value("version", open.version);
  open.doc = std::make_unique<PipelineDocument>(path_of_uri(uri), std::move(text), catalog_);
  open.dirty = true;
}

void LspServer::did_close(const json& params) {
  const std::string uri = params.at("/textDocument/uri"_json_pointer).get<std::string>();
  if (documents_.erase(uri) > 0) {
    send({{"jsonrpc", "2.0"},
          {"method", "textDocument/publishDiagnostics"},
          {"params", {{"uri", uri}, {"diagnostics", json::array()}}}});
  }
}

void LspServer::publish_pending() {
  for (auto& [uri, open] : documents_) {
    if (!open->dirty) continue;
    open->dirty = false;
    send({{"jsonrpc", "2.0"},
          {"method", "textDocument/publishDiagnostics"},
          {"params", {{"uri", uri}, {"version", open->version}, {"diagnostics", diagnostics_json(*open)}}}});
  }
}

const LspServer::OpenDocument& LspServer::document(const json& params) const {
  const std::string uri = params.at("/textDocument/uri"_json_pointer).get<std::string>();
  auto it = documents_.find(uri);
  if (it == documents_.end()) throw RequestError(LspError::kInvalidParams, "the document " + uri + " is not open");
  return *it->second;
}

std::size_t LspServer::offset_of(const OpenDocument& doc, const json& position) const {
  return lsp_offset(*doc.doc, position, encoding_);
}

json LspServer::range_json(const PipelineDocument& doc, ByteRange range) const {
  return lsp_range(doc, range, encoding_);
}

json LspServer::diagnostics_json(const OpenDocument& open) const {
  return lsp_diagnostics(*open.doc, encoding_, open.uri);
}

json LspServer::completion(const json& params) const {
  const OpenDocument& open = document(params);
  return lsp_completion(*open.doc, offset_of(open, params.at("position")), encoding_);
}

json LspServer::hover(const json& params) const {
  const OpenDocument& open = document(params);
  return lsp_hover(*open.doc, offset_of(open, params.at("position")), encoding_);
}

json LspServer::definition(const json& params) const {
  const OpenDocument& open = document(params);
  std::optional<NodeReference> ref = node_reference_at(*open.doc, offset_of(open, params.at("position")));
  if (!ref) return nullptr;
  std::optional<NodeReference> def = node_definition(*open.doc, ref->id);
  if (!def) return nullptr;
  return {{"uri", open.uri}, {"range", range_json(*open.doc, def->range)}};
}

json LspServer::references(const json& params) const {
  const OpenDocument& open = document(params);
  const std::vector<NodeReference> refs = node_references(*open.doc);
  std::optional<NodeReference> ref = node_reference_at(refs, offset_of(open, params.at("position")));
  json out = json::array();
  if (!ref) return out;
  bool with_declaration = params.value("/context/includeDeclaration"_json_pointer, true);
  std::optional<NodeReference> def = node_definition(refs, ref->id);
  for (const NodeReference& r : refs) {
    if (r.id != ref->id) continue;
    if (!with_declaration && def && r.range == def->range) continue;
    out.push_back({{"uri", open.uri}, {"range", range_json(*open.doc, r.range)}});
  }
  return out;
}

json LspServer::prepare_rename(const json& params) const {
  const OpenDocument& open = document(params);
  std::optional<NodeReference> ref = node_reference_at(*open.doc, offset_of(open, params.at("position")));
  if (!ref) return nullptr;
  ByteRange range = ref->range;
  if (ref->quoted) range = {range.begin + 1, range.end - 1};
  return {{"range", range_json(*open.doc, range)}, {"placeholder", ref->id}};
}

json LspServer::rename(const json& params) const {
  const OpenDocument& open = document(params);
  std::optional<NodeReference> ref = node_reference_at(*open.doc, offset_of(open, params.at("position")));
  if (!ref) throw RequestError(LspError::kRequestFailed, "there is no node id here to rename");
  RenameResult result = rename_node(*open.doc, ref->id, params.at("newName").get<std::string>());
  if (!result.error.empty()) throw RequestError(LspError::kRequestFailed, result.error);
  return {{"changes", {{open.uri, edits_json(*open.doc, result.edits)}}}};
}

json LspServer::edits_json(const PipelineDocument& doc, const std::vector<TextEdit>& edits) const {
  json out = json::array();
  for (const TextEdit& e : edits) out.push_back({{"range", range_json(doc, e.range)}, {"newText", e.text}});
  return out;
}

namespace {

json symbol_json(const OutlineSymbol& s, const std::function<json(ByteRange)>& range) {
  json item = {{"name", s.name},
               {"kind", static_cast<int>(s.kind)},
               {"range", range(s.range)},
               {"selectionRange", range(s.selection)}};
  if (!s.detail.empty()) item["detail"] = s.detail;
  json children = json::array();
  for (const OutlineSymbol& c : s.children) children.push_back(symbol_json(c, range));
  item["children"] = children;
  return item;
}

/// Statements wholly inside [begin, end) that are alone on their lines, with their nesting level.
void statements_in(const SyntaxTree& tree, const SyntaxBlock& block, int level, ByteRange lines,
                   std::vector<std::pair<const SyntaxStmt*, int>>& out) {
  for (const SyntaxStmt& s : block.stmts) {
    std::size_t begin = tree.tokens[s.leading.empty() ? s.first : s.leading.front()].begin;
    std::size_t end = tree.tokens[s.trailing.empty() ? s.last : s.trailing.back()].end;
    if (begin >= lines.begin && end <= lines.end) {
      out.emplace_back(&s, level);
    } else if (s.kind == SyntaxStmt::Kind::kSubgraph && begin < lines.end && end > lines.begin) {
      statements_in(tree, s.body.front(), level + 1, lines, out);
    }
  }
}

}  // namespace

json LspServer::symbols(const json& params) const {
  const OpenDocument& open = document(params);
  json out = json::array();
  auto range = [&](ByteRange r) { return range_json(*open.doc, r); };
  for (const OutlineSymbol& s : document_symbols(*open.doc)) out.push_back(symbol_json(s, range));
  return out;
}

json LspServer::folding(const json& params) const {
  const OpenDocument& open = document(params);
  json out = json::array();
  for (const FoldingLines& f : folding_ranges(*open.doc)) {
    json item = {{"startLine", f.start_line}, {"endLine", f.end_line}};
    if (f.comment) item["kind"] = "comment";
    out.push_back(std::move(item));
  }
  return out;
}

json LspServer::formatting(const json& params, bool range) const {
  const OpenDocument& open = document(params);
  const PipelineDocument& doc = *open.doc;
  FormatResult result = format_pipeline_text(doc.path(), doc.text());
  if (!result.text) return nullptr;
  if (!range) {
    if (*result.text == doc.text()) return json::array();
    return edits_json(doc, {TextEdit{{0, doc.text().size()}, *result.text}});
  }
  const json& r = params.at("range");
  std::size_t first_line = r.at("/start/line"_json_pointer).get<std::size_t>();
  std::size_t last_line = r.at("/end/line"_json_pointer).get<std::size_t>();
  ByteRange lines{doc.lines().line_start(first_line), doc.lines().line_start(last_line + 1)};
  std::vector<std::pair<const SyntaxStmt*, int>> stmts;
  statements_in(doc.syntax(), doc.syntax().body, 1, lines, stmts);
  std::vector<TextEdit> edits;
  for (const auto& [s, level] : stmts) {
    const auto& tokens = doc.syntax().tokens;
    std::size_t begin = doc.lines().line_start(tokens[s->leading.empty() ? s->first : s->leading.front()].line);
    std::size_t end = doc.lines().line_start(tokens[s->trailing.empty() ? s->last : s->trailing.back()].end_line + 1);
    std::string text = format_statement(doc.syntax(), *s, level);
    if (doc.text().compare(begin, end - begin, text) != 0) edits.push_back({{begin, end}, std::move(text)});
  }
  return edits_json(doc, edits);
}

json LspServer::code_actions(const json& params) const {
  const OpenDocument& open = document(params);
  const PipelineDocument& doc = *open.doc;
  const json& r = params.at("range");
  ByteRange wanted{offset_of(open, r.at("start")), offset_of(open, r.at("end"))};
  json out = json::array();
  for (const EditorDiagnostic& e : editor_diagnostics(doc)) {
    if (e.quick_fix.empty() || !intersects(e.range, wanted)) continue;
    json diagnostic = {{"range", range_json(doc, e.range)},
                       {"severity", lsp_severity(e.diagnostic.severity)},
                       {"code", e.diagnostic.rule},
                       {"source", "attractor"},
                       {"message", e.diagnostic.message}};
    out.push_back({{"title", e.quick_fix_title},
                   {"kind", "quickfix"},
                   {"isPreferred", true},
                   {"diagnostics", json::array({diagnostic})},
                   {"edit", {{"changes", {{open.uri, edits_json(doc, e.quick_fix)}}}}}});
  }
  return out;
}

void LspServer::send(const json& message) {
  channel_.write(message.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace attractor
