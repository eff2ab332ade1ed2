#pragma once
/// \file
/// Parsing JSON that comes from outside the process (command-line files and values, checkpoint.json,
/// journal records, events, a stage's status.json, model and HTTP replies) with bounded nesting:
/// nlohmann::json copies, compares and serializes nested values recursively, so a document nested
/// 100,000 levels deep would overflow the stack later. The parser itself and the destructor are
/// iterative; the limit is checked by the parser's callback while it reads, so nothing deeper than
/// the limit is ever built (docs/hardening.md, "Limits").
///
/// Two limits: readers accept kMaxJsonDepth, and a run stores no value deeper than kMaxValueDepth,
/// so the documents that wrap such a value (a checkpoint, a journal record, an event) stay readable.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attractor {

/// Deepest nesting of arrays/objects accepted by `parse_json_limited` (a document `[]` is 1 deep).
inline constexpr int kMaxJsonDepth = 256;

/// Deepest nesting of one value a run accepts and stores: a `--set-json`/`--context` seed, a
/// stage's context update, an inbox message. The checkpoint (`{"context":{KEY:VALUE}}`) and a
/// journal record (`{"merge":{"context":{KEY:VALUE}}}`) add at most 3 levels, well inside
/// kMaxJsonDepth, so whatever a run accepted it can read back.
inline constexpr int kMaxValueDepth = 200;

static_assert(kMaxValueDepth + 8 <= kMaxJsonDepth, "stored values must stay readable inside their documents");

/// Parses `text`; throws std::runtime_error("<what> is not valid JSON: <reason>") on a syntax error
/// (reason like "parse error at line 1, column 7: ..." or "number overflow parsing '1e999'") or when
/// nesting exceeds `max_depth` ("nested deeper than 256 levels"). Throws nothing else.
nlohmann::json parse_json_limited(std::string_view text, const std::string& what, int max_depth = kMaxJsonDepth);

/// Like `nlohmann::json::parse(text, nullptr, false)`: the value, or a discarded value
/// (`is_discarded()`) when `text` is not JSON or nests deeper than `max_depth`. Never throws.
nlohmann::json parse_json_or_discarded(std::string_view text, int max_depth = kMaxJsonDepth);

/// The nesting depth of `value` (a scalar is 0, `[]` is 1), counted without recursion and
/// without looking further than `stop_after` levels (it then returns `stop_after + 1`).
int json_depth(const nlohmann::json& value, int stop_after = kMaxJsonDepth);

/// "" when `value` nests at most `max_depth` levels, else "nested deeper than N levels".
std::string json_depth_problem(const nlohmann::json& value, int max_depth = kMaxValueDepth);

}  // namespace attractor
