#include "handlers/codergen.h"

#include <filesystem>

#include "attractor/run_directory.h"
#include "handlers/prompt_template.h"

namespace attractor {

namespace fs = std::filesystem;

std::string expand_goal(std::string text, const std::string& goal) {
  const std::string token = "$goal";
  for (std::size_t pos = text.find(token); pos != std::string::npos; pos = text.find(token, pos + goal.size())) {
    text.replace(pos, token.size(), goal);
  }
  return text;
}

std::string truncate_utf8(const std::string& text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (chars == max_chars) return text.substr(0, i);
      ++chars;
    }
  }
  return text;
}

Outcome CodergenHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  std::string prompt = node.prompt();
  if (prompt.empty()) prompt = node.label();
  prompt = expand_stage_prompt(prompt, node, graph, context, env);
  write_text_file((fs::path(env.stage_dir) / "prompt.md").string(), prompt);

  std::string calls_key = "internal.codergen_calls." + node.id;
  std::int64_t call_index = 0;
  if (auto v = context.get(calls_key); v && v->is_number_integer()) call_index = v->get<std::int64_t>();
  context.set(calls_key, call_index + 1);

  CodergenRequest request;
  request.node = &node;
  request.graph = &graph;
  request.context = &context;
  request.prompt = prompt;
  request.stage_dir = env.stage_dir;
  request.fidelity = !env.fidelity.empty()        ? env.fidelity
                     : !node.fidelity().empty()   ? node.fidelity()
                                                  : graph.data().default_fidelity();
  request.thread_id = node.thread_id();
  request.cancel = env.cancel;
  request.timeout_ms = env.timeout_ms;
  request.attempt = env.attempt;
  request.call_index = call_index;
  if (!backend_) return Outcome::fail("no LLM backend configured", ErrorCategory::kTerminal);
  CodergenResult result = backend_->run(request);

  write_text_file((fs::path(env.stage_dir) / "response.md").string(), result.response);
  env.emit("StageUsage", {{"name", node.id},
                          {"backend", backend_->name()},
                          {"model", result.model},
                          {"input_tokens", result.usage.input_tokens},
                          {"output_tokens", result.usage.output_tokens}});

  Outcome outcome;
  if (result.outcome) {
    outcome = *result.outcome;
  } else {
    outcome = Outcome::success("Stage completed: " + node.id);
    outcome.status_pending = result.status_from_file;
  }
  if (!outcome.context_updates.is_object()) outcome.context_updates = nlohmann::json::object();
  if (!outcome.context_updates.contains("last_stage")) outcome.context_updates["last_stage"] = node.id;
  if (!outcome.context_updates.contains("last_response")) {
    outcome.context_updates["last_response"] = truncate_utf8(result.response, 200);
  }
  if (!outcome.context_updates.contains("last_model_response")) {
    outcome.context_updates["last_model_response"] = result.response;
  }
  return outcome;
}

}  // namespace attractor
