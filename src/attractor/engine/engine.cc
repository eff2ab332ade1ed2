#include "attractor/engine/engine.h"

#include <algorithm>
#include <filesystem>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "attractor/engine/engine_impl.h"
#include "attractor/engine/inbox.h"
#include "attractor/model/node_roles.h"
#include "attractor/model/visit_limit.h"
#include "attractor/run/checkpoint_journal.h"
#include "attractor/run/posix_run_disk.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/stage_visits.h"
#include "attractor/model/context_keys.h"
#include "attractor/engine/event_names.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

/// `{run_dir}/{node}/interrupted-N.patch` for the first N not taken.
std::string unused_patch_path(RunDisk& disk, const std::string& run_dir, const std::string& node) {
  for (int n = 1;; ++n) {
    std::string path = (fs::path(run_dir) / node / fmt::format("interrupted-{}.patch", n)).string();
    if (!disk.exists(path)) return path;
  }
}

}  // namespace

void RunEventSink::set_file(std::shared_ptr<EventObserver> file) {
  std::lock_guard lock(mutex_);
  file_ = std::move(file);
}

void RunEventSink::set_user(std::shared_ptr<EventObserver> user) {
  std::lock_guard lock(mutex_);
  user_ = std::move(user);
}

void RunEventSink::on_event(const Event& event) {
  if (event.name == kStageUsageEvent) {
    if (std::optional<double> cost = usage_.cost_of(event.fields)) {
      Event priced = event;
      priced.fields["cost_usd"] = *cost;
      return forward(priced);
    }
  }
  forward(event);
}

std::optional<double> RunEventSink::stage_cost(const nlohmann::json& info) const {
  if (!info.is_object() || !info.contains("usage") || !info["usage"].is_object()) return std::nullopt;
  nlohmann::json fields = info["usage"];
  fields["model"] = info.value("model", std::string());
  return usage_.cost_of(fields);
}

void RunEventSink::forward(const Event& event) {
  usage_.on_event(event);
  std::lock_guard lock(mutex_);
  if (file_) file_->on_event(event);
  if (user_) user_->on_event(event);
}

Engine::Impl::Impl(const Graph& graph, const HandlerRegistry& registry, EngineOptions options)
    : graph_(graph), registry_(registry), options_(std::move(options)) {
  disk_ = options_.disk ? options_.disk : &posix_run_disk();
  clock_ = options_.clock ? options_.clock : &system_clock();
  random_ = options_.random ? options_.random : default_random();
  run_dir_ = options_.run_dir;
  sink_.set_user(options_.observer);
  budget_ = options_.budget.with_graph_defaults(graph_);
  sink_.set_prices(budget_.prices);
  writer_ = std::make_unique<WriteBehind>(*disk_, options_.background_writes);
  checkpoint_writer_.set_snapshot_every(options_.snapshot_every);
  checkpoint_writer_.set_rewrite_below(options_.checkpoint_rewrite_below);
  checkpoint_writer_.set_history(options_.workspace != nullptr);
}

Engine::Impl::~Impl() {
  sink_.set_file(nullptr);
  writer_.reset();
  run_log_.reset();
}

void Engine::Impl::open_run_log() {
  run_log_.reset();
  if (!options_.write_run_log) return;
  const std::string path = (fs::path(run_dir_) / "run.log").string();
  std::shared_ptr<AppendFile> file = open_record_append(*disk_, path);
  if (!file) {
    log().warn("cannot open log file {}", path);
    return;
  }
  run_log_ = std::make_unique<LogFile>([file](std::string_view line) { file->append(line); });
}

void Engine::Impl::reserve_space() {
  writer_->enqueue([disk = disk_, path = (fs::path(run_dir_) / kSpaceReserveFile).string()] {
    try {
      disk->reserve_file(path, kSpaceReserveBytes);
    } catch (const std::exception& e) {
      log().debug("no space reserve: {}", e.what());  // the run goes on without one
    }
  });
}

void Engine::Impl::release_space() { writer_->remove_file((fs::path(run_dir_) / kSpaceReserveFile).string()); }

void Engine::Impl::emit(const std::string& name, nlohmann::json fields) {
  Event e;
  e.name = name;
  e.timestamp_ms = clock_->now_ms();
  e.fields = std::move(fields);
  sink_.on_event(e);
}

void Engine::Impl::initialize_run_directory(const std::string& parent_run) {
  writer_->flush();
  fresh_run_dir_ = true;
  if (disk_->is_directory(run_dir_)) {
    for (const std::string& name : disk_->list_directory(run_dir_)) {
      if (disk_->is_directory((fs::path(run_dir_) / name).string())) fresh_run_dir_ = false;
    }
  }
  if (std::error_code ec = disk_->make_directories(run_dir_)) {
    throw std::runtime_error("cannot create run directory " + run_dir_ + ": " + ec.message());
  }
  Manifest m;
  m.name = graph_.name();
  m.goal = graph_.data().goal();
  m.graph_path = options_.graph_path;
  m.graph_sha256 = options_.graph_sha256;
  m.run_id = state_.run_id;
  m.start_time = format_iso8601(clock_->now_ms());
  m.version = ATTRACTOR_VERSION;
  m.parent_run = parent_run;
  m.options = options_.run_options;
  if (options_.workspace_record.is_object()) m.workspace = options_.workspace_record;
  writer_->enqueue([disk = disk_, dir = run_dir_, m = std::move(m)] { write_manifest(m, dir, *disk); }, 0);
  reserve_space();
  open_run_log();
  artifacts_ = std::make_unique<ArtifactStore>(run_dir_, ArtifactStore::kDefaultThreshold, *disk_);
  if (options_.write_events_file) {
    sink_.set_file(std::make_shared<JsonlFileObserver>((fs::path(run_dir_) / "events.jsonl").string(), writer_.get()));
  }
}

void Engine::Impl::seed_context() {
  context_.restore(state_.seed_context, {});
  for (const auto& [key, value] : graph_.data().attrs) {
    context_.set(kGraphKeyPrefix + std::string(key), std::string(value.text()));
  }
  context_.set(kGraphGoalKey, graph_.data().goal());
  context_.set(kRunIdKey, state_.run_id);
}

Checkpoint Engine::Impl::checkpoint() const { return with_live_context(state_); }

Checkpoint Engine::Impl::take_checkpoint() { return with_live_context(std::exchange(state_, Checkpoint{})); }

Checkpoint Engine::Impl::with_live_context(Checkpoint c) const {
  c.context = context_.snapshot();
  c.logs = context_.logs();
  return c;
}

void Engine::Impl::restore_usage(const std::string& events_path) {
  UsageTally from_events;
  from_events.set_prices(budget_.prices);
  try {
    if (disk_->exists(events_path)) from_events.add_events_jsonl(disk_->read_file(events_path));
  } catch (const std::exception& e) {
    log().warn("{}: not read for the token usage before the resume: {}", events_path, e.what());
  }
  const nlohmann::json& saved = state_.usage;
  if (usage_requests(saved) > from_events.requests()) {
    sink_.restore_usage(saved);
  } else {
    sink_.restore_usage(from_events);
  }
}

void Engine::Impl::save(bool last) {
  state_.timestamp_ms = clock_->now_ms();
  state_.usage = sink_.usage();
  ++state_.journal_seq;
  if (last) {
    checkpoint_writer_.save_last(state_, context_, run_dir_, *writer_);
  } else {
    checkpoint_writer_.save_journaled(state_, context_, run_dir_, *writer_);
  }
  emit(kCheckpointSavedEvent, {{"node_id", state_.current_node}, {"next_node", state_.next_node}});
}

RunResult Engine::Impl::run(const nlohmann::json& initial_context) {
  state_ = Checkpoint{};
  stage_visits_.clear();
  attempts_.clear();
  state_.run_id = options_.run_id.empty() ? new_run_id(clock_->now_ms()) : options_.run_id;
  state_.seed_context = initial_context.is_object() ? initial_context : nlohmann::json::object();
  initialize_run_directory("");
  seed_context();
  auto start = find_start_node(graph_);
  if (!start) {
    save();
    return finish(Outcome::fail("no start node (shape=Mdiamond or id start/Start)", ErrorCategory::kPipeline), "",
                  clock_->now_ms());
  }
  state_.next_node = graph_.node(*start).id;
  save();
  emit(kPipelineStartedEvent, {{"name", graph_.name()}, {"id", state_.run_id}, {"run_dir", run_dir_}});
  log().info("run {} started: pipeline {}, run directory {}", state_.run_id, graph_.name(), run_dir_);
  return execute_loop(state_.next_node, false);
}

void Engine::Impl::compact_finished_run(const Checkpoint& finished) {
  const std::string journal = (fs::path(run_dir_) / kCheckpointJournalFile).string();
  if (!disk_->exists(journal)) return;
  save_checkpoint(finished, run_dir_, *disk_);
  disk_->remove_file(journal);
}

RunResult Engine::Impl::resume(std::optional<Checkpoint> given) {
  state_ = given ? std::move(*given) : load_checkpoint(run_dir_, *disk_);
  stage_visits_ = state_.visit_counts;
  for (const auto& [id, visits] : state_.visit_counts) {  // graph node ids only: they are identifiers
    if (visits > 1 && graph_.node(id)) adopt_nested_visits(*disk_, (fs::path(run_dir_) / id).string());
  }
  attempts_ = state_.node_attempts;
  history_.restore(state_, graph_);
  context_.restore(state_.context, std::move(state_.logs));
  state_.context = nlohmann::json::object();
  state_.logs.clear();
  artifacts_ = std::make_unique<ArtifactStore>(run_dir_, ArtifactStore::kDefaultThreshold, *disk_);
  const std::string events_path = (fs::path(run_dir_) / "events.jsonl").string();
  restore_usage(events_path);
  if (options_.write_events_file) sink_.set_file(std::make_shared<JsonlFileObserver>(events_path, writer_.get()));
  open_run_log();
  stage_index_ = state_.total_executions;
  if (state_.state != "running") {
    RunResult r;
    r.run_dir = run_dir_;
    r.checkpoint = checkpoint();
    r.usage = sink_.usage();
    r.outcome = state_.final_outcome.is_object() ? outcome_from_json(state_.final_outcome)
                                                 : Outcome::fail("run finished without a recorded outcome");
    compact_finished_run(r.checkpoint);
    log().info("run {} resumed: already finished ({}), nothing to do", state_.run_id, state_.state);
    run_log_.reset();
    return r;
  }
  reserve_space();
  std::string next = state_.next_node;
  if (next.empty()) {
    auto start = find_start_node(graph_);
    if (!start) return finish(Outcome::fail("no start node", ErrorCategory::kPipeline), "", clock_->now_ms());
    next = graph_.node(*start).id;
  }
  restore_workspace(next);
  emit(kPipelineStartedEvent,
       {{"name", graph_.name()}, {"id", state_.run_id}, {"run_dir", run_dir_}, {"resumed", true}, {"next_node", next}});
  log().info("run {} resumed at node {}: pipeline {}, run directory {}", state_.run_id, next, graph_.name(), run_dir_);
  return execute_loop(next, true);
}

std::int64_t Engine::Impl::execution_cap() const {
  if (options_.max_node_executions > 0) return options_.max_node_executions;
  if (auto v = graph_.data().get_integer("max_node_executions"); v && *v > 0) return *v;
  return std::max<std::int64_t>(1000, 10 * static_cast<std::int64_t>(graph_.node_count()));
}

std::string Engine::Impl::runaway_message(std::int64_t cap) const {
  std::vector<std::pair<std::string, std::int64_t>> counts(state_.visit_counts.begin(), state_.visit_counts.end());
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string loop;
  for (std::size_t i = 0; i < counts.size() && i < 5 && counts[i].second > 1; ++i) {
    loop += (loop.empty() ? "" : ", ") + fmt::format("{} ({}x)", counts[i].first, counts[i].second);
  }
  return fmt::format("runaway loop: {} node executions reached max_node_executions={}; loop through: {}",
                     state_.total_executions, cap, loop.empty() ? "(none repeated)" : loop);
}

std::optional<Outcome> Engine::Impl::visit_limit_failure(const NodeData& node) {
  VisitLimit limit = visit_limit(graph_, node);
  std::int64_t visit = state_.visit_counts[node.id] + 1;
  if (limit.limit == 0 || visit <= limit.limit) return std::nullopt;
  Outcome failed = Outcome::fail(visit_limit_message(node.id, limit, visit), ErrorCategory::kTerminal);
  std::int64_t index = stage_index_.fetch_add(1) + 1;
  emit(kStageFailedEvent, {{"name", node.id},
                           {"index", index},
                           {"error", failed.failure_reason},
                           {"status", status_name(failed.status)},
                           {"will_retry", false},
                           {"duration_ms", 0}});
  log().info("stage {} not run: {}", node.id, failed.failure_reason);
  return failed;
}

std::string Engine::Impl::unmet_goal_gate_message(const std::string& gate) const {
  auto it = state_.node_outcomes.find(gate);
  std::string last = it == state_.node_outcomes.end() ? "none" : status_name(it->second.status);
  std::string message = fmt::format("goal gate `{}` was not satisfied (last outcome: {}) and has no retry_target", gate,
                                    last);
  if (it != state_.node_outcomes.end() && !it->second.failure_reason.empty()) {
    message += ": " + it->second.failure_reason;
  }
  return message;
}

std::string Engine::Impl::dead_end_failure_message(const std::string& node_id, const std::string& reason,
                                                   std::int64_t attempts) const {
  const NodeData* node = graph_.node(node_id);
  const std::string stage = fmt::format("stage `{}`{}", node_id, node && node->goal_gate() ? " (a goal gate)" : "");
  std::string message = attempts > 0 ? fmt::format("{} failed after {} attempt{} and no failure route leads on", stage,
                                                   attempts, attempts == 1 ? "" : "s")
                                     : fmt::format("{} failed and no failure route leads on", stage);
  return reason.empty() ? message : message + ": " + reason;
}

bool Engine::Impl::goal_gates_satisfied(std::string* failed_gate) const {
  std::unordered_set<std::string_view> seen;
  for (const std::string& id : state_.completed_nodes) {
    if (!seen.insert(id).second) continue;
    const NodeData* node = graph_.node(id);
    if (!node || !node->goal_gate()) continue;
    auto it = state_.node_outcomes.find(id);
    if (it != state_.node_outcomes.end() && !is_success(it->second.status)) {
      *failed_gate = id;
      return false;
    }
  }
  return true;
}

std::string Engine::Impl::goal_gate_retry_target(const NodeData& gate) const {
  for (const std::string& target : {gate.retry_target(), gate.fallback_retry_target(), graph_.data().retry_target(),
                                    graph_.data().fallback_retry_target()}) {
    if (!target.empty() && graph_.find(target)) return target;
  }
  return "";
}

RunResult Engine::Impl::finish(const Outcome& outcome, const std::string& current_node, std::int64_t started_ms) {
  state_.current_node = current_node;
  state_.next_node.clear();
  state_.state = is_success(outcome.status) ? "success" : "fail";
  state_.final_outcome = outcome_to_json(outcome);
  save(true);
  release_space();
  // The run's end is announced once it is on disk: a write that fails here is the run's story
  // (a RunWriteError), not a "pipeline failed" that the run directory does not hold.
  writer_->flush();
  std::int64_t duration = clock_->now_ms() - started_ms;
  if (is_success(outcome.status)) {
    emit(kPipelineCompletedEvent, {{"duration_ms", duration},
                                   {"artifact_count", artifacts_ ? artifacts_->list().size() : 0},
                                   {"status", status_name(outcome.status)},
                                   {"usage", sink_.usage()}});
  } else {
    emit(kPipelineFailedEvent,
         {{"error", outcome.failure_reason}, {"duration_ms", duration}, {"usage", sink_.usage()}});
  }
  writer_->flush();
  if (is_success(outcome.status)) {
    log().info("run {} finished: {} in {}ms", state_.run_id, status_name(outcome.status), duration);
  } else {
    log().info("run {} failed after {}ms: {}", state_.run_id, duration, outcome.failure_reason);
  }
  run_log_.reset();
  RunResult r;
  r.outcome = outcome;
  r.run_dir = run_dir_;
  r.checkpoint = take_checkpoint();
  r.usage = sink_.usage();
  return r;
}

RunResult Engine::Impl::budget_exhausted(const std::string& reason) {
  emit(kBudgetExhaustedEvent, {{"reason", reason}, {"next_node", state_.next_node}, {"usage", sink_.usage()}});
  checkpoint_writer_.compact(run_dir_, *writer_);
  release_space();
  writer_->flush();
  log().info("run {} stopped: {}", state_.run_id, reason);
  run_log_.reset();
  RunResult r;
  r.outcome = Outcome::fail(reason);
  r.run_dir = run_dir_;
  r.budget_exhausted = true;
  r.checkpoint = take_checkpoint();
  r.usage = sink_.usage();
  return r;
}

std::function<std::string(const nlohmann::json&)> Engine::Impl::budget_check_for(const std::string& node_id) {
  if (!budget_.any()) return {};
  return [this, node_id](const nlohmann::json& in_flight) {
    std::string why = budget_reached(budget_, sink_.usage_with(in_flight), node_id, "during");
    if (!why.empty()) {
      std::lock_guard lock(branch_mutex_);
      if (budget_stop_.empty()) budget_stop_ = why;
    }
    return why;
  };
}

void Engine::Impl::record_attempts(const std::string& node_id) {
  std::lock_guard lock(branch_mutex_);
  record_attempts_locked(node_id);
}

void Engine::Impl::record_attempts_locked(const std::string& node_id) {
  if (auto n = attempts_.find(node_id); n != attempts_.end()) state_.node_attempts[node_id] = n->second;
}

std::string Engine::Impl::take_budget_stop() {
  std::lock_guard lock(branch_mutex_);
  return std::exchange(budget_stop_, std::string());
}

void Engine::Impl::request_interrupt(const std::string& reason) {
  {
    std::lock_guard lock(branch_mutex_);
    if (interrupt_request_.empty() && !options_.cancel.cancelled()) interrupt_request_ = reason;
  }
  options_.cancel.cancel();
}

RunResult Engine::Impl::interrupted() {
  nlohmann::json fields = {
      {"current_node", state_.current_node}, {"next_node", state_.next_node}, {"usage", sink_.usage()}};
  std::string why;
  {
    std::lock_guard lock(branch_mutex_);
    why = interrupt_request_;
  }
  if (why.empty() && options_.interrupt_reason) why = options_.interrupt_reason();
  if (!why.empty()) fields["reason"] = why;
  emit(kPipelineInterruptedEvent, std::move(fields));
  checkpoint_writer_.compact(run_dir_, *writer_);
  release_space();
  writer_->flush();
  log().info("run {} interrupted; next node {}", state_.run_id, state_.next_node);
  run_log_.reset();
  RunResult r;
  r.outcome = Outcome::fail(why.empty() ? "interrupted" : why);
  r.run_dir = run_dir_;
  r.interrupted = true;
  r.checkpoint = take_checkpoint();
  r.usage = sink_.usage();
  return r;
}

void Engine::Impl::begin_restart(const std::string& target) {
  std::string parent = run_dir_;
  std::int64_t restarts = state_.restart_count + 1;
  std::string base = parent;
  if (auto pos = base.rfind("-restart"); pos != std::string::npos) base = base.substr(0, pos);
  nlohmann::json seed = state_.seed_context;
  std::string run_id = state_.run_id;
  emit(kPipelineRestartedEvent, {{"target", target}, {"restart", restarts}});
  log().info("run {} restarts at {} (loop_restart {}) in {}-restart{}", run_id, target, restarts, base, restarts);
  state_ = Checkpoint{};
  stage_visits_.clear();
  attempts_.clear();
  sessions_.clear();
  history_.clear();
  state_.run_id = fmt::format("{}-r{}", run_id, restarts);
  state_.seed_context = seed;
  state_.restart_count = restarts;
  run_dir_ = fmt::format("{}-restart{}", base, restarts);
  initialize_run_directory(parent);
  seed_context();
  state_.next_node = target;
  save();
  log().info("run {} started: continues {} at node {}, run directory {}", state_.run_id, parent, target, run_dir_);
}

void Engine::Impl::deliver_inbox(const std::string& node_id, Context& context, nlohmann::json& inbox) {
  nlohmann::json taken = take_inbox_messages(inbox, node_id);
  if (taken.empty()) {
    auto previous = context.get(kInboxLastConsumedKey);
    if (previous && !(previous->is_array() && previous->empty())) {
      context.set(kInboxLastConsumedKey, nlohmann::json::array());
    }
    return;
  }
  nlohmann::json topics = nlohmann::json::array();
  for (const nlohmann::json& m : taken) topics.push_back(m.value("topic", std::string()));
  emit(kInboxDeliveredEvent, {{"node_id", node_id}, {"count", taken.size()}, {"topics", topics}});
  context.set(kInboxLastConsumedKey, std::move(taken));
}

void Engine::Impl::post_messages(const Outcome& outcome, const std::string& sender, nlohmann::json& inbox) {
  if (!outcome.messages.is_array() || outcome.messages.empty()) return;
  enqueue_inbox_messages(inbox, outcome.messages, sender);
  nlohmann::json targets = nlohmann::json::array();
  for (const nlohmann::json& m : outcome.messages) targets.push_back(m.value("target_step_id", std::string()));
  emit(kInboxEnqueuedEvent, {{"node_id", sender}, {"count", outcome.messages.size()}, {"targets", targets}});
}

RunResult Engine::Impl::execute_loop(std::string next, bool resumed) {
  std::int64_t started = clock_->now_ms();
  std::int64_t cap = execution_cap();
  const EdgeData* via_edge = nullptr;
  // Sessions are not serialized: after a resume that lost conversations, the first `full` LLM
  // stage runs as summary:high (once; later `full` stages start new sessions).
  bool degrade = resumed && (state_.last_fidelity == kFidelityFull || context_.has(kSessionThreadsContextKey));
  while (true) {
    if (options_.cancel.cancelled()) return interrupted();
    auto v = graph_.find(next);
    if (!v)
      return finish(Outcome::fail("node '" + next + "' does not exist", ErrorCategory::kPipeline), state_.current_node,
                    started);
    const NodeData& node = graph_.node(*v);

    if (is_terminal_node(graph_, node)) {
      std::string failed_gate;
      if (!goal_gates_satisfied(&failed_gate)) {
        std::string target = goal_gate_retry_target(*graph_.node(failed_gate));
        if (target.empty()) return finish(Outcome::fail(unmet_goal_gate_message(failed_gate)), node.id, started);
        context_.append_log("goal gate " + failed_gate + " unsatisfied; retrying at " + target);
        log().info("goal gate {} unsatisfied; retrying at {}", failed_gate, target);
        state_.next_node = target;
        next = target;
        via_edge = nullptr;
        save();
        continue;
      }
      Outcome done = Outcome::success("Pipeline completed");
      return finish(done, node.id, started);
    }

    if (state_.total_executions >= cap) {
      return finish(Outcome::fail(runaway_message(cap), ErrorCategory::kPipeline), state_.current_node, started);
    }

    if (budget_.any() && registry_.traits(node).llm != HandlerTraits::Llm::kNever) {
      if (std::string why = budget_reached(budget_, sink_.usage(), node.id); !why.empty()) return budget_exhausted(why);
    }
    deliver_inbox(node.id, context_, state_.inbox);
    context_.set(kCurrentNodeKey, node.id);
    StageFidelity fidelity = resolve_stage_fidelity(via_edge, node, graph_, state_.current_node);
    if (degrade && fidelity.mode == kFidelityFull) {
      fidelity.mode = std::string(kResumeFidelity);
      fidelity.degraded_on_resume = true;
      degrade = registry_.traits(node).llm != HandlerTraits::Llm::kAlways;
    }
    std::int64_t attempts = 0;
    std::optional<Outcome> over_limit = visit_limit_failure(node);
    Outcome outcome = over_limit ? *over_limit
                                 : execute_with_retry(node, context_, state_.node_retries, options_.cancel, fidelity,
                                                      history_, &attempts);
    if (options_.cancel.cancelled()) return interrupted();
    if (std::string why = take_budget_stop(); !why.empty()) return budget_exhausted(why);

    state_.total_executions++;
    state_.visit_counts[node.id]++;
    record_attempts(node.id);
    const std::size_t entry = state_.completed_nodes.size();
    state_.completed_nodes.push_back(node.id);
    state_.completed_statuses.push_back(status_name(outcome.status));
    state_.node_outcomes[node.id] = outcome;
    if (registry_.traits(node).fans_out) {
      std::lock_guard lock(branch_mutex_);
      for (Edge e : graph_.out_edges(*v)) {
        auto it = branch_records_.find(graph_.to_id(e));
        if (it == branch_records_.end()) continue;
        history_.adopt_branch(graph_.to_id(e));
        for (auto& [id, o] : it->second) {
          state_.completed_nodes.push_back(id);
          state_.completed_statuses.push_back(status_name(o.status));
          state_.visit_counts[id]++;
          record_attempts_locked(id);
          state_.total_executions++;
          state_.node_outcomes[id] = o;
        }
        branch_records_.erase(it);
      }
      for (Edge e : graph_.out_edges(*v)) {
        auto it = branch_inboxes_.find(graph_.to_id(e));
        if (it == branch_inboxes_.end()) continue;
        for (nlohmann::json& m : it->second) state_.inbox.push_back(std::move(m));
        branch_inboxes_.erase(it);
      }
    }
    commit_stage(entry, outcome);
    post_messages(outcome, node.id, state_.inbox);
    context_.apply_updates(outcome.context_updates);
    context_.set(kOutcomeKey, status_name(outcome.status));
    if (!outcome.preferred_label.empty()) context_.set(kPreferredLabelKey, outcome.preferred_label);
    state_.current_node = node.id;
    state_.last_fidelity = fidelity.mode;
    if (std::size_t threads = sessions_.size(); threads > 0) {
      auto noted = context_.get(kSessionThreadsContextKey);
      if (!noted || noted->size() != threads)
        context_.set(std::string(kSessionThreadsContextKey), sessions_.thread_ids());
    }

    Route route = route_after(node, outcome, context_);
    if (route.kind == Route::Kind::kEnd) {
      if (outcome.status == StageStatus::kFail) {
        Outcome failed = outcome;
        failed.failure_reason = dead_end_failure_message(node.id, outcome.failure_reason, attempts);
        return finish(failed, node.id, started);
      }
      return finish(Outcome::success("Pipeline completed"), node.id, started);
    }
    if (route.kind == Route::Kind::kRestart) {
      state_.next_node = route.target;
      save();
      begin_restart(route.target);
      next = route.target;
      via_edge = route.edge;
      continue;
    }
    state_.next_node = route.target;
    save();
    next = route.target;
    via_edge = route.edge;
  }
}

void Engine::Impl::commit_stage(std::size_t entry, const Outcome& outcome) {
  if (!options_.workspace) return;
  const std::string& node_id = state_.completed_nodes[entry];
  StageCommit stage{state_.run_id,          node_id,         state_.visit_counts[node_id], status_name(outcome.status),
                    state_.journal_seq + 1, clock_->now_ms()};
  std::string commit = options_.workspace->commit_stage(stage);
  state_.completed_commits.resize(state_.completed_nodes.size());
  state_.completed_commits[entry] = commit;
  if (commit.empty()) return;
  emit(kStageCommittedEvent, {{"node_id", node_id}, {"visit", stage.visit}, {"commit", commit}});
  log().info("stage {} (visit {}) committed {}", node_id, stage.visit, commit);
}

void Engine::Impl::restore_workspace(const std::string& next_node) {
  if (!options_.workspace) return;
  const std::string commit = commit_after(state_.completed_commits, state_.completed_commits.size(),
                                          options_.workspace->base_commit());
  nlohmann::json fields = {{"commit", commit}};
  if (std::string patch = options_.workspace->changes_since(commit); !patch.empty()) {
    const std::string path = unused_patch_path(*disk_, run_dir_, next_node);
    if (std::error_code ec = disk_->make_directories(fs::path(path).parent_path().string())) {
      throw RunWriteError("cannot create " + fs::path(path).parent_path().string() + ": " + ec.message());
    }
    const std::string_view parts[] = {patch};
    disk_->write_file_atomic(path, parts);
    fields["patch"] = fs::path(path).lexically_relative(run_dir_).string();
    log().info("the worktree held edits beyond commit {}: kept as {}", commit, path);
  }
  options_.workspace->reset_to(commit);
  emit(kWorkspaceRestoredEvent, std::move(fields));
}

Engine::Engine(const Graph& graph, const HandlerRegistry& registry, EngineOptions options)
    : impl_(std::make_unique<Impl>(graph, registry, std::move(options))) {}

Engine::~Engine() = default;

namespace {

/// Runs `body`, logging the error that stops a run before it propagates.
template <typename Body>
RunResult logging_errors(Body body) {
  try {
    return body();
  } catch (const std::exception& e) {
    log().info("run stopped by an error: {}", e.what());
    throw;
  }
}

}  // namespace

RunResult Engine::run(const nlohmann::json& initial_context) {
  return logging_errors([&] { return impl_->run(initial_context); });
}

RunResult Engine::resume() {
  return logging_errors([&] { return impl_->resume(std::nullopt); });
}

RunResult Engine::resume(Checkpoint checkpoint) {
  return logging_errors([&] { return impl_->resume(std::move(checkpoint)); });
}

}  // namespace attractor
