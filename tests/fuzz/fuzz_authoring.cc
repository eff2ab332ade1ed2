// libFuzzer target: any text through the editing tools (docs/authoring.md). The lossless syntax
// reading must cover the text in order; `fmt` must be idempotent and, whenever it formats, keep
// the graph (format_pipeline_text refusing a file that parses, with its own `format`
// diagnostic, is a formatter bug); diagnostics ranges, completion, hover, references and the outline
// must stay inside the text at any offset. The fuzz build has no handlers, so the catalog is
// empty (every type unknown), as in fuzz_dot.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attractor/authoring/completion.h"
#include "attractor/authoring/document_outline.h"
#include "attractor/authoring/dot_format.h"
#include "attractor/authoring/editor_diagnostics.h"
#include "attractor/authoring/hover.h"
#include "attractor/authoring/node_references.h"

namespace {

using namespace attractor;

void check_tokens(const SyntaxTree& tree) {
  std::size_t at = 0;
  for (const SyntaxToken& t : tree.tokens) {
    if (t.begin < at || t.end <= t.begin || t.end > tree.text.size()) __builtin_trap();
    at = t.end;
  }
}

void check_range(ByteRange r, std::size_t size) {
  if (r.begin > r.end || r.end > size) __builtin_trap();
}

void check_format(const std::string& text) {
  FormatResult once = format_pipeline_text("fuzz.dot", text);
  if (!once.text) {
    for (const Diagnostic& d : once.diagnostics) {
      if (d.rule == "format") __builtin_trap();  // it parses, yet the formatter refused or would change it
    }
    return;
  }
  FormatResult twice = format_pipeline_text("fuzz.dot", *once.text);
  if (!twice.text || *twice.text != *once.text) __builtin_trap();
}

void check_service(const PipelineDocument& doc, const std::uint8_t* data, std::size_t size) {
  const std::size_t n = doc.text().size();
  for (const EditorDiagnostic& e : editor_diagnostics(doc)) {
    check_range(e.range, n);
    for (const TextEdit& edit : e.quick_fix) check_range(edit.range, n);
  }
  for (const NodeReference& r : node_references(doc)) check_range(r.range, n);
  for (const OutlineSymbol& s : document_symbols(doc)) check_range(s.range, n);
  for (const FoldingLines& f : folding_ranges(doc)) {
    if (f.start_line > f.end_line) __builtin_trap();
  }
  for (std::size_t k = 0; k < 8 && k < size; ++k) {
    std::size_t offset = (static_cast<std::size_t>(data[k]) * 257 + k * 31) % (n + 1);
    for (const CompletionCandidate& c : complete_at(doc, offset)) check_range(c.edit.range, n);
    if (auto h = hover_at(doc, offset)) check_range(h->range, n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const HandlerCatalog no_handlers;
  static const AuthoringCatalog catalog{&no_handlers, {"openai"}};
  std::string text(reinterpret_cast<const char*>(data), size);
  SyntaxTree tree = read_syntax(text);
  check_tokens(tree);
  check_format(text);
  PipelineDocument doc("fuzz.dot", text, catalog);
  check_service(doc, data, size);
  return 0;
}
