// Malformed corpus: every tests/data/bad/NAME.dot has a NAME.expected holding the exact first line
// of the diagnostic it must produce, `tests/data/bad/NAME.dot:LINE:COL: severity: [rule] message`.
// Parser rules are checked against parse_dot alone; any other rule (a lint or transform rule) is
// checked against the full load pipeline (parse + transforms + lint). The first diagnostic with
// the expected line's severity is compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "attractor/check/pipeline_loader.h"
#include "parser/dot_parser.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

const fs::path kBadDir = fs::path(ATTRACTOR_SOURCE_DIR) / "tests" / "data" / "bad";

const std::set<std::string>& parser_rules() {
  static const std::set<std::string> rules = {"syntax",
                                              "undirected",
                                              "strict",
                                              "multiple_graphs",
                                              "graph_id",
                                              "html_label",
                                              "node_id",
                                              "bad_value",
                                              "unterminated_string",
                                              "unterminated_comment",
                                              "nesting_depth",
                                              "file_too_large",
                                              "value_too_large",
                                              "encoding",
                                              "io",
                                              "duplicate_attribute",
                                              "duplicate_node"};
  return rules;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::vector<std::string> bad_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kBadDir)) {
    if (entry.path().extension() == ".dot") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

class DotBadCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DotBadCorpusTest, FirstDiagnosticMatchesExpected) {
  const std::string name = GetParam();
  const fs::path expected_path = kBadDir / (name + ".expected");
  ASSERT_TRUE(fs::exists(expected_path)) << "missing " << expected_path;
  const std::string expected = first_line(read_file(expected_path));
  const std::string display = "tests/data/bad/" + name + ".dot";
  ASSERT_EQ(expected.rfind(display + ":", 0), 0u) << "expected line must start with the file path: " << expected;

  std::size_t open = expected.find(": [");
  ASSERT_NE(open, std::string::npos) << expected;
  std::string rule = expected.substr(open + 3, expected.find(']', open) - open - 3);
  Severity severity = expected.find(": warning: [") != std::string::npos ? Severity::kWarning : Severity::kError;

  std::string text = read_file(kBadDir / (name + ".dot"));
  std::vector<Diagnostic> diagnostics;
  SourceFilePtr source;
  if (parser_rules().count(rule) != 0) {
    ParseResult parsed = parse_dot(std::make_shared<const SourceFile>(display, text));
    diagnostics = std::move(parsed.diagnostics);
    source = parsed.source;
  } else {
    LoadedPipeline loaded = load_pipeline_text(display, text, builtin_handler_catalog());
    diagnostics = std::move(loaded.diagnostics);
    source = loaded.source;
  }
  auto it = std::find_if(diagnostics.begin(), diagnostics.end(),
                         [&](const Diagnostic& d) { return d.severity == severity; });
  ASSERT_NE(it, diagnostics.end()) << "no " << severity_name(severity) << " diagnostic for " << display;
  EXPECT_EQ(first_line(format_diagnostic(*it, source.get())), expected);
}

INSTANTIATE_TEST_SUITE_P(BadCorpus, DotBadCorpusTest, ::testing::ValuesIn(bad_names()), test_name);

TEST(DotBadCorpusSizeTest, HasAtLeast45Cases) { EXPECT_GE(bad_names().size(), 45u); }

}  // namespace
}  // namespace attractor
