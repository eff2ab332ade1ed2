#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "attractor/cli/cli.h"
#include "attractor/cli/cli_support.h"
#include "attractor/tokens/token_counter.h"

namespace attractor {

namespace {

/// Reads FILE (or stdin for "-"). Empty and binary files are valid input: the count of an empty
/// file is 0, and bytes that are not UTF-8 are counted as U+FFFD like any tokenizer input.
bool read_input(const std::string& path, std::string& out) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    out = std::move(buffer).str();
    if (!std::cin.bad()) return true;
    std::fprintf(stderr, "attractor tokens: cannot read stdin\n");
    return false;
  }
  constexpr InputFileRules kTokensRules{"a file", /*allow_empty=*/true, /*allow_binary=*/true};
  std::optional<std::string> text = read_input_or_report("attractor tokens", path, kTokensRules);
  if (!text) return false;
  out = std::move(*text);
  return true;
}

}  // namespace

int run_tokens_command(int argc, char** argv) {
  CLI::App app{"Count tokens exactly as the LLM tokenizer does (tiktoken-compatible byte-pair encoding). "
               "Prints `COUNT<TAB>FILE` per file and `TOTAL<TAB>total` for several files; with no FILE "
               "(or `-`) reads stdin and prints the count alone. Invalid UTF-8 is read as U+FFFD; binary and "
               "empty files are counted. Exit 2 on usage errors or a FILE that is missing, a directory or "
               "unreadable, 3 when the token data files are missing or corrupt."};
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
  std::vector<std::string> texts(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!read_input(files[i], texts[i])) return kExitUsage;
  }
  const AllowedSpecial allowed = allow_special ? AllowedSpecial::everything() : AllowedSpecial::none();

  std::string out;
  if (ids) {
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (files.size() > 1) out += files[i] + ":";
      const std::vector<TokenId> encoded = counter->encode(texts[i], allowed);
      for (std::size_t k = 0; k < encoded.size(); ++k) {
        if (k > 0 || files.size() > 1) out.push_back(' ');
        out += std::to_string(encoded[k]);
      }
      out.push_back('\n');
    }
  } else {
    std::vector<std::size_t> counts;
    if (allow_special) {
      for (const auto& t : texts) counts.push_back(counter->count(t, allowed));
    } else {
      counts = counter->count_many(texts);
    }
    std::size_t total = 0;
    for (std::size_t i = 0; i < files.size(); ++i) {
      total += counts[i];
      out += from_stdin ? fmt::format("{}\n", counts[i]) : fmt::format("{}\t{}\n", counts[i], files[i]);
    }
    if (files.size() > 1) out += fmt::format("{}\ttotal\n", total);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitSuccess;
}

}  // namespace attractor
