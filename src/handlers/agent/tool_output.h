#pragma once
/// \file
/// What of a tool's output the model sees (coding-agent-loop spec §5): the output is cut to a
/// per-tool number of characters first (keeping head and tail, or only the tail), then to a
/// number of lines, with a note saying how much was removed. Characters are Unicode code points
/// and cuts never split one. The full output goes to the events and the transcript.
/// Also the command timeout defaults of §5.4.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace attractor {

enum class TruncationMode { kHeadTail, kTail };

/// The limits of one tool.
struct ToolOutputLimit {
  std::size_t max_chars = 0;
  TruncationMode mode = TruncationMode::kTail;
  std::optional<std::size_t> max_lines;
};

/// The defaults of spec §5.2/§5.3 for `tool` (read_file, shell, grep, glob, edit_file,
/// apply_patch, write_file, spawn_agent); other tools get 20,000 characters, tail.
ToolOutputLimit default_output_limit(std::string_view tool);

/// `output` cut to `max_chars` characters by `mode`, with the spec's warning in place of what
/// was removed; unchanged when it fits.
std::string truncate_output(std::string_view output, std::size_t max_chars, TruncationMode mode);

/// `output` cut to `max_lines` lines, keeping the first half and the rest from the end.
std::string truncate_lines(std::string_view output, std::size_t max_lines);

/// Characters first, then lines, with the limit of `tool` (`overrides` replace the defaults).
std::string truncate_tool_output(std::string_view output, std::string_view tool,
                                 const std::map<std::string, ToolOutputLimit>& overrides = {});

inline constexpr std::int64_t kDefaultCommandTimeoutMs = 10'000;
inline constexpr std::int64_t kMaxCommandTimeoutMs = 600'000;

/// The timeout a shell call runs with: `requested` when given and positive, else the default,
/// never above the maximum.
std::int64_t command_timeout_ms(std::optional<std::int64_t> requested);

/// The note appended to a timed-out command's output.
std::string command_timeout_message(std::int64_t timeout_ms);

}  // namespace attractor
