// The stage folders a rewind moves aside and a fork copies (attractor/launch/run_point.h): later
// visits go to the archive under their own names, a node's last kept visit comes back to
// `{node}/`, and after any prefix of the moves the list for the same state is the rest of it.

#include "attractor/launch/run_point.h"

#include <gtest/gtest.h>

#include "support/memory_run_disk.h"

namespace attractor {
namespace {

void apply(MemoryRunDisk& disk, const std::vector<FolderMove>& moves, std::size_t count) {
  for (std::size_t i = 0; i < count && i < moves.size(); ++i) {
    ASSERT_FALSE(disk.make_directories(std::filesystem::path("run/" + moves[i].to).parent_path().string()));
    disk.rename("run/" + moves[i].from, "run/" + moves[i].to);
  }
}

/// A run that visited `loop` three times and `check` twice, killed in `check`'s third visit.
void fill(MemoryRunDisk& disk) {
  for (const char* dir :
       {"run/start", "run/loop", "run/loop.visits/1", "run/loop.visits/2", "run/check", "run/check.visits/1",
        "run/check.visits/2", "run/artifacts", "run/worktree/src", "run/rewound-1/loop"}) {
    ASSERT_FALSE(disk.make_directories(dir));
  }
  disk.write_file("run/loop.visits/1/status.json", "loop 1");
  disk.write_file("run/loop.visits/2/status.json", "loop 2");
  disk.write_file("run/loop/status.json", "loop 3");
  disk.write_file("run/check.visits/1/status.json", "check 1");
  disk.write_file("run/check.visits/2/status.json", "check 2");
  disk.write_file("run/check/attempt-1", "check 3, interrupted");
  disk.write_file("run/manifest.json", "{}");
}

class RunPointTest : public ::testing::Test {
 protected:
  void SetUp() override { fill(disk); }
  void apply(const std::vector<FolderMove>& moves, std::size_t count) { attractor::apply(disk, moves, count); }
  MemoryRunDisk disk;
  const std::map<std::string, std::int64_t> after_loop_2 = {{"start", 1}, {"loop", 2}, {"check", 1}};
};

TEST_F(RunPointTest, RewindMovesTheLaterVisitsAsideAndTheLastKeptOneBack) {
  const std::vector<FolderMove> moves = rewind_moves(disk, "run", after_loop_2, "rewound-2");
  std::vector<std::pair<std::string, std::string>> got;
  for (const FolderMove& m : moves) got.emplace_back(m.from, m.to);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"check.visits/2", "rewound-2/check.visits/2"},
                     {"check", "rewound-2/check"},
                     {"check.visits/1", "check"},
                     {"loop", "rewound-2/loop"},
                     {"loop.visits/2", "loop"},
                 }));
  apply(moves, moves.size());
  EXPECT_EQ(disk.read_file("run/loop/status.json"), "loop 2");
  EXPECT_EQ(disk.read_file("run/loop.visits/1/status.json"), "loop 1");
  EXPECT_EQ(disk.read_file("run/check/status.json"), "check 1");
  EXPECT_EQ(disk.read_file("run/rewound-2/loop/status.json"), "loop 3");
  EXPECT_EQ(disk.read_file("run/rewound-2/check/attempt-1"), "check 3, interrupted");
  EXPECT_TRUE(disk.is_directory("run/start"));
  EXPECT_TRUE(disk.is_directory("run/worktree/src")) << "not a stage folder";
  EXPECT_TRUE(rewind_moves(disk, "run", after_loop_2, "rewound-2").empty()) << "done";
}

TEST_F(RunPointTest, AfterAnyPrefixOfTheMovesTheListIsTheRest) {
  const std::vector<FolderMove> all = rewind_moves(disk, "run", after_loop_2, "rewound-2");
  apply(all, all.size());
  const auto expected = disk.files();
  for (std::size_t cut = 0; cut <= all.size(); ++cut) {
    MemoryRunDisk killed;
    fill(killed);
    attractor::apply(killed, all, cut);
    std::vector<FolderMove> rest = rewind_moves(killed, "run", after_loop_2, "rewound-2");
    EXPECT_EQ(rest.size(), all.size() - cut) << "cut " << cut;
    attractor::apply(killed, rest, rest.size());
    EXPECT_EQ(killed.files(), expected) << "cut " << cut;
  }
}

TEST_F(RunPointTest, RewindToBeforeANodesFirstVisitMovesAllOfIt) {
  const std::vector<FolderMove> moves = rewind_moves(disk, "run", {{"start", 1}}, "rewound-2");
  apply(moves, moves.size());
  EXPECT_FALSE(disk.exists("run/loop"));
  EXPECT_FALSE(disk.exists("run/check"));
  EXPECT_EQ(disk.read_file("run/rewound-2/loop.visits/1/status.json"), "loop 1");
  EXPECT_EQ(disk.read_file("run/rewound-2/loop/status.json"), "loop 3");
  EXPECT_TRUE(disk.is_directory("run/start"));
  EXPECT_TRUE(disk.is_directory("run/artifacts"));
}

TEST_F(RunPointTest, ForkCopiesTheKeptVisitsWithTheLastOneAsTheNodesFolder) {
  std::vector<std::pair<std::string, std::string>> got;
  for (const FolderMove& m : fork_copies(disk, "run", after_loop_2)) got.emplace_back(m.from, m.to);
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"check.visits/1", "check"},
                     {"loop.visits/1", "loop.visits/1"},
                     {"loop.visits/2", "loop"},
                     {"start", "start"},
                 }));
}

TEST(SetStateRunIdTest, SetsTheRunIdAndTheContextsCopy) {
  nlohmann::json state = {{"run_id", "old"}, {"context", {{"internal.run_id", "old"}, {"k", 1}}}};
  set_state_run_id(state, "new");
  EXPECT_EQ(state["run_id"], "new");
  EXPECT_EQ(state["context"]["internal.run_id"], "new");
  EXPECT_EQ(state["context"]["k"], 1);
}

}  // namespace
}  // namespace attractor
