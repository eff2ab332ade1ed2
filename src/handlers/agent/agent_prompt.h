#pragma once
/// \file
/// The coding agent's system prompt (coding-agent-loop spec §6), in layers: the profile's base
/// instructions, the environment block (working directory, git, platform, date, model), the
/// project's instruction files, then the pipeline's own instructions. The stage prompt with its
/// fidelity preamble is the first user message, not part of the system prompt.
///
/// Project files (§6.5): from the git root (or the working directory outside a repository) down
/// to the working directory, each directory's `AGENTS.md`, then `CLAUDE.md` for the anthropic
/// profile or `.codex/instructions.md` for the openai profile; shallower first, 32 KB in all.

#include <string>

#include "handlers/agent/execution_environment.h"

namespace attractor {

/// The base instructions of `profile` ("openai" or "anthropic").
std::string agent_base_instructions(const std::string& profile);

/// The `<environment>` block with the git snapshot (branch, changed files, recent commits) when
/// the working directory is in a repository. `date` is YYYY-MM-DD.
std::string agent_environment_block(ExecutionEnvironment& env, const std::string& model, const std::string& date);

/// The project instruction files for `profile` under the rules above, each headed by its path;
/// "" when there are none. `git_root` "" = not in a repository.
std::string agent_project_instructions(const std::string& working_dir, const std::string& git_root,
                                       const std::string& profile, std::size_t budget_bytes = 32 * 1024);

/// All layers joined; `extra` (the node's `agent.instructions`) comes last.
std::string agent_system_prompt(const std::string& profile, ExecutionEnvironment& env, const std::string& model,
                                const std::string& date, const std::string& extra = "");

}  // namespace attractor
