#include "handlers/agent/local_environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

extern char** environ;

namespace attractor {

namespace {

namespace fs = std::filesystem;

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

bool is_within(const fs::path& path, const fs::path& root) {
  auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end();
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A temporary file for a command's output, removed when this goes away.
class TempFile {
 public:
  TempFile() {
    std::string pattern = (fs::temp_directory_path() / "attractor-agent-XXXXXX").string();
    int fd = ::mkstemp(pattern.data());
    if (fd >= 0) ::close(fd);
    path_ = pattern;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool looks_binary(const std::string& text) { return text.substr(0, 8192).find('\0') != std::string::npos; }

}  // namespace

bool is_credential_variable(const std::string& name) {
  const std::string n = upper(name);
  for (const char* suffix : {"_API_KEY", "_SECRET", "_TOKEN", "_PASSWORD", "_CREDENTIAL"}) {
    const std::string s = suffix;
    if (n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0) return true;
  }
  return false;
}

std::string glob_to_regex(const std::string& glob) {
  std::string re;
  for (std::size_t i = 0; i < glob.size(); ++i) {
    const char c = glob[i];
    if (c == '*' && i + 1 < glob.size() && glob[i + 1] == '*') {
      const bool slash = i + 2 < glob.size() && glob[i + 2] == '/';
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c == '*') {
      re += "[^/]*";
    } else if (c == '?') {
      re += "[^/]";
    } else if (std::string("\\^$.|+()[]{}").find(c) != std::string::npos) {
      re += '\\';
      re += c;
    } else {
      re += c;
    }
  }
  return re;
}

LocalExecutionEnvironment::LocalExecutionEnvironment(const std::string& root, ProcessRunner* runner, CancelToken cancel)
    : root_(fs::canonical(root)), runner_(runner ? runner : &default_process_runner()), cancel_(std::move(cancel)) {}

fs::path LocalExecutionEnvironment::resolve(const std::string& path) const {
  fs::path p(path);
  fs::path joined = (p.is_absolute() ? p : root_ / p).lexically_normal();
  std::error_code ec;
  fs::path real = fs::weakly_canonical(joined, ec);
  if (ec || !is_within(real, root_) || !is_within(joined, root_)) {
    throw PathOutsideWorkspace("'" + path + "' is outside the working directory " + root_.string());
  }
  return real;
}

std::string LocalExecutionEnvironment::relative(const fs::path& absolute) const {
  return absolute.lexically_relative(root_).generic_string();
}

std::string LocalExecutionEnvironment::read_file(const std::string& path, std::optional<std::size_t> offset,
                                                 std::optional<std::size_t> limit) {
  const fs::path file = resolve(path);
  if (!fs::exists(file)) throw FileNotFound("file not found: " + path);
  if (fs::is_directory(file)) throw ToolError(path + " is a directory");
  std::string text = slurp(file);
  if (!offset && !limit) return text;
  std::istringstream in(text);
  std::string line, out;
  const std::size_t first = offset.value_or(1);
  std::size_t number = 0, taken = 0;
  while (std::getline(in, line)) {
    if (++number < first) continue;
    if (limit && taken++ >= *limit) break;
    out += line + "\n";
  }
  return out;
}

void LocalExecutionEnvironment::write_file(const std::string& path, const std::string& content) {
  const fs::path file = resolve(path);
  if (fs::is_directory(file)) throw ToolError(path + " is a directory");
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out.flush()) throw ToolError("cannot write " + path);
}

void LocalExecutionEnvironment::delete_file(const std::string& path) {
  const fs::path file = resolve(path);
  if (!fs::exists(file)) throw FileNotFound("file not found: " + path);
  if (fs::is_directory(file)) throw ToolError(path + " is a directory");
  fs::remove(file);
}

bool LocalExecutionEnvironment::file_exists(const std::string& path) { return fs::exists(resolve(path)); }

std::vector<DirEntry> LocalExecutionEnvironment::list_directory(const std::string& path, int depth) {
  const fs::path dir = resolve(path.empty() ? "." : path);
  if (!fs::is_directory(dir)) throw FileNotFound("directory not found: " + path);
  std::vector<DirEntry> entries;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it.depth() >= depth) {
      it.disable_recursion_pending();
      continue;
    }
    DirEntry e;
    e.name = it->path().lexically_relative(dir).generic_string();
    e.is_dir = it->is_directory() && !it->is_symlink();
    if (it->is_regular_file()) e.size = it->file_size();
    if (e.is_dir && it->path().filename() == ".git") it.disable_recursion_pending();
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return entries;
}

ExecResult LocalExecutionEnvironment::exec_command(const std::string& command, std::int64_t timeout_ms,
                                                   const std::string& working_dir,
                                                   const std::map<std::string, std::string>& env) {
  TempFile out, err;
  ProcessSpec spec;
  spec.command = command;
  spec.cwd = resolve(working_dir.empty() ? "." : working_dir).string();
  spec.stdout_path = out.path();
  spec.stderr_path = err.path();
  spec.timeout_ms = timeout_ms;
  spec.cancel = cancel_;
  spec.on_started = recorder_;
  spec.sandbox = sandbox_;
  spec.kept = &kept_;
  spec.inherit_env = false;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (!is_credential_variable(name) && !env.count(name)) spec.env.emplace_back(name, entry.substr(name.size() + 1));
  }
  for (const auto& [k, v] : env) spec.env.emplace_back(k, v);
  ProcessResult r = runner_->run(spec);
  if (!r.error.empty()) throw ToolError("cannot run the command: " + r.error);
  if (!r.sandbox_denials.empty())
    last_denials_.insert(last_denials_.end(), r.sandbox_denials.begin(), r.sandbox_denials.end());
  ExecResult result;
  result.stdout_text = slurp(out.path());
  result.stderr_text = slurp(err.path());
  result.exit_code = r.exit_code;
  result.timed_out = r.timed_out;
  result.duration_ms = r.duration_ms;
  return result;
}

std::string LocalExecutionEnvironment::grep(const std::string& pattern, const std::string& path,
                                            const GrepOptions& options) {
  std::regex re;
  try {
    re = std::regex(pattern,
                    options.case_insensitive ? std::regex::ECMAScript | std::regex::icase : std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw ToolError("invalid regular expression '" + pattern + "': " + e.what());
  }
  const std::regex filter(glob_to_regex(options.glob_filter.empty() ? "*" : options.glob_filter));
  const fs::path base = resolve(path.empty() ? "." : path);
  std::vector<fs::path> files;
  if (fs::is_regular_file(base)) {
    files.push_back(base);
  } else if (fs::is_directory(base)) {
    for (auto it = fs::recursive_directory_iterator(base); it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && it->path().filename() == ".git") it.disable_recursion_pending();
      if (it->is_regular_file() && !it->is_symlink() && std::regex_match(it->path().filename().string(), filter)) {
        files.push_back(it->path());
      }
    }
  } else {
    throw FileNotFound("not found: " + path);
  }
  std::sort(files.begin(), files.end());
  std::string out;
  std::size_t found = 0;
  for (const fs::path& f : files) {
    const std::string text = slurp(f);
    if (looks_binary(text)) continue;
    std::istringstream in(text);
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
      if (!std::regex_search(line, re)) continue;
      out += relative(f) + ":" + std::to_string(number) + ":" + line + "\n";
      if (++found >= options.max_results) return out;
    }
  }
  return out;
}

std::vector<std::string> LocalExecutionEnvironment::glob(const std::string& pattern, const std::string& path) {
  const fs::path base = resolve(path.empty() ? "." : path);
  if (!fs::is_directory(base)) throw FileNotFound("directory not found: " + path);
  const std::regex re(glob_to_regex(pattern));
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(base); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename() == ".git") it.disable_recursion_pending();
    const std::string rel = it->path().lexically_relative(base).generic_string();
    if (!it->is_directory() && std::regex_match(rel, re)) out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string LocalExecutionEnvironment::platform() const { return "linux"; }

std::string LocalExecutionEnvironment::os_version() const {
  struct utsname u {};
  if (::uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release;
}

}  // namespace attractor
