// Sandbox levels through the real binary (docs/security.md): a tool stage and its hooks confined
// by the node's `sandbox`, `--sandbox` for the run, what status.json and `--dry-run` say, and lint
// refusing sandbox paths that look like context substitution.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::ScratchDir;
using hardening::slurp;
using hardening::spit;

nlohmann::json json_file(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

const char kGraph[] = R"(digraph confined {
  graph [tool_hooks.pre="test ! -e \"$ATTRACTOR_RUN_DIR/manifest.json\""]
  start [shape=Mdiamond]
  peek  [shape=parallelogram, sandbox=workspace,
         tool_command="cat \"$ATTRACTOR_STAGE_DIR/context.json\" > /dev/null && echo context-ok; cat \"$ATTRACTOR_RUN_DIR/manifest.json\"; touch /etc/attractor-cli-probe"]
  done  [shape=Msquare]
  start -> peek -> done
}
)";

TEST(SandboxRunTest, ANodesSandboxConfinesItsCommandAndHooksAndStatusSaysWhatWasDenied) {
  ScratchDir dir;
  spit(dir.sub("g.dot"), kGraph);
  ProcessResult r = run_attractor({"run", dir.sub("g.dot"), "-q", "--logs-root", dir.sub("run")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(fs::exists("/etc/attractor-cli-probe"));
  EXPECT_EQ(slurp(dir.sub("run/peek/attempt-1/stdout.txt")), "context-ok\n");
  nlohmann::json status = json_file(dir.sub("run/peek/status.json"));
  EXPECT_EQ(status["sandbox"]["level"], "workspace");
  EXPECT_EQ(status["sandbox"]["network"], "all");
  EXPECT_EQ(status["sandbox"]["denied"],
            nlohmann::json::array({"touch: cannot touch '/etc/attractor-cli-probe': Read-only file system"}));
  EXPECT_NE(slurp(dir.sub("run/peek/attempt-1/stderr.txt")).find("manifest.json: No such file or directory"),
            std::string::npos);
  EXPECT_EQ(status["hooks"]["pre"]["sandbox"], "workspace");
  EXPECT_EQ(status["hooks"]["pre"]["ok"], true);  // the hook did not see the manifest either
  const std::string events = slurp(dir.sub("run/events.jsonl"));
  EXPECT_NE(events.find("\"sandbox\":{\"denied\":[\"touch: cannot touch '/etc/attractor-cli-probe': Read-only file "
                        "system\"],\"level\":\"workspace\""),
            std::string::npos)
      << events;
}

TEST(SandboxRunTest, TheRunsSandboxAppliesWhereTheNodeSetsNoneAndTheDryRunShowsEachLevel) {
  ScratchDir dir;
  spit(dir.sub("g.dot"), R"(digraph levels {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="echo a", tool_hooks.post="true"]
  b [shape=parallelogram, tool_command="echo b", sandbox=none]
  done [shape=Msquare]
  start -> a -> b -> done
}
)");
  ProcessResult plan = run_attractor({"run", dir.sub("g.dot"), "--dry-run", "--sandbox", "strict"});
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("commands: tool_command [sandbox strict], tool_hooks.post [sandbox strict]\n"),
            std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("commands: tool_command [sandbox none]\n"), std::string::npos) << plan.out;
  ProcessResult r = run_attractor(
      {"run", dir.sub("g.dot"), "-q", "--sandbox", "strict", "--logs-root", dir.sub("run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json_file(dir.sub("run/a/status.json"))["sandbox"]["level"], "strict");
  EXPECT_EQ(json_file(dir.sub("run/a/status.json"))["sandbox"]["network"], "none");
  EXPECT_EQ(json_file(dir.sub("run/a/status.json"))["hooks"]["post"]["sandbox"], "strict");
  EXPECT_EQ(json_file(dir.sub("run/b/status.json"))["sandbox"]["level"], "none");
  EXPECT_EQ(json_file(dir.sub("run/manifest.json"))["options"]["sandbox"], "strict");
}

TEST(SandboxRunTest, SandboxPathsWithContextSyntaxAndUnknownLevelsAreLintErrors) {
  ScratchDir dir;
  spit(dir.sub("g.dot"), R"(digraph widen {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="true", sandbox=workspce, sandbox.write="$goal"]
  done [shape=Msquare]
  start -> a -> done
}
)");
  ProcessResult r = run_attractor({"validate", dir.sub("g.dot")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: [sandbox_literal] node 'a' sets sandbox.write=\"$goal\": sandbox paths are never "
                       "expanded from context, so `$` cannot be used"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("workspce"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'workspace'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attractor
