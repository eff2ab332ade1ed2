#include "attractor/engine/thread_sessions.h"

namespace attractor {

std::vector<ChatMessage> ThreadSession::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

std::size_t ThreadSession::message_count() const {
  std::lock_guard lock(mutex_);
  return messages_.size();
}

void ThreadSession::append_exchange(std::string user, std::string assistant) {
  std::lock_guard lock(mutex_);
  messages_.push_back({"user", std::move(user), nullptr});
  messages_.push_back({"assistant", std::move(assistant), nullptr});
}

void ThreadSession::append(ChatMessage message) {
  std::lock_guard lock(mutex_);
  messages_.push_back(std::move(message));
}

void ThreadSession::set_backend(const std::string& provider, const std::string& model) {
  std::lock_guard lock(mutex_);
  if (!provider.empty()) provider_ = provider;
  if (!model.empty()) model_ = model;
}

std::string ThreadSession::provider() const {
  std::lock_guard lock(mutex_);
  return provider_;
}

std::string ThreadSession::model() const {
  std::lock_guard lock(mutex_);
  return model_;
}

ThreadSessionPtr ThreadSessions::find(const std::string& thread_id) const {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(thread_id);
  return it == sessions_.end() ? nullptr : it->second;
}

ThreadSessionPtr ThreadSessions::get_or_create(const std::string& thread_id) {
  std::lock_guard lock(mutex_);
  ThreadSessionPtr& slot = sessions_[thread_id];
  if (!slot) slot = std::make_shared<ThreadSession>(thread_id);
  return slot;
}

std::vector<std::string> ThreadSessions::thread_ids() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  ids.reserve(sessions_.size());
  for (const auto& [id, session] : sessions_) ids.push_back(id);
  return ids;
}

std::size_t ThreadSessions::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void ThreadSessions::clear() {
  std::lock_guard lock(mutex_);
  sessions_.clear();
}

}  // namespace attractor
