// Every attribute the code reads has a record (attributes.h or a handler description), so lint
// types and spell-checks it and `attractor help attributes` and docs/pipelines.md list it. The test
// scans src/ for the reads: the typed accessors of a node, an edge or the graph (`node.get("x")`,
// `graph.data().get_integer("x")`, ...) and the helpers that take a node and a name
// (docs/decisions.md, "Values checked where they are written").

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "attractor/check/attributes.h"
#include "handlers/registry.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

/// A read of an attribute by name: a bag of attributes (a node, an edge, the graph's data) and one
/// of its typed accessors.
const std::regex& accessor_read() {
  static const std::regex re(
      R"re((?:\bnode|\bedge|\be|\bgraph|\bdata|data\(\)|request\.node)\s*(?:\.|->)\s*)re"
      R"re((?:get|find|has|get_integer|get_boolean|get_float|get_duration_ms)\(\s*"([A-Za-z_][A-Za-z0-9_.]*)")re");
  return re;
}

/// The helpers that read an attribute of the node they are given by name.
const std::regex& helper_read() {
  static const std::regex re(
      R"re(\b(?:int_attribute|positive_integer)\(\s*[*\w.>-]+\s*,\s*"([A-Za-z_][A-Za-z0-9_.]*)")re");
  return re;
}

/// The accessors of graph.h, which read their own bag without a receiver (`get("label", id)`).
const std::regex& member_read() {
  static const std::regex re(R"re((?:^|[^.\w>])get(?:_\w+)?\("([A-Za-z_][A-Za-z0-9_.]*)")re");
  return re;
}

/// Name -> "FILE:LINE" of its first read, for every read that `re` finds in `path`.
void collect(const fs::path& path, const std::regex& re, std::map<std::string, std::string>& reads) {
  std::ifstream in(path);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    for (std::sregex_iterator it(line.begin(), line.end(), re), end; it != end; ++it) {
      reads.try_emplace((*it)[1].str(), path.string() + ":" + std::to_string(number));
    }
  }
}

std::map<std::string, std::string> attribute_reads(const fs::path& src) {
  std::map<std::string, std::string> reads;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(src)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
    collect(entry.path(), accessor_read(), reads);
    collect(entry.path(), helper_read(), reads);
  }
  collect(src / "attractor" / "model" / "graph.h", member_read(), reads);
  return reads;
}

TEST(AttributeReads, EveryAttributeTheCodeReadsHasARecord) {
  const std::map<std::string, std::string> reads = attribute_reads(fs::path(ATTRACTOR_SOURCE_DIR) / "src");
  const std::vector<std::string> known = known_attribute_names(builtin_handler_catalog());
  for (const char* name : {"label", "shape", "llm_provider", "workdir", "agent.max_turns", "agent.max_tool_rounds",
                           "agent.instructions", "join_policy", "token_encoding", "max_cost"}) {
    EXPECT_TRUE(reads.count(name)) << "the scan no longer finds the read of " << name << ": fix its patterns";
  }
  for (const auto& [name, where] : reads) {
    EXPECT_TRUE(std::binary_search(known.begin(), known.end(), name))
        << where << " reads attribute '" << name
        << "', which has no record: add it to src/attractor/check/attributes.cc (engine) or to the "
           "attributes of the handler or provider that reads it";
  }
}

TEST(AttributeReads, TheScanFindsEveryFormOfRead) {
  const fs::path dir = fs::temp_directory_path() / ("attribute_reads_" + std::to_string(::getpid()));
  fs::create_directories(dir / "attractor" / "model");
  std::ofstream(dir / "planted.cc") << "auto a = node.get(\"planted.one\");\n"
                                       "auto b = request.graph->data().get_integer(\"planted_two\");\n"
                                       "auto c = int_attribute(*request.node, \"planted_three\", 0);\n"
                                       "auto d = reply.get(\"not_an_attribute\");\n";
  std::ofstream(dir / "attractor" / "model" / "graph.h")
      << "  std::string x() const { return get(\"planted_four\"); }\n";
  const std::map<std::string, std::string> reads = attribute_reads(dir);
  fs::remove_all(dir);
  std::set<std::string> names;
  for (const auto& [name, where] : reads) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"planted.one", "planted_two", "planted_three", "planted_four"}));
  EXPECT_EQ(reads.at("planted_two").substr(reads.at("planted_two").size() - 2), ":2");
}

}  // namespace
}  // namespace attractor
