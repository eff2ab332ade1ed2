// Every "did you mean" of the linter is a quick fix (docs/authoring.md, "Quick fixes"): a file
// with one typo of each kind gets a fix for each, and applying them all leaves none of those
// diagnostics.

#include "attractor/authoring/editor_diagnostics.h"

#include <set>

#include <gtest/gtest.h>

#include "handlers/registry.h"

namespace attractor {
namespace {

const AuthoringCatalog& catalog() {
  static const AuthoringCatalog c{&builtin_handler_catalog(), {}};
  return c;
}

/// One typo per rule that suggests a replacement.
constexpr const char* kTypos =
    "digraph G {\n"
    "    graph [default_fidelity=trunate]\n"
    "    start [shape=Mdiamond]\n"
    "    exit [shape=Msquare]\n"
    "    draft [shape=bx, prompt=\"p\", fidelity=ful, retry_target=reveiw, reasoning_effort=hihg]\n"
    "    review [prompt=\"r\", promt=\"x\", llm_provider=opena]\n"
    "    guard [type=loop_guard, on_allow=reveiw, on_deny=exit, max_visits=3]\n"
    "    start -> draft -> guard\n"
    "    guard -> review\n"
    "    guard -> exit\n"
    "    review -> exit [condition=\"outcome=succes\"]\n"
    "    review -> draft [condition=\"outcom=fail\"]\n"
    "    review -> revew\n"
    "    revew -> exit\n"
    "}\n";

bool suggests(const Diagnostic& d) { return d.fix.rfind("did you mean '", 0) == 0 || d.fix.rfind("rename '", 0) == 0; }

TEST(EditorDiagnosticsTest, EveryDidYouMeanHasAQuickFixAndApplyingThemClearsThem) {
  PipelineDocument doc("t.dot", kTypos, catalog());
  std::vector<TextEdit> fixes;
  std::set<std::string> rules;
  for (const EditorDiagnostic& e : editor_diagnostics(doc)) {
    if (!suggests(e.diagnostic)) continue;
    rules.insert(e.diagnostic.rule);
    ASSERT_FALSE(e.quick_fix.empty()) << e.diagnostic.rule << ": " << e.diagnostic.message;
    EXPECT_FALSE(e.quick_fix_title.empty());
    fixes.insert(fixes.end(), e.quick_fix.begin(), e.quick_fix.end());
  }
  EXPECT_EQ(rules, (std::set<std::string>{"attribute_spelling", "attribute_type", "condition_key_spelling",
                                          "condition_outcome_value", "fidelity_valid", "llm_provider",
                                          "outgoing_route_targets", "prompt_on_llm_nodes", "retry_target_exists",
                                          "shape_known"}));
  std::string fixed = apply_edits(doc.text(), fixes);
  PipelineDocument after("t.dot", fixed, catalog());
  for (const EditorDiagnostic& e : editor_diagnostics(after)) {
    EXPECT_FALSE(suggests(e.diagnostic)) << e.diagnostic.rule << ": " << e.diagnostic.message << "\n" << fixed;
  }
}

TEST(EditorDiagnosticsTest, RangesCoverTheTokenAndUnlocatedOnesFallBackToTheNodeOrGraph) {
  PipelineDocument doc("t.dot", "digraph G {\n    a [shape=bx]\n}\n", catalog());
  std::vector<EditorDiagnostic> all = editor_diagnostics(doc);
  ASSERT_FALSE(all.empty());
  for (const EditorDiagnostic& e : all) {
    EXPECT_LE(e.range.begin, e.range.end);
    EXPECT_LE(e.range.end, doc.text().size());
    if (e.diagnostic.rule == "shape_known")
      EXPECT_EQ(doc.text().substr(e.range.begin, e.range.end - e.range.begin), "bx");
    if (e.diagnostic.rule == "start_node")
      EXPECT_EQ(doc.text().substr(e.range.begin, e.range.end - e.range.begin), "digraph");
  }
}

}  // namespace
}  // namespace attractor
