#pragma once
/// \file
/// Where each node id is written: node statements, edge ends, the attributes whose type is a
/// node id (retry_target, on_ok, next, ...), and conditions (`current_node=ID`,
/// `last_stage=ID`, `parallel.branch.ID.status`, `internal.retry_count.ID`). Go to definition,
/// find references and rename all read this one list (docs/authoring.md, "Language server").

#include <optional>
#include <string>
#include <vector>

#include "attractor/authoring/pipeline_document.h"

namespace attractor {

/// One place a node id is written.
struct NodeReference {
  enum class Kind { kStatement, kEdgeEnd, kAttribute, kCondition };
  Kind kind = Kind::kStatement;
  std::string id;
  ByteRange range;      ///< the whole token (quotes included), or the id inside a condition
  bool quoted = false;  ///< the token is a string: a rename writes quotes back
};

/// Every reference in `doc`, in text order. Attribute and condition references count only when
/// they name a node some statement mentions.
std::vector<NodeReference> node_references(const PipelineDocument& doc);

/// The reference under `offset`, if any.
std::optional<NodeReference> node_reference_at(const PipelineDocument& doc, std::size_t offset);
/// The same among `refs` (node_references of a document), for a caller that needs them again.
std::optional<NodeReference> node_reference_at(const std::vector<NodeReference>& refs, std::size_t offset);

/// The declaration of `id`: its first node statement, else its first mention in an edge.
std::optional<NodeReference> node_definition(const PipelineDocument& doc, const std::string& id);
/// The same among `refs`.
std::optional<NodeReference> node_definition(const std::vector<NodeReference>& refs, const std::string& id);

/// The edits that rename node `id` to `new_name` everywhere, or the reason it cannot be done.
struct RenameResult {
  std::vector<TextEdit> edits;
  std::string error;  ///< "" on success
};
RenameResult rename_node(const PipelineDocument& doc, const std::string& id, const std::string& new_name);

/// Names of the attributes whose values are node ids, for `catalog`.
std::vector<std::string> node_id_attribute_names(const AuthoringCatalog& catalog);

}  // namespace attractor
