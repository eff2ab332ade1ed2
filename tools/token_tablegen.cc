// attractor_token_tablegen ENCODING RANK_FILE OUT
//
// Build-time tool: reads one pinned `.tiktoken` rank file, checks its sha256 and token count
// against pinned_rank_files.h, builds the byte-pair lookup tables with the library's own code
// (OwnedBpeTables) and writes them as a table blob (bpe_table_blob.h) that the build links into
// the binary. Exit 1 with the reason on any mismatch, 2 on bad usage.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "attractor/tokens/bpe_table_blob.h"
#include "attractor/tokens/bpe_tables.h"
#include "attractor/tokens/pinned_rank_files.h"
#include "attractor/tokens/tiktoken_file.h"

namespace {

using attractor::TokenDataError;

/// The blob of `rank_file`, after checking it is the pinned file of `pinned`.
std::string build_blob(const attractor::PinnedRankFile& pinned, const std::filesystem::path& rank_file) {
  attractor::RankTable ranks = attractor::load_tiktoken_file(rank_file, pinned.sha256);
  if (ranks.size() != pinned.rank_count) {
    throw TokenDataError("corrupt token rank file " + rank_file.string() + ": " + std::to_string(ranks.size()) +
                         " ranks where " + std::to_string(pinned.rank_count) + " were expected");
  }
  const attractor::OwnedBpeTables tables(std::move(ranks));
  std::string blob = attractor::write_bpe_table_blob(tables.view(), pinned.sha256);
  attractor::view_bpe_table_blob(blob, "just written");  // the reader accepts what we wrote
  return blob;
}

/// Writes `data` to `path` through a temporary file, so an interrupted build leaves no half blob.
void write_file(const std::filesystem::path& path, const std::string& data) {
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out.flush()) throw TokenDataError("cannot write " + temporary.string());
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw TokenDataError("cannot rename " + temporary.string() + " to " + path.string() + ": " + ec.message());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: attractor_token_tablegen ENCODING RANK_FILE OUT\n");
    return 2;
  }
  const attractor::PinnedRankFile* pinned = attractor::find_pinned_rank_file(argv[1]);
  if (!pinned) {
    std::fprintf(stderr, "attractor_token_tablegen: no pinned rank file for encoding '%s'\n", argv[1]);
    return 2;
  }
  try {
    write_file(argv[3], build_blob(*pinned, argv[2]));
  } catch (const TokenDataError& e) {
    std::fprintf(stderr, "attractor_token_tablegen: %s\n", e.what());
    return 1;
  }
  return 0;
}
