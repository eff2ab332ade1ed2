// Every malformed pipeline in tests/data/bad/ through the real CLI: `attractor validate` and
// `attractor run` exit 2, print the expected first error, create no run directory and finish quickly.
// Big inputs (1 MB values, 100,000-node chains, 100,000-deep nesting, files over the 64 MiB limit)
// are generated at test time instead of being committed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "attractor/model/diagnostic.h"
#include "attractor/model/source_file.h"
#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

namespace fs = std::filesystem;

const std::string kBadDir = "tests/data/bad";

std::vector<std::string> bad_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(ATTRACTOR_SOURCE_DIR) / kBadDir)) {
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

/// The first `error:` line of stderr, or the input-file problem of `attractor validate` without its
/// command prefix (docs/cli.md "Bad input files").
std::string first_error(const std::string& err) {
  const std::string input_problem = "attractor validate: ";
  std::size_t start = 0;
  while (start < err.size()) {
    std::size_t end = err.find('\n', start);
    if (end == std::string::npos) end = err.size();
    std::string line = err.substr(start, end - start);
    if (line.find(": error: [") != std::string::npos) return line;
    if (line.rfind(input_problem, 0) == 0) return line.substr(input_problem.size());
    start = end + 1;
  }
  return "";
}

class BadCorpusCliTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadCorpusCliTest, ValidateAndRunExitTwoWithTheExpectedError) {
  const std::string name = GetParam();
  const std::string file = kBadDir + "/" + name + ".dot";
  const std::string expected = first_line(
      slurp(std::string(ATTRACTOR_SOURCE_DIR) + "/" + kBadDir + "/" + name + ".expected"));

  // NAME.cli: the one line the commands print instead of parsing a file that is empty or binary
  // (docs/cli.md "Bad input files"); NAME.expected stays what the parser itself reports.
  const fs::path cli = fs::path(ATTRACTOR_SOURCE_DIR) / kBadDir / (name + ".cli");
  const std::string input_problem = fs::exists(cli) ? first_line(slurp(cli.string())) : "";

  ProcessResult validate = run_attractor({"validate", file}, {.timeout_seconds = 60});
  EXPECT_EQ(validate.exit_code, 2) << validate.err;
  EXPECT_FALSE(validate.timed_out);
  if (!input_problem.empty()) {
    EXPECT_EQ(validate.err, "attractor validate: " + input_problem + "\n");
  } else if (expected.find(": error: [") != std::string::npos) {
    EXPECT_EQ(first_error(validate.err), expected);
  }

  ScratchDir dir;
  ProcessResult run = run_attractor({"run", file, "--logs-root", dir.sub("run"), "-q"}, {.timeout_seconds = 60});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  if (!input_problem.empty()) {
    EXPECT_EQ(run.err, "attractor run: " + input_problem + "\n");
  } else {
    EXPECT_NE(run.err.find(file + ": not run: the pipeline has errors"), std::string::npos) << run.err;
  }
  EXPECT_FALSE(fs::exists(dir.sub("run")));
}

INSTANTIATE_TEST_SUITE_P(BadCorpus, BadCorpusCliTest, ::testing::ValuesIn(bad_names()), test_name);

TEST(BadCorpusCliSizeTest, AtLeastOneHundredFilesEachWithAnExpectedDiagnostic) {
  std::vector<std::string> names = bad_names();
  EXPECT_GE(names.size(), 100u);
  for (const std::string& name : names) {
    EXPECT_TRUE(fs::exists(fs::path(ATTRACTOR_SOURCE_DIR) / kBadDir / (name + ".expected"))) << name;
  }
}

/// A generated input: its text, the first error line expected (with FILE standing for the path).
struct Generated {
  std::string name;
  std::string text;
  std::string expected;
};

std::string chain(int n, const std::string& prefix) {
  std::string text;
  text.reserve(static_cast<std::size_t>(n) * 10);
  for (int i = 0; i < n; ++i) {
    if (i > 0) text += " -> ";
    text += prefix + std::to_string(i);
  }
  return text;
}

std::vector<Generated> generated_inputs() {
  const std::string mb(1 << 20, 'x');
  std::vector<Generated> inputs;
  inputs.push_back({"one_mb_value_then_syntax_error",
                    "digraph g {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  w [prompt=\"" + mb +
                        "\"]\n  start -> w -> exit\n  w -> \n}\n",
                    "FILE:7:1: error: [syntax] expected a node id after '->', found '}'"});
  inputs.push_back({"one_mb_value_without_start",
                    "digraph g {\n  w [prompt=\"" + mb + "\"]\n  exit [shape=Msquare]\n  w -> exit\n}\n",
                    "FILE: error: [start_node] pipeline has no start node (shape=Mdiamond)"});
  inputs.push_back({"one_mb_unterminated_string", "digraph g {\n  w [prompt=\"" + mb + "\n",
                    "FILE:2:13: error: [unterminated_string] unterminated string: the closing '\"' is missing"});
  inputs.push_back({"one_mb_bare_word", "digraph g {\n  w [prompt=" + mb + "-]\n}\n", ""});
  inputs.push_back(
      {"five_mb_value", "digraph g {\n  w [prompt=\"" + std::string(5 << 20, 'y') + "\"]\n}\n",
       "FILE:2:13: error: [value_too_large] value is 5242882 bytes, more than the limit of 4194304 bytes"});
  inputs.push_back({"chain_100000_on_one_line", "digraph g {\n  " + chain(100000, "n") + "\n}\n",
                    "FILE: error: [start_node] pipeline has no start node (shape=Mdiamond)"});
  inputs.push_back({"chain_100000_one_per_line",
                    "digraph g {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> " +
                        [] {
                          std::string t;
                          for (int i = 0; i < 100000; ++i) t += "n" + std::to_string(i) + " ->\n";
                          return t;
                        }() +
                        "}\n",
                    "FILE:100004:1: error: [syntax] expected a node id after '->', found '}'"});
  inputs.push_back({"subgraph_nesting_100000",
                    "digraph g {\n" +
                        [] {
                          std::string t;
                          for (int i = 0; i < 100000; ++i) t += "subgraph {\n";
                          for (int i = 0; i < 100000; ++i) t += "}\n";
                          return t;
                        }() +
                        "}\n",
                    "FILE:102:10: error: [nesting_depth] subgraphs are nested more than 100 levels deep"});
  inputs.push_back({"brace_nesting_100000", "digraph g {\n" + std::string(100000, '{') + "\n}\n",
                    "FILE:2:101: error: [nesting_depth] subgraphs are nested more than 100 levels deep"});
  inputs.push_back({"bracket_run_100000", "digraph g {\n  a " + std::string(100000, '[') + "\n}\n", ""});
  inputs.push_back({"quote_run_100001", "digraph g {\n  a [label=" + std::string(100001, '"') + "]\n}\n", ""});
  inputs.push_back({"invalid_utf8_after_1mb", "digraph g {\n  // " + mb + "\n  a [label=\"\xff\"]\n}\n",
                    "FILE:3:13: binary file: invalid UTF-8 byte 0xff (expected a .dot file)"});
  inputs.push_back({"ten_thousand_errors",
                    "digraph g {\n" +
                        [] {
                          std::string t;
                          for (int i = 0; i < 10000; ++i) t += "  n" + std::to_string(i) + " [max_retries=many]\n";
                          return t;
                        }() +
                        "}\n",
                    ""});
  return inputs;
}

TEST(GeneratedBadInputTest, ValidateAndRunExitTwoQuicklyWithBoundedOutput) {
  ScratchDir dir;
  for (const Generated& input : generated_inputs()) {
    SCOPED_TRACE(input.name);
    const std::string path = dir.sub(input.name + ".dot");
    spit(path, input.text);
    ProcessResult validate = run_attractor({"validate", path}, {.timeout_seconds = 120});
    EXPECT_FALSE(validate.timed_out);
    EXPECT_EQ(validate.exit_code, 2) << first_line(validate.err);
    // Each diagnostic shows at most a short excerpt of its line, so output stays proportional to
    // the number of findings, never to findings x line length.
    EXPECT_LT(validate.err_bytes, 64u << 20);
    if (!input.expected.empty()) {
      std::string expected = input.expected;
      expected.replace(0, 4, path);
      EXPECT_EQ(first_error(validate.err), expected);
    } else {
      EXPECT_NE(first_error(validate.err), "");
    }
    ProcessResult run = run_attractor({"run", path, "--logs-root", dir.sub("run-" + input.name), "-q"},
                                      {.timeout_seconds = 120});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_FALSE(fs::exists(dir.sub("run-" + input.name)));
  }
}

TEST(GeneratedBadInputTest, FileOverSixtyFourMebibytesIsRefusedBeforeParsing) {
  ScratchDir dir;
  const std::string path = dir.sub("huge.dot");
  std::string text = "digraph g {\n";
  const std::string comment = "// " + std::string(1020, 'z') + "\n";
  while (text.size() <= (64u << 20)) text += comment;
  text += "}\n";
  spit(path, text);
  ProcessResult validate = run_attractor({"validate", path}, {.timeout_seconds = 120});
  EXPECT_EQ(validate.exit_code, 2);
  EXPECT_EQ(validate.err, "attractor validate: " + path + ": file is " + std::to_string(text.size()) +
                              " bytes, more than the limit of 67108864 bytes\n");
  ProcessResult run = run_attractor({"run", path, "--logs-root", dir.sub("run"), "-q"});
  EXPECT_EQ(run.exit_code, 2);
}

TEST(DiagnosticExcerptTest, LongLinesAreCutToAWindowAroundTheCaret) {
  std::string line = std::string(5000, 'a') + "X" + std::string(5000, 'b');
  auto file = std::make_shared<const SourceFile>("f.dot", "digraph g {\n" + line + "\n}\n");
  Diagnostic d;
  d.severity = Severity::kError;
  d.rule = "r";
  d.message = "m";
  d.location = SourceLocation{2, 5001};
  std::string text = format_diagnostic(d, file.get());
  EXPECT_EQ(text, "f.dot:2:5001: error: [r] m\n  ..." + std::string(80, 'a') + "X" + std::string(79, 'b') +
                      "...\n     " + std::string(80, ' ') + "^\n");

  d.location = SourceLocation{2, 3};
  EXPECT_EQ(format_diagnostic(d, file.get()), "f.dot:2:3: error: [r] m\n  " + std::string(160, 'a') + "...\n    ^\n");
}

TEST(DiagnosticExcerptTest, WindowNeverSplitsAUtf8Character) {
  std::string line;
  for (int i = 0; i < 200; ++i) line += "\xc3\xa9";  // é
  auto file = std::make_shared<const SourceFile>("f.dot", line + "\n");
  Diagnostic d;
  d.severity = Severity::kWarning;
  d.rule = "r";
  d.message = "m";
  d.location = SourceLocation{1, 201};
  std::string text = format_diagnostic(d, file.get());
  std::string excerpt = text.substr(text.find('\n') + 3);
  excerpt = excerpt.substr(0, excerpt.find('\n'));
  EXPECT_EQ(excerpt, "..." + std::string(line.substr(120, 160)) + "...");
}

}  // namespace
}  // namespace attractor::hardening
