// Server-Sent Events of `attractor serve`: ids are events.jsonl line numbers, a reconnection with
// Last-Event-ID loses and repeats nothing, keep-alives flow while a run waits, and a client that
// falls behind is told to reconnect while the engine goes on.

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include <sys/socket.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/server_test_support.h"

namespace attractor::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// One message of an event stream.
struct Message {
  std::uint64_t id = 0;
  std::string event;  ///< "" for a default message
  std::string data;
};

/// Parses a stream's text as it arrives.
class StreamReader {
 public:
  /// Feeds bytes; calls `on_message` per complete message. Comments are counted.
  template <typename F>
  void feed(const char* data, std::size_t size, F on_message) {
    buffer_.append(data, size);
    std::size_t end;
    while ((end = buffer_.find("\n\n")) != std::string::npos) {
      std::string block = buffer_.substr(0, end);
      buffer_.erase(0, end + 2);
      Message m;
      bool any = false;
      std::size_t at = 0;
      while (at <= block.size()) {
        std::size_t nl = block.find('\n', at);
        std::string line = block.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        if (line.rfind(":", 0) == 0) ++comments;
        if (line.rfind("id: ", 0) == 0) m.id = std::stoull(line.substr(4)), any = true;
        if (line.rfind("event: ", 0) == 0) m.event = line.substr(7), any = true;
        if (line.rfind("data: ", 0) == 0) m.data = line.substr(6), any = true;
        if (nl == std::string::npos) break;
        at = nl + 1;
      }
      if (any) on_message(m);
    }
  }
  int comments = 0;

 private:
  std::string buffer_;
};

/// Reads the whole stream of `id` (until the server ends it).
std::vector<Message> read_stream(const TestServer& server, const std::string& id, const std::string& last_id = "",
                                 int* comments = nullptr) {
  std::vector<Message> messages;
  StreamReader reader;
  httplib::Headers headers;
  if (!last_id.empty()) headers.emplace("Last-Event-ID", last_id);
  server.client()->Get(("/pipelines/" + id + "/events").c_str(), headers, [&](const char* data, std::size_t size) {
    reader.feed(data, size, [&](const Message& m) { messages.push_back(m); });
    return true;
  });
  if (comments) *comments = reader.comments;
  return messages;
}

std::vector<std::string> file_lines(const TestServer& server, const std::string& id) {
  std::ifstream in(fs::path(server.logs_root()) / id / "events.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The default messages must be exactly the file's lines from `first` on, in order.
void expect_file_lines(const std::vector<Message>& messages, const std::vector<std::string>& lines,
                       std::uint64_t first = 1) {
  std::vector<Message> events;
  for (const Message& m : messages) {
    if (m.event.empty()) events.push_back(m);
  }
  ASSERT_EQ(events.size(), lines.size() - (first - 1));
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].id, first + i);
    EXPECT_EQ(events[i].data, lines[first - 1 + i]) << "event " << first + i;
  }
}

TEST(ServerEventsTest, AFinishedRunStreamsItsFileThenEnds) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}, {"auto_approve", true}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  std::vector<Message> all = read_stream(server, id);
  const std::vector<std::string> lines = file_lines(server, id);
  ASSERT_GT(lines.size(), 5u);
  expect_file_lines(all, lines);
  EXPECT_EQ(all.back().event, "end");

  const std::uint64_t last = lines.size() - 3;
  std::vector<Message> tail = read_stream(server, id, std::to_string(last));
  expect_file_lines(tail, lines, last + 1);
}

TEST(ServerEventsTest, ALiveStreamDeliversEveryEventOnceWithKeepAlives) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}});
  std::vector<Message> live;
  int comments = 0;
  std::thread reader([&] { live = read_stream(server, id, "", &comments); });
  json q = server.wait_question(id);
  ASSERT_TRUE(q.is_object());
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // a few keep-alive periods
  server.post("/pipelines/" + id + "/questions/q1/answer", {{"answer", "A"}});
  reader.join();
  EXPECT_GE(comments, 1) << "keep-alive comments while the gate waits";
  ASSERT_FALSE(live.empty());
  EXPECT_EQ(live.back().event, "end");
  expect_file_lines(live, file_lines(server, id));
}

TEST(ServerEventsTest, AReconnectionWithLastEventIdMissesAndRepeatsNothing) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  // First connection: read until the gate's InterviewStarted, then drop the connection.
  std::vector<Message> first;
  StreamReader reader;
  server.client()->Get(("/pipelines/" + id + "/events").c_str(), [&](const char* data, std::size_t size) {
    bool more = true;
    reader.feed(data, size, [&](const Message& m) {
      first.push_back(m);
      if (m.data.find("InterviewStarted") != std::string::npos) more = false;
    });
    return more;
  });
  ASSERT_FALSE(first.empty());
  server.post("/pipelines/" + id + "/questions/q1/answer", {{"answer", "A"}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  std::vector<Message> second = read_stream(server, id, std::to_string(first.back().id));
  std::vector<Message> joined = first;
  joined.insert(joined.end(), second.begin(), second.end());
  expect_file_lines(joined, file_lines(server, id));
}

TEST(ServerEventsTest, AClientThatFallsBehindIsToldToReconnectAndTheRunGoesOn) {
  ServerConfig config;
  config.event_memory = 8;
  HttpOptions http;
  http.send_buffer_bytes = 4096;
  TestServer server(1, "", config, http);
  std::string dot =
      "digraph Long { start [shape=Mdiamond] exit [shape=Msquare]\n"
      "approve [shape=hexagon, label=\"Go?\"]\n start -> approve\n approve -> n0 [label=\"[G] Go\"]\n";
  for (int i = 0; i < 120; ++i) {
    dot += fmt::format("n{} [shape=box, llm_provider=simulate, prompt=\"step {} {}\"]\n", i, i, std::string(200, 'x'));
    dot += i + 1 < 120 ? fmt::format("n{} -> n{}\n", i, i + 1) : fmt::format("n{} -> exit\n}}\n", i);
  }
  const std::string id = server.start({{"dot", dot}});
  ASSERT_TRUE(server.wait_question(id).is_object());
  std::vector<Message> first;
  StreamReader reader;
  bool slept = false;
  auto client = server.client();
  client->set_socket_options([](int sock) {  // a small window: the server's writes block while we do not read
    int size = 4096;
    ::setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  });
  client->Get(("/pipelines/" + id + "/events").c_str(), [&](const char* data, std::size_t size) {
    reader.feed(data, size, [&](const Message& m) { first.push_back(m); });
    if (!slept && !first.empty() && first.back().data.find("InterviewStarted") != std::string::npos) {
      slept = true;  // stop reading until the run is over
      server.post("/pipelines/" + id + "/questions/q1/answer", {{"answer", "G"}});
      EXPECT_TRUE(server.wait_status(id, "completed", 30)) << "the engine is not held up by a slow client";
    }
    return true;
  });
  ASSERT_TRUE(slept);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.back().event, "reconnect") << first.size() << " messages, last id " << first[first.size() - 2].id;
  first.pop_back();
  std::vector<Message> second = read_stream(server, id, std::to_string(first.back().id));
  first.insert(first.end(), second.begin(), second.end());
  expect_file_lines(first, file_lines(server, id));
}

TEST(ServerEventsTest, ARunOfAnotherProcessIsFollowedFromItsFile) {
  TestServer server;
  const std::string id = server.start({{"graph", "gate.dot"}, {"auto_approve", true}});
  ASSERT_TRUE(server.wait_status(id, "completed"));
  TestServer other;  // a second server over the same logs root knows the run only from disk
  RunRegistry reader({server.logs_root(), server.graphs_dir(), 1});
  EXPECT_FALSE(reader.served(id));
  std::vector<Message> all = read_stream(server, id);
  EXPECT_EQ(all.back().event, "end");
}

TEST(ServerEventsTest, AStopThatComesBeforeServingStillStopsIt) {
  TempDir dir;
  RunRegistry runs({dir.sub("runs"), dir.sub("graphs"), 1});
  HttpOptions options;
  options.port = 0;
  for (int order = 0; order < 2; ++order) {
    HttpServer server(runs, options);
    std::string error;
    ASSERT_GT(server.bind(&error), 0) << error;
    std::future<void> serving;
    if (order == 0) {
      server.stop();
      serving = std::async(std::launch::async, [&] { server.serve(); });
    } else {
      serving = std::async(std::launch::async, [&] { server.serve(); });
      server.stop();  // most often before httplib's listen loop has begun
    }
    EXPECT_EQ(serving.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "order " << order;
  }
  runs.shutdown();
}

TEST(EventLogTest, NumbersEventsAndReportsWhatFellOutOfMemory) {
  EventLog log(11, 3);
  for (int i = 0; i < 5; ++i) log.on_event(Event{"StageStarted", 0, {{"n", i}}});
  EXPECT_EQ(log.last_id(), 15u);
  EXPECT_EQ(log.oldest_id(), 13u);
  EXPECT_EQ(log.read_after(11, 10, std::chrono::milliseconds(0)).state, EventBatch::State::kBehind);
  EventBatch batch = log.read_after(12, 10, std::chrono::milliseconds(0));
  ASSERT_EQ(batch.state, EventBatch::State::kEvents);
  ASSERT_EQ(batch.events.size(), 3u);
  EXPECT_EQ(batch.events[0].id, 13u);
  EXPECT_EQ(batch.events[0].json, R"({"event":"StageStarted","n":2,"ts":"1970-01-01T00:00:00.000Z"})");
  EXPECT_EQ(log.read_after(15, 10, std::chrono::milliseconds(0)).state, EventBatch::State::kTimeout);
  log.close();
  EXPECT_EQ(log.read_after(15, 10, std::chrono::milliseconds(0)).state, EventBatch::State::kEnded);
}

TEST(EventLogTest, ReadsCompleteFileLinesOnly) {
  TempDir dir;
  const std::string path = dir.sub("events.jsonl");
  std::ofstream(path) << "{\"a\":1}\n{\"b\":2}\n{\"c\":";
  EXPECT_EQ(count_event_lines(path), 2u);
  std::vector<StreamEvent> lines = read_event_lines(path, 1, 0, 10);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].id, 2u);
  EXPECT_EQ(lines[0].json, "{\"b\":2}");
  EXPECT_TRUE(read_event_lines(path, 0, 2, 10).size() == 1u);
  EXPECT_TRUE(read_event_lines(dir.sub("missing"), 0, 0, 10).empty());
}

}  // namespace
}  // namespace attractor::testing
