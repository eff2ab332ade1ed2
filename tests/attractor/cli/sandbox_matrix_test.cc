// The denial matrix of docs/security.md §3 through the real binary: each hostile operation (write
// /etc, the home directory, the logs root, the binary's folder; read secrets and other runs;
// escape through symbolic links or /proc/self/root; reach the host's network; fork-bomb; fill the
// disk; ignore SIGTERM) run as a tool stage, as that stage's post hook and as the coding agent's
// `shell` (the real agent loop against a fake Anthropic server), at `workspace` and `strict`, with
// `none` as the control that shows the probes would see the secrets. One run per level holds
// every operation; afterwards the checkpoint parses and `attractor status` reads the run.

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attractor/run/run_directory.h"
#include "support/fake_llm_server.h"
#include "support/llm_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::BinaryRun;
using testing::FakeLlmServer;
using testing::run_binary;
using testing::ScriptedReply;

/// A scratch tree beside the attractor binary, outside /tmp: the sandbox's private /tmp would
/// hide a tree under /tmp on its own and so prove nothing about hiding the home directory.
class MatrixRoot {
 public:
  MatrixRoot() {
    std::string pattern = (fs::path(ATTRACTOR_BINARY_PATH).parent_path() / "sandbox-matrix-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~MatrixRoot() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  MatrixRoot(const MatrixRoot&) = delete;
  MatrixRoot& operator=(const MatrixRoot&) = delete;
  std::string sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// One hostile operation: its command for the kind `tag` ("tool", "hook" or "agent"), the levels
/// it runs at, what its output must show and must not show (at `none`, the control, it must show
/// those), and the denied lines (regular expressions, whole line) it leaves.
struct Operation {
  std::string name;
  std::function<std::string(const std::string& tag)> command;
  std::vector<std::string> levels;
  std::vector<std::string> must_show;
  std::vector<std::string> must_not_show;
  std::function<std::vector<std::string>(const std::string& tag)> denied;
};

/// What one command left: its stdout and stderr (or the tool result the model got), its denied lines.
struct Trace {
  std::string output;
  std::vector<std::string> denied;
};

const char* const kKinds[] = {"tool", "hook", "agent"};
constexpr std::int64_t kFileLimit = std::int64_t{1} << 30;  // strict's largest file (docs/security.md)

std::string dot_quoted(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '"' ? std::string("\\\"") : std::string(1, c);
  return out;
}

/// `text` as a regular expression that matches only itself.
std::string literal(const std::string& text) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(text, special, R"(\$&)");
}

std::string reply_turn(const json& content) { return testing::anthropic_message(content, 10, 5); }

bool runs_at(const Operation& op, const std::string& level) {
  return std::find(op.levels.begin(), op.levels.end(), level) != op.levels.end();
}

std::vector<std::string> string_list(const json& j) {
  std::vector<std::string> out;
  if (j.is_array()) {
    for (const json& line : j) out.push_back(line.get<std::string>());
  }
  return out;
}

std::string read_or_empty(const fs::path& file) {
  std::error_code ec;
  return fs::exists(file, ec) ? read_text_file(file.string()) : "";
}

/// Each of `lines` matches the pattern at the same place in `patterns`, and there are as many.
void expect_lines_match(const std::vector<std::string>& lines, const std::vector<std::string>& patterns,
                        const std::string& where) {
  ASSERT_EQ(lines.size(), patterns.size()) << where << ": " << json(lines).dump();
  for (std::size_t i = 0; i < lines.size(); ++i)
    EXPECT_TRUE(std::regex_match(lines[i], std::regex(patterns[i]))) << where << ": " << lines[i];
}

class SandboxMatrixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* d : {"home/.ssh", "home/.aws", "home/.config/gh", "ws", "runs/other"})
      fs::create_directories(root_.sub(d));
    write_text_file(root_.sub("home/.ssh/id_rsa"), "SSH-SECRET\n");
    write_text_file(root_.sub("home/.aws/credentials"), "AWS-SECRET\n");
    write_text_file(root_.sub("home/.config/gh/hosts.yml"), "CONFIG-SECRET\n");
    write_text_file(root_.sub("runs/other/secret.txt"), "OTHER-RUN-SECRET\n");
    fs::create_symlink(root_.sub("home/.ssh/id_rsa"), root_.sub("ws/key"));
    fs::create_symlink("/etc", root_.sub("ws/etc-link"));
    fs::create_symlink(root_.sub("runs/other"), root_.sub("ws/other-link"));
  }

  std::string run_dir(const std::string& level) const { return root_.sub("runs/" + level); }
  static std::string bin_dir() { return fs::path(ATTRACTOR_BINARY_PATH).parent_path().string(); }

  std::vector<Operation> operations(const std::string& level) const;
  std::string graph(const std::vector<Operation>& ops) const;
  BinaryRun run(const std::vector<Operation>& ops, const std::string& level, std::vector<json>& requests);
  std::map<std::string, Trace> traces(const Operation& op, std::size_t index, const std::string& level,
                                      const std::vector<json>& requests) const;
  void expect_nothing_escaped(const std::string& level) const;
  void expect_contained(const std::string& level);

  MatrixRoot root_;
  FakeLlmServer host_service_;  ///< on the host's loopback: `strict` must not reach it
  testing::ScratchDir logs_;
};

std::vector<std::string> one(const std::string& line) { return {literal(line)}; }

const std::vector<std::string> kConfined = {"workspace", "strict"};
const std::vector<std::string> kAllLevels = {"none", "workspace", "strict"};
const char kReadOnly[] = ": Read-only file system";

std::vector<std::string> no_denial(const std::string&) { return {}; }

/// `touch PREFIX<tag>`, which the confined levels refuse as a write to a read-only file system.
Operation touch_refused(const std::string& name, const std::string& prefix) {
  return {name,
          [prefix](const std::string& t) { return "touch " + prefix + t; },
          kConfined,
          {},
          {},
          [prefix](const std::string& t) { return one("touch: cannot touch '" + prefix + t + "'" + kReadOnly); }};
}

/// `command` reads `secrets`, which the confined levels hide and `none` shows.
Operation read_hidden(const std::string& name, const std::string& command, std::vector<std::string> secrets,
                      std::vector<std::string> levels = kAllLevels) {
  return {name,     [command](const std::string&) { return command; }, std::move(levels), {}, std::move(secrets),
          no_denial};
}

/// Writes outside the workspace: the system, the home directory, the logs root, the binary's folder.
std::vector<Operation> write_operations(const std::string& run, const std::string& bin) {
  // A binary folder under /tmp (a clone built there) is behind the sandbox's private /tmp: the
  // write lands in that throwaway /tmp, and nothing reaches the real folder either way.
  Operation binary_folder = touch_refused("bin", bin + "/attractor-sbx-");
  if (bin.rfind("/tmp/", 0) == 0) binary_folder.denied = no_denial;
  std::vector<Operation> ops = {touch_refused("etc", "/etc/attractor-sbx-"), binary_folder,
                                touch_refused("symlink_write", "etc-link/attractor-sbx-link-"),
                                touch_refused("proc_write", "/proc/self/root/etc/attractor-sbx-proc-")};
  ops.push_back(
      {"home",
       [](const std::string& t) { return "rm -rf ~/.ssh; echo pwned > ~/planted-" + t + "; cat ~/planted-" + t; },
       kConfined,
       {"pwned"},
       {},
       no_denial});
  ops.push_back({"logs",
                 [run](const std::string& t) {
                   return "echo pwned > " + run + "/planted-" + t + "; echo broken > " + run + "/checkpoint.json";
                 },
                 kConfined,
                 {},
                 {},
                 [run](const std::string& t) {
                   return std::vector<std::string>{
                       literal("/bin/sh: 1: cannot create " + run + "/planted-" + t + kReadOnly),
                       literal("/bin/sh: 1: cannot create " + run + "/checkpoint.json" + kReadOnly)};
                 }});
  return ops;
}

/// Reads of secrets: the home directory's, another run's, through symbolic links and /proc.
std::vector<Operation> read_operations(const std::string& other) {
  return {read_hidden("secrets", "cat ~/.ssh/id_rsa ~/.aws/credentials ~/.config/gh/hosts.yml",
                      {"SSH-SECRET", "AWS-SECRET", "CONFIG-SECRET"}),
          read_hidden("others", "cat " + other + "/secret.txt", {"OTHER-RUN-SECRET"}),
          read_hidden("symlink", "cat key other-link/secret.txt", {"SSH-SECRET", "OTHER-RUN-SECRET"}),
          read_hidden("proc", "cat /proc/self/root$HOME/.aws/credentials /proc/1/root$HOME/.aws/credentials",
                      {"AWS-SECRET"}, kConfined)};
}

/// What only `strict` stops (the host's loopback and the network: no IP socket at all, so wget
/// is refused at once; a fork bomb, a huge file), and
/// a command that ignores SIGTERM, stopped at every level.
std::vector<Operation> limit_operations(const std::string& url) {
  std::vector<Operation> ops;
  ops.push_back(
      {"network",
       [url](const std::string&) {
         return "curl -sS -m 5 -d {} " + url + "/v1/chat/completions; wget -T 5 -t 1 -O /dev/null http://192.0.2.1/";
       },
       {"strict"},
       {},
       {"reply"},
       [url](const std::string&) {
         return std::vector<std::string>{
             literal("curl: (7) Failed to connect to 127.0.0.1 port " + url.substr(url.rfind(':') + 1) + " after ") +
                 "[0-9]+" + literal(" ms: Couldn't connect to server"),
             literal("Connecting to 192.0.2.1:80... failed: Permission denied.")};
       }});
  ops.push_back({"bomb",
                 [](const std::string&) {
                   return "i=0; while [ $i -lt 400 ]; do sleep 30 & i=$((i+1)); done; echo all-400-started";
                 },
                 {"strict"},
                 {},
                 {"all-400-started"},
                 [](const std::string&) { return one("/bin/sh: 0: Cannot fork"); }});
  ops.push_back(
      {"fill",
       [](const std::string& t) { return "dd if=/dev/zero of=big-" + t + " bs=1M seek=1023 count=2 status=none"; },
       {"strict"},
       {},
       {},
       [](const std::string&) { return one("File size limit exceeded"); }});
  ops.push_back(
      {"sigterm", [](const std::string&) { return "trap '' TERM; sleep 30"; }, kAllLevels, {}, {}, no_denial});
  return ops;
}

std::vector<Operation> SandboxMatrixTest::operations(const std::string& level) const {
  std::vector<Operation> here;
  for (std::vector<Operation> group :
       {write_operations(run_dir(level), bin_dir()), read_operations(root_.sub("runs/other")),
        limit_operations(host_service_.url())}) {
    for (Operation& op : group) {
      if (runs_at(op, level)) here.push_back(std::move(op));
    }
  }
  return here;
}

/// A tool stage per operation, its post hook doing the same, then the agent doing each in turn.
std::string SandboxMatrixTest::graph(const std::vector<Operation>& ops) const {
  std::string dot = "digraph matrix {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n";
  std::string previous = "start";
  auto edge = [&dot, &previous](const std::string& to) {
    for (const char* outcome : {"success", "fail"})
      dot += "  " + previous + " -> " + to + " [condition=\"outcome=" + outcome + "\"]\n";
    previous = to;
  };
  for (const Operation& op : ops) {
    dot += "  " + op.name + " [shape=parallelogram, tool_cwd=\"" + root_.sub("ws") + "\", tool_command=\"" +
           dot_quoted(op.command("tool")) + "\", tool_hooks.post=\"" + dot_quoted(op.command("hook")) + "\"" +
           (op.name == "sigterm" ? ", timeout=\"1s\"" : "") + "]\n";
    edge(op.name);
  }
  dot += "  agent [llm_provider=agent, llm_model=\"claude-test\", workdir=\"" + root_.sub("ws") +
         "\", prompt=\"go\"]\n";
  edge("agent");
  edge("exit");
  return dot + "}\n";
}

BinaryRun SandboxMatrixTest::run(const std::vector<Operation>& ops, const std::string& level,
                                 std::vector<json>& requests) {
  FakeLlmServer anthropic;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    json input = {{"command", ops[i].command("agent")}};
    if (ops[i].name == "sigterm") input["timeout_ms"] = 1000;
    ScriptedReply reply;
    reply.body = reply_turn(
        json::array({{{"type", "tool_use"}, {"id", "t" + std::to_string(i)}, {"name", "shell"}, {"input", input}}}));
    anthropic.push(reply);
  }
  ScriptedReply done;
  done.body = reply_turn(json::array({{{"type", "text"}, {"text", "done"}}}));
  anthropic.push(done);
  write_text_file(root_.sub(level + ".dot"), graph(ops));
  // Started in the workspace (env -C), so the tree the tool stages may write is the workspace alone.
  BinaryRun r = run_binary(
      {"-C", root_.sub("ws"), ATTRACTOR_BINARY_PATH, "run", root_.sub(level + ".dot"), "--logs-root", run_dir(level),
       "-q", "--sandbox", level},
      {{"ANTHROPIC_BASE_URL", anthropic.url()}, {"ATTRACTOR_LLM_MAX_RETRIES", "0"}, {"HOME", root_.sub("home")}}, logs_,
      "/usr/bin/env");
  for (const auto& request : anthropic.requests()) requests.push_back(request.body);
  return r;
}

std::map<std::string, Trace> SandboxMatrixTest::traces(const Operation& op, std::size_t index, const std::string& level,
                                                       const std::vector<json>& requests) const {
  fs::path stage = fs::path(run_dir(level)) / op.name;
  fs::path attempt = fs::exists(stage / "attempt-1") ? stage / "attempt-1" : stage;
  json status = json::parse(read_text_file((stage / "status.json").string()));
  std::map<std::string, Trace> out;
  out["tool"] = {read_or_empty(attempt / "stdout.txt") + read_or_empty(attempt / "stderr.txt"),
                 string_list(status["sandbox"]["denied"])};
  out["hook"] = {read_or_empty(attempt / "hook-post.stdout.txt") + read_or_empty(attempt / "hook-post.stderr.txt"),
                 string_list(status["hooks"]["post"].value("denied", json::array()))};
  const json& messages = requests.at(index + 1)["messages"];
  out["agent"] = {messages.back()["content"][0]["content"].get<std::string>(), {}};
  return out;
}

/// No probe file exists outside the sandbox's writable trees, and the home directory is intact.
void SandboxMatrixTest::expect_nothing_escaped(const std::string& level) const {
  for (const char* t : kKinds) {
    const std::string tag = t;
    for (const std::string& file :
         {"/etc/attractor-sbx-" + tag, bin_dir() + "/attractor-sbx-" + tag, "/etc/attractor-sbx-link-" + tag,
          "/etc/attractor-sbx-proc-" + tag, run_dir(level) + "/planted-" + tag, root_.sub("home/planted-" + tag)})
      EXPECT_FALSE(fs::exists(file)) << file;
  }
  EXPECT_EQ(read_text_file(root_.sub("home/.ssh/id_rsa")), "SSH-SECRET\n");
}

void SandboxMatrixTest::expect_contained(const std::string& level) {
  std::vector<Operation> ops = operations(level);
  std::vector<json> requests;
  auto started = std::chrono::steady_clock::now();
  BinaryRun r = run(ops, level, requests);
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(requests.size(), ops.size() + 1);
  EXPECT_LT(seconds, 20) << "a SIGTERM-ignoring command outlived its timeout's grace period";
  std::vector<std::string> agent_denied, agent_expected;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Operation& op = ops[i];
    std::map<std::string, Trace> seen = traces(op, i, level, requests);
    json status = json::parse(read_text_file(run_dir(level) + "/" + op.name + "/status.json"));
    EXPECT_EQ(status["sandbox"]["level"], level) << op.name;
    EXPECT_EQ(status["hooks"]["post"]["sandbox"], level) << op.name;
    for (const char* kind : kKinds) {
      const std::string where = level + " " + op.name + " as " + kind;
      for (const std::string& text : op.must_show) EXPECT_NE(seen[kind].output.find(text), std::string::npos) << where;
      for (const std::string& text : op.must_not_show)
        EXPECT_EQ(seen[kind].output.find(text) != std::string::npos, level == "none") << where << ": " << text;
      if (std::string(kind) != "agent") expect_lines_match(seen[kind].denied, op.denied(kind), where);
    }
    for (const std::string& line : op.denied("agent")) agent_expected.push_back(line);
  }
  json agent = json::parse(read_text_file(run_dir(level) + "/agent/status.json"));
  EXPECT_EQ(agent["sandbox"]["level"], level);
  expect_lines_match(string_list(agent["sandbox"]["denied"]), agent_expected, level + " agent");
  expect_nothing_escaped(level);
  EXPECT_NO_THROW(json::parse(read_text_file(run_dir(level) + "/checkpoint.json")));
  BinaryRun status = run_binary({"status", run_dir(level)}, {}, logs_);
  EXPECT_EQ(status.code, 0) << status.err;
}

/// The SIGTERM-ignoring command of every kind was stopped at its 1 s timeout.
void expect_sigterm_stopped(const std::string& run) {
  json status = json::parse(read_text_file(run + "/sigterm/status.json"));
  EXPECT_EQ(status["failure_reason"], "tool timed out after 1000ms: trap '' TERM; sleep 30");
  EXPECT_EQ(status["hooks"]["post"]["message"], "timed out after 1000ms");
  EXPECT_EQ(status["hooks"]["post"]["ok"], false);
}

TEST_F(SandboxMatrixTest, NoneIsTheControlTheProbesSeeTheSecrets) {
  expect_contained("none");
  expect_sigterm_stopped(run_dir("none"));
}

TEST_F(SandboxMatrixTest, WorkspaceDeniesWritesOutsideAndHidesSecretsForEveryKind) {
  expect_contained("workspace");
  expect_sigterm_stopped(run_dir("workspace"));
  json etc = json::parse(read_text_file(run_dir("workspace") + "/etc/status.json"));
  EXPECT_EQ(etc["failure_reason"], "tool exited with code 1");
  EXPECT_EQ(etc["sandbox"]["network"], "all");
}

TEST_F(SandboxMatrixTest, StrictAlsoCutsTheNetworkAndLimitsProcessesAndFileSizes) {
  expect_contained("strict");
  expect_sigterm_stopped(run_dir("strict"));
  EXPECT_TRUE(host_service_.requests().empty());
  for (const char* t : kKinds) {
    EXPECT_EQ(static_cast<std::int64_t>(fs::file_size(root_.sub(std::string("ws/big-") + t))), kFileLimit) << t;
  }
  json fill = json::parse(read_text_file(run_dir("strict") + "/fill/status.json"));
  EXPECT_EQ(fill["failure_reason"], "tool exited with code 153");  // 128 + SIGXFSZ, reported by the shell
  json bomb = json::parse(read_text_file(run_dir("strict") + "/bomb/status.json"));
  EXPECT_EQ(bomb["failure_reason"], "tool exited with code 2");
  EXPECT_EQ(bomb["sandbox"]["network"], "none");
}

}  // namespace
}  // namespace attractor
