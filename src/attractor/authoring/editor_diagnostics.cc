#include "attractor/authoring/editor_diagnostics.h"

#include <regex>

#include "attractor/authoring/node_references.h"
#include "attractor/model/value.h"

namespace attractor {

namespace {

/// A key character, or the `:` of values such as `summary:high`.
bool is_fix_word_char(char c) { return is_key_char(c) || c == ':'; }

/// The word of a string's content that `offset` starts.
ByteRange word_at(const std::string& text, std::size_t offset, std::size_t limit) {
  std::size_t end = offset;
  while (end < limit && is_fix_word_char(text[end])) ++end;
  return {offset, end};
}

class DiagnosticPlacer {
 public:
  explicit DiagnosticPlacer(const PipelineDocument& doc) : doc_(doc) {}

  EditorDiagnostic place(const Diagnostic& d) {
    EditorDiagnostic out;
    out.diagnostic = d;
    out.range = range_for(d);
    relate(out);
    suggest(out);
    return out;
  }

 private:
  ByteRange range_for(const Diagnostic& d) {
    if (d.location.known()) {
      std::size_t offset = std::min(d.location.offset, doc_.text().size());
      TokenIndex t = doc_.token_at(offset);
      if (t == kNoToken) return {offset, offset};
      ByteRange token = doc_.range_of(t);
      if (doc_.syntax().tokens[t].kind == SyntaxKind::kString && offset > token.begin) {
        ByteRange word = word_at(doc_.text(), offset, token.end - 1);
        if (word.end > word.begin) return word;
      }
      return token;
    }
    if (!d.node_id.empty()) {
      if (auto def = node_definition(refs(), d.node_id)) return def->range;
    }
    TokenIndex head = doc_.syntax().graph_kw;
    return head == kNoToken ? ByteRange{0, 0} : doc_.range_of(head);
  }

  void relate(EditorDiagnostic& out) {
    const Diagnostic& d = out.diagnostic;
    if (d.node_id.empty()) return;
    std::optional<NodeReference> def = node_definition(refs(), d.node_id);
    if (!def || def->range == out.range) return;
    out.related.push_back({def->range, "node '" + d.node_id + "' is declared here"});
  }

  void suggest(EditorDiagnostic& out) {
    static const std::regex did_you_mean(R"(^did you mean '([^']*)'\?)");
    static const std::regex rename_to(R"(^rename '([^']*)' to '([^']*)'$)");
    const Diagnostic& d = out.diagnostic;
    std::smatch m;
    if (std::regex_search(d.fix, m, rename_to)) {
      rename_key(out, m[2].str());
    } else if (std::regex_search(d.fix, m, did_you_mean)) {
      if (d.fix.find("An edge naming '") != std::string::npos) {
        rename_mentions(out, d.node_id, m[1].str());
      } else {
        replace_value(out, m[1].str());
      }
    }
  }

  /// attribute_spelling points at the value: the key is the token before its `=`.
  void rename_key(EditorDiagnostic& out, const std::string& name) {
    TokenIndex t = doc_.token_at(out.range.begin);
    const auto& tokens = doc_.syntax().tokens;
    if (t == kNoToken || t < 2 || tokens[t - 1].kind != SyntaxKind::kEquals) return;
    TokenIndex key = t - 2;
    bool quoted = tokens[key].kind == SyntaxKind::kString;
    out.quick_fix = {TextEdit{doc_.range_of(key), quoted ? "\"" + name + "\"" : name}};
    out.quick_fix_title = "Rename '" + std::string(doc_.syntax().token_text(key)) + "' to '" + name + "'";
    out.range = doc_.range_of(key);
  }

  /// A node that only edges create, its id misspelt: every mention becomes the declared id.
  void rename_mentions(EditorDiagnostic& out, const std::string& id, const std::string& guess) {
    for (const NodeReference& r : refs()) {
      if (r.id == id) out.quick_fix.push_back({r.range, r.quoted ? "\"" + guess + "\"" : guess});
    }
    if (!out.quick_fix.empty()) out.quick_fix_title = "Replace '" + id + "' with '" + guess + "' everywhere";
  }

  void replace_value(EditorDiagnostic& out, const std::string& guess) {
    ByteRange target = out.range;
    const std::string& text = doc_.text();
    TokenIndex t = doc_.token_at(target.begin);
    if (t == kNoToken) return;
    const SyntaxToken& token = doc_.syntax().tokens[t];
    std::string replacement = guess;
    if (out.diagnostic.rule == "condition_outcome_value") {
      std::size_t eq = text.find('=', target.begin);
      if (eq == std::string::npos || eq >= token.end) return;
      std::size_t at = eq + 1;
      while (at < token.end && text[at] == ' ') ++at;
      target = word_at(text, at, token.end - 1);
    } else if (token.kind == SyntaxKind::kString && target.begin == token.begin) {
      target = {token.begin + 1, token.end - 1};
    } else if (token.kind == SyntaxKind::kWord && !is_identifier(guess)) {
      replacement = "\"" + guess + "\"";
    }
    std::string old = text.substr(target.begin, target.end - target.begin);
    if (old == replacement) return;
    out.quick_fix = {TextEdit{target, replacement}};
    out.quick_fix_title = "Replace '" + old + "' with '" + guess + "'";
  }

  /// The document's node references, read once for all its diagnostics.
  const std::vector<NodeReference>& refs() {
    if (!refs_) refs_ = node_references(doc_);
    return *refs_;
  }

  const PipelineDocument& doc_;
  std::optional<std::vector<NodeReference>> refs_;
};

}  // namespace

std::vector<EditorDiagnostic> editor_diagnostics(const PipelineDocument& doc) {
  std::vector<EditorDiagnostic> out;
  DiagnosticPlacer placer(doc);
  for (const Diagnostic& d : diagnostics_capped_per_rule(doc.loaded().diagnostics)) out.push_back(placer.place(d));
  return out;
}

}  // namespace attractor
