#include "attractor/authoring/lsp_channel.h"

#include <cerrno>
#include <cctype>
#include <charconv>
#include <poll.h>
#include <unistd.h>

namespace attractor {

namespace {

class FdChannel : public MessageChannel {
 public:
  FdChannel(int in, int out) : in_(in), out_(out) {}

  std::optional<std::string> read() override {
    std::size_t length = 0;
    bool have_length = false;
    while (true) {
      std::optional<std::string> line = read_line();
      if (!line) {
        if (have_length) throw LspFramingError("the input ended inside a message header");
        return std::nullopt;
      }
      if (line->empty()) break;
      header(*line, length, have_length);
    }
    if (!have_length) throw LspFramingError("a message header has no Content-Length");
    if (length > kMaxLspMessageBytes) {
      throw LspFramingError("a message of " + std::to_string(length) + " bytes is larger than the limit of " +
                            std::to_string(kMaxLspMessageBytes));
    }
    std::string body;
    while (body.size() < length) {
      if (!fill()) throw LspFramingError("the input ended inside a message body");
      std::size_t take = std::min(length - body.size(), buffer_.size() - start_);
      body.append(buffer_, start_, take);
      start_ += take;
    }
    return body;
  }

  bool pending() override {
    if (start_ < buffer_.size()) return true;
    pollfd p{in_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
  }

  void write(std::string_view body) override {
    std::string message = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    message += body;
    std::string_view rest = message;
    while (!rest.empty()) {
      ssize_t n = ::write(out_, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
  }

 private:
  static void header(const std::string& line, std::size_t& length, bool& have_length) {
    std::size_t colon = line.find(':');
    if (colon == std::string::npos) throw LspFramingError("a message header line has no ':'");
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name != "content-length") return;
    std::size_t at = colon + 1;
    while (at < line.size() && line[at] == ' ') ++at;
    auto [end, ec] = std::from_chars(line.data() + at, line.data() + line.size(), length);
    if (ec != std::errc() || end != line.data() + line.size()) {
      throw LspFramingError("Content-Length is not a number: '" + line.substr(at) + "'");
    }
    have_length = true;
  }

  /// A header line without its CR LF; nullopt at the end of the input before any byte of it.
  std::optional<std::string> read_line() {
    std::string line;
    while (true) {
      if (start_ == buffer_.size() && !fill()) {
        if (line.empty()) return std::nullopt;
        throw LspFramingError("the input ended inside a message header");
      }
      char c = buffer_[start_++];
      if (c == '\n') break;
      line += c;
      if (line.size() > kMaxLspHeaderBytes) throw LspFramingError("a message header line is longer than 8192 bytes");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }

  bool fill() {
    if (start_ < buffer_.size()) return true;
    buffer_.resize(1 << 16);
    start_ = 0;
    while (true) {
      ssize_t n = ::read(in_, buffer_.data(), buffer_.size());
      if (n < 0 && errno == EINTR) continue;
      buffer_.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
      return n > 0;
    }
  }

  int in_;
  int out_;
  std::string buffer_;
  std::size_t start_ = 0;
};

}  // namespace

std::unique_ptr<MessageChannel> fd_message_channel(int in, int out) { return std::make_unique<FdChannel>(in, out); }

}  // namespace attractor
