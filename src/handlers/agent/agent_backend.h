#pragma once
/// \file
/// The `agent` codergen backend: each stage runs the built-in coding agent (agent_session.h)
/// with the OpenAI or Anthropic tool profile, in the stage's working directory: node attribute
/// `workdir`, else the graph's, else the directory `attractor` was started in (a relative
/// `workdir` is relative to that directory too).
///
/// Around the session: every tool call goes through the node's `tool_hooks.pre`/`post`
/// (`TOOL_NAME` is the tool's name; a refusing pre hook turns the call into an error the model
/// reads); the events go to the run (event_names.h, Agent*); the stage directory gets
/// `transcript.jsonl` (one line per message and tool result) and `agent.json` (stop reason,
/// turns, tool calls per tool, tokens). Node attributes `agent.max_turns`,
/// `agent.max_tool_rounds` and `agent.instructions` tune it.
///
/// The outcome: a session that ends with a text answer succeeds, unless the answer's last line is
/// a JSON object with `outcome` (and optionally `preferred_label`, `suggested_next_ids`, `notes`,
/// `context_updates`), which is then the stage's outcome. A session stopped by a limit or a loop
/// fails the stage (retryable) naming the reason.

#include <memory>
#include <string>

#include "handlers/llm/codergen_backend.h"
#include "handlers/llm/provider_settings.h"
#include "handlers/services/subprocess.h"

namespace attractor {

class AgentBackend : public CodergenBackend {
 public:
  /// `vendor` is "openai" or "anthropic"; `default_workdir` "" = the current directory.
  AgentBackend(std::string vendor, ProviderSettings settings, ProcessRunner* runner = nullptr,
               std::string default_workdir = "");
  std::string name() const override { return "agent"; }
  CodergenResult run(const CodergenRequest& request) override;

 private:
  std::string vendor_;
  ProviderSettings settings_;
  ProcessRunner* runner_;
  std::string default_workdir_;
};

/// The outcome a final answer states on its last line, if it does.
std::optional<Outcome> outcome_from_answer(const std::string& answer);

/// What the router calls to make the backend of `agent:<vendor>` (backend_router.h).
std::shared_ptr<CodergenBackend> make_agent_backend(const std::string& vendor, const ProviderSettings& settings,
                                                    ProcessRunner* runner);

}  // namespace attractor
