// Stage execution for the engine: one attempt (handler call, exceptions, node timeout, the
// status-file contract), retries with backoff, routing after a node, and parallel branches.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "attractor/engine/edge_selection.h"
#include "attractor/base/json_limits.h"
#include "attractor/engine/engine_impl.h"
#include "attractor/model/node_roles.h"
#include "attractor/engine/inbox.h"
#include "attractor/run/run_directory.h"
#include "attractor/run/attempt_folders.h"
#include "attractor/run/stage_visits.h"
#include "attractor/model/context_keys.h"
#include "attractor/engine/event_names.h"

namespace attractor {

namespace fs = std::filesystem;

namespace {

/// Cancels `token` when `timeout_ms` of real time elapse, unless stopped first.
class Watchdog {
 public:
  Watchdog(std::int64_t timeout_ms, CancelToken token) {
    thread_ = std::thread([this, timeout_ms, token] {
      std::unique_lock lock(mutex_);
      if (!cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return stopped_; })) {
        fired_ = true;
        token.cancel();
      }
    });
  }
  ~Watchdog() { stop(); }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  bool fired() {
    std::lock_guard lock(mutex_);
    return fired_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopped_ = false;
  bool fired_ = false;
  std::thread thread_;
};

void write_status(WriteBehind& writer, const std::string& stage_dir, const Outcome& outcome) {
  writer.write_file((fs::path(stage_dir) / kStageStatusFile).string(), outcome_to_json(outcome).dump(2) + "\n");
}

/// The log line of a retry: what failed and how long the engine waits (the provider's
/// Retry-After when it is longer than the backoff delay).
void log_retry(const std::string& node_id, const Outcome& outcome, std::int64_t attempt, std::int64_t max_attempts,
               std::int64_t delay_ms, std::int64_t duration_ms) {
  std::string wait = outcome.retry_after_ms && *outcome.retry_after_ms >= delay_ms
                         ? fmt::format("{}ms (Retry-After)", delay_ms)
                         : fmt::format("{}ms", delay_ms);
  log().info("stage {} attempt {} of {} failed in {}ms: {}; retrying in {}", node_id, attempt, max_attempts,
             duration_ms, outcome.failure_reason, wait);
}

/// Adds the members of `outcome.stage_info` that `fields` does not have to a stage event.
void add_stage_info(nlohmann::json& fields, const Outcome& outcome) {
  if (!outcome.stage_info.is_object()) return;
  for (const auto& [key, value] : outcome.stage_info.items()) {
    if (!fields.contains(key)) fields[key] = value;
  }
}

/// Why `outcome` cannot be stored (a context update or inbox message nested deeper than a run
/// stores, so its checkpoint would be unreadable), or "".
std::string too_deep_to_store(const Outcome& outcome, const std::string& node_id) {
  if (outcome.context_updates.is_object()) {
    for (const auto& [key, value] : outcome.context_updates.items()) {
      if (std::string deep = json_depth_problem(value); !deep.empty()) {
        return fmt::format("stage {} set context value `{}` {} (the limit of a stored value)", node_id, key, deep);
      }
    }
  }
  if (std::string deep = json_depth_problem(outcome.messages); !deep.empty()) {
    return fmt::format("stage {} sent inbox messages {} (the limit of a stored value)", node_id, deep);
  }
  return "";
}

}  // namespace

/// The branches a stage starts: they begin with a copy of the history the stage records into.
class Engine::Impl::BranchesFrom : public BranchRunner {
 public:
  BranchesFrom(Engine::Impl& engine, StageHistory& history) : engine_(engine), history_(history) {}
  BranchResult run_branch(const std::string& start_node, Context& context, const std::string& stop_at,
                          const CancelToken& cancel) override {
    return engine_.run_branch_from(history_, start_node, context, stop_at, cancel);
  }

 private:
  Engine::Impl& engine_;
  StageHistory& history_;
};

Outcome Engine::Impl::run_attempt(const NodeData& node, Handler& handler, Context& context,
                                  const std::string& stage_dir, std::int64_t attempt, const CancelToken& cancel,
                                  const StageFidelity& fidelity, AttemptFolders& folders, StageHistory& history) {
  fs::path status_path = fs::path(stage_dir) / kStageStatusFile;
  // The first attempt's directory comes without one (open_stage_visit); a retry removes its own.
  if (attempt > 1) writer_->remove_file(status_path.string());
  // A handler that does not queue its writes sees the stage directory as it would without the
  // writer; one that does flushes before anything outside the process could write status.json.
  const HandlerTraits& traits = registry_.traits(node);
  const bool queued = traits.queues_writes;
  if (!queued) writer_->flush();
  const std::uint64_t flushes_before = writer_->flush_count();

  StageEnv env;
  env.run_dir = run_dir_;
  env.stage_dir = stage_dir;
  env.cancel = cancel.child();
  env.timeout_ms = node.timeout_ms();
  env.clock = clock_;
  env.events = &sink_;
  env.artifacts = artifacts_.get();
  BranchesFrom branches(*this, history);
  env.branches = &branches;
  env.attempt = attempt;
  {
    std::lock_guard lock(branch_mutex_);
    env.prior_attempts = attempts_[node.id]++;
  }
  env.fidelity = effective_fidelity(fidelity.mode);
  env.thread_id = fidelity.thread_id;
  env.previous_node = fidelity.previous_node;
  env.writer = writer_.get();
  env.handlers = &registry_.catalog();
  folders.begin(attempt);
  env.attempt_directory = [&folders] { return folders.folder(); };
  env.keep_attempt_file = [&folders](const std::string& name, std::string content) {
    folders.keep(name, std::move(content));
  };
  env.record_process = [this, &folders](const ProcessGroupRecord& record) {
    const std::string dir = folders.folder();
    writer_->flush();
    record_attempt_process(*disk_, dir, record);
  };
  env.budget_check = budget_check_for(node.id);
  env.interrupt_run = [this](const std::string& reason) { request_interrupt(reason); };

  std::unique_ptr<Watchdog> watchdog;
  if (env.timeout_ms && *env.timeout_ms > 0 && !traits.handles_timeout) {
    watchdog = std::make_unique<Watchdog>(*env.timeout_ms, env.cancel);
  }
  std::unique_ptr<StageHeartbeats::Handle> heartbeat = start_heartbeat(node, attempt);
  Outcome outcome;
  try {
    if (traits.llm == HandlerTraits::Llm::kAlways) {
      env.conversation = open_conversation(node, context, graph_, env.fidelity, env.thread_id, &sessions_, &history,
                                           attempt, &preambles_);
    }
    outcome = handler.execute(node, context, graph_, env);
  } catch (const StageError& e) {
    outcome = Outcome::fail(e.what(), e.category());
    outcome.retry_after_ms = e.retry_after_ms();
  } catch (const std::exception& e) {
    outcome = Outcome::fail(e.what());
  } catch (...) {
    outcome = Outcome::fail("handler threw an unknown exception");
  }
  heartbeat.reset();
  bool timed_out = false;
  if (watchdog) {
    watchdog->stop();
    timed_out = watchdog->fired();
  }
  if (timed_out && !cancel.cancelled()) {
    return Outcome::fail(fmt::format("stage {} timed out after {}ms", node.id, *env.timeout_ms));
  }

  bool outside_effects = !queued || writer_->flush_count() != flushes_before || folders.looked_at_disk();
  if (outside_effects && queued) writer_->flush();
  // A stage with an attempt folder takes an outside status.json from there alone (invariant 17).
  if (folders.has_folder()) status_path = fs::path(folders.folder()) / kStageStatusFile;
  if (outside_effects && disk_->exists(status_path.string())) {
    try {
      Outcome external = outcome_from_json(
          parse_json_limited(disk_->read_file(status_path.string()), kStageStatusFile));
      external.notes = external.notes.empty() ? "status.json written during the stage" : external.notes;
      return external;
    } catch (const std::exception& e) {
      return Outcome::fail(std::string("invalid status.json in stage directory: ") + e.what(),
                           ErrorCategory::kTerminal);
    }
  }
  if (outcome.status_pending) {
    if (node.auto_status()) return Outcome::success("auto-status: handler completed without writing status");
    return Outcome::fail("stage " + node.id + " did not write status.json");
  }
  return outcome;
}

std::unique_ptr<StageHeartbeats::Handle> Engine::Impl::start_heartbeat(const NodeData& node, std::int64_t attempt) {
  const HandlerTraits& traits = registry_.traits(node);
  if (options_.waiting_every_ms <= 0 || !(traits.runs_tools || uses_llm(traits, node))) return nullptr;
  const char* waiting_on = traits.runs_tools ? "command" : "model";
  const std::int64_t started = clock_->now_ms();
  return heartbeats_.start([this, id = node.id, attempt, waiting_on, started] {
    emit(kStageWaitingEvent,
         {{"name", id}, {"attempt", attempt}, {"waiting_on", waiting_on}, {"elapsed_ms", clock_->now_ms() - started}});
  });
}

std::string Engine::Impl::open_stage_directory(const NodeData& node, bool& numbered_here) {
  std::string stage_dir = (fs::path(run_dir_) / node.id).string();
  std::int64_t visit = 0;
  {
    std::lock_guard lock(branch_mutex_);
    visit = ++stage_visits_[node.id];
    numbered_here = !opened_stage_dirs_.insert(stage_dir).second || fresh_run_dir_;
  }
  writer_->open_stage_visit(stage_dir, visit);
  return stage_dir;
}

Outcome Engine::Impl::execute_with_retry(const NodeData& node, Context& context,
                                         std::map<std::string, std::int64_t>& retries, const CancelToken& cancel,
                                         const StageFidelity& fidelity, StageHistory& history, std::int64_t* attempts) {
  RetryPolicy policy = build_retry_policy(node, graph_.data());
  std::string type = registry_.catalog().type_of(node);
  Handler* handler = registry_.resolve(node);
  bool numbered_here = false;
  std::string stage_dir = open_stage_directory(node, numbered_here);
  AttemptFolders folders(*writer_, stage_dir, registry_.traits(node).queues_writes && numbered_here);
  std::int64_t first_started = clock_->now_ms();
  for (std::int64_t attempt = 1;; ++attempt) {
    if (attempts) *attempts = attempt;
    std::int64_t index = stage_index_.fetch_add(1) + 1;
    std::int64_t started = clock_->now_ms();
    emit(kStageStartedEvent, {{"name", node.id}, {"index", index}, {"attempt", attempt}, {"type", type}});
    log().info("stage {} started: attempt {} of {}, type {}", node.id, attempt, policy.max_attempts, type);
    Outcome outcome = handler
                          ? run_attempt(node, *handler, context, stage_dir, attempt, cancel, fidelity, folders, history)
                          : Outcome::fail("no handler for type '" + type + "'", ErrorCategory::kPipeline);
    if (std::string bad = inbox_messages_error(outcome.messages, graph_, node.id); !bad.empty()) {
      outcome = Outcome::fail(bad, ErrorCategory::kTerminal);
    }
    if (std::string deep = too_deep_to_store(outcome, node.id); !deep.empty()) {
      outcome = Outcome::fail(deep, ErrorCategory::kTerminal);
    }
    if (cancel.cancelled()) return outcome;
    if (std::optional<double> cost = sink_.stage_cost(outcome.stage_info))
      outcome.stage_info["usage"]["cost_usd"] = *cost;
    std::int64_t duration = clock_->now_ms() - started;

    if (outcome.status != StageStatus::kFail && outcome.status != StageStatus::kRetry) {
      retries.erase(node.id);
      context.remove(kRetryCountKeyPrefix + node.id);
      write_status(*writer_, stage_dir, outcome);
      nlohmann::json completed = {
          {"name", node.id}, {"index", index}, {"duration_ms", duration}, {"status", status_name(outcome.status)}};
      add_stage_info(completed, outcome);
      emit(kStageCompletedEvent, std::move(completed));
      log().info("stage {} finished: {} in {}ms", node.id, status_name(outcome.status), duration);
      history.add(
          make_stage_record(node, type, outcome, attempt, policy.max_attempts, clock_->now_ms() - first_started));
      return outcome;
    }
    // unified-llm-spec §6.6: a Retry-After beyond the policy's max delay is not waited for.
    bool will_retry = should_retry(outcome) && attempt < policy.max_attempts &&
                      !(outcome.retry_after_ms && *outcome.retry_after_ms > policy.backoff.max_delay_ms);
    nlohmann::json failed = {{"name", node.id},
                             {"index", index},
                             {"error", outcome.failure_reason},
                             {"status", status_name(outcome.status)},
                             {"will_retry", will_retry},
                             {"duration_ms", duration}};
    add_stage_info(failed, outcome);
    emit(kStageFailedEvent, std::move(failed));
    if (will_retry) {
      write_status(*writer_, stage_dir, outcome);
      std::int64_t count = ++retries[node.id];
      context.set(kRetryCountKeyPrefix + node.id, count);
      std::int64_t delay = policy.delay_for_attempt(attempt, random_);
      if (outcome.retry_after_ms) delay = std::max(delay, *outcome.retry_after_ms);
      emit(kStageRetryingEvent, {{"name", node.id}, {"index", index}, {"attempt", attempt + 1}, {"delay_ms", delay}});
      log_retry(node.id, outcome, attempt, policy.max_attempts, delay, duration);
      if (!clock_->sleep_ms(delay, cancel)) return outcome;
      continue;
    }
    if (outcome.status == StageStatus::kRetry) {
      if (node.allow_partial()) {
        Outcome partial = Outcome::success("retries exhausted, partial accepted");
        partial.status = StageStatus::kPartialSuccess;
        partial.context_updates = outcome.context_updates;
        outcome = partial;
      } else {
        std::string reason = outcome.failure_reason;
        outcome.status = StageStatus::kFail;
        outcome.failure_reason = "max retries exceeded" + (reason.empty() ? std::string() : ": " + reason);
      }
    }
    write_status(*writer_, stage_dir, outcome);
    log().info("stage {} finished: {} in {}ms after {} attempt{}{}", node.id, status_name(outcome.status), duration,
               attempt, attempt == 1 ? "" : "s", outcome.failure_reason.empty() ? "" : ": " + outcome.failure_reason);
    history.add(make_stage_record(node, type, outcome, attempt, policy.max_attempts, clock_->now_ms() - first_started));
    return outcome;
  }
}

Route Engine::Impl::route_after(const NodeData& node, const Outcome& outcome, const Context& context) const {
  Route route;
  if (!outcome.jump_to.empty()) {
    route.kind = Route::Kind::kNext;
    route.target = outcome.jump_to;
    return route;
  }
  if (registry_.traits(node).fans_out) return route;
  auto v = graph_.find(node.id);
  bool failed = outcome.status == StageStatus::kFail;
  std::optional<Edge> edge = select_edge(graph_, *v, outcome, context,
                                         failed ? EdgeSelectionMode::kConditionsOnly : EdgeSelectionMode::kAll);
  if (edge) {
    const EdgeData& e = graph_.edge(*edge);
    route.kind = e.loop_restart() ? Route::Kind::kRestart : Route::Kind::kNext;
    route.target = graph_.to_id(*edge);
    route.edge = &e;
    return route;
  }
  if (failed) {
    for (const std::string& target : {node.retry_target(), node.fallback_retry_target()}) {
      if (!target.empty() && graph_.find(target)) {
        route.kind = Route::Kind::kNext;
        route.target = target;
        return route;
      }
    }
  }
  route.kind = Route::Kind::kEnd;
  return route;
}

BranchResult Engine::Impl::run_branch(const std::string& start_node, Context& context, const std::string& stop_at,
                                      const CancelToken& cancel) {
  return run_branch_from(history_, start_node, context, stop_at, cancel);
}

BranchResult Engine::Impl::run_branch_from(StageHistory& parent, const std::string& start_node, Context& context,
                                           const std::string& stop_at, const CancelToken& cancel) {
  BranchResult result;
  result.id = start_node;
  std::int64_t started = clock_->now_ms();
  nlohmann::json before = context.snapshot();
  std::map<std::string, std::int64_t> retries;
  std::vector<std::pair<std::string, Outcome>> records;
  std::string next = start_node;
  std::string previous = context.get_string(kCurrentNodeKey);
  const EdgeData* via_edge = nullptr;
  std::int64_t cap = execution_cap();
  std::int64_t steps = 0;
  nlohmann::json inbox = nlohmann::json::array();
  StageHistory local_history;
  for (StageRecord& r : parent.records()) local_history.add(std::move(r));
  const std::size_t inherited = local_history.size();
  while (true) {
    if (cancel.cancelled()) {
      result.cancelled = true;
      break;
    }
    auto v = graph_.find(next);
    if (!v) {
      result.outcome = Outcome::fail("node '" + next + "' does not exist", ErrorCategory::kPipeline);
      break;
    }
    const NodeData& node = graph_.node(*v);
    if (next == stop_at || is_terminal_node(graph_, node) || registry_.traits(node).fans_in) {
      result.stopped_at = next;
      break;
    }
    if (++steps > cap) {
      result.outcome = Outcome::fail(fmt::format("runaway loop in parallel branch {}: {} executions", start_node, cap),
                                     ErrorCategory::kPipeline);
      break;
    }
    deliver_inbox(node.id, context, inbox);
    context.set(kCurrentNodeKey, node.id);
    Outcome outcome = execute_with_retry(node, context, retries, cancel,
                                         resolve_stage_fidelity(via_edge, node, graph_, previous), local_history);
    previous = node.id;
    if (cancel.cancelled()) {
      result.cancelled = true;
      break;
    }
    records.emplace_back(node.id, outcome);
    post_messages(outcome, node.id, inbox);
    result.completed_nodes.push_back(node.id);
    result.last_node = node.id;
    result.outcome = outcome;
    context.apply_updates(outcome.context_updates);
    context.set(kOutcomeKey, status_name(outcome.status));
    if (!outcome.preferred_label.empty()) context.set(kPreferredLabelKey, outcome.preferred_label);
    Route route = route_after(node, outcome, context);
    if (route.kind == Route::Kind::kEnd) break;
    next = route.target;
    via_edge = route.edge;
  }
  if (result.cancelled) result.outcome = Outcome::fail("branch cancelled");
  result.context_changes = context_diff(before, context.snapshot());
  result.last_response = context.get_string(kLastResponseKey);
  result.duration_ms = clock_->now_ms() - started;
  {
    std::lock_guard lock(branch_mutex_);
    branch_records_[start_node] = std::move(records);
    std::vector<StageRecord> own = local_history.records();
    own.erase(own.begin(), own.begin() + static_cast<std::ptrdiff_t>(inherited));
    history_.stash_branch(start_node, std::move(own));
    if (!inbox.empty()) branch_inboxes_[start_node] = std::move(inbox);
  }
  return result;
}

}  // namespace attractor
