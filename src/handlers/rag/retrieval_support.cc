#include "handlers/rag/retrieval_support.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "attractor/model/context_keys.h"
#include "attractor/model/outcome.h"
#include "handlers/rag/search_nodes.h"

namespace attractor {

void hide_retrieval_keys_from_preambles(const Context& context, Outcome& outcome) {
  std::set<std::string> keys = {"node_texts"};
  for (const auto& [key, empty] : search_nodes_cleanup_keys()) keys.insert(key);
  if (auto marked = context.get(kPreambleHiddenKeysKey); marked && marked->is_array()) {
    for (const auto& key : *marked) {
      if (key.is_string()) keys.insert(key.get<std::string>());
    }
  }
  outcome.context_updates[kPreambleHiddenKeysKey] = nlohmann::json(std::vector<std::string>(keys.begin(), keys.end()));
}

std::shared_ptr<retrieval::IRetrievalBackend> GraphRetrievalProvider::backend_for(const Graph& graph) {
  std::string kind = graph.data().get("retrieval_backend", "local");
  std::string dir = override_;
  if (dir.empty()) {
    dir = graph.data().get("index_dir");
    if (!dir.empty() && !base_dir_.empty() && std::filesystem::path(dir).is_relative()) {
      dir = (std::filesystem::path(base_dir_) / dir).lexically_normal().string();
    }
  }
  if (dir.empty()) {
    throw StageError("no retrieval index: set graph attribute index_dir (or run with --index DIR)",
                     ErrorCategory::kTerminal);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = std::make_pair(kind, dir);
  if (auto it = open_.find(key); it != open_.end()) return it->second;
  try {
    std::shared_ptr<retrieval::IRetrievalBackend> backend = retrieval::make_retrieval_backend(kind, dir);
    open_.emplace(key, backend);
    return backend;
  } catch (const retrieval::RetrievalError& error) {
    throw StageError("cannot open retrieval backend '" + kind + "' at " + dir + ": " + error.what(),
                     ErrorCategory::kTerminal);
  }
}

namespace {

[[noreturn]] void scope_error(const NodeData& node, const std::string& message) {
  throw StageError(fmt::format("node '{}': {}", node.id, message), ErrorCategory::kTerminal);
}

std::string required_string(const NodeData& node, const Context& context, const std::string& key) {
  auto value = context.get(key);
  if (!value || !value->is_string() || value->get<std::string>().empty()) {
    scope_error(node, fmt::format("context key '{}' is required (a non-empty string){}", key,
                                  value && !value->is_null() && !value->is_string() ? ", got " + value->dump() : ""));
  }
  return value->get<std::string>();
}

/// A snapshot id from the context: a non-empty string or an integer; nullopt when absent/null/"".
std::optional<std::string> snapshot_value(const NodeData& node, const Context& context, const std::string& key) {
  auto value = context.get(key);
  if (!value || value->is_null()) return std::nullopt;
  if (value->is_string()) {
    if (value->get<std::string>().empty()) return std::nullopt;
    return value->get<std::string>();
  }
  if (value->is_number_integer()) return value->dump();
  scope_error(node, fmt::format("context key '{}' must be a string, got {}", key, value->dump()));
}

bool is_filter_scalar(const nlohmann::json& v) { return v.is_string() || v.is_number() || v.is_boolean(); }

bool is_filter_value(const nlohmann::json& v) {
  if (is_filter_scalar(v)) return true;
  if (!v.is_array()) return false;
  for (const auto& item : v) {
    if (!is_filter_scalar(item)) return false;
  }
  return true;
}

std::string filter_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

RetrievalScope read_retrieval_scope(const NodeData& node, const Context& context, const Graph& graph) {
  RetrievalScope scope;
  scope.repository = required_string(node, context, "repository");
  scope.branch = required_string(node, context, "branch");

  nlohmann::json sacred = nlohmann::json::object();
  if (auto filters = context.get("retrieval_filters"); filters && !filters->is_null()) {
    if (!filters->is_object()) {
      scope_error(node, "context key 'retrieval_filters' must be a JSON object, got " + filters->dump());
    }
    sacred = *filters;
  }

  scope.snapshot_source = node.get("snapshot_source", "primary");
  if (scope.snapshot_source == "primary") {
    scope.snapshot_id = snapshot_value(node, context, "snapshot_id");
  } else if (scope.snapshot_source == "secondary") {
    scope.snapshot_id = snapshot_value(node, context, "snapshot_id_b");
    if (!scope.snapshot_id) {
      scope_error(node, "snapshot_source=secondary requires context key 'snapshot_id_b' (a non-empty string)");
    }
  } else {
    scope_error(node,
                fmt::format("snapshot_source must be one of primary | secondary, got '{}'", scope.snapshot_source));
  }

  auto check_agrees = [&](const std::string& key, const std::string& expected) {
    auto it = sacred.find(key);
    if (it == sacred.end()) return;
    if (!is_filter_scalar(*it) || filter_text(*it) != expected) {
      scope_error(node, fmt::format("retrieval_filters.{} = {} disagrees with the scope value '{}'", key, it->dump(),
                                    expected));
    }
  };
  check_agrees("repository", scope.repository);
  check_agrees("branch", scope.branch);
  if (scope.snapshot_id) {
    check_agrees("snapshot_id", *scope.snapshot_id);
    check_agrees("snapshot", *scope.snapshot_id);
  }

  scope.filters = sacred;
  scope.filters["repository"] = scope.repository;
  scope.filters["branch"] = scope.branch;
  if (scope.snapshot_id && !sacred.contains("snapshot")) scope.filters["snapshot_id"] = *scope.snapshot_id;

  if (graph.data().has("active_index")) {
    std::string index = graph.data().get("active_index");
    if (index.empty()) scope_error(node, "graph attribute active_index must not be empty when set");
    scope.active_index = index;
  }
  return scope;
}

bool is_reserved_filter_key(const std::string& key) {
  return key == "repository" || key == "branch" || key == "snapshot_id" || key == "snapshot" || key == "acl_tags_any" ||
         key == "classification_labels_all";
}

nlohmann::json merge_filters(const nlohmann::json& parsed, const nlohmann::json& base,
                             std::vector<std::string>* warnings) {
  nlohmann::json effective = base.is_object() ? base : nlohmann::json::object();
  auto warn = [&](std::string text) {
    if (warnings) warnings->push_back(std::move(text));
  };
  if (!parsed.is_object()) return effective;
  for (auto it = parsed.begin(); it != parsed.end(); ++it) {
    const std::string& key = it.key();
    if (key.empty()) {
      warn("payload filter with an empty name ignored");
    } else if (is_reserved_filter_key(key)) {
      warn("payload filter '" + key + "' ignored: scope and ACL filters come from the pipeline");
    } else if (effective.contains(key)) {
      warn("payload filter '" + key + "' ignored: the pipeline's retrieval_filters set it");
    } else if (!is_filter_value(it.value())) {
      warn("payload filter '" + key + "' ignored: values must be strings, numbers, booleans or a list of those");
    } else {
      effective[key] = it.value();
    }
  }
  return effective;
}

void throw_retrieval_stage_error(const std::string& node_id, const std::string& action,
                                 const retrieval::RetrievalError& error) {
  ErrorCategory category = error.kind() == retrieval::RetrievalError::Kind::kUnavailable ? ErrorCategory::kRetryable
                                                                                         : ErrorCategory::kTerminal;
  throw StageError(fmt::format("node '{}': {} failed: {}", node_id, action, error.what()), category);
}

std::vector<AttributeSpec> retrieval_step_attributes() {
  return {
      {"snapshot_source",
       AttributeType::kEnum,
       "primary",
       "Snapshot searched: primary (context key snapshot_id) or secondary (context key snapshot_id_b).",
       {"primary", "secondary"}},
      {"on_ok", AttributeType::kNodeId, "", "Node to continue at (an outgoing edge to it must exist)."},
      {"next", AttributeType::kNodeId, "", "Node to continue at when on_ok is not set."},
  };
}

}  // namespace attractor
