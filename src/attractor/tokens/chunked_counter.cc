#include "attractor/tokens/chunked_counter.h"

namespace attractor {

namespace {

bool printable_ascii(char c) { return c > ' ' && c < 0x7f; }

bool ascii_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool cut_before(std::string_view text, std::size_t i) {
  const char before = text[i - 1];
  const char at = text[i];
  if (before == '\n') return printable_ascii(at) && at != '/';
  return at == ' ' && printable_ascii(before) && !ascii_alnum(before);
}

/// Where a chunk ends is decided by the content of the segment before a cut point (about one in
/// four), so a text that shifts by whole entries from one call to the next (a list losing its
/// oldest item) is cut into the same chunks again; chunks stop growing at kMaxChunk bytes.
constexpr std::size_t kMaxChunk = 512;

bool ends_chunk(std::string_view segment, std::size_t chunk_size) {
  return chunk_size >= kMaxChunk || (std::hash<std::string_view>{}(segment)&3) == 0;
}

}  // namespace

std::vector<std::size_t> token_cut_points(std::string_view text) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < text.size(); ++i) {
    if (cut_before(text, i)) cuts.push_back(i);
  }
  return cuts;
}

std::size_t last_token_cut_point(std::string_view text) {
  for (std::size_t i = text.size(); i-- > 1;) {
    if (cut_before(text, i)) return i;
  }
  return 0;
}

ChunkedCounter::ChunkedCounter(std::size_t max_chunks) : max_chunks_(max_chunks) {}

std::size_t ChunkedCounter::count(const TokenCounter& counter, std::string_view text) {
  if (counter.encoding_name() != encoding_) {
    counts_.clear();
    encoding_ = counter.encoding_name();
  }
  std::size_t total = 0;
  std::size_t start = 0;
  std::size_t segment = 0;
  for (std::size_t i = 1; i < text.size(); ++i) {
    if (!cut_before(text, i)) continue;
    if (ends_chunk(text.substr(segment, i - segment), i - start)) {
      total += count_chunk(counter, text.substr(start, i - start));
      start = i;
    }
    segment = i;
  }
  if (start < text.size()) total += count_chunk(counter, text.substr(start));
  return total;
}

std::size_t ChunkedCounter::count_chunk(const TokenCounter& counter, std::string_view chunk) {
  if (auto it = counts_.find(chunk); it != counts_.end()) return it->second;
  if (counts_.size() >= max_chunks_) counts_.clear();
  std::size_t n = counter.count(chunk);
  counts_.emplace(std::string(chunk), n);
  return n;
}

}  // namespace attractor
