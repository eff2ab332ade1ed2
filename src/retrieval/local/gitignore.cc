#include "retrieval/local/gitignore.h"

#include <sstream>

#include "retrieval/local/path_glob.h"

namespace attractor::retrieval {

void GitIgnore::add_file(const std::string& dir, const std::string& content) {
  std::istringstream in(content);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    Rule r;
    r.base = dir;
    if (line[0] == '!') {
      r.negate = true;
      line.erase(0, 1);
    } else if (line[0] == '\\') {
      line.erase(0, 1);
    }
    if (!line.empty() && line.back() == '/') {
      r.dir_only = true;
      line.pop_back();
    }
    if (line.empty()) continue;
    if (line[0] == '/') {
      r.anchored = true;
      line.erase(0, 1);
    } else if (line.find('/') != std::string::npos) {
      r.anchored = true;
    }
    r.pattern = line;
    rules_.push_back(std::move(r));
  }
}

bool GitIgnore::ignored(const std::string& path, bool is_dir) const {
  auto name_start = path.rfind('/');
  std::string name = name_start == std::string::npos ? path : path.substr(name_start + 1);
  if (name == ".git") return true;
  bool result = false;
  for (const auto& r : rules_) {
    if (r.dir_only && !is_dir) continue;
    std::string rel;
    if (r.base.empty()) rel = path;
    else if (path.rfind(r.base + "/", 0) == 0) rel = path.substr(r.base.size() + 1);
    else continue;
    bool hit = r.anchored ? glob_match(r.pattern, rel) : glob_match(r.pattern, name);
    if (hit) result = !r.negate;
  }
  return result;
}

}  // namespace attractor::retrieval
