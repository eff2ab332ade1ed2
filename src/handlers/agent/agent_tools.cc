#include "handlers/agent/agent_tools.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "handlers/agent/apply_patch.h"
#include "handlers/agent/tool_output.h"

namespace attractor {

namespace {

using nlohmann::json;

/// Reads a required string argument.
std::string text_arg(const json& args, const char* key) {
  if (!args.contains(key) || !args[key].is_string()) {
    throw ToolError(fmt::format("invalid arguments: '{}' must be a string", key));
  }
  return args[key].get<std::string>();
}

template <typename T>
std::optional<T> optional_arg(const json& args, const char* key, const char* type) {
  if (!args.contains(key) || args[key].is_null()) return std::nullopt;
  try {
    return args[key].get<T>();
  } catch (const json::exception&) {
    throw ToolError(fmt::format("invalid arguments: '{}' must be {}", key, type));
  }
}

json schema(json properties, std::vector<std::string> required) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

AgentTool read_file_tool() {
  return {"read_file", "Read a file from the working directory. Returns line-numbered content.",
          schema({{"file_path", {{"type", "string"}, {"description", "path of the file"}}},
                  {"offset", {{"type", "integer"}, {"description", "1-based first line"}}},
                  {"limit", {{"type", "integer"}, {"description", "max lines (default 2000)"}}}},
                 {"file_path"}),
          [](const json& a, ExecutionEnvironment& env) {
            const std::size_t offset = optional_arg<std::size_t>(a, "offset", "an integer").value_or(1);
            const std::size_t limit = optional_arg<std::size_t>(a, "limit", "an integer").value_or(2000);
            std::string text = env.read_file(text_arg(a, "file_path"), offset, limit);
            if (text.substr(0, 8192).find('\0') != std::string::npos) throw ToolError("binary file");
            return ToolResult{number_lines(text, offset), false};
          }};
}

AgentTool write_file_tool() {
  return {"write_file", "Write content to a file. Creates the file and parent directories if needed.",
          schema({{"file_path", {{"type", "string"}}}, {"content", {{"type", "string"}}}}, {"file_path", "content"}),
          [](const json& a, ExecutionEnvironment& env) {
            const std::string path = text_arg(a, "file_path");
            const std::string content = text_arg(a, "content");
            env.write_file(path, content);
            return ToolResult{fmt::format("wrote {} bytes to {}", content.size(), path), false};
          }};
}

/// Occurrences of `needle` in `text`.
std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

AgentTool edit_file_tool() {
  return {"edit_file", "Replace an exact string occurrence in a file.",
          schema({{"file_path", {{"type", "string"}}},
                  {"old_string", {{"type", "string"}, {"description", "exact text to find"}}},
                  {"new_string", {{"type", "string"}, {"description", "replacement text"}}},
                  {"replace_all", {{"type", "boolean"}, {"description", "replace every occurrence"}}}},
                 {"file_path", "old_string", "new_string"}),
          [](const json& a, ExecutionEnvironment& env) {
            const std::string path = text_arg(a, "file_path");
            const std::string old_text = text_arg(a, "old_string");
            const std::string new_text = text_arg(a, "new_string");
            const bool all = optional_arg<bool>(a, "replace_all", "true or false").value_or(false);
            if (old_text.empty()) throw ToolError("old_string must not be empty");
            std::string text = env.read_file(path, std::nullopt, std::nullopt);
            const std::size_t n = count(text, old_text);
            if (n == 0)
              throw ToolError("old_string not found in " + path + "; read the file and copy the text exactly");
            if (n > 1 && !all) {
              throw ToolError(
                  fmt::format("old_string occurs {} times in {}; add surrounding lines to make it unique "
                              "or set replace_all",
                              n, path));
            }
            std::string out;
            std::size_t from = 0;
            for (std::size_t at = text.find(old_text); at != std::string::npos; at = text.find(old_text, from)) {
              out += text.substr(from, at - from) + new_text;
              from = at + old_text.size();
              if (!all) break;
            }
            out += text.substr(from);
            env.write_file(path, out);
            return ToolResult{
                fmt::format("replaced {} occurrence{} in {}", all ? n : 1, (all ? n : 1) == 1 ? "" : "s", path), false};
          }};
}

AgentTool shell_tool() {
  return {"shell", "Execute a shell command in the working directory. Returns stdout, stderr and the exit code.",
          schema({{"command", {{"type", "string"}}},
                  {"timeout_ms", {{"type", "integer"}, {"description", "timeout (default 10000, max 600000)"}}},
                  {"description", {{"type", "string"}, {"description", "what the command does"}}}},
                 {"command"}),
          [](const json& a, ExecutionEnvironment& env) {
            const std::int64_t timeout = command_timeout_ms(optional_arg<std::int64_t>(a, "timeout_ms", "an integer"));
            ExecResult r = env.exec_command(text_arg(a, "command"), timeout, "", {});
            std::string out = r.stdout_text;
            if (!r.stderr_text.empty()) out += (out.empty() || out.back() == '\n' ? "" : "\n") + r.stderr_text;
            if (r.timed_out)
              return ToolResult{out + (out.empty() ? "" : "\n") + command_timeout_message(timeout), true};
            out += fmt::format("{}[exit code {}, {} ms]", out.empty() || out.back() == '\n' ? "" : "\n", r.exit_code,
                               r.duration_ms);
            return ToolResult{out, r.exit_code != 0};
          }};
}

AgentTool grep_tool() {
  return {"grep", "Search file contents with a regular expression. Returns file:line:text lines.",
          schema({{"pattern", {{"type", "string"}}},
                  {"path", {{"type", "string"}, {"description", "file or directory (default: working directory)"}}},
                  {"glob_filter", {{"type", "string"}, {"description", "only files matching, e.g. *.py"}}},
                  {"case_insensitive", {{"type", "boolean"}}},
                  {"max_results", {{"type", "integer"}, {"description", "default 100"}}}},
                 {"pattern"}),
          [](const json& a, ExecutionEnvironment& env) {
            GrepOptions o;
            o.glob_filter = optional_arg<std::string>(a, "glob_filter", "a string").value_or("");
            o.case_insensitive = optional_arg<bool>(a, "case_insensitive", "true or false").value_or(false);
            o.max_results = optional_arg<std::size_t>(a, "max_results", "an integer").value_or(100);
            std::string out = env.grep(text_arg(a, "pattern"),
                                       optional_arg<std::string>(a, "path", "a string").value_or(""), o);
            return ToolResult{out.empty() ? "no matches" : out, false};
          }};
}

AgentTool glob_tool() {
  return {"glob", "Find files whose path matches a glob pattern (e.g. **/*.ts), sorted by path.",
          schema({{"pattern", {{"type", "string"}}},
                  {"path", {{"type", "string"}, {"description", "base directory (default: working directory)"}}}},
                 {"pattern"}),
          [](const json& a, ExecutionEnvironment& env) {
            std::string out;
            for (const std::string& f :
                 env.glob(text_arg(a, "pattern"), optional_arg<std::string>(a, "path", "a string").value_or(""))) {
              out += f + "\n";
            }
            return ToolResult{out.empty() ? "no files" : out, false};
          }};
}

AgentTool apply_patch_tool() {
  return {"apply_patch",
          "Apply code changes in the v4a patch format (*** Begin Patch ... *** End Patch): add, delete, update and "
          "move files in one operation. Nothing is written unless every hunk applies.",
          schema({{"patch", {{"type", "string"}, {"description", "the patch in v4a format"}}}}, {"patch"}),
          [](const json& a, ExecutionEnvironment& env) {
            PatchResult r = apply_patch(env, text_arg(a, "patch"));
            std::string out = "applied:\n";
            for (const std::string& line : r.summary) out += line + "\n";
            return ToolResult{out, false};
          }};
}

}  // namespace

std::string number_lines(const std::string& text, std::size_t first) {
  std::istringstream in(text);
  std::string line, out;
  for (std::size_t n = first; std::getline(in, line); ++n) out += fmt::format("{:>4} | {}\n", n, line);
  return out;
}

std::optional<AgentTool> core_tool(const std::string& name) {
  if (name == "read_file") return read_file_tool();
  if (name == "write_file") return write_file_tool();
  if (name == "edit_file") return edit_file_tool();
  if (name == "shell") return shell_tool();
  if (name == "grep") return grep_tool();
  if (name == "glob") return glob_tool();
  if (name == "apply_patch") return apply_patch_tool();
  return std::nullopt;
}

std::vector<AgentTool> profile_tools(const std::string& profile) {
  std::vector<std::string> names;
  if (profile == "openai") {
    names = {"read_file", "apply_patch", "write_file", "shell", "grep", "glob"};
  } else if (profile == "anthropic") {
    names = {"read_file", "write_file", "edit_file", "shell", "grep", "glob"};
  } else {
    throw std::invalid_argument("unknown tool profile '" + profile + "' (expected openai or anthropic)");
  }
  std::vector<AgentTool> tools;
  for (const std::string& n : names) tools.push_back(*core_tool(n));
  return tools;
}

ToolResult run_tool(const AgentTool& tool, const nlohmann::json& arguments, ExecutionEnvironment& env) {
  if (!arguments.is_object()) return {"invalid arguments: expected a JSON object", true};
  try {
    return tool.run(arguments, env);
  } catch (const ToolError& e) {
    return {e.what(), true};
  } catch (const std::exception& e) {
    return {std::string("tool failed: ") + e.what(), true};
  }
}

}  // namespace attractor
