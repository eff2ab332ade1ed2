#include "attractor/authoring/lsp_json.h"

#include "attractor/authoring/completion.h"
#include "attractor/authoring/editor_diagnostics.h"
#include "attractor/authoring/hover.h"

namespace attractor {

using nlohmann::json;

int lsp_severity(Severity s) {
  switch (s) {
    case Severity::kError: return 1;
    case Severity::kWarning: return 2;
    case Severity::kInfo: return 3;
  }
  return 1;
}

json lsp_range(const PipelineDocument& doc, ByteRange range, PositionEncoding encoding) {
  TextPosition a = doc.lines().position(range.begin, encoding);
  TextPosition b = doc.lines().position(range.end, encoding);
  return {{"start", {{"line", a.line}, {"character", a.character}}},
          {"end", {{"line", b.line}, {"character", b.character}}}};
}

std::size_t lsp_offset(const PipelineDocument& doc, const json& position, PositionEncoding encoding) {
  return doc.lines().offset({position.at("line").get<std::size_t>(), position.at("character").get<std::size_t>()},
                            encoding);
}

json lsp_diagnostics(const PipelineDocument& doc, PositionEncoding encoding, const std::string& uri, bool quick_fixes) {
  json out = json::array();
  for (const EditorDiagnostic& e : editor_diagnostics(doc)) {
    const Diagnostic& d = e.diagnostic;
    std::string message = d.message;
    if (!d.fix.empty()) message += "\nfix: " + d.fix;
    json item = {{"range", lsp_range(doc, e.range, encoding)},
                 {"severity", lsp_severity(d.severity)},
                 {"code", d.rule},
                 {"source", "attractor"},
                 {"message", message}};
    if (!e.related.empty()) {
      json related = json::array();
      for (const RelatedLocation& r : e.related) {
        related.push_back(
            {{"location", {{"uri", uri}, {"range", lsp_range(doc, r.range, encoding)}}}, {"message", r.message}});
      }
      item["relatedInformation"] = related;
    }
    if (quick_fixes && !e.quick_fix.empty()) {
      json edits = json::array();
      for (const TextEdit& edit : e.quick_fix) {
        edits.push_back({{"range", lsp_range(doc, edit.range, encoding)}, {"newText", edit.text}});
      }
      item["quickFix"] = {{"title", e.quick_fix_title},
                          {"range", edits[0]["range"]},
                          {"newText", edits[0]["newText"]},
                          {"edits", edits}};
    }
    out.push_back(std::move(item));
  }
  return out;
}

json lsp_completion(const PipelineDocument& doc, std::size_t offset, PositionEncoding encoding) {
  json items = json::array();
  for (const CompletionCandidate& c : complete_at(doc, offset)) {
    json item = {{"label", c.label},
                 {"kind", static_cast<int>(c.kind)},
                 {"textEdit", {{"range", lsp_range(doc, c.edit.range, encoding)}, {"newText", c.edit.text}}}};
    if (!c.detail.empty()) item["detail"] = c.detail;
    if (!c.documentation.empty()) item["documentation"] = {{"kind", "markdown"}, {"value", c.documentation}};
    items.push_back(std::move(item));
  }
  return {{"isIncomplete", false}, {"items", items}};
}

json lsp_hover(const PipelineDocument& doc, std::size_t offset, PositionEncoding encoding) {
  std::optional<HoverText> h = hover_at(doc, offset);
  if (!h) return nullptr;
  return {{"contents", {{"kind", "markdown"}, {"value", h->markdown}}}, {"range", lsp_range(doc, h->range, encoding)}};
}

}  // namespace attractor
