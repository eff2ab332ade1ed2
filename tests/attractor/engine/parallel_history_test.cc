// Preambles after and inside parallel blocks do not depend on the order in which branches finish:
// a branch sees only the stages before the block and its own, and the stages after the block see
// the branch stages in edge order.

#include <chrono>
#include <condition_variable>
#include <mutex>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

using testing::edge;
using testing::node;
using testing::TestRun;

/// Holds branch `a` back until branch `b`'s second stage `b2` has answered, so the branches finish
/// in the reverse of their edge order.
class ReverseOrderBackend : public CodergenBackend {
 public:
  std::string name() const override { return "reverse-order"; }
  CodergenResult run(const CodergenRequest& request) override {
    if (request.node->id == "a") {
      std::unique_lock lock(mutex_);
      cv_.wait_for(lock, std::chrono::seconds(5), [&] { return b2_done_; });
    }
    CodergenResult result;
    result.response = "answer of " + request.node->id;
    if (request.node->id == "b2") {
      {
        std::lock_guard lock(mutex_);
        b2_done_ = true;
      }
      cv_.notify_all();
    }
    return result;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool b2_done_ = false;
};

std::string completed_line(const std::string& prompt_path) {
  std::string text = read_text_file(prompt_path);
  auto start = text.find("- Completed stages:");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

TEST(ParallelHistory, BranchPreamblesAreIsolatedAndLaterStagesSeeEdgeOrder) {
  Graph g;
  node(g, "start", {{"shape", "Mdiamond"}});
  node(g, "par", {{"shape", "component"}});
  node(g, "a", {{"prompt", "A"}});
  node(g, "b", {{"prompt", "B"}});
  node(g, "b2", {{"prompt", "B2"}});
  node(g, "join", {{"shape", "tripleoctagon"}});
  node(g, "after", {{"prompt", "After"}});
  node(g, "exit", {{"shape", "Msquare"}});
  edge(g, "start", "par");
  edge(g, "par", "a");
  edge(g, "par", "b");
  edge(g, "a", "join");
  edge(g, "b", "b2");
  edge(g, "b2", "join");
  edge(g, "join", "after");
  edge(g, "after", "exit");

  TestRun t;
  t.services.backend = std::make_shared<ReverseOrderBackend>();
  RunResult r = t.run(g);
  ASSERT_EQ(r.outcome.status, StageStatus::kSuccess) << r.outcome.failure_reason;

  EXPECT_EQ(completed_line(t.run_dir() + "/a/prompt.md"), "- Completed stages: start (success)");
  EXPECT_EQ(completed_line(t.run_dir() + "/b2/prompt.md"), "- Completed stages: start (success), b (success)");
  EXPECT_EQ(completed_line(t.run_dir() + "/after/prompt.md"),
            "- Completed stages: start (success), par (success), a (success), b (success), b2 (success), "
            "join (success)");
}

}  // namespace
}  // namespace attractor
