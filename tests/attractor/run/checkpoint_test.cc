// The checkpoint serializer on random runs (seeded, so a failure repeats): a run's incremental
// CheckpointWriter gives after every save the same bytes as a fresh one (Checkpoint::to_text);
// that text is what nlohmann::json::dump() writes for the parsed document (compact, keys in
// order); loading it gives the checkpoint back; and the journal record of a save, applied to the
// previous save's document, gives the new one. tests/fuzz/fuzz_checkpoint.cc checks the same on
// arbitrary loaded checkpoints.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attractor/model/context.h"
#include "attractor/run/checkpoint.h"
#include "attractor/run/checkpoint_journal.h"

namespace attractor {
namespace {

using nlohmann::json;

/// Random checkpoint members: strings with quotes, escapes, controls and multi-byte UTF-8;
/// JSON values of every kind, nested.
class Random {
 public:
  explicit Random(std::uint32_t seed) : engine_(seed) {}

  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(engine_); }
  bool chance(int in) { return below(in) == 0; }

  std::string text() {
    static const std::vector<std::string> pieces = {
        "a",   "Z",  "0",    " ",    "\"",       "\\",           "/",
        "\n",  "\t", "\x01", "\x1f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
        "node"};
    std::string out;
    for (int n = below(6); n > 0; --n) out += pieces[below(static_cast<int>(pieces.size()))];
    return out;
  }
  std::string id() { return "n" + std::to_string(below(9)); }

  json value(int depth = 0) {
    switch (below(depth < 2 ? 9 : 7)) {
      case 0: return nullptr;
      case 1: return chance(2);
      case 2: return below(2001) - 1000;
      case 3: return std::int64_t{1} << (40 + below(22));
      case 4: return std::uint64_t{18446744073709551615u} - static_cast<std::uint64_t>(below(3));
      case 5: {
        static const std::vector<double> doubles = {0.1, -2.5, 1e-7, 3.0, 1e300, 123456.789, -0.0};
        return doubles[below(static_cast<int>(doubles.size()))];
      }
      case 6: return text();
      case 7: {
        json a = json::array();
        for (int n = below(4); n > 0; --n) a.push_back(value(depth + 1));
        return a;
      }
      default: {
        json o = json::object();
        for (int n = below(4); n > 0; --n) o[text()] = value(depth + 1);
        return o;
      }
    }
  }

  Outcome outcome() {
    static const std::vector<StageStatus> statuses = {StageStatus::kSuccess, StageStatus::kPartialSuccess,
                                                      StageStatus::kRetry, StageStatus::kFail, StageStatus::kSkipped};
    Outcome o;
    o.status = statuses[below(static_cast<int>(statuses.size()))];
    if (chance(2)) o.preferred_label = text();
    if (chance(2)) o.failure_reason = text();
    o.category = static_cast<ErrorCategory>(below(3));
    return o;
  }

 private:
  std::mt19937 engine_;
};

/// One more stage of a run: a completed node with its bookkeeping, some context writes
/// (reported to `writer` when it reads no live context), a log line, new top-level members.
void advance(Random& r, Checkpoint& c, CheckpointWriter* writer) {
  const std::string id = r.id();
  c.completed_nodes.push_back(id);
  c.completed_statuses.push_back(status_name(r.outcome().status));
  ++c.visit_counts[id];
  c.node_attempts[id] += 1 + r.below(3);
  c.node_outcomes[id] = r.outcome();
  ContextChanges changes;
  for (int n = r.below(4); n > 0; --n) {
    const std::string key = r.chance(3) ? r.text() : "k" + std::to_string(r.below(6));
    if (r.chance(4)) {
      c.context.erase(key);
    } else {
      c.context[key] = r.value();
    }
    changes.keys.push_back(key);
  }
  if (writer) writer->note_context_changes(changes);
  if (r.chance(2)) c.logs.push_back(r.text());
  if (r.chance(3)) c.node_retries[id] = r.below(4);
  c.timestamp_ms = 1700000000000 + r.below(1000000);
  c.current_node = id;
  c.next_node = r.chance(5) ? "" : r.id();
  c.state = r.chance(6) ? "success" : "running";
  c.total_executions = static_cast<std::int64_t>(c.completed_nodes.size());
  c.last_fidelity = r.chance(2) ? "compact" : r.text();
  if (r.chance(3)) c.inbox = json::array({r.value(), r.value()});
  c.final_outcome = r.chance(5) ? r.value() : json(nullptr);
  if (r.chance(5)) c.seed_context = {{r.text(), r.value()}};
  if (r.chance(4)) c.usage = {{"input_tokens", r.below(100000)}, {"cost_usd", 0.25}};
  ++c.journal_seq;
}

/// A loop restart: another run id, the lists and tables begun anew.
Checkpoint restarted(Random& r, const Checkpoint& c) {
  Checkpoint next;
  next.run_id = c.run_id + "-r";
  next.restart_count = c.restart_count + 1;
  next.seed_context = c.seed_context;
  next.context = {{"seed", r.text()}};
  return next;
}

/// The properties every serialization must have, for `text` serializing `c`.
void expect_serializes(const Checkpoint& c, const std::string& text) {
  ASSERT_EQ(text, c.to_text()) << "the incremental text is not the fresh one";
  const json parsed = json::parse(text);
  ASSERT_EQ(parsed.dump(), text) << "not the compact, key-ordered document";
  const Checkpoint back = Checkpoint::from_json(parsed);
  EXPECT_EQ(back.to_text(), text);
  EXPECT_EQ(back.run_id, c.run_id);
  EXPECT_EQ(back.completed_nodes, c.completed_nodes);
  EXPECT_EQ(back.completed_statuses, c.completed_statuses);
  EXPECT_EQ(back.logs, c.logs);
  EXPECT_EQ(back.context, c.context);
  EXPECT_EQ(back.visit_counts, c.visit_counts);
  EXPECT_EQ(back.node_attempts, c.node_attempts);
  EXPECT_EQ(back.node_retries, c.node_retries);
  EXPECT_EQ(back.node_outcomes.size(), c.node_outcomes.size());
  for (const auto& [id, o] : c.node_outcomes) {
    EXPECT_EQ(outcome_entry_json(back.node_outcomes.at(id)), outcome_entry_json(o)) << id;
  }
  EXPECT_EQ(back.final_outcome, c.final_outcome);
  EXPECT_EQ(back.journal_seq, c.journal_seq);
}

TEST(CheckpointTest, RandomRunsSerializeIncrementallyAsAFreshWriterDoesAndRoundTrip) {
  for (std::uint32_t seed = 1; seed <= 25; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Random r(seed);
    Checkpoint c;
    c.run_id = "run-" + std::to_string(seed);
    CheckpointWriter writer;
    for (int step = 0; step < 40; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      if (r.chance(15)) {
        c = restarted(r, c);
        writer.note_context_changes({true, {}});
      } else {
        advance(r, c, &writer);
      }
      expect_serializes(c, writer.serialize(c));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(CheckpointTest, RandomRunsFromALiveContextSerializeLikeTheirSnapshotAndJournalTheDifference) {
  for (std::uint32_t seed = 100; seed < 115; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Random r(seed);
    Checkpoint c;
    c.run_id = "live-" + std::to_string(seed);
    Context context;
    CheckpointWriter writer;
    json previous;
    for (int step = 0; step < 40; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      advance(r, c, nullptr);
      for (const auto& [key, value] : c.context.items()) context.set(key, value);
      for (const std::string& key : std::vector<std::string>{"k0", "k5"}) {
        if (r.chance(4)) context.remove(key);
      }
      if (r.chance(2)) context.append_log(r.text());
      if (r.chance(20)) context.restore({{"restored", r.value()}}, {r.text()});
      const std::string text = writer.serialize(c, context);
      Checkpoint expected = c;
      expected.context = context.snapshot();
      expected.logs = context.logs();
      expect_serializes(expected, text);
      if (::testing::Test::HasFatalFailure()) return;
      if (!writer.journal_delta().empty()) {
        json replayed = previous;
        apply_journal_delta(replayed, json::parse(writer.journal_delta()));
        EXPECT_EQ(replayed, json::parse(text)) << "the journal record does not lead to this save";
      }
      previous = json::parse(text);
    }
  }
}

}  // namespace
}  // namespace attractor
