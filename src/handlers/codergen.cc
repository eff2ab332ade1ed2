#include "handlers/codergen.h"

#include <filesystem>

#include "attractor/base/utf8.h"
#include "handlers/prompt_template.h"
#include "attractor/model/context_keys.h"
#include "attractor/engine/event_names.h"
#include "handlers/llm/backend_router.h"
#include "handlers/llm/provider_lint.h"

namespace attractor {

namespace fs = std::filesystem;

std::string truncate_utf8(const std::string& text, std::size_t max_chars) {
  return text.substr(0, utf8_prefix_size(text, max_chars));
}

void write_attempt_file(const StageEnv& env, const std::string& name, const std::string& text) {
  if (env.keep_attempt_file) {
    env.keep_attempt_file(name, text);
  } else {
    env.write_file((fs::path(env.stage_dir) / name).string(), text);
  }
}

nlohmann::json stage_usage_fields(const NodeData& node, const StageEnv& env, const CodergenResult& result,
                                  const std::string& backend) {
  nlohmann::json fields = {{"name", node.id},
                           {"attempt", env.attempt},
                           {"backend", backend},
                           {"model", result.model},
                           {"input_tokens", result.usage.input_tokens},
                           {"output_tokens", result.usage.output_tokens},
                           {"requests", result.usage.requests}};
  if (!result.fallback_from.empty()) fields["fallback_from"] = result.fallback_from;
  return fields;
}

Outcome CodergenHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  std::string task = node.prompt();
  if (task.empty()) task = node.label();
  task = expand_stage_prompt(task, node, graph, context, env);
  const StageConversation& conversation = env.conversation;
  std::string prompt = conversation.preamble_mode.empty() ? task : conversation.preamble + "\n" + task;
  write_attempt_file(env, "prompt.md", prompt);

  CodergenRequest request;
  request.node = &node;
  request.graph = &graph;
  request.context = &context;
  request.prompt = prompt;
  request.stage_dir = env.stage_dir;
  request.run_dir = env.run_dir;
  request.sandbox = sandbox_;
  request.attempt_directory = env.attempt_directory;
  request.keep_attempt_file = env.keep_attempt_file;
  request.record_process = env.record_process;
  request.fidelity = env.fidelity;
  request.thread_id = env.thread_id;
  request.previous_node = env.previous_node;
  request.history = conversation.history;
  request.cancel = env.cancel;
  request.timeout_ms = env.timeout_ms;
  request.clock = env.clock;
  request.attempt = env.attempt;
  request.call_index = env.prior_attempts;
  request.emit = [&env](const std::string& name, nlohmann::json fields) { env.emit(name, std::move(fields)); };
  request.budget_check = env.budget_check;
  request.files = env.files();
  if (!backend_) return Outcome::fail("no LLM backend configured", ErrorCategory::kTerminal);
  if (backend_->acts_outside_process(request)) env.flush_writes();
  CodergenResult result = backend_->run(request);
  std::string backend_name = result.backend.empty() ? backend_->name() : result.backend;
  if (conversation.session) {
    if (result.exchange.empty()) conversation.session->append_exchange(prompt, result.response);
    for (ChatMessage& m : result.exchange) conversation.session->append(std::move(m));
    conversation.session->set_backend(backend_name, result.model);
  }
  nlohmann::json fidelity_info = {{"fidelity", env.fidelity},
                                  {"thread_id", env.thread_id},
                                  {"preamble_tokens", conversation.preamble_tokens},
                                  {"preamble_mode", conversation.preamble_mode},
                                  {"history_messages", conversation.history.size()}};
  fidelity_info["backend"] = backend_name;
  fidelity_info["model"] = result.model;
  fidelity_info["usage"] = {{"input_tokens", result.usage.input_tokens},
                            {"output_tokens", result.usage.output_tokens},
                            {"requests", result.usage.requests}};
  if (!result.fallback_from.empty()) fidelity_info["fallback_from"] = result.fallback_from;
  if (!result.tools.empty()) fidelity_info["tools"] = result.tools;
  if (!result.sandbox.is_null()) fidelity_info["sandbox"] = result.sandbox;

  write_attempt_file(env, "response.md", result.response);
  nlohmann::json usage_fields = stage_usage_fields(node, env, result, backend_name);
  usage_fields["fidelity"] = env.fidelity;
  usage_fields["thread_id"] = env.thread_id;
  usage_fields["preamble_tokens"] = fidelity_info["preamble_tokens"];
  env.emit(kStageUsageEvent, std::move(usage_fields));

  Outcome outcome;
  if (result.outcome) {
    outcome = *result.outcome;
  } else {
    outcome = Outcome::success("Stage completed: " + node.id);
    outcome.status_pending = result.status_from_file;
  }
  if (!outcome.stage_info.is_object()) outcome.stage_info = nlohmann::json::object();
  for (auto& [key, value] : fidelity_info.items()) {
    if (!outcome.stage_info.contains(key)) outcome.stage_info[key] = value;
  }
  if (!outcome.context_updates.is_object()) outcome.context_updates = nlohmann::json::object();
  if (!outcome.context_updates.contains(kLastStageKey)) outcome.context_updates[kLastStageKey] = node.id;
  if (!outcome.context_updates.contains(kLastResponseKey)) {
    outcome.context_updates[kLastResponseKey] = truncate_utf8(result.response, 200);
  }
  if (!outcome.context_updates.contains(kLastModelResponseKey)) {
    outcome.context_updates[kLastModelResponseKey] = result.response;
  }
  return outcome;
}

namespace {

/// A malformed `llm_fallbacks` (node or graph) would fail the stage at its first error; lint says so first.
void check_llm_fallbacks(const NodeData& node, const Graph& graph, std::vector<Diagnostic>& out) {
  const bool own = !node.get("llm_fallbacks").empty();
  std::string text = own ? node.get("llm_fallbacks") : graph.data().get("llm_fallbacks");
  if (text.empty()) return;
  try {
    parse_llm_fallbacks(text);
  } catch (const std::invalid_argument& e) {
    auto at = own ? node.find("llm_fallbacks") : std::nullopt;
    out.push_back(make_diagnostic("llm_fallbacks", Severity::kError, e.what(), node.id,
                                  "write comma-separated provider:model pairs, e.g. llm_fallbacks=\"anthropic:"
                                  "claude-sonnet-4-5, openai:gpt-4o\"",
                                  value_location(at, node.location)));
  }
}

}  // namespace

const HandlerDescription& codergen_description() {
  static const HandlerDescription description = [] {
    HandlerDescription d;
    d.type = "codergen";
    d.shapes = {"box"};
    d.summary = "An LLM stage: expands the prompt, calls the configured backend and records prompt and response.";
    d.attributes = {
        {"simulate.response", AttributeType::kString, "",
         "Response the simulation backend returns for this stage (default: a text naming the stage)."},
        {"simulate.outcome", AttributeType::kString, "",
         "Statuses the simulation backend reports, one per call and comma-separated (e.g. fail,fail,success); "
         "the last one repeats."},
        {"simulate.preferred_label", AttributeType::kString, "",
         "Preferred label the simulation backend reports, to pick an outgoing edge by label."},
        {"llm_fallbacks", AttributeType::kString, "",
         "Model fallback chain, e.g. \"anthropic:claude-sonnet-4-5, openai:gpt-4o\": tried in order when the "
         "stage's provider fails with a retryable error (5xx, 429, connection) after its retries, never after "
         "400/401/403; status.json records the model that answered and fallback_from. Overrides the graph's."},
    };
    for (const ProviderRecord& provider : builtin_providers()->records()) {
      d.attributes.insert(d.attributes.end(), provider.attributes.begin(), provider.attributes.end());
    }
    d.checks = {{"llm_fallbacks", check_llm_fallbacks}, llm_provider_check(builtin_providers())};
    HandlerTraits& t = d.traits;
    t.llm = HandlerTraits::Llm::kAlways;
    t.queues_writes = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
