// Preambles gather only the most recent stages a budget can show (preamble_record_limit), and
// the result is exactly the preamble built from the whole history.

#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "attractor/engine/preamble.h"
#include "attractor/tokens/token_counter.h"

namespace attractor {
namespace {

TEST(PreambleLimit, LimitedGatheringBuildsTheSamePreambleAsTheWholeHistory) {
  Graph g;
  g.add_node("start");
  g.node("start")->set("shape", "Mdiamond");
  g.add_node("work");
  g.add_node("exit");
  g.node("exit")->set("shape", "Msquare");
  g.data().set("goal", "ship it");
  StageHistory history;
  StageRecord start;
  start.node_id = "start";
  start.handler_type = "start";
  start.status = "success";
  history.add(start);
  for (int i = 0; i < 4000; ++i) {
    StageRecord r;
    r.node_id = fmt::format("n{}", i);
    r.handler_type = "codergen";
    r.status = i % 7 == 0 ? "fail" : "success";
    r.notes = fmt::format("note {}", i);
    r.attempts = i % 5 == 0 ? 2 : 1;
    r.duration_ms = i;
    history.add(r);
  }
  Context context;
  context.set("internal.run_id", "run-1");
  context.set("answer", "forty-two");
  const TokenCounter& counter = *token_counter_for("o200k_base");
  for (const char* mode : {"truncate", "compact", "summary:low", "summary:medium", "summary:high"}) {
    PreambleInput whole = gather_preamble_input(*g.node("work"), context, g, &history, 1);
    PreambleInput recent = gather_preamble_input(*g.node("work"), context, g, &history, 1, preamble_record_limit(mode));
    EXPECT_LT(recent.completed.size(), 1600u) << mode;
    EXPECT_EQ(recent.earlier_stages + recent.completed.size(), 4001u) << mode;
    EXPECT_EQ(recent.stage_number, 4001) << mode;
    Preamble a = build_preamble(mode, whole, counter);
    Preamble b = build_preamble(mode, recent, counter);
    EXPECT_EQ(a.text, b.text) << mode;
    EXPECT_EQ(a.omitted_stages, b.omitted_stages) << mode;
    EXPECT_LE(b.tokens, preamble_budget(mode)) << mode;
  }
  StageTotals t = history.totals();
  EXPECT_EQ(t.stages, 4001u);
  EXPECT_EQ(t.non_start, 4000u);
  EXPECT_EQ(t.failed, 572u);
  EXPECT_EQ(t.succeeded, 3429u);
  EXPECT_EQ(t.retries, 800);
  EXPECT_EQ(history.graph_stage_count(g), 1);
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

TEST(ContextSnapshotExcluding, SkipsWholePrefixRangesAndKeepsTheRest) {
  Context c;
  c.set("alpha", 1);
  c.set("graph.goal", "g");
  c.set("internal.a", 2);
  c.set("internal.z", 3);
  c.set("internal", "exact key is not under the prefix");
  c.set("internals", 4);
  c.set("zeta", 5);
  EXPECT_EQ(c.snapshot_excluding({"internal.", "graph."}).dump(),
            R"({"alpha":1,"internal":"exact key is not under the prefix","internals":4,"zeta":5})");
  EXPECT_EQ(c.snapshot_excluding({}).dump(), c.snapshot().dump());
}

}  // namespace
}  // namespace attractor
