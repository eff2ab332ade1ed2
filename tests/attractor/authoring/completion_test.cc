// Completion at the start of a statement (docs/authoring.md, "Completion"): keywords, node ids,
// and the attributes an assignment sets there, graph attributes at the top level and a
// subgraph's label inside one.

#include "attractor/authoring/completion.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "handlers/registry.h"

namespace attractor {
namespace {

std::vector<std::string> labels_at(const std::string& text, const std::string& marker) {
  static const AuthoringCatalog catalog{&builtin_handler_catalog(), {}};
  std::size_t at = text.find(marker);
  std::string without = text;
  without.erase(at, marker.size());
  PipelineDocument doc("t.dot", without, catalog);
  std::vector<std::string> out;
  for (const CompletionCandidate& c : complete_at(doc, at)) out.push_back(c.label);
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& label) {
  return std::find(list.begin(), list.end(), label) != list.end();
}

TEST(CompletionTest, StatementStartOffersKeywordsNodesAndTheAttributesOfItsScope) {
  const std::string text =
      "digraph G {\n    start [shape=Mdiamond]\n    |TOP|\n    subgraph cluster_a {\n        |SUB|\n        a\n    "
      "}\n}\n";
  std::string top_marker = "|TOP|";
  std::string top_text = text;
  top_text.erase(top_text.find("|SUB|"), 5);
  std::vector<std::string> top = labels_at(top_text, top_marker);
  for (const char* label : {"graph", "node", "edge", "subgraph", "start", "a", "goal", "model_stylesheet"}) {
    EXPECT_TRUE(has(top, label)) << label;
  }
  std::string sub_text = text;
  sub_text.erase(sub_text.find("|TOP|"), 5);
  std::vector<std::string> sub = labels_at(sub_text, "|SUB|");
  EXPECT_TRUE(has(sub, "label"));
  EXPECT_TRUE(has(sub, "start"));
  EXPECT_FALSE(has(sub, "goal")) << "graph attributes belong to the graph, not a subgraph";
}

}  // namespace
}  // namespace attractor
