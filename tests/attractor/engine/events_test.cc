#include "attractor/engine/events.h"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "attractor/base/clock.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

std::string reference_line(const Event& e) {
  return e.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

TEST(EventLine, MatchesTheSortedJsonObject) {
  std::vector<Event> events = {
      {"StageStarted", 1795312063387, {{"name", "n1"}, {"attempt", 1}, {"index", 2}, {"type", "codergen"}}},
      {"PipelineStarted", 0, nlohmann::json::object()},
      {"X", 5, {{"a", 1}, {"event", "overridden"}, {"f", {1, 2}}, {"ts", "mine"}, {"zz", nullptr}}},
      {"Y", 6, {{"e", true}, {"evenT", 1}, {"tr", 1}, {"tt", 2}, {"ü", "ä"}}},
      {"Z\"q", 7, {{"bad", std::string("\xff\xfe ok")}, {"nested", {{"b", 1}, {"a", {{"x", 1.5}}}}}}},
  };
  for (const Event& e : events) EXPECT_EQ(e.to_json_line(), reference_line(e)) << e.name;
}

TEST(EventLine, FileObserverWritesEveryLineInOrder) {
  fs::path dir = fs::temp_directory_path() / "attractor_events_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = (dir / "events.jsonl").string();
  std::vector<Event> events = {
      {"StageStarted", 1, {{"name", "a"}}}, {"StageUsage", 2, {{"name", "a"}}}, {"StageCompleted", 3, {{"name", "a"}}}};
  auto read = [&path] {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  {
    JsonlFileObserver observer(path);
    observer.on_event(events[0]);
    EXPECT_EQ(read(), reference_line(events[0]));  // flushed at once: a watcher sees the running stage
    observer.on_event(events[1]);
    observer.on_event(events[2]);
  }
  EXPECT_EQ(read(), reference_line(events[0]) + reference_line(events[1]) + reference_line(events[2]));
  fs::remove_all(dir);
}

TEST(EventLine, FileObserverWithAWriterAppendsThroughItInOrder) {
  fs::path dir = fs::temp_directory_path() / "attractor_events_writer_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string path = (dir / "events.jsonl").string();
  Event started{"StageStarted", 1, {{"name", "a"}}};
  Event completed{"StageCompleted", 2, {{"name", "a"}}};
  Event saved{"CheckpointSaved", 3, {{"node_id", "a"}}};
  std::vector<std::string> seen;
  {
    WriteBehind writer;
    JsonlFileObserver observer(path, &writer);
    observer.on_event(started);
    writer.enqueue([&] { seen.push_back(std::to_string(fs::file_size(path))); });
    observer.on_event(completed);  // held back until the next event
    writer.flush();
    EXPECT_EQ(fs::file_size(path), reference_line(started).size());
    observer.on_event(saved);
    writer.flush();
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), reference_line(started) + reference_line(completed) + reference_line(saved));
  }
  EXPECT_EQ(seen, std::vector<std::string>{std::to_string(reference_line(started).size())});
  fs::remove_all(dir);
}

TEST(EventLine, FileObserverNeverThrowsWhenTheWriterHasFailed) {
  fs::path dir = fs::temp_directory_path() / "attractor_events_failed_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  WriteBehind writer;
  writer.enqueue([] { throw std::runtime_error("disk full"); });
  EXPECT_THROW(writer.flush(), std::runtime_error);
  {
    JsonlFileObserver observer((dir / "events.jsonl").string(), &writer);
    EXPECT_NO_THROW(observer.on_event({"StageStarted", 1, {{"name", "a"}}}));
    EXPECT_NO_THROW(observer.on_event({"StageCompleted", 2, {{"name", "a"}}}));
  }
  EXPECT_EQ(fs::file_size(dir / "events.jsonl"), 0u);
  fs::remove_all(dir);
}

TEST(Iso8601, MatchesGmtime) {
  std::vector<std::int64_t> samples = {0,
                                       999,
                                       1000,
                                       86'399'999,
                                       86'400'000,
                                       951'782'400'000 /* 2000-02-29 */,
                                       1'795'312'063'387,
                                       4'102'444'799'999 /* 2099-12-31 */,
                                       253'402'300'799'999};
  for (std::int64_t ms = 0; ms < 4'102'444'800'000; ms += 7'919'999'937) samples.push_back(ms);
  for (std::int64_t ms : samples) {
    std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char expected[64];
    std::snprintf(expected, sizeof expected, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
    EXPECT_EQ(format_iso8601(ms), expected) << ms;
  }
  EXPECT_EQ(format_iso8601(1'795'312'063'387), "2026-11-22T01:47:43.387Z");
  EXPECT_EQ(format_iso8601(-1), "1969-12-31T23:59:59.999Z");
}

}  // namespace
}  // namespace attractor
