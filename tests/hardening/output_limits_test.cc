// Issue 42 point 10, through the real binary: repeated diagnostics are capped per rule with a count
// of those left out (100,000 duplicate attributes wrote 43 MB of warnings, a 10 MB line of
// unreachable nodes 375 MB of errors), and one diagnostic never echoes a huge line or message.
#include <gtest/gtest.h>

#include <string>

#include "attractor/model/diagnostic.h"
#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

TEST(OutputLimitsTest, OneHundredThousandDuplicateAttributesPrintTwentyAndACount) {
  ScratchDir dir;
  std::string attrs;
  for (int i = 0; i < 100001; ++i) attrs += i == 0 ? "x=1" : ", x=1";
  spit(dir.sub("dup.dot"), "digraph dup {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  work [" + attrs +
                               ", prompt=\"p\"]\n  start -> work -> exit\n}\n");
  ProcessResult r = run_attractor({"validate", dir.sub("dup.dot")});
  EXPECT_EQ(r.signal, 0);
  EXPECT_LT(r.err_bytes, 64u << 10) << r.err.substr(0, 2000);
  // The first `x` is no repeat: 100,000 warnings.
  const std::string note = "warning: [duplicate_attribute] ... and " + std::to_string(100000 - kMaxDiagnosticsPerRule) +
                           " more `duplicate_attribute` diagnostics left out\n";
  EXPECT_NE(r.err.find(note), std::string::npos) << r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0);
  std::size_t shown = 0;
  for (std::size_t p = r.err.find("[duplicate_attribute] attribute 'x'"); p != std::string::npos;
       p = r.err.find("[duplicate_attribute] attribute 'x'", p + 1)) {
    ++shown;
  }
  EXPECT_EQ(shown, kMaxDiagnosticsPerRule);
  EXPECT_NE(r.err.find(": ok: 3 nodes, 2 edges, 100000 warnings"), std::string::npos);

  ProcessResult json = run_attractor({"validate", "--json", dir.sub("dup.dot")});
  EXPECT_LT(json.out.size(), 64u << 10);
  EXPECT_NE(json.out.find(" more `duplicate_attribute` diagnostics left out"), std::string::npos);
}

// 2 MB of unreachable nodes on one line: 36,000 `reachability` errors, each with an excerpt of the line.
TEST(OutputLimitsTest, AMegabytesLongLineOfErrorsPrintsTwentyAndACount) {
  ScratchDir dir;
  std::string line = "digraph big { start [shape=Mdiamond] exit [shape=Msquare] ";
  for (int i = 0; line.size() < (2u << 20); ++i)
    line += "n" + std::to_string(i) + " [label=\"" + std::string(40, 'v') + "\"] ";
  line += "start -> exit }";
  spit(dir.sub("big.dot"), line + "\n");
  ProcessResult r = run_attractor({"validate", dir.sub("big.dot")});
  EXPECT_EQ(r.signal, 0);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.exit_code;
  EXPECT_LT(r.err_bytes, 256u << 10) << r.err.substr(0, 2000);
  EXPECT_NE(r.err.find(" diagnostics left out"), std::string::npos) << r.err.substr(0, 2000);
  ProcessResult run = run_attractor({"run", dir.sub("big.dot"), "--simulate", "--logs-root", dir.sub("run")});
  EXPECT_EQ(run.signal, 0);
  EXPECT_LT(run.err_bytes, 256u << 10) << run.err.substr(0, 2000);
}

}  // namespace
}  // namespace attractor::hardening
