#pragma once
/// \file
/// The run's LLM conversation sessions keyed by thread id (docs/fidelity.md). Stages whose fidelity is
/// `full` and that share a thread key continue one conversation; a different key is a different
/// conversation. The engine owns one ThreadSessions per run; it lives in memory only (a resumed
/// run starts without sessions, see fidelity.h for the resume rule).
///
/// Thread-safe: parallel branches may use sessions concurrently. Two branches appending to the
/// same thread interleave their exchanges in completion order.

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/model/chat_message.h"
#include "attractor/model/context_keys.h"

namespace attractor {

/// One conversation: its messages (oldest first) and the provider and model it was held with.
class ThreadSession {
 public:
  explicit ThreadSession(std::string thread_id) : thread_id_(std::move(thread_id)) {}

  const std::string& thread_id() const { return thread_id_; }
  /// A copy of the messages, oldest first.
  std::vector<ChatMessage> messages() const;
  std::size_t message_count() const;
  /// Appends one exchange: the user message then the assistant reply.
  void append_exchange(std::string user, std::string assistant);
  void append(ChatMessage message);
  /// Records the provider and model that answered last ("" leaves a value unchanged).
  void set_backend(const std::string& provider, const std::string& model);
  std::string provider() const;
  std::string model() const;

 private:
  const std::string thread_id_;
  mutable std::mutex mutex_;
  std::vector<ChatMessage> messages_;
  std::string provider_;
  std::string model_;
};

using ThreadSessionPtr = std::shared_ptr<ThreadSession>;

/// Thread id -> session.
class ThreadSessions {
 public:
  /// The session of `thread_id`, or nullptr when the thread has none yet.
  ThreadSessionPtr find(const std::string& thread_id) const;
  /// The session of `thread_id`, created empty when missing. The same id always returns the same
  /// session object (until `clear`).
  ThreadSessionPtr get_or_create(const std::string& thread_id);
  /// Ids of the threads that have a session, sorted.
  std::vector<std::string> thread_ids() const;
  std::size_t size() const;
  /// Forgets every session (a loop_restart starts a fresh run).
  void clear();

 private:
  mutable std::mutex mutex_;
  std::map<std::string, ThreadSessionPtr> sessions_;
};

}  // namespace attractor
