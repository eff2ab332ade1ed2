#include "http/httplib/connection_gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "http/request_head.h"

namespace attractor {

namespace {

using GateClock = std::chrono::steady_clock;

/// Where a connection is: waiting for a request, receiving one, being answered by a worker, or
/// being closed after a refusal (its remaining input is read and dropped, so the refusal is not
/// lost to a reset).
enum class Phase { kIdle, kReading, kBusy, kDraining };

struct Connection : GatedRequest {
  int fd = -1;
  std::string client;
  std::string in;  ///< received, not yet handed on
  Phase phase = Phase::kIdle;
  GateClock::time_point since = GateClock::now();  ///< entered its phase
  GateClock::time_point deadline;
  std::size_t requests = 0;
  std::size_t drained = 0;
  bool continued = false;    ///< `100 Continue` sent for the request being received
  bool peer_closed = false;  ///< the client has sent everything it will send
  bool is_last = false;
  std::string request;  ///< the request a worker answers

  int socket() const override { return fd; }
  const std::string& bytes() const override { return request; }
  bool last() const override { return is_last; }
};
using ConnectionPtr = std::shared_ptr<Connection>;

constexpr std::size_t kMaxDrainBytes = 8 << 20;
constexpr auto kDrainTime = std::chrono::seconds(1);
constexpr auto kShutdownGrace = std::chrono::seconds(2);

std::string peer_address(int fd) {
  sockaddr_storage address{};
  socklen_t size = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) return "?";
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&address)->sin_addr, text, sizeof text);
  } else if (address.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr, text, sizeof text);
  }
  return text;
}

/// Sends what the socket takes at once (small answers of the door).
void send_now(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
}

int rank(Phase phase) { return phase == Phase::kDraining ? 0 : phase == Phase::kIdle ? 1 : 2; }

}  // namespace

struct ConnectionGate::State {
  HttpServerSettings settings;
  HeadLimits head_limits;
  GatedHandler handler;
  RefusalLogger refused;
  int epoll_fd = -1;
  int wake_fd = -1;
  std::mutex mutex;
  std::condition_variable work_ready;
  std::map<int, ConnectionPtr> connections;
  std::map<std::string, std::size_t> per_client;
  std::deque<ConnectionPtr> jobs;
  std::size_t buffered = 0;
  bool stopping = false;
  bool joined = false;
  std::thread poller;
  std::vector<std::thread> workers;

  void poll_loop();
  void work_loop();
  void finish(const ConnectionPtr& c, bool keep);
  // The rest run with `mutex` held.
  void close_connection(Connection& c);
  void refuse(Connection& c, int status, const std::string& reason);
  void advance(const ConnectionPtr& c);
  void read_from(const ConnectionPtr& c);
  bool make_room(const std::string& client);
  GateClock::time_point expire(GateClock::time_point now);
  void take(Connection& c, std::size_t bytes) {
    buffered -= std::min(buffered, bytes);
    c.in.erase(0, bytes);
  }
  void watch(Connection& c) {
    epoll_event e{};
    e.events = EPOLLIN | EPOLLRDHUP;
    e.data.fd = c.fd;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c.fd, &e);
  }
};

ConnectionGate::ConnectionGate(const HttpServerSettings& settings, GatedHandler handler, RefusalLogger refused)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.settings = settings;
  s.head_limits = {settings.limits.max_head_bytes, settings.max_body_bytes};
  s.handler = std::move(handler);
  s.refused = std::move(refused);
  s.epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  s.wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event e{};
  e.events = EPOLLIN;
  e.data.fd = s.wake_fd;
  ::epoll_ctl(s.epoll_fd, EPOLL_CTL_ADD, s.wake_fd, &e);
  s.poller = std::thread([&s] { s.poll_loop(); });
  for (std::size_t i = 0; i < std::max<std::size_t>(1, settings.threads); ++i) {
    s.workers.emplace_back([&s] { s.work_loop(); });
  }
}

ConnectionGate::~ConnectionGate() { shutdown(); }

void ConnectionGate::adopt(int socket) {
  State& s = *state_;
  ::fcntl(socket, F_SETFL, ::fcntl(socket, F_GETFL) | O_NONBLOCK);
  ::fcntl(socket, F_SETFD, FD_CLOEXEC);
  auto c = std::make_shared<Connection>();
  c->fd = socket;
  c->client = peer_address(socket);
  std::lock_guard lock(s.mutex);
  if (s.stopping || !s.make_room(c->client)) {
    const std::string reason = s.stopping ? "the server is stopping"
                                          : "too many connections (" + std::to_string(s.connections.size()) +
                                                " open); try again later";
    char discard[4096];
    while (::recv(socket, discard, sizeof discard, MSG_DONTWAIT) > 0) {
    }
    send_now(socket, door_response(503, reason));
    ::shutdown(socket, SHUT_WR);
    ::close(socket);
    if (s.refused) s.refused(c->client, 503, reason);
    return;
  }
  c->deadline = GateClock::now() + s.settings.limits.idle_timeout;
  s.connections[socket] = c;
  ++s.per_client[c->client];
  s.watch(*c);
  const std::uint64_t one = 1;
  (void)!::write(s.wake_fd, &one, sizeof one);  // the poller recomputes its deadline
}

void ConnectionGate::shutdown() {
  State& s = *state_;
  {
    std::lock_guard lock(s.mutex);
    if (s.joined) return;
    s.joined = true;
    s.stopping = true;
    std::vector<ConnectionPtr> all;
    for (auto& [fd, c] : s.connections) all.push_back(c);
    for (const ConnectionPtr& c : all) {
      if (c->phase != Phase::kBusy) s.close_connection(*c);
    }
  }
  const std::uint64_t one = 1;
  (void)!::write(s.wake_fd, &one, sizeof one);
  s.work_ready.notify_all();
  // Answers being written finish (a page polling during a restart gets whole answers); what is
  // still busy after the grace period (an event stream) is cut so that the workers can be joined.
  const auto grace_end = GateClock::now() + kShutdownGrace;
  for (bool cut = false; !cut;) {
    {
      std::lock_guard lock(s.mutex);
      const bool busy = std::any_of(s.connections.begin(), s.connections.end(),
                                    [](const auto& entry) { return entry.second->phase == Phase::kBusy; });
      cut = !busy || GateClock::now() >= grace_end;
      if (busy && cut) {
        for (auto& [fd, c] : s.connections) ::shutdown(fd, SHUT_RDWR);
      }
    }
    if (!cut) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (s.poller.joinable()) s.poller.join();
  for (std::thread& t : s.workers) t.join();
  std::lock_guard lock(s.mutex);
  while (!s.connections.empty()) s.close_connection(*s.connections.begin()->second);
  ::close(s.epoll_fd);
  ::close(s.wake_fd);
}

void ConnectionGate::State::close_connection(Connection& c) {
  const int fd = c.fd;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
  ::close(fd);
  buffered -= std::min(buffered, c.in.size());
  if (--per_client[c.client] == 0) per_client.erase(c.client);
  connections.erase(fd);  // may destroy `c`: nothing of it is read after this
}

void ConnectionGate::State::refuse(Connection& c, int status, const std::string& reason) {
  send_now(c.fd, door_response(status, reason));
  ::shutdown(c.fd, SHUT_WR);
  take(c, c.in.size());
  c.phase = Phase::kDraining;
  c.since = GateClock::now();
  c.deadline = c.since + kDrainTime;
  if (refused) refused(c.client, status, reason);
}

bool ConnectionGate::State::make_room(const std::string& client) {
  const ConnectionLimits& l = settings.limits;
  for (;;) {
    const bool over_total = connections.size() >= l.max_connections;
    auto mine = per_client.find(client);
    const bool over_client = mine != per_client.end() && mine->second >= l.max_connections_per_client;
    if (!over_total && !over_client) return true;
    Connection* victim = nullptr;
    for (auto& [fd, c] : connections) {
      if (c->phase == Phase::kBusy || (over_client && !over_total && c->client != client)) continue;
      if (!victim || rank(c->phase) < rank(victim->phase) ||
          (rank(c->phase) == rank(victim->phase) && c->since < victim->since)) {
        victim = c.get();
      }
    }
    if (!victim) return false;
    close_connection(*victim);
  }
}

void ConnectionGate::State::advance(const ConnectionPtr& c) {
  if (c->in.empty()) return;
  if (c->phase == Phase::kIdle) {
    c->phase = Phase::kReading;
    c->since = GateClock::now();
    c->deadline = c->since + settings.limits.request_timeout;
  }
  HeadScan scan = scan_request_head(c->in, head_limits);
  if (scan.state == HeadScan::State::kIncomplete) return;
  if (scan.state == HeadScan::State::kRefused) return refuse(*c, scan.status, scan.reason);
  if (c->in.size() < scan.head_bytes + scan.body_bytes) {
    if (scan.expect_continue && !c->continued) send_now(c->fd, "HTTP/1.1 100 Continue\r\n\r\n");
    c->continued = true;
    return;
  }
  c->request = std::move(scan.head);
  c->request.append(c->in, scan.head_bytes, scan.body_bytes);
  take(*c, scan.head_bytes + scan.body_bytes);
  c->continued = false;
  c->phase = Phase::kBusy;
  c->is_last = ++c->requests >= settings.limits.max_requests_per_connection || c->peer_closed || stopping;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, nullptr);
  jobs.push_back(c);
  work_ready.notify_one();
}

void ConnectionGate::State::read_from(const ConnectionPtr& c) {
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::recv(c->fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) {
      c->peer_closed = true;
      break;
    }
    if (c->phase == Phase::kDraining) {
      c->drained += static_cast<std::size_t>(n);
      if (c->drained > kMaxDrainBytes) return close_connection(*c);
      continue;
    }
    if (buffered + static_cast<std::size_t>(n) > settings.limits.max_buffered_bytes) {
      return refuse(*c, 503, "the server is receiving too many requests at once; try again later");
    }
    c->in.append(chunk, static_cast<std::size_t>(n));
    buffered += static_cast<std::size_t>(n);
    if (c->in.size() > head_limits.max_head_bytes + head_limits.max_body_bytes) break;
  }
  if (c->phase != Phase::kDraining) advance(c);
  if (c->peer_closed && c->phase != Phase::kBusy) close_connection(*c);
}

GateClock::time_point ConnectionGate::State::expire(GateClock::time_point now) {
  GateClock::time_point next = now + std::chrono::seconds(1);
  std::vector<ConnectionPtr> due;
  for (auto& [fd, c] : connections) {
    if (c->phase == Phase::kBusy) continue;
    if (c->deadline <= now) {
      due.push_back(c);
    } else {
      next = std::min(next, c->deadline);
    }
  }
  const auto seconds = std::chrono::duration<double>(settings.limits.request_timeout).count();
  for (const ConnectionPtr& c : due) {
    if (c->phase == Phase::kReading) {
      refuse(*c, 408, "the request did not arrive within " + std::to_string(seconds).substr(0, 4) + " s");
      next = std::min(next, c->deadline);
    } else {
      close_connection(*c);
    }
  }
  return next;
}

void ConnectionGate::State::poll_loop() {
  std::vector<epoll_event> events(256);
  GateClock::time_point next = GateClock::now();
  for (;;) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - GateClock::now()).count();
    const int n = ::epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()),
                               static_cast<int>(std::clamp<long long>(wait + 1, 0, 1000)));
    std::lock_guard lock(mutex);
    if (stopping) return;
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == wake_fd) {
        std::uint64_t count = 0;
        (void)!::read(wake_fd, &count, sizeof count);
        continue;
      }
      auto it = connections.find(fd);
      if (it == connections.end() || it->second->phase == Phase::kBusy) continue;
      ConnectionPtr c = it->second;
      read_from(c);
    }
    next = expire(GateClock::now());
  }
}

void ConnectionGate::State::work_loop() {
  for (;;) {
    ConnectionPtr c;
    {
      std::unique_lock lock(mutex);
      work_ready.wait(lock, [&] { return !jobs.empty() || stopping; });
      if (jobs.empty()) return;
      c = jobs.front();
      jobs.pop_front();
    }
    bool keep = false;
    try {
      keep = handler(*c);
    } catch (...) {
      keep = false;
    }
    finish(c, keep);
  }
}

void ConnectionGate::State::finish(const ConnectionPtr& c, bool keep) {
  std::lock_guard lock(mutex);
  c->request.clear();
  c->request.shrink_to_fit();
  if (!keep || c->is_last || stopping) return close_connection(*c);
  c->phase = Phase::kIdle;
  c->since = GateClock::now();
  c->deadline = c->since + settings.limits.idle_timeout;
  watch(*c);
  advance(c);  // a request the client sent right behind the last one
  const std::uint64_t one = 1;
  (void)!::write(wake_fd, &one, sizeof one);
}

}  // namespace attractor
