// WriteBehind: order, flush, failure, release before the end of an operation, the backlog limit,
// the inline mode and the file helpers, on the real disk and on MemoryRunDisk.

#include "attractor/run/write_behind.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/memory_run_disk.h"
#include "attractor/run/run_directory.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

/// A fresh directory under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("attractor-write-behind-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string sub(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

/// A gate an operation waits on until the test opens it.
class Gate {
 public:
  void open() { opened_.set_value(); }
  void wait() { shared_.wait(); }

 private:
  std::promise<void> opened_;
  std::shared_future<void> shared_ = opened_.get_future().share();
};

TEST(WriteBehindTest, RunsOperationsInTheOrderTheyWereQueued) {
  std::vector<int> order;
  {
    WriteBehind writer;
    for (int i = 0; i < 200; ++i) writer.enqueue([&order, i] { order.push_back(i); });
    writer.flush();
    ASSERT_EQ(order.size(), 200u);
  }
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[i], i);
}

TEST(WriteBehindTest, SequenceNumbersCountFromOneAndWaitForCoversEarlierOperations) {
  WriteBehind writer;
  std::atomic<int> ran{0};
  EXPECT_EQ(writer.enqueue([&] { ++ran; }), 1u);
  EXPECT_EQ(writer.enqueue([&] { ++ran; }), 2u);
  std::uint64_t third = writer.enqueue([&] {
    std::this_thread::sleep_for(5ms);
    ++ran;
  });
  writer.wait_for(third);
  EXPECT_EQ(ran.load(), 3);
  writer.wait_for(0);
}

TEST(WriteBehindTest, TheDestructorRunsWhatIsStillQueued) {
  std::atomic<int> ran{0};
  Gate gate;
  {
    WriteBehind writer;
    writer.enqueue([&] { gate.wait(); });
    for (int i = 0; i < 10; ++i) writer.enqueue([&] { ++ran; });
    gate.open();
  }
  EXPECT_EQ(ran.load(), 10);
}

TEST(WriteBehindTest, TheFirstFailureDropsLaterOperationsAndIsRethrownToEveryCaller) {
  WriteBehind writer;
  Gate gate;
  std::atomic<bool> later_ran{false};
  writer.enqueue([&] { gate.wait(); });
  writer.enqueue([] { throw std::runtime_error("cannot write run/a/status.json: File too large"); });
  writer.enqueue([&] { later_ran = true; });
  gate.open();
  try {
    writer.flush();
    FAIL() << "flush did not rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot write run/a/status.json: File too large");
  }
  EXPECT_FALSE(later_ran.load());
  EXPECT_THROW(writer.enqueue([&] { later_ran = true; }), std::runtime_error);
  EXPECT_THROW(writer.wait_for(1), std::runtime_error);
  EXPECT_THROW(writer.wait_released(3), std::runtime_error);
  EXPECT_FALSE(later_ran.load());
}

TEST(WriteBehindTest, WaitReleasedReturnsOnceTheOperationReleasesItsInputs) {
  WriteBehind writer;
  Gate finish;
  std::atomic<bool> finished{false};
  std::uint64_t seq = writer.enqueue([&] {
    writer.release_running();
    finish.wait();
    finished = true;
  });
  writer.wait_released(seq);
  EXPECT_FALSE(finished.load());
  finish.open();
  writer.wait_for(seq);
  EXPECT_TRUE(finished.load());
}

TEST(WriteBehindTest, AReleaseDoesNotCoverLaterOperations) {
  WriteBehind writer;
  Gate gate;
  std::uint64_t first = writer.enqueue([&] {
    writer.release_running();
    gate.wait();
  });
  std::uint64_t second = writer.enqueue([] {});
  writer.wait_released(first);
  auto waiting = std::async(std::launch::async, [&] { writer.wait_released(second); });
  EXPECT_EQ(waiting.wait_for(50ms), std::future_status::timeout);
  gate.open();
  waiting.get();
}

TEST(WriteBehindTest, EnqueueWaitsWhileTheBacklogIsOverTheLimit) {
  WriteBehind writer(true, 10);
  Gate gate;
  writer.enqueue([&] { gate.wait(); }, 0);
  writer.enqueue([] {}, 8);
  std::atomic<bool> queued{false};
  auto third = std::async(std::launch::async, [&] {
    writer.enqueue([] {}, 5);
    queued = true;
  });
  EXPECT_EQ(third.wait_for(50ms), std::future_status::timeout);
  EXPECT_FALSE(queued.load());
  gate.open();
  third.get();
  EXPECT_TRUE(queued.load());
  writer.flush();
}

TEST(WriteBehindTest, AnOperationLargerThanTheLimitIsQueuedWhenNothingElseIs) {
  WriteBehind writer(true, 4);
  std::atomic<bool> ran{false};
  writer.enqueue([&] { ran = true; }, 100);
  writer.flush();
  EXPECT_TRUE(ran.load());
}

TEST(WriteBehindTest, ConcurrentCallersKeepEachCallersOrder) {
  WriteBehind writer;
  std::mutex mutex;
  std::vector<std::pair<int, int>> seen;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        writer.enqueue([&, t, i] {
          std::lock_guard lock(mutex);
          seen.emplace_back(t, i);
        });
      }
    });
  }
  for (std::thread& th : threads) th.join();
  writer.flush();
  ASSERT_EQ(seen.size(), 400u);
  int next[4] = {0, 0, 0, 0};
  for (auto [t, i] : seen) EXPECT_EQ(i, next[t]++);
}

TEST(WriteBehindTest, InlineModeRunsEachOperationBeforeEnqueueReturns) {
  WriteBehind writer(false);
  int ran = 0;
  std::uint64_t seq = writer.enqueue([&] { ++ran; });
  EXPECT_EQ(ran, 1);
  writer.wait_for(seq);
  writer.wait_released(seq);
  EXPECT_THROW(writer.enqueue([] { throw std::runtime_error("disk full"); }), std::runtime_error);
  EXPECT_THROW(writer.flush(), std::runtime_error);
  EXPECT_THROW(writer.enqueue([&] { ++ran; }), std::runtime_error);
  EXPECT_EQ(ran, 1);
}

TEST(WriteBehindTest, FlushCountsCalls) {
  WriteBehind writer;
  EXPECT_EQ(writer.flush_count(), 0u);
  writer.flush();
  writer.flush();
  EXPECT_EQ(writer.flush_count(), 2u);
}

TEST(WriteBehindTest, FileHelpersCreateWriteAndRemoveInOrder) {
  ScratchDir dir;
  const std::string stage = dir.sub("run/stage");
  const std::string file = stage + "/status.json";
  WriteBehind writer;
  writer.make_directories(stage);
  writer.write_file(file, "{}\n");
  writer.flush();
  EXPECT_EQ(read_text_file(file), "{}\n");
  writer.remove_file(file);
  writer.remove_file(file);  // already gone: not an error
  writer.write_file(stage + "/prompt.md", "hello");
  writer.flush();
  EXPECT_FALSE(fs::exists(file));
  EXPECT_EQ(read_text_file(stage + "/prompt.md"), "hello");
}

TEST(WriteBehindTest, AFailedHelperNamesTheFile) {
  ScratchDir dir;
  WriteBehind writer;
  writer.write_file(dir.sub("missing/dir/prompt.md"), "x");
  try {
    writer.flush();
    FAIL() << "flush did not rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot write " + dir.sub("missing/dir/prompt.md") + ": No such file or directory");
  }
}

TEST(WriteBehindTest, FileHelpersWriteThroughTheWritersDisk) {
  MemoryRunDisk disk;
  const std::string stage = "/runs/run/stage";
  const std::string file = stage + "/status.json";
  WriteBehind writer(disk);
  EXPECT_EQ(&writer.disk(), &disk);
  writer.make_directories(stage);
  writer.write_file(file, "{}\n");
  writer.flush();
  EXPECT_EQ(disk.read_file(file), "{}\n");
  EXPECT_TRUE(disk.is_directory("/runs/run"));
  writer.remove_file(file);
  writer.remove_file(file);
  writer.write_file(stage + "/prompt.md", "hello");
  writer.flush();
  EXPECT_FALSE(disk.exists(file));
  EXPECT_EQ(disk.files(), (std::map<std::string, std::string>{{stage + "/prompt.md", "hello"}}));
  EXPECT_FALSE(fs::exists("/runs/run"));
}

TEST(WriteBehindTest, AFailedHelperOnTheMemoryDiskNamesTheFileLikeTheRealDisk) {
  MemoryRunDisk disk;
  for (bool background : {true, false}) {
    WriteBehind writer(disk, background);
    try {
      writer.write_file("/missing/dir/prompt.md", "x");
      writer.flush();
      FAIL() << "flush did not rethrow";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "cannot write /missing/dir/prompt.md: No such file or directory");
    }
    EXPECT_THROW(writer.make_directories("/missing"), std::runtime_error);
  }
  EXPECT_TRUE(disk.files().empty());
}

}  // namespace
}  // namespace attractor
