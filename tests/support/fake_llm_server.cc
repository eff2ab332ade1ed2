#include "support/fake_llm_server.h"

#include <algorithm>
#include <cctype>
#include <chrono>

namespace attractor::testing {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

FakeLlmServer::FakeLlmServer() {
  server_.Post("/v1/chat/completions",
               [this](const httplib::Request& req, httplib::Response& res) { handle(req, res, false); });
  server_.Post("/v1/messages", [this](const httplib::Request& req, httplib::Response& res) { handle(req, res, true); });
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  for (int i = 0; i < 2000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeLlmServer::~FakeLlmServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  server_.stop();
  thread_.join();
}

std::string FakeLlmServer::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void FakeLlmServer::push(ScriptedReply reply) {
  std::lock_guard lock(mutex_);
  script_.push_back(std::move(reply));
}

void FakeLlmServer::push_error(int status, const std::string& message, std::map<std::string, std::string> headers) {
  ScriptedReply r;
  r.status = status;
  r.body = nlohmann::json{{"type", "error"}, {"error", {{"type", "test_error"}, {"message", message}}}}.dump();
  r.headers = std::move(headers);
  push(std::move(r));
}

void FakeLlmServer::push_hang() {
  ScriptedReply r;
  r.hang = true;
  push(std::move(r));
}

std::vector<RecordedRequest> FakeLlmServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void FakeLlmServer::handle(const httplib::Request& req, httplib::Response& res, bool anthropic) {
  std::unique_lock lock(mutex_);
  RecordedRequest recorded;
  recorded.path = req.path;
  for (const auto& [k, v] : req.headers) recorded.headers[lower(k)] = v;
  recorded.body = nlohmann::json::parse(req.body, nullptr, false);
  requests_.push_back(recorded);
  std::size_t n = requests_.size();
  ScriptedReply reply;
  if (!script_.empty()) {
    reply = script_.front();
    script_.pop_front();
  }
  if (reply.hang) {
    stop_cv_.wait(lock, [this] { return stopping_; });
    res.status = 503;
    return;
  }
  lock.unlock();
  for (const auto& [k, v] : reply.headers) res.set_header(k, v);
  res.status = reply.status;
  if (!reply.body.empty()) {
    res.set_content(reply.body, "application/json");
    return;
  }
  std::string text = reply.text.empty() ? "reply " + std::to_string(n) : reply.text;
  std::string model = recorded.body.is_object() ? recorded.body.value("model", std::string()) : "";
  nlohmann::json body;
  if (anthropic) {
    body = {{"id", "msg_" + std::to_string(n)},
            {"type", "message"},
            {"role", "assistant"},
            {"model", model},
            {"content", {{{"type", "text"}, {"text", text}}}},
            {"stop_reason", "end_turn"},
            {"usage", {{"input_tokens", 11}, {"output_tokens", 7}}}};
  } else {
    body = {{"id", "chatcmpl-" + std::to_string(n)},
            {"object", "chat.completion"},
            {"model", model},
            {"choices",
             {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
            {"usage", {{"prompt_tokens", 11}, {"completion_tokens", 7}, {"total_tokens", 18}}}};
  }
  res.set_content(body.dump(), "application/json");
}

}  // namespace attractor::testing
