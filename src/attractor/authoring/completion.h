#pragma once
/// \file
/// Completion at a cursor: attribute names valid for the statement (per handler type for a
/// node), attribute values (shapes, handler types, providers, enumerations, booleans, durations,
/// node ids), node ids after `->` and at a statement's start, and context keys and outcomes in
/// conditions (docs/authoring.md, "Language server").

#include <string>
#include <vector>

#include "attractor/authoring/pipeline_document.h"

namespace attractor {

/// One suggestion. `kind` uses the LSP CompletionItemKind numbers.
struct CompletionCandidate {
  enum Kind { kProperty = 10, kValue = 12, kKeyword = 14, kReference = 18, kEnumMember = 20 };
  std::string label;
  Kind kind = kValue;
  std::string detail;         ///< e.g. "integer >= 0, default 0"
  std::string documentation;  ///< the attribute's meaning
  TextEdit edit;              ///< replaces the partly typed word
};

/// The suggestions at byte `offset`, sorted by label. The editor filters them by what is typed
/// (it matches loosely, so a typo still finds its word); each edit replaces the typed word.
std::vector<CompletionCandidate> complete_at(const PipelineDocument& doc, std::size_t offset);

}  // namespace attractor
