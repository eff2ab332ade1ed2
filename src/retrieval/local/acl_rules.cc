#include "retrieval/local/acl_rules.h"

#include <algorithm>
#include <stdexcept>

#include "attractor/base/json_limits.h"
#include "retrieval/local/path_glob.h"

namespace attractor::retrieval {

namespace {

using nlohmann::json;

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  const auto& v = j[key];
  if (v.is_string()) return {v.get<std::string>()};
  if (!v.is_array()) throw std::invalid_argument(std::string("'") + key + "' must be a string or a list of strings");
  for (const auto& item : v) {
    if (!item.is_string()) throw std::invalid_argument(std::string("'") + key + "' must contain strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

AclDecision decision_of(const json& j) {
  if (!j.is_object()) throw std::invalid_argument("an ACL rule must be an object");
  AclDecision d;
  d.acl_tags = strings(j, "acl_tags");
  d.classification_labels = strings(j, "classification_labels");
  if (j.contains("metadata")) {
    if (!j["metadata"].is_object()) throw std::invalid_argument("'metadata' must be an object");
    for (const auto& [k, v] : j["metadata"].items()) {
      if (v.is_object() || v.is_array() || v.is_null())
        throw std::invalid_argument("metadata '" + k + "' must be a scalar");
      d.metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
  return d;
}

void add_unique(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const auto& s : from) {
    if (std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
  }
}

}  // namespace

std::string AclDecision::fingerprint() const {
  return json{{"t", acl_tags}, {"l", classification_labels}, {"m", metadata}}.dump();
}

AclRules AclRules::parse(const std::string& text) {
  json j;
  try {
    j = parse_json_limited(text, "ACL file");
  } catch (const std::exception& e) {
    throw std::invalid_argument(e.what());
  }
  if (!j.is_object()) throw std::invalid_argument("ACL file must be a JSON object");
  AclRules rules;
  if (j.contains("default")) rules.default_ = decision_of(j["default"]);
  if (j.contains("rules")) {
    if (!j["rules"].is_array()) throw std::invalid_argument("'rules' must be a list");
    for (const auto& r : j["rules"]) {
      if (!r.is_object() || !r.contains("pattern") || !r["pattern"].is_string()) {
        throw std::invalid_argument("every ACL rule needs a string 'pattern'");
      }
      rules.rules_.push_back({r["pattern"].get<std::string>(), decision_of(r), r.value("replace", false)});
    }
  }
  return rules;
}

AclDecision AclRules::decide(const std::string& path, const nlohmann::json& metadata) const {
  AclDecision d = default_;
  d.metadata = metadata;
  for (const auto& [k, v] : default_.metadata.items()) d.metadata[k] = v;
  for (const auto& r : rules_) {
    if (!glob_match(r.pattern, path)) continue;
    if (r.replace) {
      d.acl_tags.clear();
      d.classification_labels.clear();
    }
    add_unique(d.acl_tags, r.decision.acl_tags);
    add_unique(d.classification_labels, r.decision.classification_labels);
    for (const auto& [k, v] : r.decision.metadata.items()) d.metadata[k] = v;
  }
  return d;
}

}  // namespace attractor::retrieval
