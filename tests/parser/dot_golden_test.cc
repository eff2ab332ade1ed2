// Golden tests: every tests/data/parse/NAME.dot parses without errors and `write_dot` of the
// result equals tests/data/parse/NAME.expected byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "parser/dot_parser.h"
#include "parser/dot_writer.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

const fs::path kParseDir = fs::path(ATTRACTOR_SOURCE_DIR) / "tests" / "data" / "parse";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> golden_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kParseDir)) {
    if (entry.path().extension() == ".dot") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class DotGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DotGoldenTest, WriterOutputMatchesExpected) {
  const std::string name = GetParam();
  const fs::path dot = kParseDir / (name + ".dot");
  const fs::path expected = kParseDir / (name + ".expected");
  ASSERT_TRUE(fs::exists(expected)) << "missing " << expected;
  auto source = std::make_shared<const SourceFile>("tests/data/parse/" + name + ".dot", read_file(dot));
  ParseResult result = parse_dot(source);
  ASSERT_TRUE(result.ok()) << format_diagnostic(result.diagnostics.at(0), result.source.get());
  for (const auto& d : result.diagnostics) EXPECT_NE(d.severity, Severity::kError) << d.message;
  std::string written = write_dot(*result.graph);
  EXPECT_EQ(written, read_file(expected));

  // The canonical form is a fixed point: parsing it again gives the same text.
  ParseResult again = parse_dot(std::make_shared<const SourceFile>("canonical.dot", written));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(write_dot(*again.graph), written);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(ParseCorpus, DotGoldenTest, ::testing::ValuesIn(golden_names()), test_name);

TEST(DotGoldenCorpusTest, CoversEnoughFiles) { EXPECT_GE(golden_names().size(), 12u); }

}  // namespace
}  // namespace attractor
