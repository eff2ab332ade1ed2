#include "support/hardening_support.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/child_image.h"

namespace attractor::hardening {

using testing::ChildImage;

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kCaptureLimit = 64 << 20;

std::string read_prefix(const std::string& path, std::size_t* total) {
  std::error_code ec;
  *total = static_cast<std::size_t>(fs::file_size(path, ec));
  if (ec) *total = 0;
  std::ifstream in(path, std::ios::binary);
  std::string text(std::min(*total, kCaptureLimit), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace

ProcessResult run_program(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ScratchDir capture;
  const std::string out_path = capture.sub("stdout");
  const std::string err_path = capture.sub("stderr");
  std::vector<std::string> full = options.prefix;
  full.insert(full.end(), argv.begin(), argv.end());

  const ChildImage image(std::move(full), options.env);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::setpgid(0, 0);
    if (::chdir(ATTRACTOR_SOURCE_DIR) != 0) ::_exit(126);
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (options.file_size_limit >= 0) {
      ::signal(SIGXFSZ, SIG_IGN);
      rlimit limit{static_cast<rlim_t>(options.file_size_limit), static_cast<rlim_t>(options.file_size_limit)};
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    image.exec();
  }
  ProcessResult result;
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds);
  while (true) {
    rusage usage{};
    pid_t done = ::wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) {
      result.max_rss_kb = usage.ru_maxrss;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  std::size_t out_bytes = 0;
  result.out = read_prefix(out_path, &out_bytes);
  result.err = read_prefix(err_path, &result.err_bytes);
  return result;
}

pid_t spawn_program(const std::string& program, const std::vector<std::string>& args,
                    const std::vector<std::string>& env, const std::string& log) {
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  const ChildImage image(std::move(argv), env);
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    int null_in = ::open("/dev/null", O_RDONLY);
    ::dup2(null_in, 0);
    image.exec();
  }
  return pid;
}

ProcessResult run_attractor(const std::vector<std::string>& args, const ProcessOptions& options) {
  std::vector<std::string> argv{ATTRACTOR_BINARY_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, options);
}

ScratchDir::ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "attractor-hardening-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace attractor::hardening
