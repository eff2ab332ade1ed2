#include "attractor/run/checkpoint_schema.h"

#include <array>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "attractor/base/json_limits.h"

namespace attractor {

namespace {

using nlohmann::json;

/// The kinds of value a checkpoint member holds.
enum class Kind {
  kString,
  kInteger,
  kUnsigned,
  kStrings,   ///< an array of strings
  kIntegers,  ///< an object of integers
  kValues,    ///< an object of stored values (depth-limited)
  kObjects,   ///< an object of objects
  kArray,     ///< an array wrapping stored values (depth-limited)
  kObject,    ///< an object wrapping stored values (depth-limited)
  kNullOrObject,
};

struct Member {
  std::string_view name;
  Kind kind;
};

constexpr std::array<Member, 23> kMembers{{
    {"completed_commits", Kind::kStrings},
    {"completed_nodes", Kind::kStrings},
    {"completed_statuses", Kind::kStrings},
    {"context", Kind::kValues},
    {"current_node", Kind::kString},
    {"final_outcome", Kind::kNullOrObject},
    {"inbox", Kind::kArray},
    {"journal_seq", Kind::kUnsigned},
    {"last_fidelity", Kind::kString},
    {"logs", Kind::kStrings},
    {"next_node", Kind::kString},
    {"node_attempts", Kind::kIntegers},
    {"node_outcomes", Kind::kObjects},
    {"node_retries", Kind::kIntegers},
    {"restart_count", Kind::kInteger},
    {"run_id", Kind::kString},
    {"seed_context", Kind::kValues},
    {"state", Kind::kString},
    {"timestamp", Kind::kString},
    {"timestamp_ms", Kind::kInteger},
    {"total_executions", Kind::kInteger},
    {"usage", Kind::kObject},
    {"visit_counts", Kind::kIntegers},
}};

const Member* find_member(std::string_view name) {
  for (const Member& m : kMembers) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

/// "a number", "an array", ... for messages.
std::string_view type_phrase(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a number";
  }
}

std::string wrong(std::string_view path, std::string_view expected, const json& found) {
  return fmt::format("`{}` must be {}, found {}", path, expected, type_phrase(found));
}

/// A stored value wrapped in a few levels of its own (an outcome holding context updates, an
/// inbox of messages) may nest this much deeper than a stored value.
constexpr int kWrapperDepth = 4;

std::string deep(std::string_view path, const json& value, int extra = 0) {
  std::string problem = json_depth_problem(value, kMaxValueDepth + extra);
  return problem.empty() ? problem : fmt::format("`{}` is {}", path, problem);
}

/// Every element of `container` (an array or object) checked with `check(path_of_element, element)`.
template <typename Check>
std::string each(std::string_view path, const json& container, Check check) {
  if (container.is_array()) {
    for (std::size_t i = 0; i < container.size(); ++i) {
      if (std::string p = check(fmt::format("{}[{}]", path, i), container[i]); !p.empty()) return p;
    }
  } else {
    for (const auto& [key, value] : container.items()) {
      if (std::string p = check(fmt::format("{}.{}", path, key), value); !p.empty()) return p;
    }
  }
  return "";
}

std::string kind_problem(std::string_view path, Kind kind, const json& v) {
  switch (kind) {
    case Kind::kString: return v.is_string() ? "" : wrong(path, "a string", v);
    case Kind::kInteger: return v.is_number_integer() ? "" : wrong(path, "an integer", v);
    case Kind::kUnsigned: return v.is_number_unsigned() ? "" : wrong(path, "a non-negative integer", v);
    case Kind::kStrings:
      if (!v.is_array()) return wrong(path, "an array of strings", v);
      return each(path, v,
                  [](const std::string& p, const json& e) { return e.is_string() ? "" : wrong(p, "a string", e); });
    case Kind::kIntegers:
      if (!v.is_object()) return wrong(path, "an object of integers", v);
      return each(path, v, [](const std::string& p, const json& e) {
        return e.is_number_integer() ? "" : wrong(p, "an integer", e);
      });
    case Kind::kValues:
      if (!v.is_object()) return wrong(path, "an object", v);
      return each(path, v, [](const std::string& p, const json& e) { return deep(p, e); });
    case Kind::kObjects:
      if (!v.is_object()) return wrong(path, "an object of objects", v);
      return each(path, v,
                  [](const std::string& p, const json& e) { return e.is_object() ? "" : wrong(p, "an object", e); });
    case Kind::kArray:
      if (!v.is_array()) return wrong(path, "an array", v);
      return deep(path, v, kWrapperDepth);
    case Kind::kObject:
      if (!v.is_object()) return wrong(path, "an object", v);
      return deep(path, v, kWrapperDepth);
    case Kind::kNullOrObject:
      if (!v.is_null() && !v.is_object()) return wrong(path, "null or an object", v);
      return deep(path, v, kWrapperDepth);
  }
  return "";
}

/// The members of `object` (at `path`, "" for the top level) checked against kMembers, or
/// against `allowed` when given.
template <typename Allowed>
std::string members_problem(std::string_view path, const json& object, Allowed allowed) {
  for (const auto& [name, value] : object.items()) {
    const std::string at = path.empty() ? name : fmt::format("{}.{}", path, name);
    std::optional<Kind> kind = allowed(name);
    if (!kind) return path.empty() ? fmt::format("unknown member `{}`", name) : fmt::format("unknown member `{}`", at);
    if (std::string p = kind_problem(at, *kind, value); !p.empty()) return p;
  }
  return "";
}

std::optional<Kind> checkpoint_kind(std::string_view name) {
  const Member* m = find_member(name);
  return m ? std::optional<Kind>(m->kind) : std::nullopt;
}

std::optional<Kind> append_kind(std::string_view name) {
  if (name == "completed_commits" || name == "completed_nodes" || name == "completed_statuses" || name == "logs") {
    return Kind::kStrings;
  }
  return std::nullopt;
}

std::optional<Kind> merge_kind(std::string_view name) {
  if (name == "context") return Kind::kValues;
  if (name == "node_attempts" || name == "visit_counts") return Kind::kIntegers;
  if (name == "node_outcomes") return Kind::kObjects;
  return std::nullopt;
}

std::optional<Kind> remove_kind(std::string_view name) {
  if (name == "context") return Kind::kStrings;
  return std::nullopt;
}

}  // namespace

std::string checkpoint_schema_problem(const json& checkpoint) {
  if (!checkpoint.is_object())
    return fmt::format("the checkpoint must be an object, found {}", type_phrase(checkpoint));
  return members_problem("", checkpoint, checkpoint_kind);
}

std::string journal_delta_problem(const json& delta) {
  if (!delta.is_object()) return fmt::format("the record must be an object, found {}", type_phrase(delta));
  for (const auto& [part, value] : delta.items()) {
    if (!value.is_object()) {
      if (part != "set" && part != "append" && part != "merge" && part != "remove") {
        return fmt::format("unknown member `{}`", part);
      }
      return wrong(part, "an object", value);
    }
    std::string problem;
    if (part == "set") {
      problem = members_problem(part, value, checkpoint_kind);
    } else if (part == "append") {
      problem = members_problem(part, value, append_kind);
    } else if (part == "merge") {
      problem = members_problem(part, value, merge_kind);
    } else if (part == "remove") {
      problem = members_problem(part, value, remove_kind);
    } else {
      problem = fmt::format("unknown member `{}`", part);
    }
    if (!problem.empty()) return problem;
  }
  return "";
}

}  // namespace attractor
