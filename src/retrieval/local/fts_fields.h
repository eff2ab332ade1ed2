#pragma once
/// \file
/// What each column of the full-text table `nodes_fts(name, signature, doc, body)` holds for a
/// node, and how much a match in it weighs (docs/retrieval.md section 8): the kind and qualified
/// name weigh most, then the declaration's signature (a method's parameters, a procedure's
/// header, a type's base list), then its doc comment, then the whole source text.

#include <string>
#include <string_view>

#include "retrieval/local/index_store.h"

namespace attractor::retrieval {

/// The index terms (code_tokens.h) of each column for one node.
struct FtsFields {
  std::string name;
  std::string signature;
  std::string doc;
  std::string body;
};

/// The bm25() column weights, in column order: name, signature, doc, body.
inline constexpr double kFtsWeights[] = {4.0, 1.5, 1.25, 1.0};

/// The columns of `node` (its kind, name, language, text and `facts.doc`); the body is the doc
/// comment followed by the whole text.
FtsFields fts_fields(const StoredNode& node);

/// The declaration part of a node's source text: up to the body's `{`, `=>` or `;` for C#; up to
/// the `AS` that starts the body of a SQL procedure, function, view or trigger (the whole text of
/// a table or type, whose columns are its signature). At most 400 bytes, cut at a character.
std::string signature_of(std::string_view text, std::string_view language, std::string_view kind);

/// `name` without its generic parameter lists (`A.Repository<T,TId>.Get` -> `A.Repository.Get`):
/// parameter names are not words a search looks for.
std::string without_type_parameters(std::string_view name);

}  // namespace attractor::retrieval
