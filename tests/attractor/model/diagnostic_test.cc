#include "attractor/model/diagnostic.h"

#include <gtest/gtest.h>

namespace attractor {
namespace {

TEST(DiagnosticTest, CompilerFormWithCaretAndFix) {
  SourceFile file("graphs/x.dot", "digraph G {\n  a -> b [weight=x]\n}\n");
  Diagnostic d;
  d.rule = "attribute_type";
  d.severity = Severity::kError;
  d.message = "weight must be an integer";
  d.fix = "write weight=1";
  d.location = file.locate(file.text().find("x]"));
  EXPECT_EQ(format_diagnostic(d, &file),
            "graphs/x.dot:2:18: error: [attribute_type] weight must be an integer\n"
            "    a -> b [weight=x]\n"
            "                   ^\n"
            "  fix: write weight=1\n");
}

TEST(DiagnosticTest, ExcerptEscapesControlBytesAndTheCaretFollows) {
  SourceFile file(std::string("g\x1b.dot"), "digraph G {\n  a [label=\"\x01\xc3\xa9\t\xff\"] x\n}\n");
  Diagnostic d;
  d.rule = "syntax";
  d.severity = Severity::kError;
  d.message = "unexpected x";
  d.location = file.locate(file.text().find(" x") + 1);
  // \x01 and \xff take four columns each, é one, the tab stays a tab.
  EXPECT_EQ(format_diagnostic(d, &file),
            "g\\x1b.dot:2:21: error: [syntax] unexpected x\n"
            "    a [label=\"\\x01\xc3\xa9\t\\xff\"] x\n"
            "              "
            "    "
            " "
            "\t"
            "    "
            "   ^\n");
}

TEST(DiagnosticTest, WithoutLocationPrintsOnlyTheMessage) {
  SourceFile file("p.dot", "digraph G {}\n");
  Diagnostic d{"start_node", Severity::kError, "no start node", "", std::nullopt, "", {}};
  EXPECT_EQ(format_diagnostic(d, &file), "p.dot: error: [start_node] no start node\n");
  EXPECT_EQ(format_diagnostic(d, nullptr), "error: [start_node] no start node\n");
}

TEST(DiagnosticTest, JsonHasEveryFieldWithNulls) {
  Diagnostic d{
      "reachability", Severity::kWarning, "m", "n1", std::make_pair(std::string("a"), std::string("b")), "", {}};
  nlohmann::json j = diagnostic_to_json(d);
  EXPECT_EQ(j.dump(), R"({"column":null,"edge":["a","b"],"fix":null,"line":null,"message":"m","node":"n1",)"
                      R"("rule":"reachability","severity":"warning"})");
}

TEST(DiagnosticTest, ValidationErrorListsErrorsOnly) {
  std::vector<Diagnostic> ds = {{"a", Severity::kWarning, "warn", "", std::nullopt, "", {}},
                                {"b", Severity::kError, "bad", "", std::nullopt, "", {}}};
  EXPECT_TRUE(has_errors(ds));
  ValidationError e(ds);
  EXPECT_STREQ(e.what(), "pipeline has errors:\n  [b] bad");
  EXPECT_EQ(e.diagnostics().size(), 2u);
}

}  // namespace
}  // namespace attractor

namespace attractor {
namespace {

TEST(DiagnosticCapTest, TwentyOfEachRuleThenACountOfTheRest) {
  std::vector<Diagnostic> all;
  for (int i = 0; i < 25; ++i)
    all.push_back(make_diagnostic("dup", Severity::kWarning, "w" + std::to_string(i), "", "", {}));
  all.push_back(make_diagnostic("other", Severity::kError, "e", "", "", {}));
  all.push_back(make_diagnostic("dup", Severity::kError, "late error", "", "", {}));
  std::vector<Diagnostic> shown = diagnostics_capped_per_rule(all);
  ASSERT_EQ(shown.size(), 22u);
  EXPECT_EQ(shown[19].message, "w19");
  EXPECT_EQ(shown[20].rule, "other");
  EXPECT_EQ(shown[21].rule, "dup");
  EXPECT_EQ(shown[21].severity, Severity::kError);  // the highest severity left out
  EXPECT_EQ(shown[21].message, "... and 6 more `dup` diagnostics left out");
  EXPECT_EQ(diagnostics_capped_per_rule(all, 25).back().message, "... and 1 more `dup` diagnostic left out");
  EXPECT_EQ(diagnostics_capped_per_rule(all, 100).size(), all.size());
}

TEST(DiagnosticCapTest, ALongMessageIsCutWithTheCountOfTheRest) {
  Diagnostic d = make_diagnostic("r", Severity::kError, std::string(1000, 'm'), "", std::string(500, 'f'), {});
  const std::string text = format_diagnostic(d, nullptr);
  EXPECT_EQ(text, "error: [r] " + std::string(kMaxDiagnosticTextBytes, 'm') + "... (600 more bytes left out)\n  fix: " +
                      std::string(kMaxDiagnosticTextBytes, 'f') + "... (100 more bytes left out)\n");
}

}  // namespace
}  // namespace attractor
