// Regression for a stack overflow found while fuzzing status.json loading: a status.json (or
// checkpoint.json) nested 100,000 levels deep crashed the engine when the parsed value was copied.
// JSON from outside the process is now parsed with bounded nesting (parse_json_limited).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "attractor/base/json_limits.h"
#include "attractor/model/outcome.h"
#include "support/hardening_support.h"

namespace attractor::hardening {
namespace {

const std::string kDeepStatus = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/hardening/deep_status.json";

std::string message_of(const std::string& text, int depth = kMaxJsonDepth) {
  try {
    parse_json_limited(text, "x.json", depth);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(JsonDepthTest, NestingUpToTheLimitParsesAndDeeperIsRefused) {
  EXPECT_EQ(parse_json_limited(R"({"a":[1,{"b":null}]})", "x.json"), nlohmann::json::parse(R"({"a":[1,{"b":null}]})"));
  EXPECT_EQ(message_of(std::string(3, '[') + std::string(3, ']'), 3), "");
  EXPECT_EQ(message_of("[1,{\"a\":2}]", 2), "");
  EXPECT_EQ(message_of(std::string(4, '[') + std::string(4, ']'), 3),
            "x.json is not valid JSON: nested deeper than 3 levels");
  EXPECT_EQ(message_of("{\"a\":"),
            "x.json is not valid JSON: parse error at line 1, column 6: syntax error while "
            "parsing value - unexpected end of input; expected '[', '{', or a literal");
}

TEST(JsonDepthTest, DeepStatusFileIsRefusedWithoutCrashing) {
  EXPECT_EQ(message_of(slurp(kDeepStatus)), "x.json is not valid JSON: nested deeper than 256 levels");
}

// Fuzzer finds (fuzz_status, fuzz_checkpoint): a number too large for a double made the parser throw
// json::out_of_range, which escaped the loaders' std::runtime_error contract and aborted.
TEST(JsonDepthTest, NumberOverflowIsAnInvalidJsonErrorNotAnEscapingException) {
  const std::string dir = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/hardening/";
  EXPECT_EQ(message_of(slurp(dir + "status_number_overflow.json")),
            "x.json is not valid JSON: number overflow parsing '744077774407e7444'");
  std::string checkpoint = message_of(slurp(dir + "checkpoint_number_overflow.json"));
  EXPECT_EQ(checkpoint.rfind("x.json is not valid JSON: number overflow parsing '", 0), 0u) << checkpoint;
  EXPECT_THROW(outcome_from_json(parse_json_limited("{\"outcome\": \"success\", \"n\": 1e999}", "status.json")),
               std::runtime_error);
}

TEST(JsonDepthTest, StageWritingADeepStatusFileFailsTheRunInsteadOfCrashing) {
  ScratchDir dir;
  const std::string graph = dir.sub("deep.dot");
  spit(graph,
       "digraph deep {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n"
       "  agent [shape=parallelogram, tool_command=\"cp '" +
           kDeepStatus +
           "' \\\"$ATTRACTOR_STAGE_DIR/status.json\\\"\"]\n"
           "  start -> agent -> exit\n}\n");
  ProcessResult r = run_attractor({"run", graph, "--simulate", "--logs-root", dir.sub("run"), "-q"});
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("invalid status.json in stage directory: status.json is not valid JSON: nested deeper than 256 "
                       "levels"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace attractor::hardening
