#include "retrieval/local/fts_fields.h"

#include <algorithm>
#include <cctype>

#include "attractor/base/utf8.h"

#include "retrieval/local/code_tokens.h"

namespace attractor::retrieval {

namespace {

constexpr size_t kMaxSignature = 400;

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '@'; }

/// The first position of `text` outside quotes and brackets where `ends(text, i)` holds, or its
/// size. `quote_end(c)` is the character that closes a quote opened by `c` (0: `c` opens none);
/// `escapes` says whether a backslash escapes inside a quote.
template <typename QuoteEnd, typename Ends>
size_t first_top_level(std::string_view text, std::string_view open, std::string_view close, bool escapes,
                       QuoteEnd quote_end, Ends ends) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (escapes && c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (char q = quote_end(c)) {
      quote = q;
    } else if (open.find(c) != std::string_view::npos) {
      ++depth;
    } else if (close.find(c) != std::string_view::npos) {
      if (depth > 0) --depth;
    } else if (depth == 0 && ends(text, i)) {
      return i;
    }
  }
  return text.size();
}

/// Where the body of a C# declaration starts: the first `{`, `=>` or `;` outside brackets and
/// strings (a default argument `= "{"` or an attribute `[Route("{id}")]` is not the body).
size_t csharp_body_start(std::string_view text) {
  auto quote_end = [](char c) { return c == '"' || c == '\'' ? c : '\0'; };
  return first_top_level(text, "([<", ")]>", true, quote_end, [](std::string_view t, size_t i) {
    return t[i] == '{' || t[i] == ';' || (t[i] == '=' && i + 1 < t.size() && t[i + 1] == '>');
  });
}

/// Where the body of a SQL routine or view starts: the first word `AS` outside brackets and quotes.
size_t sql_body_start(std::string_view text) {
  auto quote_end = [](char c) { return c == '\'' || c == '"' ? c : c == '[' ? ']' : '\0'; };
  return first_top_level(text, "(", ")", false, quote_end, [](std::string_view t, size_t i) {
    return (t[i] == 'A' || t[i] == 'a') && i + 1 < t.size() && (t[i + 1] == 'S' || t[i + 1] == 's') &&
           (i == 0 || !word_char(t[i - 1])) && (i + 2 >= t.size() || !word_char(t[i + 2]));
  });
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
  std::string_view signature = text.substr(0, std::min(end, kMaxSignature));
  return std::string(signature.substr(0, utf8_complete_size(signature)));
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
