#include "attractor/tokens/token_stream.h"

#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "attractor/tokens/chunked_counter.h"

namespace attractor {

namespace {

/// Reads up to `n` more bytes onto `buffer`; the number read (0 at the end).
std::size_t read_more(int fd, std::string& buffer, std::size_t n) {
  const std::size_t old = buffer.size();
  buffer.resize(old + n);
  while (true) {
    const ssize_t got = ::read(fd, buffer.data() + old, n);
    if (got >= 0) {
      buffer.resize(old + static_cast<std::size_t>(got));
      return static_cast<std::size_t>(got);
    }
    if (errno != EINTR) {
      buffer.resize(old);
      throw std::system_error(errno, std::generic_category(), "read");
    }
  }
}

}  // namespace

std::uint64_t count_tokens_streamed(int fd, const TokenCounter& counter, const AllowedSpecial& allowed,
                                    const TokenStreamLimits& limits,
                                    const std::function<void(std::span<const TokenId>)>& on_ids) {
  std::uint64_t total = 0;
  std::uint64_t offset = 0;  ///< input offset of buffer[0]
  std::string buffer;
  auto count = [&](std::string_view part) {
    if (on_ids) {
      const std::vector<TokenId> ids = counter.encode(part, allowed);
      on_ids(ids);
      total += ids.size();
    } else {
      total += counter.count(part, allowed);
    }
  };
  while (true) {
    const std::size_t held = buffer.size();
    const std::size_t got = read_more(fd, buffer, limits.window);
    if (offset + buffer.size() > limits.max_bytes) {
      throw TokenStreamError(fmt::format("input is larger than the limit of {} bytes", limits.max_bytes));
    }
    if (got == 0) break;
    // The held bytes have no cut point: look only where the new bytes begin.
    const std::size_t from = held == 0 ? 0 : held - 1;
    const std::size_t in_new = last_token_cut_point(std::string_view(buffer).substr(from));
    const std::size_t cut = in_new == 0 ? 0 : from + in_new;
    if (cut == 0) {
      if (buffer.size() > limits.max_uncut) {
        throw TokenStreamError(fmt::format(
            "more than {} bytes from byte {} on without a line break or punctuation before a space, where the "
            "count could be split: too long to count in bounded memory",
            limits.max_uncut, offset));
      }
      continue;
    }
    count(std::string_view(buffer).substr(0, cut));
    buffer.erase(0, cut);
    offset += cut;
  }
  if (!buffer.empty()) count(buffer);
  return total;
}

}  // namespace attractor
