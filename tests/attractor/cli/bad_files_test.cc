// Every command × every kind of bad input path, through the real `attractor` binary: the answer
// is one clean line (`attractor CMD: PATH[:LINE:COL]: problem`, no raw control bytes) and the
// documented exit code (docs/cli.md "Bad input files"), never a crash.
//
// File-valued arguments get the seven cases missing, directory, unreadable, empty, NUL byte,
// invalid UTF-8 and a FIFO (which used to block the command forever); directory-valued arguments get missing and "a
// file instead". The binary runs without the capabilities that let root read anything (run_attractor_unprivileged), so
// the `chmod 000` case means the same as root and as a user; where even that cannot make a file unreadable (root
// without CAP_SETPCAP), the unreadable cases are skipped.

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/cli_test_support.h"

namespace attractor::testing {
namespace {

namespace fs = std::filesystem;

enum class Bad { kMissing, kDirectory, kUnreadable, kEmpty, kNul, kInvalidUtf8, kFile, kFifo };

const char* bad_name(Bad bad) {
  switch (bad) {
    case Bad::kMissing: return "missing";
    case Bad::kDirectory: return "directory";
    case Bad::kUnreadable: return "unreadable";
    case Bad::kEmpty: return "empty";
    case Bad::kNul: return "nul_byte";
    case Bad::kInvalidUtf8: return "invalid_utf8";
    case Bad::kFile: return "file";
    case Bad::kFifo: return "fifo";
  }
  return "?";
}

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// Makes `path` bad in the way `bad` says; `first_line` opens the text of the binary cases, whose
/// bad byte is always at 2:4.
void make_bad(const std::string& path, Bad bad, const std::string& first_line) {
  fs::create_directories(fs::path(path).parent_path());
  switch (bad) {
    case Bad::kMissing: break;
    case Bad::kDirectory: fs::create_directories(path); break;
    case Bad::kUnreadable:
      write(path, first_line + "\n}\n");
      ::chmod(path.c_str(), 0);
      break;
    case Bad::kEmpty: write(path, ""); break;
    case Bad::kNul: write(path, first_line + "\n  \"" + std::string(1, '\0') + "\"\n}\n"); break;
    case Bad::kInvalidUtf8: write(path, first_line + "\n  \"\xff\"\n}\n"); break;
    case Bad::kFile: write(path, "not a directory\n"); break;
    case Bad::kFifo: ::mkfifo(path.c_str(), 0644); break;
  }
}

/// The one line a command prints for a bad file (after `attractor CMD: `).
std::string file_message(const std::string& path, Bad bad, const std::string& expected) {
  switch (bad) {
    case Bad::kMissing: return path + ": no such file";
    case Bad::kDirectory: return path + ": is a directory (expected " + expected + ")";
    case Bad::kUnreadable: return path + ": cannot read: Permission denied";
    case Bad::kEmpty: return path + ": file is empty (expected " + expected + ")";
    case Bad::kNul: return path + ":2:4: binary file: NUL byte (expected " + expected + ")";
    case Bad::kInvalidUtf8: return path + ":2:4: binary file: invalid UTF-8 byte 0xff (expected " + expected + ")";
    case Bad::kFile: return path + ": not a directory";
    case Bad::kFifo: return path + ": not a regular file (a FIFO; expected " + expected + ")";
  }
  return "";
}

struct Row {
  std::string name;
  Bad bad;
  /// Makes the bad path under the test's directory `dir` and returns the command's arguments.
  std::function<std::vector<std::string>(const std::string& dir)> setup;
  int exit_code;
  std::string err;         ///< exact stderr; DIR stands for the test's directory
  std::string out_regex;   ///< stdout must match ("" = anything); DIR as above
  std::string unreadable;  ///< the path made unreadable (DIR-relative), for the skip check
};

void PrintTo(const Row& row, std::ostream* os) { *os << row.name; }

/// A command argument that names a file: `args(dir, path)` builds the command line around `path`,
/// which is DIR/`file`.
struct FileArgument {
  std::string name;
  std::string command;   ///< "run", "validate", ...: the message prefix is `attractor COMMAND: `
  std::string file;      ///< the bad file, relative to DIR
  std::string expected;  ///< "a .dot file", "a JSON file", "a file"
  std::string first_line;
  std::function<std::vector<std::string>(const std::string& dir, const std::string& path)> args;
};

std::vector<std::string> run_with(const std::string& dir, const std::string& option, const std::string& path) {
  return {"run", "graphs/simple.dot", "--simulate", "--logs-root", dir + "/run", option, path};
}

std::vector<FileArgument> file_arguments() {
  return {
      {"run_graph", "run", "g.dot", "a .dot file", "digraph G {",
       [](const std::string& dir, const std::string& p) {
         return std::vector<std::string>{"run", p, "--simulate", "--logs-root", dir + "/run"};
       }},
      {"validate_graph", "validate", "g.dot", "a .dot file", "digraph G {",
       [](const std::string&, const std::string& p) {
         return std::vector<std::string>{"validate", p};
       }},
      {"render_graph", "render", "g.dot", "a .dot file", "digraph G {",
       [](const std::string&, const std::string& p) {
         return std::vector<std::string>{"render", p};
       }},
      {"render_run_checkpoint", "render", "run/checkpoint.json", "a JSON file", "{",
       [](const std::string& dir, const std::string&) {
         return std::vector<std::string>{"render", "graphs/simple.dot", "--run", dir + "/run"};
       }},
      {"tokens_file", "tokens", "f.txt", "a file", "{",
       [](const std::string&, const std::string& p) {
         return std::vector<std::string>{"tokens", p};
       }},
      {"run_answers", "run", "answers.json", "a JSON file", "{",
       [](const std::string& dir, const std::string& p) { return run_with(dir, "--answers", p); }},
      {"run_responses", "run", "responses.json", "a JSON file", "{",
       [](const std::string& dir, const std::string& p) { return run_with(dir, "--responses", p); }},
      {"run_context", "run", "context.json", "a JSON file", "{",
       [](const std::string& dir, const std::string& p) { return run_with(dir, "--context", p); }},
      {"resume_manifest", "resume", "run/manifest.json", "a JSON file", "{",
       [](const std::string& dir, const std::string&) {
         write(dir + "/run/checkpoint.json", "{}");
         return std::vector<std::string>{"resume", dir + "/run", "--simulate"};
       }},
      {"resume_checkpoint", "resume", "run/checkpoint.json", "a JSON file", "{",
       [](const std::string& dir, const std::string&) {
         write(dir + "/run/manifest.json", "{}");
         return std::vector<std::string>{"resume", dir + "/run", "--simulate"};
       }},
      {"resume_graph", "resume", "g.dot", "a .dot file", "digraph G {",
       [](const std::string& dir, const std::string& p) {
         // A finished run of a copy of graphs/simple.dot, whose graph file then goes bad.
         fs::copy_file(fs::path(ATTRACTOR_SOURCE_DIR) / "graphs/simple.dot", dir + "/good.dot");
         run_attractor({"run", dir + "/good.dot", "--simulate", "--logs-root", dir + "/done", "-q"});
         std::string manifest = dir + "/done/manifest.json";
         std::ifstream in(manifest);
         std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
         text.replace(text.find(dir + "/good.dot"), dir.size() + 9, p);
         write(manifest, text);
         return std::vector<std::string>{"resume", dir + "/done", "--simulate", "--force"};
       }},
      {"index_acl", "index", "acl.json", "a JSON file", "{",
       [](const std::string& dir, const std::string& p) {
         fs::create_directories(dir + "/src");
         return std::vector<std::string>{
             "index", dir + "/src", "--index", dir + "/idx", "--repository", "r", "--branch", "b", "-q", "--acl", p};
       }},
  };
}

/// Exceptions to "exit 2 with file_message": `tokens` counts empty and binary files, and a missing
/// file inside a run directory is reported as what it means for that directory.
void apply_exceptions(const FileArgument& a, Row& row) {
  if (a.name == "tokens_file" && (row.bad == Bad::kEmpty || row.bad == Bad::kNul || row.bad == Bad::kInvalidUtf8)) {
    row.exit_code = 0;
    row.err = "";
    row.out_regex = (row.bad == Bad::kEmpty ? "0" : "[1-9][0-9]*") + std::string("\tDIR/f.txt\n");
  }
  // Issue 42 point 8: `tokens` reads a FIFO as a stream (up to its limit); with no writer it ends at once.
  if (a.name == "tokens_file" && row.bad == Bad::kFifo) {
    row.exit_code = 0;
    row.err = "";
    row.out_regex = "0\tDIR/f.txt\n";
  }
  if (a.name == "resume_manifest" && row.bad == Bad::kMissing) {
    row.err = "attractor resume: DIR/run: not a run directory (no manifest.json)\n";
  }
  if (a.name == "resume_graph" && row.bad == Bad::kMissing) {
    row.err = "attractor resume: graph file 'DIR/g.dot' not found\n";
  }
  if (a.name == "render_run_checkpoint" && row.bad == Bad::kMissing) {
    row.err = "attractor render: DIR/run/checkpoint.json: no checkpoint; is 'DIR/run' a run directory?\n";
  }
}

std::vector<Row> file_rows() {
  std::vector<Row> rows;
  for (const FileArgument& a : file_arguments()) {
    for (Bad bad :
         {Bad::kMissing, Bad::kDirectory, Bad::kUnreadable, Bad::kEmpty, Bad::kNul, Bad::kInvalidUtf8, Bad::kFifo}) {
      Row row;
      row.name = a.name + "_" + bad_name(bad);
      row.bad = bad;
      row.setup = [a, bad](const std::string& dir) {
        const std::string path = dir + "/" + a.file;
        if (a.name == "render_run_checkpoint") fs::create_directories(dir + "/run");
        make_bad(path, bad, a.first_line);
        return a.args(dir, path);
      };
      row.exit_code = 2;
      row.err = "attractor " + a.command + ": " + file_message("DIR/" + a.file, bad, a.expected) + "\n";
      if (bad == Bad::kUnreadable) row.unreadable = a.file;
      apply_exceptions(a, row);
      rows.push_back(row);
    }
  }
  return rows;
}

/// A row whose bad path is a directory argument or the index database of `search`.
Row row(std::string name, Bad bad, std::string bad_path, std::vector<std::string> args, int exit_code,
        std::string err) {
  Row r;
  r.name = std::move(name);
  r.bad = bad;
  r.setup = [bad, bad_path, args](const std::string& dir) {
    make_bad(dir + "/" + bad_path, bad, "SQLite");
    std::vector<std::string> out;
    for (std::string a : args) out.push_back(std::regex_replace(a, std::regex("DIR"), dir));
    return out;
  };
  r.exit_code = exit_code;
  r.err = std::move(err);
  if (bad == Bad::kUnreadable) r.unreadable = bad_path;
  return r;
}

std::vector<Row> directory_rows() {
  const std::vector<std::string> search = {"search", "--index", "DIR/idx", "--repository", "r", "--branch", "b", "q"};
  const std::vector<std::string> index = {"index", "DIR/src",  "--index", "DIR/idx", "--repository",
                                          "r",     "--branch", "b",       "-q"};
  return {
      row("resume_run_dir_missing", Bad::kMissing, "run", {"resume", "DIR/run"}, 2,
          "attractor resume: DIR/run: no such directory\n"),
      row("resume_run_dir_file", Bad::kFile, "run", {"resume", "DIR/run"}, 2,
          "attractor resume: DIR/run: not a directory (expected a run directory)\n"),
      row("render_run_dir_missing", Bad::kMissing, "run", {"render", "graphs/simple.dot", "--run", "DIR/run"}, 2,
          "attractor render: DIR/run: no such directory\n"),
      row("render_run_dir_file", Bad::kFile, "run", {"render", "graphs/simple.dot", "--run", "DIR/run"}, 2,
          "attractor render: DIR/run: not a directory (expected a run directory)\n"),
      row("index_src_dir_missing", Bad::kMissing, "src", index, 2, "attractor index: DIR/src: no such directory\n"),
      row("index_src_dir_file", Bad::kFile, "src", index, 2,
          "attractor index: DIR/src: not a directory (expected a source directory)\n"),
      row("index_index_dir_file", Bad::kFile, "idx",
          {"index", ".", "--index", "DIR/idx", "--repository", "r", "--branch", "b", "-q"}, 2,
          "attractor index: DIR/idx: not a directory (expected an index directory)\n"),
      row("search_index_dir_missing", Bad::kMissing, "idx", search, 3,
          "attractor search: DIR/idx: no such directory (build the index with `attractor index`)\n"),
      row("search_index_dir_file", Bad::kFile, "idx", search, 2,
          "attractor search: DIR/idx: not a directory (expected an index directory)\n"),
      row("search_index_dir_without_database", Bad::kDirectory, "idx", search, 3,
          "attractor search: DIR/idx: no index database (build it with `attractor index`)\n"),
      row("search_database_directory", Bad::kDirectory, "idx/index.sqlite", search, 3,
          "attractor search: DIR/idx/index.sqlite: is a directory (expected an index database)\n"),
      row("search_database_unreadable", Bad::kUnreadable, "idx/index.sqlite", search, 3,
          "attractor search: DIR/idx/index.sqlite: cannot read: Permission denied\n"),
      row("search_database_empty", Bad::kEmpty, "idx/index.sqlite", search, 3,
          "attractor search: DIR/idx/index.sqlite: file is empty (build it with `attractor index`)\n"),
      row("search_database_binary", Bad::kNul, "idx/index.sqlite", search, 3,
          "attractor search: DIR/idx/index.sqlite: not an index database (build it with `attractor index`)\n"),
  };
}

std::vector<Row> all_rows() {
  std::vector<Row> rows = file_rows();
  for (Row& r : directory_rows()) rows.push_back(std::move(r));
  return rows;
}

std::string replace_dir(const std::string& text, const std::string& dir) {
  std::string out = text;
  for (std::size_t p = out.find("DIR"); p != std::string::npos; p = out.find("DIR", p + dir.size())) {
    out.replace(p, 3, dir);
  }
  return out;
}

/// True when stderr holds nothing a terminal would interpret: no byte below 0x20 but newline, no DEL.
bool is_clean(const std::string& text) {
  for (unsigned char c : text) {
    if ((c < 0x20 && c != '\n') || c == 0x7f) return false;
  }
  return true;
}

class BadFilesTest : public ::testing::TestWithParam<Row> {};

TEST_P(BadFilesTest, OneCleanLineAndTheDocumentedExitCode) {
  const Row& row = GetParam();
  const std::string dir = make_temp_dir();
  std::vector<std::string> args = row.setup(dir);
  if (!row.unreadable.empty() && run_command_unprivileged({"/bin/cat", dir + "/" + row.unreadable}).exit_code == 0) {
    GTEST_SKIP() << "a chmod 000 file stays readable here (root without CAP_SETPCAP?)";
  }
  CommandResult r = run_attractor_unprivileged(args);
  EXPECT_NE(r.exit_code, 134) << "aborted: " << r.err;
  EXPECT_NE(r.exit_code, 139) << "crashed: " << r.err;
  EXPECT_EQ(r.exit_code, row.exit_code) << r.err;
  EXPECT_EQ(r.err, replace_dir(row.err, dir));
  EXPECT_TRUE(is_clean(r.err)) << r.err;
  if (!row.out_regex.empty()) {
    EXPECT_TRUE(std::regex_match(r.out, std::regex(replace_dir(row.out_regex, dir)))) << r.out;
  }
  EXPECT_FALSE(fs::exists(dir + "/run/events.jsonl")) << "a run started";
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
}

INSTANTIATE_TEST_SUITE_P(EveryCommand, BadFilesTest, ::testing::ValuesIn(all_rows()),
                         [](const ::testing::TestParamInfo<Row>& info) { return info.param.name; });

/// The excerpt under a diagnostic shows control bytes escaped, with the caret under the bad one.
TEST(BadFilesExcerptTest, ControlBytesAreEscapedAndTheCaretLinesUp) {
  const std::string dir = make_temp_dir();
  const std::string path = dir + "/ctl.dot";
  write(path, "digraph G {\n  a [label=\"x\x01y\"] \x02 ]\n}\n");
  CommandResult r = run_attractor({"validate", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, path +
                       ":2:19: error: [syntax] expected '}' or a statement, found byte 0x02\n"
                       "    a [label=\"x\\x01y\"] \\x02 ]\n"
                       "                       ^\n" +
                       path + ": 1 error, 0 warnings\n");
}

/// `validate --json` reports an unreadable graph file as one diagnostic with its location.
TEST(BadFilesExcerptTest, ValidateJsonReportsABinaryFileAsOneDiagnostic) {
  const std::string dir = make_temp_dir();
  const std::string path = dir + "/g.dot";
  make_bad(path, Bad::kNul, "digraph G {");
  CommandResult r = run_attractor({"validate", "--json", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("\"rule\": \"input_file\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"line\": 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"column\": 4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(path + ":2:4: binary file: NUL byte (expected a .dot file)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attractor::testing
