#pragma once
// An in-process LLM provider for tests: an httplib server on 127.0.0.1 (any free port, its own
// thread) that speaks OpenAI Chat Completions (`/v1/chat/completions`) and Anthropic Messages
// (`/v1/messages`), records every request, and answers from a script of queued replies (an HTTP
// error, a hang until the client gives up, or a success); when the script is empty it answers
// success with "reply <n>" and fixed usage (input 11, output 7).

#include <httplib.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace attractor::testing {

struct RecordedRequest {
  std::string path;
  std::map<std::string, std::string> headers;  ///< lower-cased names
  nlohmann::json body;
};

struct ScriptedReply {
  int status = 200;
  std::string body;  ///< "" = the protocol's success body with `text`
  std::string text;  ///< success text ("" = "reply <n>")
  std::map<std::string, std::string> headers;
  bool hang = false;  ///< never answer (until the server stops)
};

class FakeLlmServer {
 public:
  FakeLlmServer();
  ~FakeLlmServer();
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  /// "http://127.0.0.1:<port>"
  std::string url() const;
  void push(ScriptedReply reply);
  /// Queues an error reply with the provider-shaped body {"error": {"message": ...}}.
  void push_error(int status, const std::string& message, std::map<std::string, std::string> headers = {});
  void push_hang();
  std::vector<RecordedRequest> requests() const;

 private:
  void handle(const httplib::Request& req, httplib::Response& res, bool anthropic);

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::deque<ScriptedReply> script_;
  std::vector<RecordedRequest> requests_;
};

}  // namespace attractor::testing
