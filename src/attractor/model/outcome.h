#pragma once
/// \file
/// The result of running one stage (spec §5.2), its status-file form (Appendix C) and the error
/// categories of Appendix D that decide whether a failure is retried.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor {

/// What happened to a stage.
enum class StageStatus { kSuccess, kPartialSuccess, kRetry, kFail, kSkipped };

/// "success", "partial_success", "retry", "fail", "skipped".
const char* status_name(StageStatus status);
/// Inverse of `status_name`, case-insensitive; also accepts "ok"/"failure"/"partial". False when unknown.
bool parse_status(std::string_view text, StageStatus* out);
/// SUCCESS or PARTIAL_SUCCESS.
inline bool is_success(StageStatus s) { return s == StageStatus::kSuccess || s == StageStatus::kPartialSuccess; }

/// Appendix D: retryable errors may succeed when re-run, terminal ones never will, pipeline errors
/// are structural and stop the run.
enum class ErrorCategory { kRetryable, kTerminal, kPipeline };
const char* error_category_name(ErrorCategory category);

/// The result of executing a node handler.
struct Outcome {
  StageStatus status = StageStatus::kSuccess;
  std::string preferred_label;
  std::vector<std::string> suggested_next_ids;
  nlohmann::json context_updates = nlohmann::json::object();  ///< key -> any JSON value
  std::string notes;
  std::string failure_reason;
  /// For FAIL/RETRY: may the engine retry it? Terminal failures are never retried (docs/decisions.md).
  ErrorCategory category = ErrorCategory::kRetryable;
  /// Set by handlers whose work is expected to report its own status through `status.json`
  /// (Appendix C); when no file appears the engine applies `auto_status` or fails the stage.
  bool status_pending = false;
  /// Engine-facing: continue the traversal at this node instead of selecting an outgoing edge
  /// (the parallel handler jumps to its fan-in node so branch nodes are not executed again).
  std::string jump_to;
  /// Inbox messages this stage sends to later stages: objects with `target_step_id`, `topic` and
  /// `payload`; the engine stores them in the checkpoint and delivers each on entry to its target.
  nlohmann::json messages = nlohmann::json::array();
  /// Extra facts about the stage recorded in `status.json` and the stage events (resolved
  /// fidelity, thread id, preamble tokens, usage, backend, model, ...).
  nlohmann::json stage_info = nlohmann::json::object();
  /// For a retryable failure: the least delay before the next attempt (a provider's Retry-After).
  std::optional<std::int64_t> retry_after_ms;

  static Outcome success(std::string notes = {});
  static Outcome fail(std::string reason, ErrorCategory category = ErrorCategory::kRetryable);
  static Outcome retry(std::string reason);
};

/// Appendix C form: {"outcome", "preferred_label", "suggested_next_ids", "context_updates",
/// "notes", "failure_reason", "error_category"}, plus "jump_to", "messages" and "retry_after_ms"
/// when set, and the members of `stage_info` (never overriding the fields above).
nlohmann::json outcome_to_json(const Outcome& outcome);
/// Reads the Appendix C form (and "messages"); throws std::runtime_error when `outcome` is missing or unknown.
Outcome outcome_from_json(const nlohmann::json& json);

/// Thrown by handlers and backends to report a classified failure.
class StageError : public std::runtime_error {
 public:
  StageError(const std::string& message, ErrorCategory category,
             std::optional<std::int64_t> retry_after_ms = std::nullopt)
      : std::runtime_error(message), category_(category), retry_after_ms_(retry_after_ms) {}
  ErrorCategory category() const { return category_; }
  /// The least delay before a retry that the failing service asked for (Retry-After), if any.
  std::optional<std::int64_t> retry_after_ms() const { return retry_after_ms_; }

 private:
  ErrorCategory category_;
  std::optional<std::int64_t> retry_after_ms_;
};

}  // namespace attractor
