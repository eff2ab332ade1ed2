#pragma once
/// \file
/// The coding agent's tools (coding-agent-loop spec §3): each has a name, a description and a
/// JSON Schema for its arguments (sent to the model), and runs against an ExecutionEnvironment.
/// A tool never throws at the agent: a bad argument or a failure becomes an error result the
/// model reads and can recover from (Appendix B).
///
/// Profiles (§3.4, §3.5): `openai` gets read_file, apply_patch, write_file, shell, grep, glob;
/// `anthropic` gets read_file, write_file, edit_file, shell, grep, glob.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "handlers/agent/execution_environment.h"

namespace attractor {

/// What a tool call produced: the full output (events, transcript) and whether it failed.
struct ToolResult {
  std::string output;
  bool is_error = false;
};

struct AgentTool {
  std::string name;
  std::string description;
  nlohmann::json parameters;  ///< JSON Schema of the arguments object
  std::function<ToolResult(const nlohmann::json& arguments, ExecutionEnvironment& env)> run;
};

/// The tools of a provider profile ("openai" or "anthropic"), in the order the model sees them.
/// Throws std::invalid_argument for another profile name.
std::vector<AgentTool> profile_tools(const std::string& profile);

/// The shared tool called `name` (read_file, write_file, edit_file, shell, grep, glob,
/// apply_patch), or nullopt.
std::optional<AgentTool> core_tool(const std::string& name);

/// Runs `tool` with `arguments`, turning every ToolError and malformed argument into an error
/// result.
ToolResult run_tool(const AgentTool& tool, const nlohmann::json& arguments, ExecutionEnvironment& env);

/// `text` with 1-based line numbers starting at `first`, each line as "NNN | content".
std::string number_lines(const std::string& text, std::size_t first);

}  // namespace attractor
