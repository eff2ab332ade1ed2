// The authoring reference: `attractor help shapes|attributes|reference` and docs/pipelines.md,
// which must be exactly what the generator prints for the built-in catalog.

#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/cli_test_support.h"

#include "attractor/cli/reference.h"
#include "handlers/registry.h"

namespace attractor::testing {
namespace {

using ::testing::HasSubstr;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The first line where `a` and `b` differ, for a readable failure.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ha = static_cast<bool>(std::getline(sa, la));
    bool hb = static_cast<bool>(std::getline(sb, lb));
    if (!ha && !hb) return "(the texts differ only in a final newline)";
    if (ha != hb || la != lb) {
      return "line " + std::to_string(line) + ":\n  committed: " + (ha ? la : "<end of file>") +
             "\n  generated: " + (hb ? lb : "<end of file>");
    }
  }
}

TEST(ReferenceDoc, CommittedDocsMatchTheGenerator) {
  std::string committed = read_file(std::string(ATTRACTOR_SOURCE_DIR) + "/docs/pipelines.md");
  std::string generated = pipeline_reference(builtin_handler_catalog());
  EXPECT_TRUE(committed == generated) << "docs/pipelines.md is out of date; regenerate it with\n  "
                                      << kReferenceRegenerateCommand << "\nfirst difference at "
                                      << first_difference(committed, generated);
}

TEST(ReferenceDoc, HelpReferencePrintsTheGeneratedText) {
  CommandResult r = run_attractor({"help", "reference"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == pipeline_reference(builtin_handler_catalog()));
}

TEST(ReferenceDoc, HelpShapesListsShapesAndTypes) {
  CommandResult r = run_attractor({"help", "shapes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, shapes_reference(builtin_handler_catalog()));
  EXPECT_THAT(r.out, HasSubstr("\n| `Mdiamond` | `start` | The pipeline entry point; records the start and does "
                               "nothing else. |\n"));
  EXPECT_THAT(r.out, HasSubstr("\n| `hexagon` | `wait.human` | A human gate: asks a question whose options are the "
                               "outgoing edges and follows the answer. |\n"));
  EXPECT_THAT(r.out, HasSubstr("\n| `loop_guard` | - | Counts passes through a loop and routes out when a limit is "
                               "reached. |\n"));
  EXPECT_THAT(r.out, HasSubstr("\n| `codergen` | `box` | "));
}

TEST(ReferenceDoc, HelpAttributesListsTypesDefaultsAndConditions) {
  CommandResult r = run_attractor({"help", "attributes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, attributes_reference(builtin_handler_catalog()));
  EXPECT_THAT(r.out, HasSubstr("\n| `goal_gate` | boolean | `false` | The run may only exit after this node "
                               "succeeded; otherwise it jumps to the node's or the graph's retry target. |\n"));
  EXPECT_THAT(r.out, HasSubstr("\n| `weight` | integer | `0` | Among edges still eligible, the highest weight "
                               "wins (then the target id). |\n"));
  EXPECT_THAT(r.out, HasSubstr("\n| `max_parallel` | integer >= 1 | `4` | Branches that run at the same time. |\n"));
  EXPECT_THAT(r.out, HasSubstr("\n| `reasoning_effort` | one of `low`, `medium`, `high`, `none` | `high` | "));
  EXPECT_THAT(r.out, HasSubstr("\n| `workdir` | path | - | Directory the coding agent works in, "));
  EXPECT_THAT(r.out, HasSubstr("\n| `agent.max_turns` | integer >= 0 | `0` | Most model calls of the coding "
                               "agent's session; 0 = no limit (llm_provider=agent). |\n"));
  EXPECT_THAT(r.out, HasSubstr("\n| `agent.max_tool_rounds` | integer >= 1 | `200` | "));
  EXPECT_THAT(r.out, HasSubstr("\n| `agent.instructions` | string | - | "));
  EXPECT_THAT(r.out, HasSubstr("\n| `search_type` | string | - | semantic, bm25 or hybrid (required); the query "
                               "is the context key last_model_response. |\n"));
  EXPECT_THAT(r.out, HasSubstr("\n| `KEY==VALUE` | the same as `KEY=VALUE` |\n"));
  EXPECT_THAT(r.out, HasSubstr("`outcome`"));
  EXPECT_THAT(r.out, HasSubstr("`preferred_label`"));
  EXPECT_THAT(r.out, HasSubstr("`context.KEY`"));
}

TEST(ReferenceDoc, EveryHandlerTypeAndAttributeAppears) {
  const HandlerCatalog& catalog = builtin_handler_catalog();
  std::string reference = pipeline_reference(catalog);
  ASSERT_FALSE(catalog.types().empty());
  for (const std::string& type : catalog.types()) {
    const HandlerDescription* d = catalog.find(type);
    ASSERT_NE(d, nullptr) << type;
    EXPECT_FALSE(d->summary.empty()) << type << " has no summary";
    EXPECT_THAT(reference, HasSubstr("\n| `" + type + "` | ")) << type;
    EXPECT_THAT(reference, HasSubstr("\n### " + type + "\n\n" + d->summary + "\n")) << type;
    for (const AttributeSpec& a : d->attributes) {
      EXPECT_THAT(reference, HasSubstr("\n| `" + a.name + "` | " + std::string(attribute_type_name(a.type))))
          << type << "." << a.name;
    }
  }
}

TEST(ReferenceDoc, TheIntroductionExampleValidates) {
  std::string reference = pipeline_reference(builtin_handler_catalog());
  std::size_t open = reference.find("```dot\n");
  ASSERT_NE(open, std::string::npos);
  std::size_t close = reference.find("```\n", open + 7);
  ASSERT_NE(close, std::string::npos);
  std::string path = make_temp_dir() + "/example.dot";
  std::ofstream(path, std::ios::binary) << reference.substr(open + 7, close - open - 7);
  CommandResult r = run_attractor({"validate", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("0 warnings")) << r.err;
}

TEST(ReferenceDoc, HelpStillRejectsUnknownTopics) { EXPECT_EQ(run_attractor({"help", "frobnicate"}).exit_code, 2); }

}  // namespace
}  // namespace attractor::testing
