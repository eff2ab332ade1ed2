#pragma once
/// \file
/// The schema of `checkpoint.json` and of the checkpoint journal's records (checkpoint.h,
/// checkpoint_journal.h), checked on load so that damaged state stops a resume with a message
/// instead of being read as defaults (docs/run-directory.md, "Checkpoint schema"): every member
/// has one type, a member the writer never writes is refused, and a stored value (a context or
/// seed value) nests at most kMaxValueDepth levels. Members may be missing (older checkpoints).

#include <string>

#include <nlohmann/json.hpp>

namespace attractor {

/// "" when `checkpoint` fits the checkpoint schema; else what does not, naming the member:
/// "`completed_nodes` must be an array of strings, found a number", "unknown member `?ontext`".
std::string checkpoint_schema_problem(const nlohmann::json& checkpoint);

/// "" when a journal record's `delta` fits the record schema (`set` of checkpoint members with
/// their types, `append` to the three lists, `merge` into the four maps, `remove` of context keys);
/// else what does not, naming the member path: "`set.context` must be an object, found an array".
std::string journal_delta_problem(const nlohmann::json& delta);

}  // namespace attractor
