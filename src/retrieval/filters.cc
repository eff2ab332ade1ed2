#include "retrieval/filters.h"

#include "retrieval/backend.h"

namespace attractor::retrieval {

namespace {

std::string scalar_to_string(const std::string& key, const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean() || v.is_number()) return v.dump();
  throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                       "retrieval filter '" + key + "' must be a string, number, boolean or a list of those");
}

std::vector<std::string> values_of(const std::string& key, const nlohmann::json& v) {
  std::vector<std::string> out;
  if (v.is_array()) {
    for (const auto& item : v) out.push_back(scalar_to_string(key, item));
  } else {
    out.push_back(scalar_to_string(key, v));
  }
  return out;
}

bool is_column(const std::string& key) {
  return key == "repository" || key == "branch" || key == "language" || key == "kind" || key == "path";
}

std::string placeholders(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += i ? ",?" : "?";
  return s;
}

}  // namespace

NodeFilter NodeFilter::parse(const nlohmann::json& filters) {
  NodeFilter f;
  if (filters.is_null()) return f;
  if (!filters.is_object()) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "retrieval_filters must be a JSON object");
  }
  for (const auto& [key, value] : filters.items()) {
    if (key == "acl_tags_any") {
      f.acl_tags_any = values_of(key, value);
    } else if (key == "classification_labels_all") {
      f.classification_labels_all = values_of(key, value);
    } else if (key == "snapshot_id" || key == "snapshot") {
      auto v = values_of(key, value);
      if (v.size() != 1) {
        throw RetrievalError(RetrievalError::Kind::kInvalidArgument,
                             "retrieval filter '" + key + "' must be one value");
      }
      if (f.snapshot && *f.snapshot != v[0]) {
        throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "snapshot and snapshot_id filters disagree");
      }
      f.snapshot = v[0];
    } else if (is_column(key)) {
      f.column_equals.emplace_back(key, values_of(key, value));
    } else {
      f.metadata_equals.emplace_back(key, values_of(key, value));
    }
  }
  return f;
}

std::string NodeFilter::sql_condition(const std::string& a, std::vector<std::string>& binds) const {
  std::string sql = "1";
  if (acl_tags_any) {
    if (acl_tags_any->empty()) return "0";
    sql += " AND EXISTS (SELECT 1 FROM json_each(" + a + ".acl_tags) WHERE value IN (" +
           placeholders(acl_tags_any->size()) + "))";
    binds.insert(binds.end(), acl_tags_any->begin(), acl_tags_any->end());
  }
  for (const auto& label : classification_labels_all) {
    sql += " AND EXISTS (SELECT 1 FROM json_each(" + a + ".labels) WHERE value = ?)";
    binds.push_back(label);
  }
  for (const auto& [column, values] : column_equals) {
    sql += " AND " + a + "." + column + " IN (" + placeholders(values.size()) + ")";
    binds.insert(binds.end(), values.begin(), values.end());
  }
  for (const auto& [key, values] : metadata_equals) {
    sql += " AND EXISTS (SELECT 1 FROM json_each(" + a + ".metadata) WHERE key = ? AND CAST(value AS TEXT) IN (" +
           placeholders(values.size()) + "))";
    binds.push_back(key);
    binds.insert(binds.end(), values.begin(), values.end());
  }
  return sql;
}

}  // namespace attractor::retrieval
