#pragma once
/// \file
/// Retrieval filters ("sacred" ACL filters, docs/retrieval.md) and their translation to SQL.
///
/// Keys of the filter JSON object:
///   - `acl_tags_any`: string or list; the node must carry at least one of these ACL tags
///     (an empty list allows nothing).
///   - `classification_labels_all`: string or list; the node must carry every label.
///   - `snapshot_id` (or `snapshot`): selects the snapshot; without it the most recently indexed
///     snapshot of the repository + branch is used.
///   - `repository`, `branch`, `language`, `kind`, `path`: equality on the node's own fields.
///   - any other key (`data_type`, `tenant`, ...): equality on the node's metadata (values compare
///     as strings; a list means "any of").
/// Values must be strings, numbers, booleans or lists of those; anything else (null, objects) is
/// rejected with RetrievalError(kInvalidArgument) rather than silently widening access.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor::retrieval {

/// A parsed, validated filter set.
struct NodeFilter {
  std::optional<std::vector<std::string>> acl_tags_any;
  std::vector<std::string> classification_labels_all;
  std::optional<std::string> snapshot;
  /// (node column, allowed values) for repository/branch/language/kind/path.
  std::vector<std::pair<std::string, std::vector<std::string>>> column_equals;
  /// (metadata key, allowed values).
  std::vector<std::pair<std::string, std::vector<std::string>>> metadata_equals;

  /// Parses and validates a filter object (null or {} = no constraint).
  static NodeFilter parse(const nlohmann::json& filters);

  /// An SQL boolean expression over the nodes table alias `alias` (always valid, "1" when empty);
  /// appends its bind values in order to `binds`.
  std::string sql_condition(const std::string& alias, std::vector<std::string>& binds) const;
};

}  // namespace attractor::retrieval
