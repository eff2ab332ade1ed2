#pragma once
/// \file
/// The run context (spec §5.1): a thread-safe map from keys to JSON values plus an append-only
/// log. Parallel branches get deep clones, so a branch never sees another branch's writes.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor {

/// String form used by conditions and environment variables: strings as-is, null as "",
/// booleans as "true"/"false", numbers and structures as compact JSON (so the number 3 is "3").
std::string json_to_context_string(const nlohmann::json& value);

/// Keys written or removed since a cursor (see `Context::changes_since`).
struct ContextChanges {
  bool all = false;               ///< the journal no longer reaches back: treat every key as changed
  std::vector<std::string> keys;  ///< in write order, possibly repeated
};

/// Thread-safe key -> JSON store. Readers share a lock; writers are exclusive.
class Context {
 public:
  Context() = default;
  Context(const Context& other);
  Context& operator=(const Context& other);

  void set(const std::string& key, nlohmann::json value);
  /// The value, or nullopt when absent.
  std::optional<nlohmann::json> get(std::string_view key) const;
  /// `json_to_context_string` of the value, or `fallback` when absent.
  std::string get_string(std::string_view key, std::string_view fallback = "") const;
  bool has(std::string_view key) const;
  void remove(std::string_view key);
  /// Merges every member of a JSON object (non-objects are ignored).
  void apply_updates(const nlohmann::json& updates);
  void append_log(std::string entry);
  std::vector<std::string> logs() const;
  /// The log entries from index `first` on (empty when there are no more).
  std::vector<std::string> logs_from(std::size_t first) const;

  /// Deep copy of all values as a JSON object (keys sorted).
  nlohmann::json snapshot() const;
  /// Deep copy of the values whose keys start with none of `prefixes` (each excluded key range
  /// is skipped in O(log n), so a large `internal.` namespace costs nothing).
  nlohmann::json snapshot_excluding(std::initializer_list<std::string_view> prefixes) const;
  /// Deep copy for branch isolation.
  std::unique_ptr<Context> clone() const;
  /// Replaces all values with the members of `values` and the log with `logs`.
  void restore(const nlohmann::json& values, std::vector<std::string> logs);

  /// The keys written or removed since `cursor` (0 on the first call) and advances `cursor`, so a
  /// caller can mirror the values in time proportional to what changed. `all` is set after
  /// `restore`, copies, or when the journal was trimmed; `logs` then may have changed too.
  ContextChanges changes_since(std::uint64_t& cursor) const;

 private:
  /// Records a write of `key` (mutex held exclusively); trims the journal when it outgrows the values.
  void journal(const std::string& key);
  /// Drops the journal so that every earlier cursor reports `all` (mutex held exclusively).
  void forget_journal();

  mutable std::shared_mutex mutex_;
  std::map<std::string, nlohmann::json, std::less<>> values_;
  std::vector<std::string> logs_;
  std::vector<std::string> journal_;  ///< keys written since `journal_base_`
  std::uint64_t journal_base_ = 1;    ///< the cursor value at `journal_[0]`
};

/// Keys whose values differ between `before` and `after` (added or changed), as an object;
/// removed keys map to null.
nlohmann::json context_diff(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace attractor
