// read_input_file: each problem with its exact one-line message, the rules that accept empty and
// binary input, the size limit for regular files and pipes, and escape_control_bytes.

#include "attractor/base/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace attractor {
namespace {

namespace fs = std::filesystem;

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("attractor-input-file-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
};

TEST_F(InputFileTest, TextIsReadWhole) {
  std::string path = write("g.dot", "digraph G {}\n");
  InputFile f = read_input_file(path, kDotFileRules);
  EXPECT_TRUE(f.ok());
  EXPECT_EQ(f.text, "digraph G {}\n");
  EXPECT_EQ(f.message, "");
}

TEST_F(InputFileTest, EachProblemHasItsMessage) {
  const std::string d = dir_.string();
  EXPECT_EQ(read_input_file(d + "/none.dot", kDotFileRules).message, d + "/none.dot: no such file");
  EXPECT_EQ(read_input_file(d + "/none/x.dot", kDotFileRules).problem, InputFileProblem::kMissing);
  EXPECT_EQ(read_input_file(d, kDotFileRules).message, d + ": is a directory (expected a .dot file)");
  EXPECT_EQ(read_input_file(write("e.json", ""), kJsonFileRules).message,
            d + "/e.json: file is empty (expected a JSON file)");

  InputFile nul = read_input_file(write("n.dot", std::string("digraph G {\n  a\0b\n}\n", 19)), kDotFileRules);
  EXPECT_EQ(nul.problem, InputFileProblem::kNulByte);
  EXPECT_EQ(nul.message, d + "/n.dot:2:4: binary file: NUL byte (expected a .dot file)");
  EXPECT_EQ(nul.line, 2);
  EXPECT_EQ(nul.column, 4);

  InputFile utf8 = read_input_file(write("u.dot", "digraph G {\n  a [label=\"\xff\"]\n}\n"), kDotFileRules);
  EXPECT_EQ(utf8.problem, InputFileProblem::kInvalidUtf8);
  EXPECT_EQ(utf8.message, d + "/u.dot:2:13: binary file: invalid UTF-8 byte 0xff (expected a .dot file)");
}

TEST_F(InputFileTest, TheFirstBadByteDecides) {
  InputFile f = read_input_file(write("b.dot", std::string("\xc3\xa9t\xe9\0", 5)), kDotFileRules);
  EXPECT_EQ(f.problem, InputFileProblem::kInvalidUtf8);
  EXPECT_EQ(f.column, 4);  // columns count bytes
}

TEST_F(InputFileTest, RulesCanAcceptEmptyAndBinaryFiles) {
  InputFileRules any{"a file", /*allow_empty=*/true, /*allow_binary=*/true};
  EXPECT_TRUE(read_input_file(write("e", ""), any).ok());
  InputFile bin = read_input_file(write("b", std::string("\0\xff", 2)), any);
  EXPECT_TRUE(bin.ok());
  EXPECT_EQ(bin.text, std::string("\0\xff", 2));
}

TEST_F(InputFileTest, LargerThanTheLimitIsRefusedBeforeReading) {
  InputFileRules small{"a file", false, false, SIZE_MAX, /*max_bytes=*/4};
  EXPECT_TRUE(read_input_file(write("four", "abcd"), small).ok());
  EXPECT_EQ(read_input_file(write("five", "abcde"), small).message,
            dir_.string() + "/five: file is 5 bytes, more than the limit of 4 bytes");
  InputFileRules small_stream = small;
  small_stream.allow_stream = true;
  EXPECT_EQ(read_input_file("/dev/zero", small_stream).message, "/dev/zero: file is larger than the limit of 4 bytes");
}

// Issue 42 point 8: a FIFO nobody writes to blocked every command that read it.
TEST_F(InputFileTest, FifosAndDevicesAreRefusedWithoutBlocking) {
  const std::string fifo = (dir_ / "pipe.dot").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  InputFile f = read_input_file(fifo, kDotFileRules);
  EXPECT_EQ(f.problem, InputFileProblem::kNotRegular);
  EXPECT_EQ(f.message, fifo + ": not a regular file (a FIFO; expected a .dot file)");
  EXPECT_EQ(read_input_file("/dev/zero", kJsonFileRules).message,
            "/dev/zero: not a regular file (a character device; expected a JSON file)");
  InputFile problem;
  EXPECT_EQ(open_input_file(fifo, kDotFileRules, problem), -1);
  EXPECT_EQ(problem.message, f.message);
}

TEST_F(InputFileTest, AStreamIsReadWhenAllowed) {
  InputFileRules stream{"a file", true, true, SIZE_MAX, /*max_bytes=*/16, /*allow_stream=*/true};
  InputFile f = read_input_file("/dev/null", stream);
  EXPECT_TRUE(f.ok()) << f.message;
  EXPECT_EQ(f.text, "");
  bool is_stream = false;
  InputFile problem;
  const int fd = open_input_file("/dev/null", stream, problem, &is_stream);
  ASSERT_GE(fd, 0) << problem.message;
  EXPECT_TRUE(is_stream);
  ::close(fd);
}

TEST_F(InputFileTest, ReadLimitReadsAPrefix) {
  InputFileRules header{"a database", false, true, /*read_limit=*/3};
  EXPECT_EQ(read_input_file(write("db", "SQLite format 3"), header).text, "SQL");
}

TEST_F(InputFileTest, DirectoryArguments) {
  const std::string d = dir_.string();
  EXPECT_EQ(input_directory_problem(d, "a run directory"), std::nullopt);
  EXPECT_EQ(input_directory_problem(d + "/none", "a run directory"), d + "/none: no such directory");
  EXPECT_EQ(input_directory_problem(write("f", "x"), "a run directory"),
            d + "/f: not a directory (expected a run directory)");
}

TEST(EscapeControlBytesTest, ControlAndInvalidBytesBecomeHexEscapes) {
  EXPECT_EQ(escape_control_bytes("plain\ttab"), "plain\ttab");
  EXPECT_EQ(escape_control_bytes(std::string("a\0b\x1b[31m\x7f", 9)), "a\\x00b\\x1b[31m\\x7f");
  EXPECT_EQ(escape_control_bytes("caf\xc3\xa9 \xff!"), "caf\xc3\xa9 \\xff!");
  EXPECT_EQ(escape_control_bytes("line\nbreak\r"), "line\\x0abreak\\x0d");
}

}  // namespace
}  // namespace attractor
