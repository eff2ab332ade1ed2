#pragma once
/// \file
/// The indexer's ACL file: glob patterns (path_glob.h, relative to the source root) mapped to ACL
/// tags, classification labels and metadata, applied to every node of a matching file.
///
/// ```json
/// {
///   "default": {"acl_tags": ["public"], "classification_labels": ["internal"]},
///   "rules": [
///     {"pattern": "src/Payroll/**", "acl_tags": ["hr"], "classification_labels": ["confidential"],
///      "metadata": {"tenant": "t2"}, "replace": true}
///   ]
/// }
/// ```
/// The default applies first, then every matching rule in order: tags and labels accumulate (a rule
/// with `"replace": true` discards what came before), metadata keys overwrite (the indexer's `role`
/// too, so a rule can set `"metadata": {"role": "source"}`). Metadata values are stored as strings.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor::retrieval {

/// What a file's nodes receive.
struct AclDecision {
  std::vector<std::string> acl_tags;
  std::vector<std::string> classification_labels;
  nlohmann::json metadata = nlohmann::json::object();
  /// A stable fingerprint (part of the file's content hash, so ACL changes re-index the file).
  std::string fingerprint() const;
};

class AclRules {
 public:
  /// No rules: every file gets no tags, no labels, no metadata.
  AclRules() = default;
  /// Parses the JSON text of an ACL file; throws std::invalid_argument with a message.
  static AclRules parse(const std::string& text);
  /// The decision for a relative path. `metadata` (the node role, node_role.h) comes first: the
  /// default's and the matching rules' metadata overwrite its keys.
  AclDecision decide(const std::string& path, const nlohmann::json& metadata = nlohmann::json::object()) const;

 private:
  struct Rule {
    std::string pattern;
    AclDecision decision;
    bool replace = false;
  };
  AclDecision default_;
  std::vector<Rule> rules_;
};

}  // namespace attractor::retrieval
