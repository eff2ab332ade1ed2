#include "attractor/model/context.h"

#include <mutex>

namespace attractor {

std::string json_to_context_string(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();
}

Context::Context(const Context& other) {
  std::shared_lock lock(other.mutex_);
  values_ = other.values_;
  logs_ = other.logs_;
  journal_base_ = other.journal_base_ + other.journal_.size() + 1;
}

Context& Context::operator=(const Context& other) {
  if (this == &other) return *this;
  std::map<std::string, nlohmann::json, std::less<>> values;
  std::vector<std::string> logs;
  {
    std::shared_lock lock(other.mutex_);
    values = other.values_;
    logs = other.logs_;
  }
  std::unique_lock lock(mutex_);
  values_ = std::move(values);
  logs_ = std::move(logs);
  forget_journal();
  return *this;
}

void Context::set(const std::string& key, nlohmann::json value) {
  std::unique_lock lock(mutex_);
  values_.insert_or_assign(key, std::move(value));
  journal(key);
}

std::optional<nlohmann::json> Context::get(std::string_view key) const {
  std::shared_lock lock(mutex_);
  auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Context::get_string(std::string_view key, std::string_view fallback) const {
  std::shared_lock lock(mutex_);
  auto it = values_.find(key);
  if (it == values_.end()) return std::string(fallback);
  return json_to_context_string(it->second);
}

bool Context::has(std::string_view key) const {
  std::shared_lock lock(mutex_);
  return values_.find(key) != values_.end();
}

void Context::remove(std::string_view key) {
  std::unique_lock lock(mutex_);
  auto it = values_.find(key);
  if (it != values_.end()) values_.erase(it);
  journal(std::string(key));
}

void Context::apply_updates(const nlohmann::json& updates) {
  if (!updates.is_object()) return;
  std::unique_lock lock(mutex_);
  for (auto it = updates.begin(); it != updates.end(); ++it) {
    values_.insert_or_assign(it.key(), it.value());
    journal(it.key());
  }
}

void Context::append_log(std::string entry) {
  std::unique_lock lock(mutex_);
  logs_.push_back(std::move(entry));
}

std::vector<std::string> Context::logs() const {
  std::shared_lock lock(mutex_);
  return logs_;
}

std::vector<std::string> Context::logs_from(std::size_t first) const {
  std::shared_lock lock(mutex_);
  if (first >= logs_.size()) return {};
  return {logs_.begin() + static_cast<std::ptrdiff_t>(first), logs_.end()};
}

nlohmann::json Context::snapshot() const {
  std::shared_lock lock(mutex_);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : values_) out[k] = v;
  return out;
}

nlohmann::json Context::snapshot_excluding(std::initializer_list<std::string_view> prefixes) const {
  std::shared_lock lock(mutex_);
  nlohmann::json out = nlohmann::json::object();
  auto it = values_.begin();
  while (it != values_.end()) {
    const std::string& key = it->first;
    bool skipped = false;
    for (std::string_view prefix : prefixes) {
      if (prefix.empty() || !key.starts_with(prefix)) continue;
      std::string end(prefix);
      while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xFF) end.pop_back();
      if (end.empty()) return out;
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      it = values_.lower_bound(end);
      skipped = true;
      break;
    }
    if (skipped) continue;
    out[key] = it->second;
    ++it;
  }
  return out;
}

std::unique_ptr<Context> Context::clone() const { return std::make_unique<Context>(*this); }

void Context::restore(const nlohmann::json& values, std::vector<std::string> logs) {
  std::unique_lock lock(mutex_);
  values_.clear();
  if (values.is_object()) {
    for (auto it = values.begin(); it != values.end(); ++it) values_.emplace(it.key(), it.value());
  }
  logs_ = std::move(logs);
  forget_journal();
}

void Context::journal(const std::string& key) {
  if (journal_.size() > 2 * values_.size() + 1024) {
    const std::size_t drop = journal_.size() / 2;
    journal_.erase(journal_.begin(), journal_.begin() + static_cast<std::ptrdiff_t>(drop));
    journal_base_ += drop;
  }
  journal_.push_back(key);
}

void Context::forget_journal() {
  journal_base_ += journal_.size() + 1;
  journal_.clear();
}

ContextChanges Context::changes_since(std::uint64_t& cursor) const {
  std::shared_lock lock(mutex_);
  ContextChanges changes;
  std::uint64_t end = journal_base_ + journal_.size();
  if (cursor < journal_base_) {
    changes.all = true;
  } else {
    changes.keys.assign(journal_.begin() + static_cast<std::ptrdiff_t>(cursor - journal_base_), journal_.end());
  }
  cursor = end;
  return changes;
}

nlohmann::json context_diff(const nlohmann::json& before, const nlohmann::json& after) {
  nlohmann::json diff = nlohmann::json::object();
  if (after.is_object()) {
    for (auto it = after.begin(); it != after.end(); ++it) {
      auto b = before.is_object() ? before.find(it.key()) : before.end();
      if (!before.is_object() || b == before.end() || *b != it.value()) diff[it.key()] = it.value();
    }
  }
  if (before.is_object()) {
    for (auto it = before.begin(); it != before.end(); ++it) {
      if (!after.is_object() || !after.contains(it.key())) diff[it.key()] = nullptr;
    }
  }
  return diff;
}

}  // namespace attractor
