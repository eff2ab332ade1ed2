#include "handlers/codergen.h"

#include <filesystem>

#include "attractor/model/fidelity.h"
#include "attractor/engine/preamble.h"
#include "attractor/run/run_directory.h"
#include "attractor/engine/thread_sessions.h"
#include "attractor/tokens/token_counter.h"
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

namespace {

/// The fidelity facts of one codergen call: the mode, the thread, the session (under `full`),
/// the history sent and the preamble put in front of the prompt.
struct SessionPlan {
  std::string fidelity;
  std::string thread_id;
  ThreadSessionPtr session;           ///< set under `full` when the engine provides sessions
  std::vector<ChatMessage> history;   ///< earlier messages of the thread (under `full`)
  std::string preamble_mode;          ///< "" when no preamble is used
  Preamble preamble;
};

SessionPlan plan_session(const NodeData& node, const Context& context, const Graph& graph, const StageEnv& env) {
  SessionPlan plan;
  plan.fidelity = env.fidelity.empty() ? resolve_fidelity(nullptr, node, graph) : env.fidelity;
  if (!is_valid_fidelity(plan.fidelity)) plan.fidelity = std::string(kDefaultFidelity);
  plan.thread_id = env.thread_id.empty() ? resolve_thread_id(nullptr, node, graph, env.previous_node) : env.thread_id;
  if (plan.fidelity == kFidelityFull) {
    if (env.sessions) plan.session = env.sessions->get_or_create(plan.thread_id);
    if (plan.session) plan.history = plan.session->messages();
    // A new thread has no conversation to continue: it opens with the most detailed summary.
    if (plan.history.empty()) plan.preamble_mode = std::string(kFidelitySummaryHigh);
  } else {
    plan.preamble_mode = plan.fidelity;
  }
  if (!plan.preamble_mode.empty()) {
    std::shared_ptr<const TokenCounter> counter;
    try {
      counter = token_counter_for_graph(graph);
    } catch (const std::exception& e) {
      throw StageError(std::string("cannot measure the fidelity preamble: ") + e.what(), ErrorCategory::kTerminal);
    }
    plan.preamble = build_preamble(plan.preamble_mode,
                                   gather_preamble_input(node, context, graph, env.history, env.attempt,
                                                         preamble_record_limit(plan.preamble_mode)),
                                   *counter);
  }
  return plan;
}

}  // namespace

Outcome CodergenHandler::execute(const NodeData& node, Context& context, const Graph& graph, const StageEnv& env) {
  std::string task = node.prompt();
  if (task.empty()) task = node.label();
  task = expand_stage_prompt(task, node, graph, context, env);
  SessionPlan plan = plan_session(node, context, graph, env);
  std::string prompt = plan.preamble_mode.empty() ? task : plan.preamble.text + "\n" + task;
  env.write_file((fs::path(env.stage_dir) / "prompt.md").string(), prompt);

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
  request.fidelity = plan.fidelity;
  request.thread_id = plan.thread_id;
  request.previous_node = env.previous_node;
  request.history = plan.history;
  request.cancel = env.cancel;
  request.timeout_ms = env.timeout_ms;
  request.attempt = env.attempt;
  request.call_index = call_index;
  if (!backend_) return Outcome::fail("no LLM backend configured", ErrorCategory::kTerminal);
  if (backend_->acts_outside_process(request)) env.flush_writes();
  CodergenResult result = backend_->run(request);
  std::string backend_name = result.backend.empty() ? backend_->name() : result.backend;
  if (plan.session) {
    plan.session->append_exchange(prompt, result.response);
    plan.session->set_backend(backend_name, result.model);
  }
  nlohmann::json fidelity_info = {{"fidelity", plan.fidelity},
                                  {"thread_id", plan.thread_id},
                                  {"preamble_tokens", plan.preamble_mode.empty() ? 0 : plan.preamble.tokens},
                                  {"preamble_mode", plan.preamble_mode},
                                  {"history_messages", plan.history.size()}};
  fidelity_info["backend"] = backend_name;
  fidelity_info["model"] = result.model;
  fidelity_info["usage"] = {{"input_tokens", result.usage.input_tokens}, {"output_tokens", result.usage.output_tokens}};

  env.write_file((fs::path(env.stage_dir) / "response.md").string(), result.response);
  env.emit("StageUsage", {{"name", node.id},
                          {"backend", backend_name},
                          {"model", result.model},
                          {"input_tokens", result.usage.input_tokens},
                          {"output_tokens", result.usage.output_tokens},
                          {"fidelity", plan.fidelity},
                          {"thread_id", plan.thread_id},
                          {"preamble_tokens", fidelity_info["preamble_tokens"]}});

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
  if (!outcome.context_updates.contains("last_stage")) outcome.context_updates["last_stage"] = node.id;
  if (!outcome.context_updates.contains("last_response")) {
    outcome.context_updates["last_response"] = truncate_utf8(result.response, 200);
  }
  if (!outcome.context_updates.contains("last_model_response")) {
    outcome.context_updates["last_model_response"] = result.response;
  }
  return outcome;
}

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
    };
    HandlerTraits& t = d.traits;
    t.llm = HandlerTraits::Llm::kAlways; t.queues_writes = true;
    return d;
  }();
  return description;
}

}  // namespace attractor
