// `attractor fmt` and `attractor lsp` through the real binary: fmt's print, --check and -w modes
// with their exit codes and messages; lsp's exit codes for a clean shutdown and a broken frame
// (docs/cli.md, "fmt" and "lsp"; docs/authoring.md).

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "attractor/run/run_directory.h"
#include "support/cli_test_support.h"
#include "support/engine_test_support.h"
#include "support/hardening_support.h"

namespace attractor {
namespace {

using testing::TempDir;

constexpr const char* kMessy = "digraph G{start[shape=Mdiamond] exit[shape=Msquare] start->exit}\n";
constexpr const char* kTidy =
    "digraph G {\n    start [shape=Mdiamond]\n    exit [shape=Msquare]\n    start -> exit\n}\n";

TEST(FmtCommandTest, PrintsChecksAndRewrites) {
  TempDir dir;
  const std::string messy = dir.sub("messy.dot");
  const std::string tidy = dir.sub("tidy.dot");
  write_text_file(messy, kMessy);
  write_text_file(tidy, kTidy);

  hardening::ProcessResult printed = hardening::run_attractor({"fmt", messy});
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out, kTidy);
  EXPECT_EQ(read_text_file(messy), kMessy) << "printing changes nothing";

  hardening::ProcessResult checked = hardening::run_attractor({"fmt", "--check", messy, tidy});
  EXPECT_EQ(checked.exit_code, 1);
  EXPECT_EQ(checked.err, messy + ": not formatted (run `attractor fmt -w " + messy + "`)\n");
  EXPECT_EQ(hardening::run_attractor({"fmt", "--check", tidy}).exit_code, 0);

  hardening::ProcessResult written = hardening::run_attractor({"fmt", "-w", messy, tidy});
  EXPECT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(read_text_file(messy), kTidy);
  EXPECT_FALSE(std::filesystem::exists(messy + ".tmp"));
  EXPECT_EQ(hardening::run_attractor({"fmt", "--check", messy, tidy}).exit_code, 0);
}

TEST(FmtCommandTest, RefusesWhatDoesNotParseAndBadUsage) {
  TempDir dir;
  const std::string broken = dir.sub("broken.dot");
  write_text_file(broken, "digraph G {\n  a -> \n}\n");
  hardening::ProcessResult r = hardening::run_attractor({"fmt", "-w", broken});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(broken + ":3:1: error:"), std::string::npos) << r.err;
  EXPECT_EQ(read_text_file(broken), "digraph G {\n  a -> \n}\n");
  EXPECT_EQ(hardening::run_attractor({"fmt", "--check", "-w", broken}).err,
            "attractor fmt: --check and -w exclude each other\n");
  EXPECT_EQ(hardening::run_attractor({"fmt", broken, broken}).exit_code, 2);
  EXPECT_EQ(hardening::run_attractor({"fmt", dir.sub("missing.dot")}).exit_code, 2);
}

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(LspCommandTest, ExitsZeroAfterShutdownAndOneOtherwise) {
  std::string session = frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})") +
                        frame(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") +
                        frame(R"({"jsonrpc":"2.0","method":"exit"})");
  testing::CommandResult clean = testing::run_attractor({"lsp"}, session);
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_NE(clean.out.find(R"("id":2,"jsonrpc":"2.0","result":null)"), std::string::npos) << clean.out;

  testing::CommandResult ended = testing::run_attractor({"lsp"}, frame(R"({"jsonrpc":"2.0","method":"exit"})"));
  EXPECT_EQ(ended.exit_code, 1);

  testing::CommandResult broken = testing::run_attractor({"lsp"}, "Content-Length: 12x\r\n\r\n{}");
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_EQ(broken.err, "attractor lsp: Content-Length is not a number: '12x'; stopping\n");

  testing::CommandResult huge = testing::run_attractor({"lsp"}, "Content-Length: 999999999999\r\n\r\n");
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_NE(huge.err.find("is larger than the limit of 67108864"), std::string::npos) << huge.err;

  testing::CommandResult garbage = testing::run_attractor({"lsp"}, frame("not json"));
  EXPECT_EQ(garbage.exit_code, 1);
  EXPECT_NE(garbage.out.find(R"("code":-32700)"), std::string::npos) << garbage.out;
}

}  // namespace
}  // namespace attractor
