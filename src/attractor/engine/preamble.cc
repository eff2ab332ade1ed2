#include "attractor/engine/preamble.h"
#include "attractor/model/node_roles.h"

#include <algorithm>
#include <unordered_map>
#include <map>
#include <set>

#include <fmt/format.h>

#include "attractor/base/budget_search.h"
#include "attractor/base/utf8.h"
#include "attractor/model/fidelity.h"
#include "attractor/engine/retry.h"
#include "attractor/model/context_keys.h"
#include "attractor/model/prompt_variables.h"
#include "attractor/tokens/chunked_counter.h"

namespace attractor {

namespace {

constexpr std::size_t kKeptRecentStages = 3;

/// At most `max_chars` characters of UTF-8 `text`, with "…" when shortened.
std::string excerpt(const std::string& text, std::size_t max_chars) {
  std::size_t size = utf8_prefix_size(text, max_chars);
  return size < text.size() ? text.substr(0, size) + "…" : text;
}

/// Replaces line breaks by spaces so one entry stays on one line.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

std::string dump_json(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct ContextEntry {
  std::string key;
  nlohmann::json value;
  std::size_t size = 0;
  std::string line_120;  ///< the value on one line, at most 120 characters (compact mode)
  std::string line_200;  ///< the same, at most 200 characters (summary:medium)
};

/// What survives the budget: indices of kept stages (oldest first) and kept context entries.
struct Selection {
  std::vector<std::size_t> stages;
  std::size_t omitted_stages = 0;
  std::vector<const ContextEntry*> context;  ///< in key order
  std::size_t omitted_context = 0;
};

std::string omitted_stages_text(std::size_t n) {
  return fmt::format("({} earlier stage{} omitted)", n, n == 1 ? "" : "s");
}

std::string omitted_context_text(std::size_t n) {
  return fmt::format("({} context value{} omitted)", n, n == 1 ? "" : "s");
}

std::string render_truncate(const PreambleInput& in) {
  return fmt::format("Pipeline: {}\nGoal: {}\nRun ID: {}\nCurrent stage: {}\n", in.pipeline_name, in.goal, in.run_id,
                     in.current_node);
}

std::string render_compact(const PreambleInput& in, const Selection& s) {
  std::string out = fmt::format(
      "## Pipeline State\n\n- Pipeline: {}\n- Goal: {}\n- Completed stages: ", in.pipeline_name, in.goal);
  std::string_view separator;
  if (s.omitted_stages > 0) {
    out += omitted_stages_text(s.omitted_stages);
    separator = ", ";
  }
  for (std::size_t i : s.stages) {
    out.append(separator).append(in.completed[i]->node_id).append(" (").append(in.completed[i]->status).append(")");
    separator = ", ";
  }
  if (separator.empty()) out += "none";
  out.append("\n- Current stage: ").append(in.current_node).append("\n");
  if (!s.context.empty() || s.omitted_context > 0) {
    out += "- Key context values:\n";
    for (const ContextEntry* e : s.context)
      out.append("  - ").append(e->key).append(": ").append(e->line_120).append("\n");
    if (s.omitted_context > 0) out += "  - " + omitted_context_text(s.omitted_context) + "\n";
  }
  return out;
}

std::string render_summary_low(const PreambleInput& in, const Selection& s) {
  std::string names;
  if (s.omitted_stages > 0) names = omitted_stages_text(s.omitted_stages);
  for (std::size_t i : s.stages) names += (names.empty() ? "" : ", ") + in.completed[i]->node_id;
  if (names.empty()) names = "none";
  std::string last = in.completed.empty() ? std::string("none")
                                          : in.completed.back()->status + " (" + in.completed.back()->node_id + ")";
  StageTotals t;
  if (in.totals) {
    t = *in.totals;
  } else {
    for (const StageRecordPtr& record : in.completed) {
      const StageRecord& r = *record;
      ++t.stages;
      if (r.status == "success" || r.status == "partial_success") ++t.succeeded;
      if (r.status == "fail") ++t.failed;
      t.retries += std::max<std::int64_t>(0, r.attempts - 1);
    }
  }
  std::size_t succeeded = t.succeeded, failed = t.failed, stages = t.stages;
  std::int64_t retries = t.retries;
  return fmt::format(
      "Pipeline \"{}\" stage {} of {}. Goal: {}.\nCompleted: {}. Last outcome: {}.\n"
      "Events: {} stage{} run ({} succeeded, {} failed), {} retr{}.\n",
      in.pipeline_name, in.stage_number, in.total_stages, in.goal, names, last, stages, stages == 1 ? "" : "s",
      succeeded, failed, retries, retries == 1 ? "y" : "ies");
}

std::string render_summary_medium(const PreambleInput& in, const Selection& s) {
  std::string out = fmt::format(
      "## Pipeline Progress\n\nPipeline: {}\nGoal: {}\nStage: {} ({}/{})\n\n### Recent Activity\n", in.pipeline_name,
      in.goal, in.current_node, in.stage_number, in.total_stages);
  if (s.omitted_stages > 0) out += "- " + omitted_stages_text(s.omitted_stages) + "\n";
  if (s.stages.empty() && s.omitted_stages == 0) out += "- none yet\n";
  std::string notable;
  for (std::size_t i : s.stages) {
    const StageRecord& r = *in.completed[i];
    out += "- " + r.node_id + ": " + r.status;
    if (!r.notes.empty()) out += " — " + excerpt(one_line(r.notes), 200);
    out += "\n";
    if (r.attempts > 1) {
      notable += fmt::format("- {}: {} retr{} ({} attempts)\n", r.node_id, r.attempts - 1,
                             r.attempts == 2 ? "y" : "ies", r.attempts);
    }
    if (r.status == "fail") notable += "- " + r.node_id + ": failed\n";
  }
  if (!s.context.empty() || s.omitted_context > 0) {
    out += "\n### Active Context\n";
    for (const ContextEntry* e : s.context)
      out.append("- ").append(e->key).append(": ").append(e->line_200).append("\n");
    if (s.omitted_context > 0) out += "- " + omitted_context_text(s.omitted_context) + "\n";
  }
  if (!notable.empty()) out += "\n### Notable Events\n" + notable;
  return out;
}

std::string render_summary_high(const PreambleInput& in, const Selection& s) {
  std::string out = fmt::format(
      "## Pipeline State (Comprehensive)\n\nPipeline: {}\nGoal: {}\nRun ID: {}\nStage: {} ({}/{})\n\n"
      "### Execution History\n",
      in.pipeline_name, in.goal, in.run_id, in.current_node, in.stage_number, in.total_stages);
  if (s.omitted_stages > 0) out += "- " + omitted_stages_text(s.omitted_stages) + "\n";
  if (s.stages.empty() && s.omitted_stages == 0) out += "- none yet\n";
  std::string retries;
  for (std::size_t i : s.stages) {
    const StageRecord& r = *in.completed[i];
    out += "- " + r.node_id + ": " + r.status;
    if (!r.notes.empty()) out += " — " + one_line(r.notes);
    out += "\n";
    std::string tools;
    for (const std::string& t : r.tools) tools += (tools.empty() ? "" : "; ") + one_line(t);
    out += "  Tools used: " + (tools.empty() ? std::string("none") : tools) + "\n";
    out += "  Duration: " + (r.duration_ms < 0 ? std::string("unknown") : format_duration_ms(r.duration_ms)) + "\n";
    if (r.attempts > 1) {
      retries += fmt::format("- {}: {}/{}\n", r.node_id, r.attempts - 1, std::max<std::int64_t>(0, r.max_attempts - 1));
    }
  }
  out += "\n### Full Context\n";
  nlohmann::json context = nlohmann::json::object();
  for (const ContextEntry* e : s.context) context[e->key] = e->value;
  out += "```json\n" + dump_json(context, 2) + "\n```\n";
  if (s.omitted_context > 0) out += omitted_context_text(s.omitted_context) + "\n";
  if (in.current_attempt > 1) {
    retries += fmt::format("- {}: {}/{} (this stage)\n", in.current_node, in.current_attempt - 1,
                           std::max<std::int64_t>(0, in.current_max_attempts - 1));
  }
  out += "\n### Retry Information\n" + (retries.empty() ? std::string("- none\n") : retries);
  return out;
}

std::string render(std::string_view mode, const PreambleInput& in, const Selection& s) {
  if (mode == kFidelityTruncate) return render_truncate(in);
  if (mode == kFidelitySummaryLow) return render_summary_low(in, s);
  if (mode == kFidelitySummaryMedium) return render_summary_medium(in, s);
  if (mode == kFidelitySummaryHigh) return render_summary_high(in, s);
  return render_compact(in, s);
}

/// Context values (a context entry as high mode shows it: long strings cut to 1000 characters).
std::vector<ContextEntry> context_entries(const nlohmann::json& context) {
  std::vector<ContextEntry> entries;
  if (!context.is_object()) return entries;
  for (const auto& [key, value] : context.items()) {
    ContextEntry e;
    e.key = key;
    e.value = value.is_string() ? nlohmann::json(excerpt(value.get<std::string>(), 1000)) : value;
    std::string text = dump_json(e.value);
    if (text.size() > 4000) e.value = excerpt(text, 1000);
    std::string shown = one_line(dump_json(e.value));
    e.size = key.size() + shown.size();
    e.line_120 = excerpt(shown, 120);
    e.line_200 = excerpt(shown, 200);
    entries.push_back(std::move(e));
  }
  return entries;
}

/// The text cut to at most `budget` tokens at a token boundary (no partial UTF-8 character).
std::string cut_to_budget(const std::string& text, std::size_t budget, const TokenCounter& counter) {
  std::vector<TokenId> ids = counter.encode(text);
  std::size_t keep = std::min(ids.size(), budget);
  while (true) {
    std::string cut = counter.decode(std::span<const TokenId>(ids.data(), keep));
    cut.resize(utf8_complete_size(cut));
    if (counter.count(cut) <= budget || keep == 0) return cut;
    --keep;
  }
}

}  // namespace

namespace {

/// "start" for the start node, "exit" for exit nodes, else the node's own `type` (roles decide
/// what is not a stage; the handler type matters only to tell those apart).
std::string role_type(const Graph& graph, const NodeData& node) {
  std::optional<Vertex> start = find_start_node(graph);
  if (start && graph.node(*start).id == node.id) return "start";
  if (is_terminal_node(graph, node)) return "exit";
  return node.type();
}

/// Nodes that are neither the start nor an exit.
std::int64_t count_graph_stages(const Graph& graph) {
  std::int64_t total = 0;
  std::optional<Vertex> start = find_start_node(graph);
  for (Vertex v : graph.nodes()) {
    if ((start && *start == v) || is_terminal_node(graph, graph.node(v))) continue;
    ++total;
  }
  return total;
}

}  // namespace

StageRecord make_stage_record(const NodeData& node, const std::string& handler_type, const Outcome& outcome,
                              std::int64_t attempts, std::int64_t max_attempts, std::int64_t duration_ms) {
  StageRecord r;
  r.node_id = node.id;
  r.handler_type = handler_type;
  r.status = status_name(outcome.status);
  r.notes = outcome.status == StageStatus::kFail && !outcome.failure_reason.empty() ? outcome.failure_reason
                                                                                    : outcome.notes;
  r.attempts = attempts;
  r.max_attempts = max_attempts;
  r.duration_ms = duration_ms;
  if (std::string command = node.get("tool_command"); !command.empty()) r.tools.push_back(excerpt(command, 200));
  if (outcome.stage_info.is_object()) {
    auto it = outcome.stage_info.find("tools");
    if (it != outcome.stage_info.end() && it->is_array()) {
      for (const auto& t : *it) {
        if (t.is_string()) r.tools.push_back(t.get<std::string>());
      }
    }
  }
  return r;
}

void StageHistory::count(const StageRecord& r) {
  ++totals_.stages;
  if (r.handler_type != "start") ++totals_.non_start;
  if (r.status == "success" || r.status == "partial_success") ++totals_.succeeded;
  if (r.status == "fail") ++totals_.failed;
  totals_.retries += std::max<std::int64_t>(0, r.attempts - 1);
}

void StageHistory::add(StageRecord record) {
  auto shared = std::make_shared<const StageRecord>(std::move(record));
  std::lock_guard lock(mutex_);
  count(*shared);
  records_.push_back(std::move(shared));
}

std::vector<StageRecordPtr> StageHistory::recent(std::size_t max, std::size_t* earlier) const {
  std::lock_guard lock(mutex_);
  std::size_t skip = records_.size() > max ? records_.size() - max : 0;
  if (earlier) *earlier = skip;
  return std::vector<StageRecordPtr>(records_.begin() + static_cast<std::ptrdiff_t>(skip), records_.end());
}

StageTotals StageHistory::totals() const {
  std::lock_guard lock(mutex_);
  return totals_;
}

std::int64_t StageHistory::graph_stage_count(const Graph& graph) const {
  std::lock_guard lock(mutex_);
  if (counted_graph_ != &graph) {
    graph_stages_ = count_graph_stages(graph);
    counted_graph_ = &graph;
  }
  return graph_stages_;
}

std::vector<StageRecord> StageHistory::records() const {
  std::lock_guard lock(mutex_);
  std::vector<StageRecord> out;
  out.reserve(records_.size());
  for (const StageRecordPtr& r : records_) out.push_back(*r);
  return out;
}

std::size_t StageHistory::size() const {
  std::lock_guard lock(mutex_);
  return records_.size();
}

void StageHistory::clear() {
  std::lock_guard lock(mutex_);
  records_.clear();
  stashed_.clear();
  totals_ = {};
}

void StageHistory::stash_branch(const std::string& branch_start, std::vector<StageRecord> records) {
  std::lock_guard lock(mutex_);
  stashed_[branch_start] = std::move(records);
}

void StageHistory::adopt_branch(const std::string& branch_start) {
  std::lock_guard lock(mutex_);
  auto it = stashed_.find(branch_start);
  if (it == stashed_.end()) return;
  for (StageRecord& r : it->second) {
    count(r);
    records_.push_back(std::make_shared<const StageRecord>(std::move(r)));
  }
  stashed_.erase(it);
}

void StageHistory::restore(const Checkpoint& checkpoint, const Graph& graph) {
  const std::vector<std::string>& ids = checkpoint.completed_nodes;
  const bool per_visit = checkpoint.completed_statuses.size() == ids.size();
  std::unordered_map<std::string_view, std::size_t> last_index;
  for (std::size_t i = 0; i < ids.size(); ++i) last_index[ids[i]] = i;
  std::vector<StageRecord> records;
  records.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    StageRecord r;
    r.node_id = ids[i];
    if (const NodeData* node = graph.node(ids[i])) r.handler_type = role_type(graph, *node);
    auto it = checkpoint.node_outcomes.find(ids[i]);
    bool last_visit = last_index[ids[i]] == i;
    if (per_visit) {
      r.status = checkpoint.completed_statuses[i];
    } else {
      r.status = it != checkpoint.node_outcomes.end() ? status_name(it->second.status) : "success";
    }
    if (it != checkpoint.node_outcomes.end() && last_visit && r.status == status_name(StageStatus::kFail)) {
      r.notes = it->second.failure_reason;
    }
    records.push_back(std::move(r));
  }
  std::lock_guard lock(mutex_);
  records_.clear();
  totals_ = {};
  for (StageRecord& r : records) {
    count(r);
    records_.push_back(std::make_shared<const StageRecord>(std::move(r)));
  }
}

bool is_bookkeeping_context_key(std::string_view key) {
  if (key.starts_with(kInternalKeyPrefix) || key.starts_with(kGraphKeyPrefix)) return true;
  return key == kCurrentNodeKey || key == kOutcomeKey || key == kPreferredLabelKey || key == kLastStageKey ||
         key == kLastModelResponseKey || key == kInboxLastConsumedKey;
}

std::set<std::string> hidden_from_preamble(const NodeData& node, const Context& context) {
  std::set<std::string> hidden;
  for (auto& key : prompt_variable_keys(node.prompt())) hidden.insert(std::move(key));
  if (auto marked = context.get(kPreambleHiddenKeysKey); marked && marked->is_array()) {
    for (const auto& key : *marked) {
      if (key.is_string()) hidden.insert(key.get<std::string>());
    }
  }
  return hidden;
}

std::size_t preamble_record_limit(std::string_view mode) {
  std::size_t budget = preamble_budget(mode);
  if (budget == 0) budget = preamble_budget(kFidelityCompact);
  return budget / 2 + kKeptRecentStages + 1;
}

PreambleInput gather_preamble_input(const NodeData& node, const Context& context, const Graph& graph,
                                    const StageHistory* history, std::int64_t attempt, std::size_t max_records) {
  PreambleInput in;
  in.pipeline_name = graph.name();
  in.goal = graph.data().goal();
  in.run_id = context.get_string(kRunIdKey);
  in.current_node = node.id;
  std::int64_t done = 0;
  std::int64_t total = 0;
  if (history) {
    in.completed = history->recent(max_records, &in.earlier_stages);
    in.totals = history->totals();
    done = static_cast<std::int64_t>(in.totals->non_start);
    total = history->graph_stage_count(graph);
  } else {
    total = count_graph_stages(graph);
  }
  in.stage_number = done + 1;
  in.total_stages = std::max(total, in.stage_number);
  std::set<std::string> hidden = hidden_from_preamble(node, context);
  nlohmann::json snapshot = context.snapshot_excluding({kInternalKeyPrefix, kGraphKeyPrefix});
  for (const auto& [key, value] : snapshot.items()) {
    if (!is_bookkeeping_context_key(key) && !hidden.count(key)) in.context[key] = value;
  }
  in.current_attempt = attempt;
  in.current_max_attempts = build_retry_policy(node, graph.data()).max_attempts;
  return in;
}

std::size_t preamble_budget(std::string_view mode) {
  if (mode == kFidelityTruncate) return 100;
  if (mode == kFidelityCompact) return 500;
  if (mode == kFidelitySummaryLow) return 600;
  if (mode == kFidelitySummaryMedium) return 1500;
  if (mode == kFidelitySummaryHigh) return 3000;
  return 0;
}

Preamble build_preamble(std::string_view mode, const PreambleInput& input, const TokenCounter& counter) {
  std::size_t budget = preamble_budget(mode);
  return build_preamble(mode, input, counter, budget ? budget : preamble_budget(kFidelityCompact));
}

Preamble build_preamble(std::string_view mode, const PreambleInput& input, const TokenCounter& counter,
                        std::size_t budget, PreambleMemory* memory) {
  PreambleMemory own;
  std::unique_lock<std::mutex> held;
  if (memory) held = std::unique_lock(memory->mutex, std::try_to_lock);
  PreambleMemory& remembered = held.owns_lock() ? *memory : own;
  Preamble p;
  p.mode = is_valid_fidelity(mode) && mode != kFidelityFull ? std::string(mode) : std::string(kDefaultFidelity);
  p.budget = budget;
  std::vector<ContextEntry> entries = context_entries(input.context);

  // Drop order: stages oldest first except the most recent few, context largest first, then the
  // most recent stages.
  struct Item {
    bool stage;
    std::size_t index;
  };
  std::size_t n = input.completed.size();
  std::size_t protected_from = n > kKeptRecentStages ? n - kKeptRecentStages : 0;
  // Only what the mode shows can be dropped: truncate shows neither list, summary:low no context.
  bool shows_stages = p.mode != kFidelityTruncate;
  bool shows_context = shows_stages && p.mode != kFidelitySummaryLow;
  if (!shows_stages) protected_from = 0;
  std::vector<Item> order;
  for (std::size_t i = 0; i < protected_from; ++i) order.push_back({true, i});
  std::vector<std::size_t> by_size(shows_context ? entries.size() : 0);
  for (std::size_t i = 0; i < by_size.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](std::size_t a, std::size_t b) { return entries[a].size > entries[b].size; });
  for (std::size_t i : by_size) order.push_back({false, i});
  for (std::size_t i = protected_from; shows_stages && i < n; ++i) order.push_back({true, i});

  auto select = [&](std::size_t dropped) {
    std::vector<bool> stage_gone(n, false), context_gone(entries.size(), false);
    for (std::size_t k = 0; k < dropped; ++k) (order[k].stage ? stage_gone : context_gone)[order[k].index] = true;
    Selection s;
    s.omitted_stages = shows_stages ? input.earlier_stages : 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (stage_gone[i]) ++s.omitted_stages;
      else s.stages.push_back(i);
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (context_gone[i]) ++s.omitted_context;
      else s.context.push_back(&entries[i]);
    }
    return s;
  };
  std::map<std::size_t, std::pair<std::string, std::size_t>> tried;
  // Probes and successive stages share most of their text: counted by chunks, each counted once.
  ChunkedCounter& chunked = remembered.chunked;
  auto attempt = [&](std::size_t dropped) -> const std::pair<std::string, std::size_t>& {
    auto it = tried.find(dropped);
    if (it != tried.end()) return it->second;
    std::string text = render(p.mode, input, select(dropped));
    std::size_t tokens = chunked.count(counter, text);
    return tried.emplace(dropped, std::make_pair(std::move(text), tokens)).first->second;
  };

  // Every stage entry costs at least two tokens, so more than budget/2 of them can never fit.
  std::size_t lo = 0;
  if (protected_from > budget / 2) lo = protected_from - budget / 2;
  std::size_t hi = order.size();
  // Successive preambles of a run keep about as many entries as the previous one of the same
  // mode: the search starts there. The answer does not depend on it (see below).
  auto& kept_last_time = remembered.kept_last_time;
  std::optional<std::size_t> hint;
  if (auto it = kept_last_time.find(p.mode); it != kept_last_time.end() && it->second < hi) hint = hi - it->second;
  auto cost = [&](std::size_t dropped) { return attempt(dropped).second; };
  auto fits = [&](std::size_t dropped) { return cost(dropped) <= budget; };
  // When the previous answer still fits, the smallest fitting count lies at or below it, and
  // the all-dropped text need not be counted: usually two counts settle it (the hint and one less).
  std::size_t chosen = hi;
  if (hint && *hint >= lo && fits(*hint)) {
    chosen = smallest_within_budget(lo, *hint, budget, cost);
  } else if (fits(hi)) {
    const std::size_t above = hint && *hint >= lo ? *hint + 1 : lo;  // a hint that did not fit is too small
    chosen = smallest_within_budget(above, hi, budget, cost);
  }
  // The count only falls as entries are dropped, except at the first drop of a kind: the first
  // stage or context value dropped adds an "(1 ... omitted)" note of at most 8 tokens, and an
  // entry costs at least 2. So within 8 drops after such a point the count may come back under
  // the budget: the answer is the smallest fitting count, as a scan from `lo` would find.
  std::size_t first_context = protected_from;
  if (shows_context && !entries.empty() && first_context >= lo && chosen > first_context &&
      chosen <= first_context + 8 && attempt(first_context).second <= budget) {
    chosen = smallest_within_budget(lo, first_context, budget, cost);
  }
  if (chosen > lo && chosen <= lo + 8 && attempt(lo).second <= budget) chosen = lo;
  kept_last_time[p.mode] = hi - chosen;
  Selection s = select(chosen);
  p.omitted_stages = s.omitted_stages;
  p.omitted_context = s.omitted_context;
  const auto& [text, tokens] = attempt(chosen);
  p.text = text;
  p.tokens = tokens;
  if (p.tokens > budget) {
    p.text = cut_to_budget(p.text, budget, counter);
    p.tokens = counter.count(p.text);
    p.cut = true;
  }
  return p;
}

std::string format_duration_ms(std::int64_t ms) {
  if (ms < 1000) return fmt::format("{}ms", ms);
  if (ms < 60000) return fmt::format("{:.1f}s", static_cast<double>(ms) / 1000.0);
  return fmt::format("{}m {:02}s", ms / 60000, (ms % 60000) / 1000);
}

}  // namespace attractor
