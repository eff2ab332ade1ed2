#include "support/child_image.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

extern char** environ;

namespace attractor::testing {

namespace {

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

std::string on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return program;
}

}  // namespace

ChildImage::ChildImage(std::vector<std::string> argv, const std::vector<std::string>& set,
                       const std::vector<std::string>& unset)
    : args_(std::move(argv)) {
  path_ = args_.empty() ? std::string() : on_path(args_[0]);
  auto dropped = [&](const std::string& entry) {
    const std::string name = name_of(entry);
    return std::find(unset.begin(), unset.end(), name) != unset.end() ||
           std::any_of(set.begin(), set.end(), [&](const std::string& s) { return name_of(s) == name; });
  };
  for (char** e = environ; *e != nullptr; ++e) {
    if (!dropped(*e)) env_.emplace_back(*e);
  }
  env_.insert(env_.end(), set.begin(), set.end());
  for (std::string& a : args_) argv_.push_back(a.data());
  argv_.push_back(nullptr);
  for (std::string& e : env_) envp_.push_back(e.data());
  envp_.push_back(nullptr);
}

std::vector<std::string> ChildImage::entries(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<std::string> out;
  for (const auto& [name, value] : pairs) out.push_back(name + "=" + value);
  return out;
}

void ChildImage::exec() const {
  ::execve(path_.c_str(), argv_.data(), envp_.data());
  ::_exit(127);
}

}  // namespace attractor::testing
