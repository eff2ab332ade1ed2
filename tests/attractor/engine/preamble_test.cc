// Fidelity preambles (docs/fidelity.md "Preambles"): the text of every mode and the token
// budgets, measured with the project's exact counter.

#include <string>
#include <thread>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "attractor/engine/preamble.h"
#include "attractor/tokens/token_counter.h"

namespace attractor {
namespace {

StageRecordPtr record(const char* id, const char* type, const char* status, const char* notes, std::int64_t attempts,
                      std::int64_t max_attempts, std::int64_t duration_ms, std::vector<std::string> tools = {}) {
  StageRecord r;
  r.node_id = id;
  r.handler_type = type;
  r.status = status;
  r.notes = notes;
  r.attempts = attempts;
  r.max_attempts = max_attempts;
  r.duration_ms = duration_ms;
  r.tools = std::move(tools);
  return std::make_shared<const StageRecord>(std::move(r));
}

PreambleInput sample_input() {
  PreambleInput in;
  in.pipeline_name = "demo";
  in.goal = "Ship the login fix";
  in.run_id = "run-1";
  in.current_node = "review";
  in.stage_number = 3;
  in.total_stages = 4;
  in.completed = {record("start", "start", "success", "Pipeline started at start", 1, 1, 0),
                  record("analyze", "codergen", "success", "Found 2 files", 1, 1, 1200),
                  record("implement", "codergen", "partial_success", "Changed auth.py", 2, 3, 65000, {"pytest -q"})};
  in.context = {{"files_changed", {"src/auth.py", "src/login.py"}}, {"test_results", "14 passed, 2 failed"}};
  return in;
}

const TokenCounter& counter() { return *token_counter_for("o200k_base"); }

/// 400 stages with long notes and 60 long context values: far above every budget.
PreambleInput long_input() {
  PreambleInput in = sample_input();
  in.completed.clear();
  std::string notes;
  for (int w = 0; w < 40; ++w) notes += fmt::format("word{} ", w);
  for (int i = 0; i < 400; ++i) {
    in.completed.push_back(record(fmt::format("stage_{:03}", i).c_str(), "codergen", i % 7 == 3 ? "fail" : "success",
                                  notes.c_str(), 1 + i % 3, 3, 1000 + i, {"make test"}));
  }
  in.context = nlohmann::json::object();
  for (int k = 0; k < 60; ++k) in.context[fmt::format("key_{:02}", k)] = std::string(300 + k, 'a' + k % 26);
  in.stage_number = 401;
  in.total_stages = 401;
  return in;
}

TEST(PreambleText, TruncateHasOnlyPipelineGoalRunIdAndStage) {
  Preamble p = build_preamble("truncate", sample_input(), counter());
  EXPECT_EQ(p.text, "Pipeline: demo\nGoal: Ship the login fix\nRun ID: run-1\nCurrent stage: review\n");
  EXPECT_EQ(p.mode, "truncate");
  EXPECT_EQ(p.budget, 100u);
  EXPECT_EQ(p.tokens, counter().count(p.text));
}

TEST(PreambleText, CompactIsTheSeedBulletSummary) {
  Preamble p = build_preamble("compact", sample_input(), counter());
  EXPECT_EQ(p.text,
            "## Pipeline State\n\n"
            "- Pipeline: demo\n"
            "- Goal: Ship the login fix\n"
            "- Completed stages: start (success), analyze (success), implement (partial_success)\n"
            "- Current stage: review\n"
            "- Key context values:\n"
            "  - files_changed: [\"src/auth.py\",\"src/login.py\"]\n"
            "  - test_results: \"14 passed, 2 failed\"\n");
  EXPECT_EQ(p.budget, 500u);
  EXPECT_EQ(p.omitted_stages, 0u);
}

TEST(PreambleText, SummaryLowHasStageNamesCountsAndLastOutcome) {
  Preamble p = build_preamble("summary:low", sample_input(), counter());
  EXPECT_EQ(p.text,
            "Pipeline \"demo\" stage 3 of 4. Goal: Ship the login fix.\n"
            "Completed: start, analyze, implement. Last outcome: partial_success (implement).\n"
            "Events: 3 stages run (3 succeeded, 0 failed), 1 retry.\n");
  EXPECT_EQ(p.budget, 600u);
}

TEST(PreambleText, SummaryMediumHasRecentActivityContextAndNotableEvents) {
  Preamble p = build_preamble("summary:medium", sample_input(), counter());
  EXPECT_EQ(p.text,
            "## Pipeline Progress\n\n"
            "Pipeline: demo\nGoal: Ship the login fix\nStage: review (3/4)\n\n"
            "### Recent Activity\n"
            "- start: success — Pipeline started at start\n"
            "- analyze: success — Found 2 files\n"
            "- implement: partial_success — Changed auth.py\n\n"
            "### Active Context\n"
            "- files_changed: [\"src/auth.py\",\"src/login.py\"]\n"
            "- test_results: \"14 passed, 2 failed\"\n\n"
            "### Notable Events\n"
            "- implement: 1 retry (2 attempts)\n");
  EXPECT_EQ(p.budget, 1500u);
}

TEST(PreambleText, SummaryHighHasHistoryToolsDurationsContextJsonAndRetries) {
  PreambleInput in = sample_input();
  in.current_attempt = 2;
  in.current_max_attempts = 4;
  Preamble p = build_preamble("summary:high", in, counter());
  EXPECT_EQ(p.text,
            "## Pipeline State (Comprehensive)\n\n"
            "Pipeline: demo\nGoal: Ship the login fix\nRun ID: run-1\nStage: review (3/4)\n\n"
            "### Execution History\n"
            "- start: success — Pipeline started at start\n  Tools used: none\n  Duration: 0ms\n"
            "- analyze: success — Found 2 files\n  Tools used: none\n  Duration: 1.2s\n"
            "- implement: partial_success — Changed auth.py\n  Tools used: pytest -q\n  Duration: 1m 05s\n\n"
            "### Full Context\n"
            "```json\n{\n  \"files_changed\": [\n    \"src/auth.py\",\n    \"src/login.py\"\n  ],\n"
            "  \"test_results\": \"14 passed, 2 failed\"\n}\n```\n\n"
            "### Retry Information\n"
            "- implement: 1/2\n"
            "- review: 1/3 (this stage)\n");
  EXPECT_EQ(p.budget, 3000u);
}

TEST(PreambleText, NoCompletedStagesAndNoContext) {
  PreambleInput in = sample_input();
  in.completed.clear();
  in.context = nlohmann::json::object();
  in.stage_number = 1;
  EXPECT_EQ(build_preamble("compact", in, counter()).text,
            "## Pipeline State\n\n- Pipeline: demo\n- Goal: Ship the login fix\n- Completed stages: none\n"
            "- Current stage: review\n");
  EXPECT_EQ(build_preamble("summary:low", in, counter()).text,
            "Pipeline \"demo\" stage 1 of 4. Goal: Ship the login fix.\nCompleted: none. Last outcome: none.\n"
            "Events: 0 stages run (0 succeeded, 0 failed), 0 retries.\n");
}

TEST(PreambleBudget, BudgetsPerMode) {
  EXPECT_EQ(preamble_budget("truncate"), 100u);
  EXPECT_EQ(preamble_budget("compact"), 500u);
  EXPECT_EQ(preamble_budget("summary:low"), 600u);
  EXPECT_EQ(preamble_budget("summary:medium"), 1500u);
  EXPECT_EQ(preamble_budget("summary:high"), 3000u);
  EXPECT_EQ(preamble_budget("full"), 0u);
  EXPECT_EQ(preamble_budget("bogus"), 0u);
}

/// Over budget: within the budget, the oldest stages dropped, the newest kept, the omission said.
void expect_drops_oldest(const char* mode, std::size_t budget) {
  PreambleInput in = long_input();
  Preamble p = build_preamble(mode, in, counter());
  SCOPED_TRACE(mode);
  EXPECT_EQ(p.budget, budget);
  EXPECT_LE(p.tokens, budget);
  EXPECT_EQ(p.tokens, counter().count(p.text));
  EXPECT_FALSE(p.cut);
  EXPECT_GT(p.omitted_stages, 0u);
  EXPECT_LT(p.omitted_stages, 400u);
  EXPECT_NE(p.text.find(fmt::format("({} earlier stages omitted)", p.omitted_stages)), std::string::npos);
  EXPECT_NE(p.text.find("stage_399"), std::string::npos);
  EXPECT_EQ(p.text.find("stage_000"), std::string::npos);
  // The oldest kept stage is the one right after the omitted ones.
  EXPECT_NE(p.text.find(fmt::format("stage_{:03}", p.omitted_stages)), std::string::npos);
  EXPECT_EQ(p.text.find(fmt::format("stage_{:03}", p.omitted_stages - 1)), std::string::npos);
  // The budget is used: a little more room keeps more stages (when the context is not in the way).
  if (p.omitted_context == 0) {
    Preamble roomier = build_preamble(mode, in, counter(), budget + 40);
    EXPECT_LT(roomier.omitted_stages, p.omitted_stages);
    EXPECT_LE(roomier.tokens, budget + 40);
  }
}

TEST(PreambleBudget, CompactDropsOldestStagesWithin500Tokens) { expect_drops_oldest("compact", 500); }
TEST(PreambleBudget, SummaryLowDropsOldestStagesWithin600Tokens) { expect_drops_oldest("summary:low", 600); }
TEST(PreambleBudget, SummaryMediumDropsOldestStagesWithin1500Tokens) { expect_drops_oldest("summary:medium", 1500); }
TEST(PreambleBudget, SummaryHighDropsOldestStagesWithin3000Tokens) { expect_drops_oldest("summary:high", 3000); }

TEST(PreambleBudget, TruncateCutsAHugeGoalAt100Tokens) {
  PreambleInput in = sample_input();
  for (int i = 0; i < 500; ++i) in.goal += fmt::format(" detail{}", i);
  Preamble p = build_preamble("truncate", in, counter());
  EXPECT_TRUE(p.cut);
  EXPECT_LE(p.tokens, 100u);
  EXPECT_GE(p.tokens, 95u);
  EXPECT_EQ(p.tokens, counter().count(p.text));
  EXPECT_EQ(p.text.rfind("Pipeline: demo\nGoal: Ship the login fix detail0 detail1", 0), 0u);
}

TEST(PreambleBudget, CutNeverSplitsAUtf8Character) {
  PreambleInput in = sample_input();
  in.goal = "";
  for (int i = 0; i < 300; ++i) in.goal += "é漢🙂";
  Preamble p = build_preamble("truncate", in, counter());
  EXPECT_TRUE(p.cut);
  EXPECT_LE(p.tokens, 100u);
  const std::string& t = p.text;
  std::size_t i = 0;
  while (i < t.size()) {  // every sequence complete
    unsigned char c = static_cast<unsigned char>(t[i]);
    std::size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    ASSERT_LE(i + len, t.size());
    i += len;
  }
}

TEST(PreambleBudget, RecentStagesOutliveContextValues) {
  PreambleInput in = long_input();
  Preamble p = build_preamble("compact", in, counter(), 250);
  EXPECT_LE(p.tokens, 250u);
  // Every older stage went first, then the largest context values; the three most recent stages stay.
  EXPECT_EQ(p.omitted_stages, 397u);
  EXPECT_EQ(p.omitted_context, 55u);
  for (const char* id : {"stage_397", "stage_398", "stage_399"}) EXPECT_NE(p.text.find(id), std::string::npos) << id;
  EXPECT_NE(p.text.find(fmt::format("({} context values omitted)", p.omitted_context)), std::string::npos);
  EXPECT_NE(p.text.find("key_00"), std::string::npos);  // the smallest value is kept
  EXPECT_EQ(p.text.find("key_59"), std::string::npos);  // the largest went first
}

TEST(PreambleBudget, EveryModeStaysWithinItsBudgetForEveryHistoryLength) {
  PreambleInput base = long_input();
  for (const char* mode : {"truncate", "compact", "summary:low", "summary:medium", "summary:high"}) {
    for (std::size_t n : {0u, 1u, 5u, 40u, 150u, 400u}) {
      PreambleInput in = base;
      in.completed.resize(n);
      Preamble p = build_preamble(mode, in, counter());
      EXPECT_LE(p.tokens, preamble_budget(mode)) << mode << " n=" << n;
      EXPECT_EQ(p.tokens, counter().count(p.text)) << mode << " n=" << n;
    }
  }
}

TEST(PreambleBudget, AHistoryThatJustFitsIsKeptWhole) {
  // Dropping one stage adds "(1 earlier stage omitted)", which can cost more than the entry it
  // replaces; a budget that the whole history meets exactly must still keep every stage.
  PreambleInput base = long_input();
  for (const char* mode : {"compact", "summary:low", "summary:medium", "summary:high"}) {
    for (std::size_t n : {1u, 2u, 3u, 4u, 5u, 8u, 20u, 60u}) {
      PreambleInput in = base;
      in.completed.resize(n);
      in.context = nlohmann::json::object();
      Preamble whole = build_preamble(mode, in, counter(), 100000);
      ASSERT_EQ(whole.omitted_stages, 0u) << mode << " n=" << n;
      Preamble exact = build_preamble(mode, in, counter(), whole.tokens);
      EXPECT_EQ(exact.text, whole.text) << mode << " n=" << n;
      EXPECT_EQ(exact.omitted_stages, 0u) << mode << " n=" << n;
    }
  }
}

TEST(PreambleBudget, ResultDoesNotDependOnEarlierPreambles) {
  // The search starts where the previous preamble of the mode ended (per thread); the text must be
  // the same as a fresh thread builds, including where an omission note makes the count rise
  // (tiny context values, budgets near the whole text).
  PreambleInput base = long_input();
  std::vector<std::pair<PreambleInput, std::size_t>> cases;
  for (std::size_t n : {2u, 6u, 30u, 120u, 400u}) {
    for (int tiny : {0, 3}) {
      PreambleInput in = base;
      in.completed.resize(n);
      if (tiny) {
        in.context = nlohmann::json::object();
        for (int k = 0; k < tiny; ++k) in.context[fmt::format("k{}", k)] = k;
      }
      Preamble whole = build_preamble("compact", in, counter(), 100000);
      for (std::size_t slack : {0u, 1u, 2u, 5u, 9u, 40u, 200u}) {
        cases.emplace_back(in, whole.tokens > slack ? whole.tokens - slack : 1);
      }
    }
  }
  for (const char* mode : {"compact", "summary:low", "summary:medium", "summary:high"}) {
    std::vector<std::string> fresh(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      std::thread([&, i] { fresh[i] = build_preamble(mode, cases[i].first, counter(), cases[i].second).text; }).join();
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
      // Warm the hint with a different case first, then the real one.
      build_preamble(mode, cases[(i * 7 + 3) % cases.size()].first, counter(),
                     cases[(i * 7 + 3) % cases.size()].second);
      Preamble p = build_preamble(mode, cases[i].first, counter(), cases[i].second);
      EXPECT_EQ(p.text, fresh[i]) << mode << " case " << i;
      EXPECT_LE(p.tokens, cases[i].second) << mode << " case " << i;
    }
  }
}

TEST(PreambleHistory, RecordsToolCommandsNotesAndStageInfoTools) {
  NodeData tool;
  tool.id = "lint";
  tool.set("tool_command", "ruff check .");
  Outcome failed = Outcome::fail("exit code 1");
  failed.notes = "ran";
  failed.stage_info = {{"tools", {"read_file", "grep"}}};
  StageRecord r = make_stage_record(tool, "tool", failed, 2, 3, 450);
  EXPECT_EQ(r.node_id, "lint");
  EXPECT_EQ(r.status, "fail");
  EXPECT_EQ(r.notes, "exit code 1");
  EXPECT_EQ(r.tools, (std::vector<std::string>{"ruff check .", "read_file", "grep"}));
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.max_attempts, 3);
  EXPECT_EQ(format_duration_ms(450), "450ms");
  EXPECT_EQ(format_duration_ms(2500), "2.5s");
  EXPECT_EQ(format_duration_ms(185000), "3m 05s");
}

TEST(PreambleHistory, RestoreFromCheckpointKeepsOrderAndStatuses) {
  Graph g;
  g.add_node("start");
  g.node("start")->set("shape", "Mdiamond");
  g.add_node("a");
  Checkpoint cp;
  cp.completed_nodes = {"start", "a", "a"};
  cp.node_outcomes["start"] = Outcome::success();
  cp.node_outcomes["a"] = Outcome::fail("boom");
  StageHistory h;
  h.restore(cp, g);
  std::vector<StageRecord> rs = h.records();
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[0].handler_type, "start");
  EXPECT_EQ(rs[1].node_id, "a");
  EXPECT_EQ(rs[2].status, "fail");
  EXPECT_EQ(rs[2].notes, "boom");
  EXPECT_EQ(rs[2].duration_ms, -1);
}

TEST(PreambleInputTest, BookkeepingKeysAreLeftOut) {
  EXPECT_TRUE(is_bookkeeping_context_key("internal.run_id"));
  EXPECT_TRUE(is_bookkeeping_context_key("graph.goal"));
  EXPECT_TRUE(is_bookkeeping_context_key("last_model_response"));
  EXPECT_TRUE(is_bookkeeping_context_key("outcome"));
  EXPECT_FALSE(is_bookkeeping_context_key("last_response"));
  EXPECT_FALSE(is_bookkeeping_context_key("files_changed"));
}

// The run's memory of earlier preambles (owned by the engine, one per run) only saves counting:
// each preamble is the one built without it, and it remembers per mode how many entries the
// last one kept. A memory another thread holds is left alone.
TEST(PreambleMemoryTest, SamePreamblesWithTheRunsMemoryAndNothingKeptBetweenRuns) {
  PreambleMemory memory;
  PreambleInput in = long_input();
  for (std::size_t shown : {400u, 399u, 200u}) {
    in.completed.resize(shown);
    Preamble fresh = build_preamble("compact", in, counter(), 500);
    Preamble remembered = build_preamble("compact", in, counter(), 500, &memory);
    EXPECT_EQ(remembered.text, fresh.text) << shown;
    EXPECT_EQ(remembered.tokens, fresh.tokens) << shown;
  }
  ASSERT_EQ(memory.kept_last_time.size(), 1u);
  EXPECT_EQ(memory.kept_last_time.count("compact"), 1u);

  PreambleMemory other_run;
  EXPECT_TRUE(other_run.kept_last_time.empty());
  std::lock_guard held(other_run.mutex);
  Preamble built = build_preamble("summary:low", in, counter(), 600, &other_run);
  EXPECT_EQ(built.text, build_preamble("summary:low", in, counter(), 600).text);
  EXPECT_TRUE(other_run.kept_last_time.empty());
}

}  // namespace
}  // namespace attractor
