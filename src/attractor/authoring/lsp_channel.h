#pragma once
/// \file
/// The transport of the language server: LSP base-protocol messages (`Content-Length: N`, a blank
/// line, N bytes of JSON) over a pair of file descriptors, with the sizes limited.

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attractor {

/// Largest message body the server reads (docs/authoring.md, "Limits").
inline constexpr std::size_t kMaxLspMessageBytes = 64u << 20;
/// Longest header line.
inline constexpr std::size_t kMaxLspHeaderBytes = 8192;

/// A header that breaks the framing: the stream cannot be read further.
struct LspFramingError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A two-way stream of message bodies.
class MessageChannel {
 public:
  virtual ~MessageChannel() = default;
  /// The next body, or nullopt at the end of the input. Throws LspFramingError.
  virtual std::optional<std::string> read() = 0;
  /// True when the next message can be read without waiting (the server coalesces changes).
  virtual bool pending() = 0;
  /// Sends one body with its header.
  virtual void write(std::string_view body) = 0;
};

/// A channel reading `in` and writing `out` (the server's stdin and stdout).
std::unique_ptr<MessageChannel> fd_message_channel(int in, int out);

}  // namespace attractor
