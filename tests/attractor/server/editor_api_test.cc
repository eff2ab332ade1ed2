// The web editor's endpoints (editor_api.h, docs/server.md "The pipeline editor"): the path rules
// of open and save, and the language service over HTTP-shaped answers.

#include "attractor/server/editor_api.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/engine_test_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;

constexpr const char* kTypo =
    "digraph G {\n    start [shape=Mdiamond]\n    exit [shape=Msquare]\n    a [shape=bx, prompt=\"p\"]\n"
    "    start -> a -> exit\n}\n";

class EditorApiTest : public ::testing::Test {
 protected:
  EditorApiTest() : api_(dir_.sub("graphs"), {}) {
    fs::create_directories(dir_.sub("graphs/sub"));
    write_text_file(dir_.sub("graphs/sub/g.dot"), kTypo);
    write_text_file(dir_.sub("outside.dot"), "digraph X {}");
  }
  TempDir dir_;
  EditorApi api_;
};

TEST_F(EditorApiTest, OpensAndSavesOnlyDotFilesInsideTheGraphsDirectory) {
  ApiReply opened = api_.open("sub/g.dot");
  ASSERT_EQ(opened.status, 200) << opened.body.dump();
  EXPECT_EQ(opened.body["dot"], kTypo);
  EXPECT_EQ(api_.open("sub/none.dot").status, 404);
  for (const char* bad : {"../outside.dot", "/etc/passwd.dot", "sub/g.txt", "sub/./g.dot", ".hidden.dot", "a b.dot",
                          "missing/new.dot", ""}) {
    EXPECT_EQ(api_.open(bad).status, 400) << bad;
    EXPECT_EQ(api_.save({{"path", bad}, {"dot", "digraph G {}"}}).status, 400) << bad;
  }
  fs::create_symlink(dir_.sub("outside.dot"), dir_.sub("graphs/link.dot"));
  EXPECT_EQ(api_.open("link.dot").body["error"], "'link.dot' is a symbolic link; the editor does not follow links");
  EXPECT_EQ(api_.save({{"path", "link.dot"}, {"dot", "x"}}).status, 400);
  EXPECT_EQ(read_text_file(dir_.sub("outside.dot")), "digraph X {}");
  fs::create_directory_symlink(dir_.path(), dir_.sub("graphs/up"));
  EXPECT_EQ(api_.save({{"path", "up/outside.dot"}, {"dot", "x"}}).status, 400);

  ApiReply saved = api_.save({{"path", "sub/new.dot"}, {"dot", "digraph N {}\n"}});
  ASSERT_EQ(saved.status, 200) << saved.body.dump();
  EXPECT_EQ(saved.body, json({{"path", "sub/new.dot"}, {"bytes", 13}}));
  EXPECT_EQ(read_text_file(dir_.sub("graphs/sub/new.dot")), "digraph N {}\n");
  EXPECT_EQ(api_.save({{"path", "sub/new.dot"}}).status, 400);
  EXPECT_EQ(api_.save({{"path", "sub/big.dot"}, {"dot", std::string(kMaxEditorSourceBytes + 1, ' ')}}).status, 413);
}

TEST_F(EditorApiTest, DiagnosticsCarryRangesAndQuickFixes) {
  ApiReply r = api_.diagnostics({{"dot", kTypo}});
  ASSERT_EQ(r.status, 200);
  ASSERT_EQ(r.body["diagnostics"].size(), 1u) << r.body.dump();
  const json& d = r.body["diagnostics"][0];
  EXPECT_EQ(d["code"], "shape_known");
  EXPECT_EQ(d["range"], json::parse(R"({"start":{"line":3,"character":13},"end":{"line":3,"character":15}})"));
  EXPECT_EQ(d["quickFix"]["title"], "Replace 'bx' with 'box'");
  EXPECT_EQ(d["quickFix"]["newText"], "box");
  EXPECT_EQ(api_.diagnostics({{"text", kTypo}}).status, 400);
}

TEST_F(EditorApiTest, CompletionHoverAndFormatAnswerLikeTheLanguageServer) {
  ApiReply c = api_.completion({{"dot", kTypo}, {"line", 3}, {"character", 15}});
  ASSERT_EQ(c.status, 200);
  bool has_box = false;
  for (const json& item : c.body["items"]) has_box |= item["label"] == "box";
  EXPECT_TRUE(has_box) << c.body.dump();
  EXPECT_EQ(api_.completion({{"dot", kTypo}}).status, 400);
  ApiReply h = api_.hover({{"dot", kTypo}, {"line", 4}, {"character", 13}});
  ASSERT_EQ(h.status, 200);
  EXPECT_NE(h.body["contents"]["value"].get<std::string>().find("**node `a`**"), std::string::npos);
  EXPECT_TRUE(api_.hover({{"dot", kTypo}, {"line", 0}, {"character", 0}}).body.is_null());
  ApiReply f = api_.format({{"dot", "digraph G{a->b}"}});
  EXPECT_EQ(f.body, json({{"dot", "digraph G {\n    a -> b\n}\n"}}));
  EXPECT_EQ(api_.format({{"dot", "digraph G{a->"}}).status, 400);
}

TEST_F(EditorApiTest, PreviewDrawsWithGraphvizAndRefusesWhatDoesNotParse) {
  DotProcessRenderer renderer;
  SvgResult svg = api_.preview({{"dot", kTypo}}, renderer);
  ASSERT_TRUE(svg.ok) << svg.error;
  EXPECT_NE(svg.svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.svg.find(">a<"), std::string::npos);
  SvgResult bad = api_.preview({{"dot", "digraph {"}}, renderer);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.status, 400);
}

}  // namespace
}  // namespace attractor
