#include "retrieval/local/fts_fields.h"

#include <cctype>

#include "retrieval/local/code_tokens.h"

namespace attractor::retrieval {

namespace {

constexpr size_t kMaxSignature = 400;

std::string_view cut_utf8(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '@'; }

/// Where the body of a C# declaration starts: the first `{`, `=>` or `;` outside brackets and
/// strings (a default argument `= "{"` or an attribute `[Route("{id}")]` is not the body).
size_t csharp_body_start(std::string_view text) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '(' || c == '[' || c == '<') ++depth;
    else if ((c == ')' || c == ']' || c == '>') && depth > 0) --depth;
    else if (depth == 0 && (c == '{' || c == ';' || (c == '=' && i + 1 < text.size() && text[i + 1] == '>'))) return i;
  }
  return text.size();
}

/// Where the body of a SQL routine or view starts: the first word `AS` outside brackets and quotes.
size_t sql_body_start(std::string_view text) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '[') quote = ']';
    else if (c == '(') ++depth;
    else if (c == ')' && depth > 0) --depth;
    else if (depth == 0 && (c == 'A' || c == 'a') && i + 1 < text.size() &&
             (text[i + 1] == 'S' || text[i + 1] == 's') && (i == 0 || !word_char(text[i - 1])) &&
             (i + 2 >= text.size() || !word_char(text[i + 2]))) {
      return i;
    }
  }
  return text.size();
}

}  // namespace

std::string without_type_parameters(std::string_view name) {
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == '>' && depth > 0) --depth;
  }
  return out;
}

std::string signature_of(std::string_view text, std::string_view language, std::string_view kind) {
  size_t end = text.size();
  if (language == "sql") {
    if (kind != "table" && kind != "type") end = sql_body_start(text);
  } else {
    end = csharp_body_start(text);
  }
  return std::string(cut_utf8(text.substr(0, end), kMaxSignature));
}

FtsFields fts_fields(const StoredNode& node) {
  FtsFields f;
  f.name = index_terms(node.kind + " " + without_type_parameters(node.name));
  f.signature = index_terms(signature_of(node.text, node.language, node.kind));
  const std::string doc = node.facts.is_object() ? node.facts.value("doc", std::string()) : std::string();
  f.doc = index_terms(doc);
  // The body holds the doc comment and the signature too, so a word there never scores below the
  // same word in the code alone, however long the node's doc or signature is.
  f.body = index_terms(doc + "\n" + node.text);
  return f;
}

}  // namespace attractor::retrieval
