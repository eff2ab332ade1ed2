#include "attractor/run/checkpoint_schema.h"

#include <gtest/gtest.h>

#include "attractor/run/checkpoint.h"

namespace attractor {
namespace {

using nlohmann::json;

TEST(CheckpointSchemaTest, AWrittenCheckpointFits) {
  Checkpoint c;
  c.run_id = "r";
  c.completed_nodes = {"a"};
  c.completed_statuses = {"success"};
  c.context = {{"graph.goal", "g"}, {"deep", json::parse(std::string(200, '[') + std::string(200, ']'))}};
  c.node_outcomes["a"] = Outcome::success("ok");
  c.visit_counts["a"] = 1;
  c.final_outcome = {{"outcome", "success"}};
  EXPECT_EQ(checkpoint_schema_problem(c.to_json()), "");
  EXPECT_EQ(checkpoint_schema_problem(json::object()), "");
}

TEST(CheckpointSchemaTest, WrongTypesAndUnknownMembersAreNamed) {
  EXPECT_EQ(checkpoint_schema_problem(json::array()), "the checkpoint must be an object, found an array");
  EXPECT_EQ(checkpoint_schema_problem({{"?ontext", json::object()}}), "unknown member `?ontext`");
  EXPECT_EQ(checkpoint_schema_problem({{"context", json::array({1, 2})}}),
            "`context` must be an object, found an array");
  EXPECT_EQ(checkpoint_schema_problem({{"completed_nodes", json::array({"a", 3})}}),
            "`completed_nodes[1]` must be a string, found a number");
  EXPECT_EQ(checkpoint_schema_problem({{"visit_counts", {{"a", 1.5}}}}),
            "`visit_counts.a` must be an integer, found a number");
  EXPECT_EQ(checkpoint_schema_problem({{"journal_seq", -1}}),
            "`journal_seq` must be a non-negative integer, found a number");
  EXPECT_EQ(checkpoint_schema_problem({{"run_id", nullptr}}), "`run_id` must be a string, found null");
  EXPECT_EQ(checkpoint_schema_problem({{"node_outcomes", {{"a", "success"}}}}),
            "`node_outcomes.a` must be an object, found a string");
  EXPECT_EQ(checkpoint_schema_problem(
                {{"seed_context", {{"x", json::parse(std::string(201, '[') + std::string(201, ']'))}}}}),
            "`seed_context.x` is nested deeper than 200 levels");
}

TEST(CheckpointSchemaTest, JournalRecordsAreCheckedPartByPart) {
  EXPECT_EQ(journal_delta_problem(json::parse(R"({"append":{"logs":["x"]},"merge":{"context":{"k":[1]},
      "node_outcomes":{"a":{"status":"success"}}},"remove":{"context":["k"]},"set":{"state":"running"}})")),
            "");
  EXPECT_EQ(journal_delta_problem(json::parse(R"({"set":{"context":[1,2]}})")),
            "`set.context` must be an object, found an array");
  EXPECT_EQ(journal_delta_problem(json::parse(R"({"set":{"?ontext":{}}})")), "unknown member `set.?ontext`");
  EXPECT_EQ(journal_delta_problem(json::parse(R"({"append":{"context":["x"]}})")), "unknown member `append.context`");
  EXPECT_EQ(journal_delta_problem(json::parse(R"({"remove":{"context":[1]}})")),
            "`remove.context[0]` must be a string, found a number");
  EXPECT_EQ(journal_delta_problem(json::parse(R"({"merge":{"visit_counts":{"a":"2"}}})")),
            "`merge.visit_counts.a` must be an integer, found a string");
  EXPECT_EQ(journal_delta_problem(json::parse(R"({"merge":[]})")), "`merge` must be an object, found an array");
  EXPECT_EQ(journal_delta_problem(json::parse(R"({"sett":{}})")), "unknown member `sett`");
  EXPECT_EQ(journal_delta_problem(json::parse("[]")), "the record must be an object, found an array");
}

}  // namespace
}  // namespace attractor
