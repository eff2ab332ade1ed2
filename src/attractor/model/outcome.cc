#include "attractor/model/outcome.h"

#include <algorithm>
#include <cctype>

namespace attractor {

const char* status_name(StageStatus status) {
  switch (status) {
    case StageStatus::kSuccess: return "success";
    case StageStatus::kPartialSuccess: return "partial_success";
    case StageStatus::kRetry: return "retry";
    case StageStatus::kFail: return "fail";
    case StageStatus::kSkipped: return "skipped";
  }
  return "fail";
}

bool parse_status(std::string_view text, StageStatus* out) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "success" || lower == "ok") *out = StageStatus::kSuccess;
  else if (lower == "partial_success" || lower == "partial") *out = StageStatus::kPartialSuccess;
  else if (lower == "retry") *out = StageStatus::kRetry;
  else if (lower == "fail" || lower == "failure" || lower == "failed") *out = StageStatus::kFail;
  else if (lower == "skipped" || lower == "skip") *out = StageStatus::kSkipped;
  else return false;
  return true;
}

const char* error_category_name(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::kRetryable: return "retryable";
    case ErrorCategory::kTerminal: return "terminal";
    case ErrorCategory::kPipeline: return "pipeline";
  }
  return "retryable";
}

Outcome Outcome::success(std::string notes) {
  Outcome o;
  o.notes = std::move(notes);
  return o;
}

Outcome Outcome::fail(std::string reason, ErrorCategory category) {
  Outcome o;
  o.status = StageStatus::kFail;
  o.failure_reason = std::move(reason);
  o.category = category;
  return o;
}

Outcome Outcome::retry(std::string reason) {
  Outcome o;
  o.status = StageStatus::kRetry;
  o.failure_reason = std::move(reason);
  return o;
}

nlohmann::json outcome_to_json(const Outcome& outcome) {
  nlohmann::json j = nlohmann::json::object();
  j["outcome"] = status_name(outcome.status);
  j["preferred_label"] = outcome.preferred_label;
  j["suggested_next_ids"] = outcome.suggested_next_ids;
  j["context_updates"] = outcome.context_updates.is_object() ? outcome.context_updates : nlohmann::json::object();
  j["notes"] = outcome.notes;
  if (!outcome.failure_reason.empty()) j["failure_reason"] = outcome.failure_reason;
  if (!outcome.jump_to.empty()) j["jump_to"] = outcome.jump_to;
  if (outcome.status == StageStatus::kFail || outcome.status == StageStatus::kRetry) {
    j["error_category"] = error_category_name(outcome.category);
  }
  if (outcome.messages.is_array() && !outcome.messages.empty()) j["messages"] = outcome.messages;
  if (outcome.retry_after_ms) j["retry_after_ms"] = *outcome.retry_after_ms;
  if (outcome.stage_info.is_object()) {
    for (const auto& [key, value] : outcome.stage_info.items()) {
      if (!j.contains(key)) j[key] = value;
    }
  }
  return j;
}

Outcome outcome_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("status must be a JSON object");
  auto it = j.find("outcome");
  if (it == j.end()) it = j.find("status");
  if (it == j.end() || !it->is_string()) throw std::runtime_error("status is missing the \"outcome\" field");
  Outcome o;
  if (!parse_status(it->get<std::string>(), &o.status)) {
    throw std::runtime_error("unknown outcome \"" + it->get<std::string>() + "\"");
  }
  auto str = [&](const char* key) {
    auto f = j.find(key);
    return f != j.end() && f->is_string() ? f->get<std::string>() : std::string();
  };
  o.preferred_label = str("preferred_label");
  o.notes = str("notes");
  o.failure_reason = str("failure_reason");
  if (auto f = j.find("suggested_next_ids"); f != j.end() && f->is_array()) {
    for (const auto& id : *f) {
      if (id.is_string()) o.suggested_next_ids.push_back(id.get<std::string>());
    }
  }
  if (auto f = j.find("context_updates"); f != j.end() && f->is_object()) o.context_updates = *f;
  o.jump_to = str("jump_to");
  if (auto f = j.find("messages"); f != j.end() && f->is_array()) o.messages = *f;
  std::string category = str("error_category");
  if (category == "terminal") o.category = ErrorCategory::kTerminal;
  else if (category == "pipeline") o.category = ErrorCategory::kPipeline;
  return o;
}

}  // namespace attractor
