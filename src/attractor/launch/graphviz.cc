#include "attractor/launch/graphviz.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <vector>

#include "attractor/base/supervised_process.h"

extern char** environ;

namespace attractor {
namespace {

/// The three pipes of one `dot` process, from attractor's side; -1 once closed.
struct DotPipes {
  int in = -1;
  int out = -1;
  int err = -1;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

/// Reads what is ready on `fd` into `into`; closes `fd` at end of file or error.
void drain_ready(int& fd, std::string& into) {
  char buf[65536];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close_fd(fd);
    return;
  }
  into.append(buf, static_cast<std::size_t>(n));
}

/// Feeds `text` to `dot` while reading its stdout and stderr, so that neither side blocks on a
/// full pipe. False when the image outgrew `max_image`.
bool exchange(DotPipes& p, const std::string& text, std::size_t max_image, std::string& image, std::string& err) {
  std::size_t sent = 0;
  if (text.empty()) close_fd(p.in);
  while (p.out >= 0 || p.err >= 0) {
    std::array<pollfd, 3> fds{{{p.in, POLLOUT, 0}, {p.out, POLLIN, 0}, {p.err, POLLIN, 0}}};
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return true;
    }
    if (p.in >= 0 && fds[0].revents) {
      ssize_t n = ::write(p.in, text.data() + sent, text.size() - sent);
      if (n > 0) sent += static_cast<std::size_t>(n);
      if ((n < 0 && errno != EINTR && errno != EAGAIN) || sent == text.size()) close_fd(p.in);
    }
    if (p.out >= 0 && fds[1].revents) drain_ready(p.out, image);
    if (p.err >= 0 && fds[2].revents && err.size() < 65536) drain_ready(p.err, err);
    if (p.err >= 0 && fds[2].revents && err.size() >= 65536) close_fd(p.err);
    if (image.size() > max_image) return false;
  }
  return true;
}

/// Blocks SIGPIPE in the calling thread while it lives, so a write to a `dot` that has already
/// exited fails with EPIPE instead of ending attractor; a SIGPIPE raised meanwhile is consumed.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    timespec zero{0, 0};
    while (::sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
};

/// Makes the pipes; false (and `error` set) when the system refuses.
bool open_pipes(int (&in)[2], int (&out)[2], int (&err)[2], std::string& error) {
  if (::pipe2(in, O_CLOEXEC) == 0 && ::pipe2(out, O_CLOEXEC) == 0 && ::pipe2(err, O_CLOEXEC) == 0) {
    ::fcntl(in[1], F_SETFL, O_NONBLOCK);
    return true;
  }
  error = std::string("cannot create pipe: ") + std::strerror(errno);
  return false;
}

/// The user's sentence for a `dot` that did not start.
std::string start_failure(const SupervisedProcess& process, const std::string& program, bool& missing) {
  missing = process.failure_errno() == ENOENT;
  if (!missing) return "cannot start `" + program + "`: " + process.error();
  return "Graphviz `" + program +
         "` was not found on PATH; install graphviz (Debian: apt-get install graphviz) "
         "or render to .dot";
}

}  // namespace

RenderResult DotProcessRenderer::render(const std::string& dot_text, const std::string& format) {
  RenderResult result;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (!open_pipes(in, out, err, result.error)) {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) {
      if (fd >= 0) ::close(fd);
    }
    return result;
  }
  const std::string type_flag = "-T" + format;
  SpawnSpec spawn;
  spawn.program = program_;
  spawn.argv = {program_, type_flag};
  for (char** e = environ; *e; ++e) spawn.env.emplace_back(*e);
  spawn.stdin_fd = in[0];
  spawn.stdout_fd = out[1];
  spawn.stderr_fd = err[1];
  SupervisedProcess process;
  bool started = process.start(spawn);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  DotPipes pipes{in[1], out[0], err[0]};
  std::string messages;
  SigpipeBlock no_sigpipe;
  bool fits = !started || exchange(pipes, dot_text, max_image_bytes_, result.image, messages);
  close_fd(pipes.in);
  close_fd(pipes.out);
  close_fd(pipes.err);
  if (!started) {
    result.error = "cannot start `" + program_ + "`: " + process.error();
    return result;
  }
  if (!fits) process.signal_group(SIGKILL);
  while (!process.wait_for(-1)) {
  }
  if (process.failure() != SpawnFailure::kNone) {
    result.error = start_failure(process, program_, result.tool_missing);
    result.image.clear();
    return result;
  }
  if (!fits) {
    result.error = "`" + program_ + " " + type_flag + "` wrote more than " + std::to_string(max_image_bytes_) +
                   " bytes; render to .dot instead";
    result.image.clear();
    return result;
  }
  int status = process.wait_status();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    result.ok = true;
    return result;
  }
  result.image.clear();
  while (!messages.empty() && (messages.back() == '\n' || messages.back() == '\r')) messages.pop_back();
  result.error = "`" + program_ + " " + type_flag + "` failed" + (messages.empty() ? "" : ": " + messages);
  return result;
}

}  // namespace attractor
