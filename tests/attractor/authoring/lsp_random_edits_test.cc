// The language server under random edits (issue 40: "a half-typed file never crashes or hangs the
// server"): for ATTRACTOR_LSP_FUZZ_SECONDS (default 60) seconds, random insertions and deletions
// of DOT fragments, each followed by a random request at a random position. Every request gets a
// well-formed answer, no message takes longer than two seconds, and the seed of a failure is
// printed so it can be replayed (ATTRACTOR_LSP_FUZZ_SEED).

#include <chrono>
#include <cstdlib>
#include <random>

#include <gtest/gtest.h>

#include "attractor/authoring/lsp_server.h"
#include "attractor/authoring/text_lines.h"
#include "handlers/registry.h"
#include "support/scripted_message_channel.h"

namespace attractor {

void from_json(const nlohmann::json& j, TextPosition& p) {
  p.line = j.at("line").get<std::size_t>();
  p.character = j.at("character").get<std::size_t>();
}

namespace {

using nlohmann::json;

const char* const kFragments[] = {
    "digraph",
    "G",
    "{",
    "}",
    "[",
    "]",
    "=",
    ";",
    ",",
    "->",
    "--",
    "\"",
    "\"x\"",
    "shape",
    "box",
    "Mdiamond",
    "Msquare",
    "start",
    "exit",
    "a",
    "b",
    "condition=\"outcome=success\"",
    "retry_target=",
    "prompt=\"p\"",
    "subgraph",
    "cluster_x",
    "node",
    "edge",
    "graph",
    "//c\n",
    "/*",
    "*/",
    "\n",
    " ",
    "\\",
    "+",
    "é",
    "🚀",
    "label=\"",
    "fidelity=full",
    "type=tool",
    "tool_command=\"ls\"",
    "\"a\" + \"b\"",
    "#x\n",
    "0",
    "-1",
    "\t",
};

const char* const kRequests[] = {
    "textDocument/completion",      "textDocument/hover",         "textDocument/definition",
    "textDocument/references",      "textDocument/prepareRename", "textDocument/rename",
    "textDocument/documentSymbol",  "textDocument/foldingRange",  "textDocument/formatting",
    "textDocument/rangeFormatting", "textDocument/codeAction",
};

const char* const kSeeds[] = {
    "digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  a [prompt=\"x\"]\n  start -> a -> exit\n}\n",
    "digraph R {\n  graph [goal=\"g\", default_fidelity=full]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n"
    "  subgraph cluster_w {\n    label=\"W\"\n    a [shape=box, retry_target=b]\n    b [type=tool, "
    "tool_command=\"ls\"]\n"
    "  }\n  start -> a -> b -> exit [condition=\"outcome=success && current_node=b\"]\n  b -> a // back\n}\n",
};

/// Random edits of a text it keeps in step with the server's copy, and random requests.
class RandomSession {
 public:
  explicit RandomSession(unsigned seed) : rng_(seed), text_(kSeeds[0]) {}

  const std::string& text() const { return text_; }

  json position_of(std::size_t offset) const {
    TextPosition p = TextLines(text_).position(offset, PositionEncoding::kUtf16);
    return {{"line", p.line}, {"character", p.character}};
  }

  json position() { return position_of(pick(text_.size())); }

  /// One change: now and then the whole text (a fresh seed), else an insertion or a short deletion.
  json random_change() {
    if (++changes_ % 400 == 0) {
      text_ = kSeeds[pick(std::size(kSeeds) - 1)];
      return {{"text", text_}};
    }
    std::size_t begin = pick(text_.size());
    std::size_t end = begin;
    if (rng_() % 5 < 2) end = std::min(text_.size(), begin + 1 + pick(7));
    TextLines lines(text_);
    end = std::min(end, lines.line_start(lines.line_of(begin) + 1));
    std::string text;
    int pieces = static_cast<int>(pick(2));
    for (int i = 0; i < pieces; ++i) {
      text += kFragments[pick(std::size(kFragments) - 1)];
      if (rng_() % 2) text += ' ';
    }
    json range = {{"start", position_of(begin)}, {"end", position_of(end)}};
    begin = TextLines(text_).offset(range["start"].get<TextPosition>(), PositionEncoding::kUtf16);
    end = TextLines(text_).offset(range["end"].get<TextPosition>(), PositionEncoding::kUtf16);
    text_ = apply_edits(text_, {TextEdit{{begin, end}, text}});
    return {{"range", range}, {"text", text}};
  }

  json random_request(int id) {
    const char* method = kRequests[pick(std::size(kRequests) - 1)];
    json params = {{"textDocument", {{"uri", "file:///f.dot"}}}, {"position", position()}};
    params["range"] = {{"start", position()}, {"end", position()}};
    params["newName"] = rng_() % 2 ? "renamed" : "bad name";
    params["context"] = {{"includeDeclaration", true}, {"diagnostics", json::array()}};
    params["options"] = {{"tabSize", 4}, {"insertSpaces", true}};
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
  }

 private:
  std::size_t pick(std::size_t max) { return std::uniform_int_distribution<std::size_t>(0, max)(rng_); }

  std::mt19937 rng_;
  std::string text_;
  std::size_t changes_ = 0;
};

TEST(LspRandomEditsTest, NeverCrashesHangsOrAnswersBadly) {
  const char* seconds_env = std::getenv("ATTRACTOR_LSP_FUZZ_SECONDS");
  const char* seed_env = std::getenv("ATTRACTOR_LSP_FUZZ_SEED");
  const double seconds = seconds_env ? std::atof(seconds_env) : 60.0;
  const unsigned seed = seed_env ? static_cast<unsigned>(std::atoll(seed_env)) : std::random_device{}();
  SCOPED_TRACE("replay with ATTRACTOR_LSP_FUZZ_SEED=" + std::to_string(seed));

  AuthoringCatalog catalog{&builtin_handler_catalog(), {"openai", "anthropic"}};
  ScriptedMessageChannel channel;
  LspServer server(channel, catalog);
  RandomSession session(seed);
  auto send = [&](const json& m) {
    auto started = std::chrono::steady_clock::now();
    server.handle(m.dump());
    server.publish_pending();
    auto took = std::chrono::steady_clock::now() - started;
    ASSERT_LT(took, std::chrono::seconds(2)) << m.dump();
  };
  send({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", {{"capabilities", json::object()}}}});
  send({{"jsonrpc", "2.0"},
        {"method", "textDocument/didOpen"},
        {"params", {{"textDocument", {{"uri", "file:///f.dot"}, {"version", 1}, {"text", session.text()}}}}}});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int id = 1;
  std::size_t edits = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    channel.clear();
    send({{"jsonrpc", "2.0"},
          {"method", "textDocument/didChange"},
          {"params",
           {{"textDocument", {{"uri", "file:///f.dot"}, {"version", id + 1}}},
            {"contentChanges", json::array({session.random_change()})}}}});
    ASSERT_FALSE(channel.last_diagnostics("file:///f.dot").is_null());
    if (id % 997 == 0) {
      send({{"jsonrpc", "2.0"},
            {"id", -id},
            {"method", "textDocument/formatting"},
            {"params", {{"textDocument", {{"uri", "file:///f.dot"}}}, {"options", json::object()}}}});
    }
    send(session.random_request(id));
    json answer = channel.response(id);
    ASSERT_TRUE(answer.is_object()) << "request " << id << " got no answer";
    ASSERT_TRUE(answer.contains("result") || answer.contains("error")) << answer.dump();
    if (answer.contains("error")) {
      int code = answer["error"]["code"];
      ASSERT_TRUE(code == -32803 || code == -32602) << answer.dump();
    }
    ++id;
    ++edits;
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(edits, 100u);
  // The incremental copy is the text: a fresh document with it gets the same diagnostics.
  channel.clear();
  json touch = {{"range", {{"start", session.position_of(0)}, {"end", session.position_of(0)}}}, {"text", ""}};
  send({{"jsonrpc", "2.0"},
        {"method", "textDocument/didChange"},
        {"params",
         {{"textDocument", {{"uri", "file:///f.dot"}, {"version", id + 1}}},
          {"contentChanges", json::array({touch})}}}});
  send({{"jsonrpc", "2.0"},
        {"method", "textDocument/didOpen"},
        {"params", {{"textDocument", {{"uri", "file:///f.dot#copy"}, {"version", 1}, {"text", session.text()}}}}}});
  EXPECT_EQ(channel.last_diagnostics("file:///f.dot")["diagnostics"].dump(),
            channel.last_diagnostics("file:///f.dot#copy")["diagnostics"].dump());
  std::printf("lsp random edits: %zu edits and requests in %.0f s (seed %u)\n", edits, seconds, seed);
}

}  // namespace
}  // namespace attractor
