#include "support/raw_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace attractor::testing {

RawConnection::RawConnection(int port, int receive_buffer) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  if (receive_buffer > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::send(const std::string& data) {
  std::size_t done = 0;
  while (fd_ >= 0 && done < data.size()) {
    const ssize_t n = ::send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return fd_ >= 0;
}

std::string RawConnection::receive(std::chrono::milliseconds timeout, std::size_t limit) {
  std::string out = std::move(pending_);
  pending_.clear();
  const auto end = std::chrono::steady_clock::now() + timeout;
  char chunk[65536];
  while (fd_ >= 0 && out.size() < limit) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    out.append(chunk, static_cast<std::size_t>(n));
  }
  return out;
}

std::string RawConnection::receive_response(std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  std::string out;
  for (;;) {
    const std::size_t head = out.find("\r\n\r\n");
    if (head != std::string::npos) {
      std::size_t length = 0;
      const std::size_t at = out.find("Content-Length: ");
      if (at != std::string::npos && at < head) length = std::stoul(out.substr(at + 16));
      if (out.size() >= head + 4 + length) {
        pending_ = out.substr(head + 4 + length);
        return out.substr(0, head + 4 + length);
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return out;
    std::string more = receive(std::min(left, std::chrono::milliseconds(2)), 1 << 20);
    if (more.empty() && closed_by_peer(std::chrono::milliseconds(0))) return out;
    out += more;
  }
}

bool RawConnection::closed_by_peer(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return true;
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
  char c;
  const ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

int raw_status(const std::string& response) {
  if (response.compare(0, 9, "HTTP/1.1 ") != 0 || response.size() < 12) return 0;
  return std::stoi(response.substr(9, 3));
}

std::string raw_body(const std::string& response) {
  const std::size_t head = response.find("\r\n\r\n");
  return head == std::string::npos ? "" : response.substr(head + 4);
}

}  // namespace attractor::testing
