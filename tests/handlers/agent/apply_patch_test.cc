// The v4a patch format of coding-agent-loop spec Appendix A: parsing (with the patch line of
// every error), applying against an in-memory workspace, fuzzy hunk matching and the
// all-or-nothing rule.

#include "handlers/agent/apply_patch.h"

#include <functional>

#include <gtest/gtest.h>

#include "support/memory_environment.h"

namespace attractor {
namespace {

using testing::MemoryEnvironment;
using Kind = PatchOperation::Kind;
using Line = PatchLine::Kind;

/// The message of the `E` that `f` throws; fails the test when it throws nothing or something else.
template <typename E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "nothing thrown";
  return "";
}

std::string parse_error(std::string_view patch) {
  return error_of<PatchError>([&] { parse_patch(patch); });
}

// ---- Parsing ------------------------------------------------------------------------------------

TEST(ParsePatchTest, AddFile) {
  auto ops = parse_patch(
      "*** Begin Patch\n*** Add File: src/utils/helpers.py\n+def greet(name):\n+    return 1\n+\n"
      "*** End Patch\n");
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].kind, Kind::kAdd);
  EXPECT_EQ(ops[0].path, "src/utils/helpers.py");
  EXPECT_EQ(ops[0].add_lines, (std::vector<std::string>{"def greet(name):", "    return 1", ""}));
  EXPECT_TRUE(ops[0].hunks.empty());
}

TEST(ParsePatchTest, DeleteFile) {
  auto ops = parse_patch("*** Begin Patch\n*** Delete File: src/old_module.py\n*** End Patch\n");
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].kind, Kind::kDelete);
  EXPECT_EQ(ops[0].path, "src/old_module.py");
}

TEST(ParsePatchTest, UpdateWithMoveHunksAndEndOfFile) {
  auto ops = parse_patch(
      "*** Begin Patch\n"
      "*** Update File: old_name.py\n"
      "*** Move to: new_name.py\n"
      "@@ import os\n"
      " import sys\n"
      "-import old_dep\n"
      "+import new_dep\n"
      "@@\n"
      "-last\n"
      "*** End of File\n"
      "*** End Patch\n");
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].kind, Kind::kUpdate);
  EXPECT_EQ(ops[0].path, "old_name.py");
  EXPECT_EQ(ops[0].move_to, "new_name.py");
  ASSERT_EQ(ops[0].hunks.size(), 2u);
  PatchHunk first{"import os",
                  {{Line::kContext, "import sys"}, {Line::kDelete, "import old_dep"}, {Line::kAdd, "import new_dep"}},
                  false};
  PatchHunk second{"", {{Line::kDelete, "last"}}, true};
  EXPECT_EQ(ops[0].hunks[0], first);
  EXPECT_EQ(ops[0].hunks[1], second);
}

TEST(ParsePatchTest, SeveralOperationsInOrder) {
  auto ops = parse_patch(
      "*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** Update File: c\n@@\n-y\n+z\n*** End Patch\n");
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].kind, Kind::kAdd);
  EXPECT_EQ(ops[1].kind, Kind::kDelete);
  EXPECT_EQ(ops[2].kind, Kind::kUpdate);
}

TEST(ParsePatchTest, EmptyLineInHunkIsEmptyContext) {
  auto ops = parse_patch("*** Begin Patch\n*** Update File: a\n@@\n a\n\n-b\n*** End Patch\n");
  ASSERT_EQ(ops[0].hunks.size(), 1u);
  EXPECT_EQ(ops[0].hunks[0].lines,
            (std::vector<PatchLine>{{Line::kContext, "a"}, {Line::kContext, ""}, {Line::kDelete, "b"}}));
}

TEST(ParsePatchTest, EmptyPatchHasNoOperations) {
  EXPECT_TRUE(parse_patch("*** Begin Patch\n*** End Patch\n").empty());
}

TEST(ParsePatchTest, MissingFinalNewlineAndTrailingWhitespaceAreTolerated) {
  EXPECT_EQ(parse_patch("*** Begin Patch\n*** Delete File: a\n*** End Patch").size(), 1u);
  EXPECT_EQ(parse_patch("*** Begin Patch\n*** Delete File: a\n*** End Patch  \n\n  \n\t\n").size(), 1u);
}

TEST(ParsePatchTest, CrlfPatchLinesLoseTheirCarriageReturns) {
  auto ops = parse_patch("*** Begin Patch\r\n*** Update File: a.py\r\n@@ def f():\r\n-x\r\n+y\r\n*** End Patch\r\n");
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].path, "a.py");
  EXPECT_EQ(ops[0].hunks[0].hint, "def f():");
  EXPECT_EQ(ops[0].hunks[0].lines, (std::vector<PatchLine>{{Line::kDelete, "x"}, {Line::kAdd, "y"}}));
}

TEST(ParsePatchTest, PathsAndHintsAreTrimmed) {
  auto ops = parse_patch("*** Begin Patch\n*** Update File:   a.py  \n@@   def f():  \n-x\n*** End Patch\n");
  EXPECT_EQ(ops[0].path, "a.py");
  EXPECT_EQ(ops[0].hunks[0].hint, "def f():");
}

TEST(ParsePatchTest, MoveOntoItselfIsAPlainUpdate) {
  auto ops = parse_patch("*** Begin Patch\n*** Update File: a\n*** Move to: a\n@@\n-x\n*** End Patch\n");
  EXPECT_EQ(ops[0].move_to, "");
}

TEST(ParsePatchTest, MissingBeginPatch) {
  EXPECT_EQ(parse_error("*** Add File: a\n+x\n*** End Patch\n"),
            R"(patch line 1: expected "*** Begin Patch", got "*** Add File: a")");
}

TEST(ParsePatchTest, EmptyText) {
  EXPECT_EQ(parse_error(""), R"(patch line 1: expected "*** Begin Patch", got end of input)");
}

TEST(ParsePatchTest, MissingEndPatch) {
  EXPECT_EQ(
      parse_error("*** Begin Patch\n*** Add File: a\n+x\n"),
      R"(patch line 4: expected "*** Add File: ", "*** Delete File: ", "*** Update File: " or "*** End Patch", got end of input)");
}

TEST(ParsePatchTest, UnknownOperationLine) {
  EXPECT_EQ(
      parse_error("*** Begin Patch\n*** Delete File: a\nfoo\n*** End Patch\n"),
      R"(patch line 3: expected "*** Add File: ", "*** Delete File: ", "*** Update File: " or "*** End Patch", got "foo")");
}

TEST(ParsePatchTest, TextAfterEndPatch) {
  EXPECT_EQ(parse_error("*** Begin Patch\n*** End Patch\n\nmore\n"),
            R"(patch line 4: expected nothing after "*** End Patch", got "more")");
}

TEST(ParsePatchTest, UpdateWithoutHunks) {
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Update File: a.py\n*** End Patch\n"),
            R"(patch line 3: expected "@@" (a hunk of a.py), got "*** End Patch")");
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n-x\n*** End Patch\n"),
            R"(patch line 4: expected "@@" (a hunk of a.py), got "-x")");
}

TEST(ParsePatchTest, HunkWithoutLines) {
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Update File: a\n@@ one\n-x\n@@ two\n@@ three\n-y\n*** End Patch\n"),
            R"(patch line 6: expected a hunk line starting with " ", "-" or "+", got "@@ three")");
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Update File: a\n@@\n*** End Patch\n"),
            R"(patch line 4: expected a hunk line starting with " ", "-" or "+", got "*** End Patch")");
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Update File: a\n@@\n"),
            R"(patch line 4: expected a hunk line starting with " ", "-" or "+", got end of input)");
}

TEST(ParsePatchTest, HunkLineWithoutPrefix) {
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Update File: a\n@@\n x\n\tindented\n*** End Patch\n"),
            R"(patch line 5: expected a hunk line starting with " ", "-" or "+", got "	indented")");
}

TEST(ParsePatchTest, EndOfFileNeedsHunkLinesBeforeIt) {
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch\n"),
            R"(patch line 4: expected a hunk line starting with " ", "-" or "+", got "*** End of File")");
}

TEST(ParsePatchTest, NoHunkAfterEndOfFile) {
  EXPECT_EQ(
      parse_error("*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End of File\n@@\n-y\n*** End Patch\n"),
      R"(patch line 6: expected "*** Add File: ", "*** Delete File: ", "*** Update File: " or "*** End Patch", got "@@")");
}

TEST(ParsePatchTest, AddedLineWithoutPlus) {
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch\n"),
            R"(patch line 4: expected a line of the added file starting with "+", got "y")");
}

TEST(ParsePatchTest, EmptyPath) {
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Add File: \n+x\n*** End Patch\n"),
            R"(patch line 2: expected a file path after "*** Add File: ", got "*** Add File: ")");
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Delete File:\n*** End Patch\n"),
            R"(patch line 2: expected a file path after "*** Delete File: ", got "*** Delete File:")");
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Update File: a\n*** Move to:  \n@@\n-x\n*** End Patch\n"),
            R"(patch line 3: expected a file path after "*** Move to: ", got "*** Move to:  ")");
}

TEST(ParsePatchTest, SamePathTwice) {
  EXPECT_EQ(parse_error("*** Begin Patch\n*** Delete File: a\n*** Add File: a\n+x\n*** End Patch\n"),
            "patch line 3: a appears more than once in the patch");
  EXPECT_EQ(
      parse_error("*** Begin Patch\n*** Add File: b\n+x\n*** Update File: a\n*** Move to: b\n@@\n-x\n*** End Patch\n"),
      "patch line 5: b appears more than once in the patch");
}

TEST(ParsePatchTest, LongLinesAreShortenedInMessages) {
  std::string line(200, 'x');
  EXPECT_EQ(
      parse_error("*** Begin Patch\n" + line + "\n"),
      R"(patch line 2: expected "*** Add File: ", "*** Delete File: ", "*** Update File: " or "*** End Patch", got ")" +
          std::string(120, 'x') + "...\"");
}

// ---- Applying -----------------------------------------------------------------------------------

TEST(ApplyPatchTest, AddsFile) {
  MemoryEnvironment env;
  auto result = apply_patch(env,
                            "*** Begin Patch\n*** Add File: src/utils/helpers.py\n+def greet(name):\n"
                            "+    return f\"Hello, {name}!\"\n*** End Patch\n");
  EXPECT_EQ(result.summary, (std::vector<std::string>{"A src/utils/helpers.py"}));
  EXPECT_EQ(env.files().at("src/utils/helpers.py"), "def greet(name):\n    return f\"Hello, {name}!\"\n");
}

TEST(ApplyPatchTest, AddsEmptyFile) {
  MemoryEnvironment env;
  apply_patch(env, "*** Begin Patch\n*** Add File: empty.txt\n*** End Patch\n");
  EXPECT_EQ(env.files().at("empty.txt"), "");
}

TEST(ApplyPatchTest, AddingExistingFileFails) {
  MemoryEnvironment env({{"a.py", "old\n"}});
  EXPECT_EQ(
      error_of<PatchError>([&] { apply_patch(env, "*** Begin Patch\n*** Add File: a.py\n+new\n*** End Patch\n"); }),
      "apply_patch: cannot add a.py: the file already exists");
  EXPECT_EQ(env.files().at("a.py"), "old\n");
}

TEST(ApplyPatchTest, DeletesFile) {
  MemoryEnvironment env({{"src/old_module.py", "x\n"}, {"keep.py", "y\n"}});
  auto result = apply_patch(env, "*** Begin Patch\n*** Delete File: src/old_module.py\n*** End Patch\n");
  EXPECT_EQ(result.summary, (std::vector<std::string>{"D src/old_module.py"}));
  EXPECT_EQ(env.files(), (std::map<std::string, std::string>{{"keep.py", "y\n"}}));
}

TEST(ApplyPatchTest, DeletingMissingFileFails) {
  MemoryEnvironment env;
  EXPECT_EQ(
      error_of<FileNotFound>([&] { apply_patch(env, "*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n"); }),
      "apply_patch: cannot delete a.py: the file does not exist");
}

TEST(ApplyPatchTest, UpdatingMissingFileFails) {
  MemoryEnvironment env;
  EXPECT_EQ(error_of<FileNotFound>(
                [&] { apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n*** End Patch\n"); }),
            "apply_patch: cannot update a.py: the file does not exist");
}

TEST(ApplyPatchTest, UpdatesWithContext) {
  MemoryEnvironment env({{"src/main.py", "import sys\n\ndef main():\n    print(\"Hello\")\n    return 0\n"}});
  auto result = apply_patch(env,
                            "*** Begin Patch\n"
                            "*** Update File: src/main.py\n"
                            "@@ def main():\n"
                            "     print(\"Hello\")\n"
                            "-    return 0\n"
                            "+    print(\"World\")\n"
                            "+    return 1\n"
                            "*** End Patch\n");
  EXPECT_EQ(result.summary, (std::vector<std::string>{"M src/main.py"}));
  EXPECT_EQ(env.files().at("src/main.py"),
            "import sys\n\ndef main():\n    print(\"Hello\")\n    print(\"World\")\n    return 1\n");
}

TEST(ApplyPatchTest, UpdatesAndMoves) {
  MemoryEnvironment env({{"old_name.py", "import os\nimport sys\nimport old_dep\n"}});
  auto result = apply_patch(env,
                            "*** Begin Patch\n"
                            "*** Update File: old_name.py\n"
                            "*** Move to: new_name.py\n"
                            "@@ import os\n"
                            " import sys\n"
                            "-import old_dep\n"
                            "+import new_dep\n"
                            "*** End Patch\n");
  EXPECT_EQ(result.summary, (std::vector<std::string>{"M old_name.py -> new_name.py"}));
  EXPECT_EQ(env.files(),
            (std::map<std::string, std::string>{{"new_name.py", "import os\nimport sys\nimport new_dep\n"}}));
}

TEST(ApplyPatchTest, MoveOntoExistingFileFails) {
  MemoryEnvironment env({{"a.py", "x\n"}, {"b.py", "y\n"}});
  EXPECT_EQ(error_of<PatchError>([&] {
              apply_patch(env,
                          "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+z\n*** End Patch\n");
            }),
            "apply_patch: cannot move a.py to b.py: the target already exists");
  EXPECT_EQ(env.files(), (std::map<std::string, std::string>{{"a.py", "x\n"}, {"b.py", "y\n"}}));
}

TEST(ApplyPatchTest, MultipleHunks) {
  MemoryEnvironment env({{"src/config.py",
                          "DEFAULT_TIMEOUT = 30\n\ndef load_config():\n    config = {}\n    config[\"debug\"] = False\n"
                          "    return config\n"}});
  apply_patch(env,
              "*** Begin Patch\n"
              "*** Update File: src/config.py\n"
              "@@ DEFAULT_TIMEOUT = 30\n"
              "-DEFAULT_TIMEOUT = 30\n"
              "+DEFAULT_TIMEOUT = 60\n"
              "@@ def load_config():\n"
              "     config = {}\n"
              "-    config[\"debug\"] = False\n"
              "+    config[\"debug\"] = True\n"
              "*** End Patch\n");
  EXPECT_EQ(env.files().at("src/config.py"),
            "DEFAULT_TIMEOUT = 60\n\ndef load_config():\n    config = {}\n    config[\"debug\"] = True\n"
            "    return config\n");
}

TEST(ApplyPatchTest, MultipleFiles) {
  MemoryEnvironment env({{"gone.txt", "bye\n"}, {"edit.txt", "a\nb\nc\n"}, {"move.txt", "m\n"}});
  auto result = apply_patch(env,
                            "*** Begin Patch\n"
                            "*** Add File: new.txt\n+hello\n"
                            "*** Delete File: gone.txt\n"
                            "*** Update File: edit.txt\n@@\n a\n-b\n+B\n"
                            "*** Update File: move.txt\n*** Move to: dir/moved.txt\n@@\n-m\n+n\n"
                            "*** End Patch\n");
  EXPECT_EQ(result.summary,
            (std::vector<std::string>{"A new.txt", "D gone.txt", "M edit.txt", "M move.txt -> dir/moved.txt"}));
  EXPECT_EQ(env.files(), (std::map<std::string, std::string>{
                             {"new.txt", "hello\n"}, {"edit.txt", "a\nB\nc\n"}, {"dir/moved.txt", "n\n"}}));
}

TEST(ApplyPatchTest, HintPicksTheOccurrenceAfterIt) {
  MemoryEnvironment env({{"a.py", "def first():\n    return 0\n\ndef second():\n    return 0\n"}});
  apply_patch(
      env, "*** Begin Patch\n*** Update File: a.py\n@@ def second():\n-    return 0\n+    return 2\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "def first():\n    return 0\n\ndef second():\n    return 2\n");
}

TEST(ApplyPatchTest, WithoutHintTheFirstOccurrenceIsTaken) {
  MemoryEnvironment env({{"a.py", "x = 0\nx = 0\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 0\n+x = 1\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "x = 1\nx = 0\n");
}

TEST(ApplyPatchTest, HintNotFoundFallsBackToPreviousPosition) {
  MemoryEnvironment env({{"a.py", "a\nb\nc\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@ def nowhere():\n-b\n+B\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "a\nB\nc\n");
}

TEST(ApplyPatchTest, HintBelowTheContextFallsBackToPreviousPosition) {
  MemoryEnvironment env({{"a.py", "# header\nx = 1\ndef main():\n    pass\n"}});
  apply_patch(env,
              "*** Begin Patch\n*** Update File: a.py\n@@ def main():\n-x = 1\n+x = 2\n def main():\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "# header\nx = 2\ndef main():\n    pass\n");
}

TEST(ApplyPatchTest, HunksApplyTopToBottom) {
  MemoryEnvironment env({{"a.py", "one\ntwo\nthree\n"}});
  EXPECT_EQ(error_of<PatchError>([&] {
              apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n-three\n+3\n@@\n-one\n+1\n*** End Patch\n");
            }),
            "apply_patch: a.py: hunk 2 does not match the file; the expected lines were:\none");
  EXPECT_EQ(env.files().at("a.py"), "one\ntwo\nthree\n");
}

TEST(ApplyPatchTest, SecondHunkSearchesAfterTheFirst) {
  MemoryEnvironment env({{"a.py", "x\ny\nx\ny\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+X1\n@@\n-x\n+X2\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "X1\ny\nX2\ny\n");
}

TEST(ApplyPatchTest, MismatchNamesFileHunkAndExpectedLines) {
  MemoryEnvironment env({{"src/a.py", "import os\n\ndef main():\n    run()\n"}});
  EXPECT_EQ(error_of<PatchError>([&] {
              apply_patch(env,
                          "*** Begin Patch\n*** Update File: src/a.py\n"
                          "@@ import os\n-import os\n+import sys\n"
                          "@@ def main():\n def main():\n-    start()\n+    go()\n"
                          "*** End Patch\n");
            }),
            "apply_patch: src/a.py: hunk 2 (@@ def main():) does not match the file; the expected lines were:\n"
            "def main():\n    start()");
  EXPECT_EQ(env.files().at("src/a.py"), "import os\n\ndef main():\n    run()\n");
}

TEST(ApplyPatchTest, IgnoresTrailingWhitespace) {
  MemoryEnvironment env({{"a.py", "keep  \nold \t\nend\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n keep\n-old\n+new\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "keep  \nnew\nend\n");
}

TEST(ApplyPatchTest, IgnoresLeadingWhitespace) {
  MemoryEnvironment env({{"a.py", "def f():\n\tif x:\n\t\treturn 1\n"}});
  apply_patch(
      env, "*** Begin Patch\n*** Update File: a.py\n@@\n     if x:\n-        return 1\n+\t\treturn 2\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "def f():\n\tif x:\n\t\treturn 2\n");
}

TEST(ApplyPatchTest, ExactMatchBeatsEarlierFuzzyMatch) {
  MemoryEnvironment env({{"a.py", "  x\ny\nx\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+z\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "  x\ny\nz\n");
}

TEST(ApplyPatchTest, NormalisesUnicodePunctuationInTheFile) {
  MemoryEnvironment env({{"a.md", "He said \u201Chi\u201D \u2014 it\u2019s late\u00A0now\nnext \u2013 line\n"}});
  apply_patch(env,
              "*** Begin Patch\n*** Update File: a.md\n@@\n He said \"hi\" - it's late now\n-next - line\n+last line\n"
              "*** End Patch\n");
  EXPECT_EQ(env.files().at("a.md"), "He said \u201Chi\u201D \u2014 it\u2019s late\u00A0now\nlast line\n");
}

TEST(ApplyPatchTest, NormalisesUnicodePunctuationInThePatch) {
  MemoryEnvironment env({{"a.py", "print('it's')\n"}});
  apply_patch(
      env,
      "*** Begin Patch\n*** Update File: a.py\n@@\n-print(\u2018it\u2019s\u2019)\n+print(\"ok\")\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "print(\"ok\")\n");
}

TEST(ApplyPatchTest, EmptyLinesAreContext) {
  MemoryEnvironment env({{"a.py", "a\n\nb\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n a\n\n-b\n+c\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "a\n\nc\n");
}

TEST(ApplyPatchTest, EndOfFileMatchesTheLastOccurrence) {
  MemoryEnvironment env({{"a.py", "x\ny\nx\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+z\n*** End of File\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "x\ny\nz\n");
}

TEST(ApplyPatchTest, EndOfFileMismatch) {
  MemoryEnvironment env({{"a.py", "x\ny\n"}});
  EXPECT_EQ(error_of<PatchError>([&] {
              apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@ tail\n-x\n*** End of File\n*** End Patch\n");
            }),
            "apply_patch: a.py: hunk 1 (@@ tail) does not match the end of the file; the expected lines were:\nx");
}

TEST(ApplyPatchTest, PureAdditionAtEndOfFile) {
  MemoryEnvironment env({{"a.py", "a\nb\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n+c\n+d\n*** End of File\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "a\nb\nc\nd\n");
}

TEST(ApplyPatchTest, PureAdditionGoesAfterItsHint) {
  MemoryEnvironment env({{"a.py", "import os\n\nclass Foo:\n    x = 1\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@ class Foo:\n+    y = 2\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "import os\n\nclass Foo:\n    y = 2\n    x = 1\n");
}

TEST(ApplyPatchTest, PureAdditionWithoutHintGoesWhereThePreviousHunkEnded) {
  MemoryEnvironment env({{"a.py", "a\nb\nc\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n+top\n@@\n-b\n+B\n@@\n+after B\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "top\na\nB\nafter B\nc\n");
}

TEST(ApplyPatchTest, PureAdditionWithMissingHintFails) {
  MemoryEnvironment env({{"a.py", "a\n"}});
  EXPECT_EQ(error_of<PatchError>([&] {
              apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@ class Foo:\n+x\n*** End Patch\n");
            }),
            "apply_patch: a.py: hunk 1 (@@ class Foo:) does not match the file; it has no context lines and no line "
            "contains its hint");
}

TEST(ApplyPatchTest, FailingSecondFileChangesNothing) {
  MemoryEnvironment env({{"a.py", "a\n"}, {"b.py", "b\n"}, {"c.py", "c\n"}});
  auto before = env.files();
  EXPECT_EQ(error_of<PatchError>([&] {
              apply_patch(env,
                          "*** Begin Patch\n"
                          "*** Update File: a.py\n@@\n-a\n+A\n"
                          "*** Add File: new.py\n+n\n"
                          "*** Delete File: c.py\n"
                          "*** Update File: b.py\n@@\n-not there\n+B\n"
                          "*** End Patch\n");
            }),
            "apply_patch: b.py: hunk 1 does not match the file; the expected lines were:\nnot there");
  EXPECT_EQ(env.files(), before);
}

TEST(ApplyPatchTest, MissingSecondFileChangesNothing) {
  MemoryEnvironment env({{"a.py", "a\n"}});
  EXPECT_THROW(
      apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+A\n*** Delete File: b.py\n*** End Patch\n"),
      FileNotFound);
  EXPECT_EQ(env.files().at("a.py"), "a\n");
}

TEST(ApplyPatchTest, ParseErrorChangesNothing) {
  MemoryEnvironment env({{"a.py", "a\n"}});
  EXPECT_THROW(apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+A\n"), PatchError);
  EXPECT_EQ(env.files().at("a.py"), "a\n");
}

TEST(ApplyPatchTest, FailedWriteRestoresEarlierFiles) {
  MemoryEnvironment env({{"a.py", "a\n"}, {"b.py", "b\n"}});
  env.fail_writes_to("b.py");
  auto before = env.files();
  EXPECT_EQ(error_of<ToolError>([&] {
              apply_patch(env,
                          "*** Begin Patch\n*** Add File: new.py\n+n\n*** Update File: a.py\n@@\n-a\n+A\n"
                          "*** Delete File: b.py\n*** End Patch\n");
            }),
            "write failed: b.py");
  EXPECT_EQ(env.files(), before);
}

TEST(ApplyPatchTest, PathsOutsideTheWorkspaceAreRefused) {
  MemoryEnvironment env({{"a.py", "a\n"}});
  EXPECT_THROW(apply_patch(env, "*** Begin Patch\n*** Add File: ../escape.py\n+x\n*** End Patch\n"),
               PathOutsideWorkspace);
  EXPECT_THROW(
      apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n*** Move to: /tmp/a.py\n@@\n-a\n*** End Patch\n"),
      PathOutsideWorkspace);
  EXPECT_EQ(env.files(), (std::map<std::string, std::string>{{"a.py", "a\n"}}));
}

TEST(ApplyPatchTest, KeepsMissingFinalNewline) {
  MemoryEnvironment env({{"a.py", "a\nb"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n a\n-b\n+c\n+d\n*** End of File\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "a\nc\nd");
}

TEST(ApplyPatchTest, AppendingAfterUnterminatedLastLine) {
  MemoryEnvironment env({{"a.py", "a\nb"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.py\n@@\n+c\n*** End of File\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.py"), "a\nb\nc");
}

TEST(ApplyPatchTest, KeepsCrlfLineEndings) {
  MemoryEnvironment env({{"a.txt", "one\r\ntwo\r\nthree\r\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n+2.5\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.txt"), "one\r\n2\r\n2.5\r\nthree\r\n");
}

TEST(ApplyPatchTest, CrlfFileWithoutFinalNewlineKeepsBoth) {
  MemoryEnvironment env({{"a.txt", "one\r\ntwo"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.txt\n@@\n two\n+three\n*** End of File\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.txt"), "one\r\ntwo\r\nthree");
}

TEST(ApplyPatchTest, MixedLineEndingsKeepEachUntouchedLine) {
  MemoryEnvironment env({{"a.txt", "a\r\nb\nc\r\nd\r\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.txt\n@@\n b\n-c\n+C\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.txt"), "a\r\nb\nC\r\nd\r\n");
}

TEST(ApplyPatchTest, DeletingEveryLineLeavesAnEmptyFile) {
  MemoryEnvironment env({{"a.txt", "one\ntwo\n"}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n-two\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.txt"), "");
}

TEST(ApplyPatchTest, AddingToAnEmptyFile) {
  MemoryEnvironment env({{"a.txt", ""}});
  apply_patch(env, "*** Begin Patch\n*** Update File: a.txt\n@@\n+first\n*** End Patch\n");
  EXPECT_EQ(env.files().at("a.txt"), "first\n");
}

// ---- The in-memory environment ------------------------------------------------------------------

TEST(MemoryEnvironmentTest, ConfinesPaths) {
  MemoryEnvironment env;
  EXPECT_THROW(env.write_file("/etc/passwd", "x"), PathOutsideWorkspace);
  EXPECT_THROW(env.write_file("a/../../b", "x"), PathOutsideWorkspace);
  EXPECT_THROW(env.file_exists(".."), PathOutsideWorkspace);
  env.write_file("./dir//f.txt", "x\ny\nz\n");
  EXPECT_TRUE(env.file_exists("dir/f.txt"));
  EXPECT_EQ(env.read_file("dir/f.txt", 2, 1), "y\n");
  EXPECT_THROW(env.read_file("missing"), FileNotFound);
  EXPECT_THROW(env.delete_file("missing"), FileNotFound);
  EXPECT_THROW(env.exec_command("ls", 1000), ToolError);
}

}  // namespace
}  // namespace attractor
