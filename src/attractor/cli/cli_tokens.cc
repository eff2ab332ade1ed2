#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/base/input_file.h"
#include "attractor/tokens/token_counter.h"
#include "attractor/tokens/token_stream.h"

namespace attractor {

namespace {

/// The most bytes read from stdin, a FIFO or a device (docs/hardening.md, "Limits"); a regular
/// file is counted whatever its size, in bounded memory.
constexpr std::uint64_t kMaxTokenStreamBytes = kMaxInputFileBytes;

/// Opens FILE (or stdin for "-"): a descriptor and whether it is a stream, or reports the
/// problem and returns -1. Empty and binary files are valid input: the count of an empty file
/// is 0, and bytes that are not UTF-8 are counted as U+FFFD like any tokenizer input.
int open_tokens_input(const std::string& path, bool& is_stream) {
  if (path == "-") {
    struct stat info {};
    is_stream = ::fstat(STDIN_FILENO, &info) != 0 || !S_ISREG(info.st_mode);
    return STDIN_FILENO;
  }
  constexpr InputFileRules kTokensRules{"a file",
                                        /*allow_empty=*/true,
                                        /*allow_binary=*/true,
                                        SIZE_MAX,
                                        SIZE_MAX,
                                        /*allow_stream=*/true};
  InputFile problem;
  const int fd = open_input_file(path, kTokensRules, problem, &is_stream);
  if (fd < 0) std::fprintf(stderr, "attractor tokens: %s\n", problem.message.c_str());
  return fd;
}

/// Counts one input (printing its ids to `ids_out` when set); nullopt after reporting a problem.
std::optional<std::uint64_t> count_input(const std::string& path, const TokenCounter& counter,
                                         const AllowedSpecial& allowed, std::FILE* ids_out, bool prefix_ids) {
  bool is_stream = false;
  const int fd = open_tokens_input(path, is_stream);
  if (fd < 0) return std::nullopt;
  TokenStreamLimits limits;
  if (is_stream) limits.max_bytes = kMaxTokenStreamBytes;
  bool first = true;
  std::string line;
  auto print_ids = [&](std::span<const TokenId> ids) {
    for (TokenId id : ids) {
      if (!first || prefix_ids) line.push_back(' ');
      first = false;
      line += std::to_string(id);
    }
    std::fwrite(line.data(), 1, line.size(), ids_out);
    line.clear();
  };
  const std::string shown = path == "-" ? std::string("stdin") : escape_control_bytes(path);
  std::optional<std::uint64_t> count;
  try {
    if (ids_out && prefix_ids) std::fprintf(ids_out, "%s:", path.c_str());
    count = count_tokens_streamed(fd, counter, allowed, limits,
                                  ids_out ? std::function<void(std::span<const TokenId>)>(print_ids) : nullptr);
    if (ids_out) std::fputc('\n', ids_out);
  } catch (const TokenStreamError& e) {
    std::fprintf(stderr, "attractor tokens: %s: %s%s\n", shown.c_str(), e.what(),
                 is_stream ? " (stdin, FIFOs and devices; name a regular file to count more)" : "");
  } catch (const std::system_error& e) {
    std::fprintf(stderr, "attractor tokens: %s: cannot read: %s\n", shown.c_str(), e.code().message().c_str());
  }
  if (fd != STDIN_FILENO) ::close(fd);
  return count;
}

}  // namespace

int run_tokens_command(int argc, char** argv) {
  CLI::App app{
      "Count tokens exactly as the LLM tokenizer does (tiktoken-compatible byte-pair encoding). "
      "Prints `COUNT<TAB>FILE` per file and `TOTAL<TAB>total` for several files; with no FILE "
      "(or `-`) reads stdin and prints the count alone. Invalid UTF-8 is read as U+FFFD; binary and "
      "empty files are counted. A file of any size is read in bounded memory; stdin, FIFOs and devices "
      "are read up to 64 MiB. Exit 2 on usage errors or a FILE that is missing, a directory, unreadable "
      "or over a limit, 3 when the token data files are missing or corrupt."};
  app.name("attractor tokens");
  std::string encoding{kDefaultTokenEncoding};
  bool ids = false;
  bool allow_special = false;
  std::vector<std::string> files;
  app.add_option("--encoding", encoding, "o200k_base (default) or cl100k_base");
  app.add_flag("--ids", ids, "print the token ids (one line per input) instead of counts");
  app.add_flag("--allow-special", allow_special,
               "turn special-token strings such as <|endoftext|> into their ids (default: plain text)");
  app.add_option("FILE", files, "files to count; stdin when none");
  if (auto code = parse_cli(app, argc, argv)) return *code;

  std::shared_ptr<const TokenCounter> counter;
  try {
    counter = token_counter_for(encoding);
  } catch (const UnknownEncodingError& e) {
    std::fprintf(stderr, "attractor tokens: %s\n", e.what());
    return kExitUsage;
  } catch (const TokenDataError& e) {
    std::fprintf(stderr, "attractor tokens: %s\n", e.what());
    return kExitRuntime;
  }

  const bool from_stdin = files.empty();
  if (from_stdin) files.push_back("-");
  const AllowedSpecial allowed = allow_special ? AllowedSpecial::everything() : AllowedSpecial::none();

  std::string out;
  std::uint64_t total = 0;
  for (const std::string& file : files) {
    std::optional<std::uint64_t> n = count_input(file, *counter, allowed, ids ? stdout : nullptr, files.size() > 1);
    if (!n) return kExitUsage;
    total += *n;
    if (!ids) out += from_stdin ? fmt::format("{}\n", *n) : fmt::format("{}\t{}\n", *n, file);
  }
  if (!ids && files.size() > 1) out += fmt::format("{}\ttotal\n", total);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitSuccess;
}

}  // namespace attractor
