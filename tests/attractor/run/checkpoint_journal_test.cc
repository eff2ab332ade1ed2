// The checkpoint journal's format and replay: whole records are replayed in order, a crash at any
// byte of the last record loses only that record, and damage or a broken sequence ends the replay.

#include "attractor/run/checkpoint_journal.h"

#include <gtest/gtest.h>

#include "attractor/run/checkpoint.h"
#include "support/memory_run_disk.h"

namespace attractor {
namespace {

using nlohmann::json;

const json kDeltas[] = {
    json{{"set", {{"current_node", "a"}, {"next_node", "b"}}},
         {"append", {{"completed_nodes", {"a"}}, {"completed_statuses", {"success"}}}},
         {"merge", {{"context", {{"x", 1}}}, {"visit_counts", {{"a", 1}}}}}},
    json{{"set", {{"current_node", "b"}, {"next_node", "c"}}},
         {"append", {{"completed_nodes", {"b"}}, {"logs", {"b ran"}}}},
         {"merge", {{"context", {{"y", "two"}}}}},
         {"remove", {{"context", {"x"}}}}},
    json{{"set", {{"current_node", "c"}, {"next_node", ""}, {"state", "success"}}},
         {"append", {{"completed_nodes", {"c"}}}}},
};

std::string journal_of(std::uint64_t first_seq, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) text += encode_journal_record(first_seq + i, kDeltas[i].dump());
  return text;
}

TEST(CheckpointJournalTest, ARecordIsSequenceChecksumAndDeltaOnOneLine) {
  EXPECT_EQ(encode_journal_record(7, "{}"), "7 a3a6bf43 {}\n");
}

TEST(CheckpointJournalTest, WholeRecordsAreReplayedInOrder) {
  const std::string text = journal_of(1, 3);
  JournalScan scan = scan_journal(text, 0);
  ASSERT_EQ(scan.records.size(), 3u);
  EXPECT_EQ(scan.last_seq, 3u);
  EXPECT_EQ(scan.valid_bytes, text.size());
  EXPECT_EQ(scan.stopped_at, "");
  json checkpoint = {{"completed_nodes", json::array()}, {"context", json::object()}, {"state", "running"}};
  for (const JournalRecord& r : scan.records) apply_journal_delta(checkpoint, r.delta);
  EXPECT_EQ(checkpoint, (json{{"completed_nodes", {"a", "b", "c"}},
                              {"completed_statuses", {"success"}},
                              {"context", {{"y", "two"}}},
                              {"current_node", "c"},
                              {"logs", {"b ran"}},
                              {"next_node", ""},
                              {"state", "success"},
                              {"visit_counts", {{"a", 1}}}}));
}

TEST(CheckpointJournalTest, ACrashAtAnyByteLosesOnlyTheRecordBeingWritten) {
  const std::string text = journal_of(1, 3);
  std::vector<std::size_t> ends;
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) ends.push_back(at + 1);
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    SCOPED_TRACE(cut);
    JournalScan scan = scan_journal(std::string_view(text).substr(0, cut), 0);
    std::size_t whole = 0;
    while (whole < ends.size() && ends[whole] <= cut) ++whole;
    EXPECT_EQ(scan.records.size(), whole);
    EXPECT_EQ(scan.valid_bytes, whole == 0 ? 0 : ends[whole - 1]);
    EXPECT_EQ(scan.stopped_at.empty(), cut == scan.valid_bytes);
  }
}

TEST(CheckpointJournalTest, DamageEndsTheReplayAtTheDamagedRecord) {
  std::string text = journal_of(1, 3);
  const std::size_t second = text.find('\n') + 1;
  std::string flipped = text;
  flipped[text.find("two")] = 'T';
  JournalScan scan = scan_journal(flipped, 0);
  EXPECT_EQ(scan.records.size(), 1u);
  EXPECT_EQ(scan.stopped_at, "checksum mismatch at byte " + std::to_string(second));

  std::string zeros = text.substr(0, second) + std::string(40, '\0') + "\n";
  EXPECT_EQ(scan_journal(zeros, 0).stopped_at, "malformed at byte " + std::to_string(second));
}

TEST(CheckpointJournalTest, RecordsTheSnapshotHoldsAreSkippedAndAGapStops) {
  const std::string text = journal_of(1, 3);
  JournalScan after_two = scan_journal(text, 2);
  ASSERT_EQ(after_two.records.size(), 1u) << "a compaction that crashed before emptying the journal";
  EXPECT_EQ(after_two.records[0].seq, 3u);

  const std::string gap = encode_journal_record(1, "{}") + encode_journal_record(3, "{}");
  JournalScan scan = scan_journal(gap, 0);
  EXPECT_EQ(scan.records.size(), 1u);
  EXPECT_EQ(scan.stopped_at, "record 3 follows 1 at byte 14");
}

TEST(CheckpointJournalTest, ADeltaOfTheWrongKindIsRefused) {
  json checkpoint = {{"context", json::array()}};
  EXPECT_THROW(apply_journal_delta(checkpoint, {{"merge", {{"context", {{"k", 1}}}}}}), std::runtime_error);
  json other = {{"logs", "text"}};
  EXPECT_THROW(apply_journal_delta(other, {{"append", {{"logs", {"x"}}}}}), std::runtime_error);
}

TEST(CheckpointJournalTest, TheDocumentIsTheSnapshotWithItsJournalReplayed) {
  MemoryRunDisk disk;
  disk.make_directories("/run");
  disk.write_file("/run/checkpoint.json",
                  json{{"completed_nodes", {"a"}}, {"context", {{"x", 1}}}, {"journal_seq", 1}}.dump());
  EXPECT_EQ(read_checkpoint_document("/run", disk)["journal_seq"], 1) << "no journal yet";
  disk.write_file("/run/checkpoint.journal", journal_of(1, 3).substr(0, journal_of(1, 3).size() - 3));
  json doc = read_checkpoint_document("/run", disk);
  EXPECT_EQ(doc["completed_nodes"], json({"a", "b"})) << "record 1 is in the snapshot, record 3 is torn";
  EXPECT_EQ(doc["context"], json({{"y", "two"}}));
  EXPECT_EQ(doc["journal_seq"], 2);

  disk.write_file("/run/checkpoint.json", "{\"completed_nodes\": [");
  EXPECT_THROW(read_checkpoint_document("/run", disk), std::runtime_error);
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

/// A run's checkpoint changing the ways the engine changes it, one save at a time.
class JournalDeltaTest : public ::testing::Test {
 protected:
  void step(std::uint32_t& rng) {
    auto next = [&rng] { return rng = rng * 1103515245u + 12345u, (rng >> 8) % 1000; };
    const std::string node = "n" + std::to_string(next() % 40);
    checkpoint_.completed_nodes.push_back(node);
    checkpoint_.completed_statuses.push_back(next() % 5 == 0 ? "fail" : "success");
    checkpoint_.visit_counts[node]++;
    checkpoint_.node_attempts[node] += 1 + static_cast<std::int64_t>(next() % 3);
    checkpoint_.node_outcomes[node] = next() % 5 == 0 ? Outcome::fail("broke \"it\"") : Outcome::success("ok");
    checkpoint_.total_executions++;
    checkpoint_.current_node = node;
    checkpoint_.next_node = "n" + std::to_string(next() % 40);
    checkpoint_.timestamp_ms += 17;
    if (next() % 3 == 0) checkpoint_.node_retries[node] = next() % 4;
    context_.set("k" + std::to_string(next() % 30), nlohmann::json{{"v", next()}});
    if (next() % 4 == 0) context_.remove("k" + std::to_string(next() % 30));
    if (next() % 6 == 0) {
      const std::string again = "k" + std::to_string(next() % 30);
      context_.remove(again);
      context_.set(again, "back");
    }
    if (next() % 2 == 0) context_.append_log("stage " + node + " said \"hi\"\n");
  }

  Checkpoint checkpoint_;
  Context context_;
  CheckpointWriter writer_;
};

TEST_F(JournalDeltaTest, TheSnapshotWithEveryDeltaReplayedIsTheNextSnapshot) {
  checkpoint_.run_id = "run-1";
  context_.set("goal", "test");
  json replayed = json::parse(writer_.serialize(checkpoint_, context_));
  EXPECT_EQ(writer_.journal_delta(), "") << "the first save is a snapshot";
  std::uint32_t rng = 7;
  for (int i = 0; i < 300; ++i) {
    SCOPED_TRACE(i);
    step(rng);
    const json expected = json::parse(writer_.serialize(checkpoint_, context_));
    ASSERT_NE(writer_.journal_delta(), "");
    apply_journal_delta(replayed, json::parse(writer_.journal_delta()));
    ASSERT_EQ(replayed, expected);
  }
}

TEST_F(JournalDeltaTest, ADeltaHoldsWhatChangedNotTheWholeRun) {
  checkpoint_.run_id = "run-1";
  std::uint32_t rng = 11;
  for (int i = 0; i < 2000; ++i) step(rng);
  writer_.serialize(checkpoint_, context_);
  std::size_t largest = 0;
  for (int i = 0; i < 50; ++i) {
    step(rng);
    const std::size_t whole = writer_.serialize(checkpoint_, context_).size();
    largest = std::max(largest, writer_.journal_delta().size());
    EXPECT_GT(whole, 20 * writer_.journal_delta().size());
  }
  EXPECT_LT(largest, 2000u);
}

TEST_F(JournalDeltaTest, StartingOverOrAnotherContextNeedsASnapshot) {
  checkpoint_.run_id = "run-1";
  writer_.serialize(checkpoint_, context_);
  std::uint32_t rng = 3;
  step(rng);
  writer_.serialize(checkpoint_, context_);
  EXPECT_NE(writer_.journal_delta(), "");
  checkpoint_.run_id = "run-2";  // loop_restart
  writer_.serialize(checkpoint_, context_);
  EXPECT_EQ(writer_.journal_delta(), "");
  Context other = context_;
  writer_.serialize(checkpoint_, other);
  EXPECT_EQ(writer_.journal_delta(), "");
  writer_.serialize(checkpoint_);
  EXPECT_EQ(writer_.journal_delta(), "") << "no live context, no delta";
}

}  // namespace
}  // namespace attractor
