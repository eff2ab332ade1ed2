#include "handlers/agent/tool_output.h"

#include <algorithm>
#include <vector>

#include "attractor/base/utf8.h"

namespace attractor {

ToolOutputLimit default_output_limit(std::string_view tool) {
  static const std::map<std::string, ToolOutputLimit, std::less<>> limits = {
      {"read_file", {50'000, TruncationMode::kHeadTail, std::nullopt}},
      {"shell", {30'000, TruncationMode::kHeadTail, 256}},
      {"grep", {20'000, TruncationMode::kTail, 200}},
      {"glob", {20'000, TruncationMode::kTail, 500}},
      {"edit_file", {10'000, TruncationMode::kTail, std::nullopt}},
      {"apply_patch", {10'000, TruncationMode::kTail, std::nullopt}},
      {"write_file", {1'000, TruncationMode::kTail, std::nullopt}},
      {"spawn_agent", {20'000, TruncationMode::kHeadTail, std::nullopt}},
  };
  auto it = limits.find(tool);
  return it == limits.end() ? ToolOutputLimit{20'000, TruncationMode::kTail, std::nullopt} : it->second;
}

std::string truncate_output(std::string_view output, std::size_t max_chars, TruncationMode mode) {
  const std::size_t length = utf8_length(output);
  if (length <= max_chars) return std::string(output);
  const std::size_t removed = length - max_chars;
  if (mode == TruncationMode::kTail) {
    const std::string_view tail = output.substr(utf8_prefix_size(output, removed));
    return "[WARNING: Tool output was truncated. First " + std::to_string(removed) +
           " characters were removed. The full output is available in the event stream.]\n\n" + std::string(tail);
  }
  const std::size_t half = max_chars / 2;
  const std::string_view head = output.substr(0, utf8_prefix_size(output, half));
  const std::string_view tail = output.substr(utf8_prefix_size(output, length - half));
  return std::string(head) + "\n\n[WARNING: Tool output was truncated. " + std::to_string(removed) +
         " characters were removed from the middle. The full output is available in the event stream. If you "
         "need to see specific parts, re-run the tool with more targeted parameters.]\n\n" +
         std::string(tail);
}

std::string truncate_lines(std::string_view output, std::size_t max_lines) {
  std::vector<std::string_view> lines;
  for (std::size_t at = 0;;) {
    const std::size_t nl = output.find('\n', at);
    lines.push_back(output.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  if (lines.size() <= max_lines) return std::string(output);
  const std::size_t head = max_lines / 2;
  const std::size_t tail = max_lines - head;
  auto join = [&](std::size_t from, std::size_t to) {
    std::string out;
    for (std::size_t i = from; i < to; ++i) out += std::string(lines[i]) + (i + 1 < to ? "\n" : "");
    return out;
  };
  return join(0, head) + "\n[... " + std::to_string(lines.size() - head - tail) + " lines omitted ...]\n" +
         join(lines.size() - tail, lines.size());
}

std::string truncate_tool_output(std::string_view output, std::string_view tool,
                                 const std::map<std::string, ToolOutputLimit>& overrides) {
  auto it = overrides.find(std::string(tool));
  const ToolOutputLimit limit = it == overrides.end() ? default_output_limit(tool) : it->second;
  std::string result = truncate_output(output, limit.max_chars, limit.mode);
  return limit.max_lines ? truncate_lines(result, *limit.max_lines) : result;
}

std::int64_t command_timeout_ms(std::optional<std::int64_t> requested) {
  const std::int64_t t = requested && *requested > 0 ? *requested : kDefaultCommandTimeoutMs;
  return std::min(t, kMaxCommandTimeoutMs);
}

std::string command_timeout_message(std::int64_t timeout_ms) {
  return "[ERROR: Command timed out after " + std::to_string(timeout_ms) +
         "ms. Partial output is shown above.\nYou can retry with a longer timeout by setting the timeout_ms "
         "parameter.]";
}

}  // namespace attractor
