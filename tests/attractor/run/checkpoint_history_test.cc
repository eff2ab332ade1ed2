// The checkpoint history (attractor/run/checkpoint_history.h): every save of a writer with the
// history on can be replayed from it exactly, a resume's full record supersedes what a killed
// process appended after the checkpoint, a lost record cuts the chain, and a parallel stage's save
// records only its fan-out node first.

#include "attractor/run/checkpoint_history.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/model/context.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/write_behind.h"
#include "support/memory_run_disk.h"

namespace attractor {
namespace {

using nlohmann::json;

std::string delta(const std::vector<std::string>& nodes, const std::string& next) {
  json d = {{"append", {{"completed_nodes", nodes}}}, {"set", {{"next_node", next}}}};
  return d.dump();
}

std::string full(const std::vector<std::string>& nodes) {
  Checkpoint c;
  c.run_id = "r";
  c.completed_nodes = nodes;
  return c.to_text();
}

/// A run directory in memory and a writer saving into it.
class HistoryWriterTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(disk.make_directories("run")); }
  MemoryRunDisk disk;
  WriteBehind writer{disk, false};
  Context context;
  CheckpointWriter w;
};

TEST_F(HistoryWriterTest, EverySaveOfAWriterIsReplayedExactly) {
  w.set_history(true);
  w.set_rewrite_below(0);  // journal records after the first snapshot: both save paths are taken
  Checkpoint c;
  c.run_id = "r";
  std::vector<json> saved;
  for (int i = 0; i < 12; ++i) {
    const std::string node = "n" + std::to_string(i % 4);
    c.completed_nodes.push_back(node);
    c.completed_statuses.push_back(i % 3 ? "success" : "fail");
    c.completed_commits.push_back(i % 2 ? "" : std::string(40, static_cast<char>('a' + i % 6)));
    c.visit_counts[node]++;
    c.current_node = node;
    c.next_node = "n" + std::to_string((i + 1) % 4);
    context.set("key" + std::to_string(i % 5), i);
    if (i == 7) context.remove("key1");
    ++c.journal_seq;
    if (i == 11) {
      w.save_last(c, context, "run", writer);
    } else {
      w.save_journaled(c, context, "run", writer);
    }
    writer.flush();
    saved.push_back(read_checkpoint_document("run", disk));
  }
  CheckpointHistory history = CheckpointHistory::read("run", disk);
  ASSERT_EQ(history.entries().size(), saved.size());
  EXPECT_TRUE(history.entries()[0].full);
  for (std::size_t i = 0; i < saved.size(); ++i) {
    EXPECT_EQ(history.entries()[i].completed, i + 1);
    EXPECT_EQ(history.state_at(i), saved[i]) << "save " << i;
  }
  EXPECT_EQ(history.save_recording(4), std::optional<std::size_t>(4));
}

TEST_F(HistoryWriterTest, ALoopRestartsNewRunDirectoryGetsAHistoryOfItsOwn) {
  ASSERT_FALSE(disk.make_directories("run-restart1"));
  w.set_history(true);
  Checkpoint c;
  c.run_id = "r";
  for (int i = 1; i <= 2; ++i) {
    c.completed_nodes.push_back("n" + std::to_string(i));
    c.journal_seq = i;
    w.save_journaled(c, context, "run", writer);
  }
  c.run_id = "r-r1";
  c.completed_nodes = {"start"};
  c.journal_seq = 1;
  w.save_journaled(c, context, "run-restart1", writer);
  writer.flush();
  EXPECT_EQ(CheckpointHistory::read("run", disk).entries().size(), 2u) << "the first directory's lineage is intact";
  CheckpointHistory restarted = CheckpointHistory::read("run-restart1", disk);
  ASSERT_EQ(restarted.entries().size(), 1u);
  EXPECT_EQ(restarted.state_at(0)["run_id"], "r-r1");
}

TEST_F(HistoryWriterTest, AWriterWithoutHistoryWritesNone) {
  Checkpoint c;
  c.journal_seq = 1;
  w.save_journaled(c, context, "run", writer);
  writer.flush();
  EXPECT_TRUE(disk.exists("run/checkpoint.json"));
  EXPECT_FALSE(disk.exists("run/checkpoint.history"));
}

TEST(CheckpointHistoryTest, AResumesFullRecordSupersedesWhatTheKilledProcessAppended) {
  const std::string text = full_history_record(1, full({"a"})) + encode_journal_record(2, delta({"b"}, "c")) +
                           encode_journal_record(3, delta({"c"}, "d")) +  // after the checkpoint: lost
                           full_history_record(3, full({"a", "b", "x"})) + encode_journal_record(4, delta({"y"}, "z"));
  CheckpointHistory history = CheckpointHistory::parse(text);
  ASSERT_EQ(history.entries().size(), 4u);
  EXPECT_EQ(history.entries()[2].seq, 3u);
  EXPECT_TRUE(history.entries()[2].full);
  EXPECT_EQ(history.state_at(3)["completed_nodes"], json({"a", "b", "x", "y"}));
  EXPECT_EQ(history.state_at(3)["journal_seq"], 4);
  EXPECT_EQ(history.recorded_entries(4), std::vector<bool>({true, true, true, true}));
  EXPECT_EQ(history.text_through(1), full_history_record(1, full({"a"})) + encode_journal_record(2, delta({"b"}, "c")));
}

TEST(CheckpointHistoryTest, ALostOrTornRecordMakesTheStatesAfterItUnreachableUntilAFullOne) {
  std::string torn = encode_journal_record(3, delta({"c"}, "d"));
  torn[torn.size() / 2] ^= 1;
  const std::string text = full_history_record(1, full({"a"})) + encode_journal_record(2, delta({"b"}, "c")) + torn +
                           encode_journal_record(4, delta({"d"}, "e")) +
                           full_history_record(5, full({"a", "b", "c", "d", "e"})) +
                           encode_journal_record(6, delta({"f"}, "g"));
  CheckpointHistory history = CheckpointHistory::parse(text);
  ASSERT_EQ(history.entries().size(), 5u);
  EXPECT_FALSE(history.entries()[2].reachable);
  EXPECT_TRUE(history.entries()[3].reachable);
  EXPECT_EQ(history.save_recording(3), std::nullopt) << "d's save cannot be rebuilt";
  EXPECT_EQ(history.save_recording(4), std::nullopt) << "whether e was saved alone is not known";
  EXPECT_EQ(history.save_recording(5), std::optional<std::size_t>(4));
  EXPECT_EQ(history.state_at(4)["completed_nodes"], json({"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(history.recorded_entries(6), std::vector<bool>({true, true, false, false, false, true}));
  EXPECT_THROW(history.state_at(2), std::logic_error);

  const std::string gap = full_history_record(1, full({"a"})) + encode_journal_record(3, delta({"c"}, "d"));
  EXPECT_FALSE(CheckpointHistory::parse(gap).entries()[1].reachable);
}

TEST(CheckpointHistoryTest, AParallelStagesSaveRecordsOnlyItsFanOutNodeFirst) {
  const std::string text = full_history_record(1, full({"start"})) +
                           encode_journal_record(2, delta({"fan", "left", "right"}, "join")) +
                           encode_journal_record(3, delta({"join"}, "exit"));
  CheckpointHistory history = CheckpointHistory::parse(text);
  EXPECT_EQ(history.recorded_entries(5), std::vector<bool>({true, true, false, false, true}));
  EXPECT_EQ(history.save_recording(1), std::optional<std::size_t>(1));
  EXPECT_EQ(history.save_recording(2), std::nullopt);
  EXPECT_EQ(history.state_at(1)["next_node"], "join");
}

TEST(CheckpointHistoryTest, AMissingHistoryIsEmpty) {
  MemoryRunDisk disk;
  EXPECT_TRUE(CheckpointHistory::read("nowhere", disk).entries().empty());
  EXPECT_EQ(CheckpointHistory::read("nowhere", disk).recorded_entries(2), std::vector<bool>({false, false}));
}

}  // namespace
}  // namespace attractor
