#pragma once
/// \file
/// Helpers shared by the lint test suites: a minimal valid pipeline and diagnostic matchers.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/model/diagnostic.h"
#include "attractor/model/graph.h"

namespace attractor::lint_test {

inline SourceLocation at(int line, int column) { return SourceLocation{line, column, 0}; }

/// start -> work -> exit, with a prompt on work: no diagnostics.
inline Graph valid_pipeline() {
  Graph g;
  g.node(g.add_node("start", at(2, 3))).set("shape", "Mdiamond");
  g.node(g.add_node("work", at(3, 3))).set("prompt", "Do it");
  g.node(g.add_node("exit", at(4, 3))).set("shape", "Msquare");
  g.add_edge(*g.find("start"), *g.find("work"), {}, at(5, 3));
  g.add_edge(*g.find("work"), *g.find("exit"), {}, at(6, 3));
  return g;
}

/// The diagnostics of one rule, in order.
inline std::vector<Diagnostic> only(const std::vector<Diagnostic>& all, const std::string& rule) {
  std::vector<Diagnostic> out;
  for (const auto& d : all) {
    if (d.rule == rule) out.push_back(d);
  }
  return out;
}

inline void expect_diagnostic(const Diagnostic& d, const std::string& rule, Severity severity,
                              const std::string& message, const std::string& node, const std::string& fix) {
  EXPECT_EQ(d.rule, rule);
  EXPECT_EQ(d.severity, severity);
  EXPECT_EQ(d.message, message);
  EXPECT_EQ(d.node_id, node);
  EXPECT_EQ(d.fix, fix);
}

}  // namespace attractor::lint_test
