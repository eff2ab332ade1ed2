#include "support/git_repo.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "support/hardening_support.h"

namespace attractor::testing {

namespace fs = std::filesystem;

std::string git(const std::string& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv{
      "git", "-C", dir, "-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "commit.gpgsign=false"};
  argv.insert(argv.end(), args.begin(), args.end());
  hardening::ProcessOptions options;
  options.env = {"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"};
  hardening::ProcessResult r = hardening::run_program(argv, options);
  if (r.exit_code != 0) {
    std::string joined;
    for (const std::string& a : args) joined += " " + a;
    throw std::runtime_error("git" + joined + " failed: " + r.err);
  }
  return r.out;
}

void make_repo(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  fs::create_directories(dir);
  git(dir, {"init", "-q", "-b", "main"});
  for (const auto& [name, content] : files) {
    fs::create_directories((fs::path(dir) / name).parent_path());
    hardening::spit((fs::path(dir) / name).string(), content);
  }
  git(dir, {"add", "-A"});
  git(dir, {"commit", "-q", "-m", "first"});
}

std::string tree_snapshot(const std::string& dir) {
  std::vector<std::string> lines;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == ".git") {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    const std::string rel = fs::relative(it->path(), dir).string();
    lines.push_back(rel + (it->is_regular_file() ? "=" + hardening::slurp(it->path().string()) : "/"));
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

}  // namespace attractor::testing
