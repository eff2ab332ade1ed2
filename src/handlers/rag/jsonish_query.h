#pragma once
/// \file
/// The `jsonish_v1` query parser of `search_nodes` (docs/retrieval.md): turns a router model's JSON or
/// JSON-like payload into a query, filters and search metadata. A pure, deterministic function that
/// never throws (other than std::bad_alloc) and tolerates what models emit: code fences, single
/// quotes, trailing commas, unquoted keys, Python literals (True/False/None), raw newlines inside
/// strings and text around the object.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor {

/// What `parse_jsonish_query` found in a payload.
struct JsonishQuery {
  /// The query text, trimmed. From member `query` of the object, or the whole text (fences
  /// stripped) when no object could be parsed. May be empty (the caller decides: an error).
  std::string query;
  /// Filters from the payload: members of a `filters` object plus every top-level member that is
  /// not `query`, `filters`, `rerank` or a metadata key. Never contains metadata keys. Not yet
  /// validated against the scope (see `merge_filters`).
  nlohmann::json filters = nlohmann::json::object();
  /// `search_type` (else `mode`), lowercased: "semantic" | "bm25" | "hybrid" | "semantic_rerank".
  std::optional<std::string> search_type;
  /// Payload `top_k` / `rrf_k`: integers in [1, 2^31-1] (JSON integers, integral floats or digit strings).
  std::optional<std::int64_t> top_k;
  std::optional<std::int64_t> rrf_k;
  /// Payload `match_operator`, lowercased: "and" | "or".
  std::optional<std::string> match_operator;
  /// True when a JSON object was found and parsed.
  bool structured = false;
  /// Human-readable notes about ignored or invalid parts, in the order found.
  std::vector<std::string> warnings;
};

/// The top-level payload keys that are search metadata, never filters.
bool is_jsonish_metadata_key(std::string_view key);

/// Parses `text` with the jsonish_v1 rules. Finds the first fenced block (```json ... ```) if any,
/// then the first balanced `{...}` that parses as an object (at most 8 candidates, nesting depth at
/// most 64); invalid metadata values are dropped with a warning. Deterministic; never throws
/// except std::bad_alloc.
JsonishQuery parse_jsonish_query(std::string_view text);

/// The strict-JSON rewrite of a JSON-like object text used by `parse_jsonish_query` (exposed for
/// tests and the fuzzer): single-quoted strings become double-quoted, trailing commas before `}`
/// or `]` are dropped, bare words become strings except true/false/null (True/False/None are
/// mapped), raw control characters inside strings are escaped.
std::string normalize_jsonish(std::string_view object_text);

}  // namespace attractor
