#pragma once
// A child program laid out before fork(): its resolved path, argv and environment. Tests fork with
// fake servers' threads running (and, under ASan, the sanitizer's own); a child that allocates
// before exec can block forever on an allocator lock another thread held at the fork, so the
// child side calls only async-signal-safe functions (open, dup2, execve).

#include <string>
#include <utility>
#include <vector>

namespace attractor::testing {

class ChildImage {
 public:
  /// `argv[0]` is resolved on PATH now when it has no '/'. The environment is this process's
  /// without the names in `unset`, then with each "NAME=value" of `set` replacing or adding.
  ChildImage(std::vector<std::string> argv, const std::vector<std::string>& set,
             const std::vector<std::string>& unset = {});
  ChildImage(const ChildImage&) = delete;
  ChildImage& operator=(const ChildImage&) = delete;

  /// "NAME=value" for each pair.
  static std::vector<std::string> entries(const std::vector<std::pair<std::string, std::string>>& pairs);

  /// Replaces the calling (child) process with the program; _exit(127) when that fails.
  [[noreturn]] void exec() const;

 private:
  std::string path_;
  std::vector<std::string> args_, env_;
  std::vector<char*> argv_, envp_;
};

}  // namespace attractor::testing
