#include <algorithm>
#include <map>

#include "attractor/check/lint_rules.h"

/// \file
/// Spelling suggestions for the attribute_spelling rule: an attribute nobody reads is usually a typo. Names within edit
/// distance 2 (1 for names shorter than 5 characters) of a known attribute get a warning with the
/// likely intended name. Known names: spec Appendix A and handler attributes, the Graphviz
/// presentation attributes people put in pipeline files, and the retrieval step fields of the seeds.

namespace attractor::lint_detail {
namespace {

const std::vector<std::string>& known_attributes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list = {
        // Spec: graph, node and edge attributes (Appendix A, §2.5-2.7) and handler attributes (§4).
        "goal", "label", "model_stylesheet", "default_max_retries", "default_max_retry", "default_fidelity",
        "retry_target", "fallback_retry_target", "stack.child_dotfile", "stack.child_workdir",
        "stack.child_autostart", "tool_hooks.pre", "tool_hooks.post", "shape", "type", "prompt", "max_retries",
        "goal_gate", "fidelity", "thread_id", "class", "timeout", "llm_model", "llm_provider", "reasoning_effort",
        "auto_status", "allow_partial", "condition", "weight", "loop_restart", "human.default_choice",
        "human.question_type",
        "join_policy", "error_policy", "max_parallel", "tool_command", "manager.poll_interval",
        "manager.max_cycles", "manager.stop_condition", "manager.actions",
        // Engine and runtime settings (DESIGN.md) and attributes read by this implementation's engine.
        "retrieval_backend", "index_dir", "token_encoding", "max_context_tokens", "max_node_executions",
        "retry_policy", "retry_backoff_factor", "retry_jitter", "tool_cwd", "simulate.outcome",
        "simulate.preferred_label", "simulate.response", "retry_initial_delay", "retry_max_delay",
        "manager.instructions", "stack.child_run_dir", "default_thread_id",
        // Common LLM parameters.
        "temperature", "top_p", "max_tokens", "max_output_tokens", "seed", "system_prompt",
        // Retrieval actions (seeds 000-003).
        "search_type", "top_k", "rrf_k", "rerank", "query_parser", "snapshot_source", "allow_top_k_from_payload",
        "allow_rrf_k_from_payload", "match_operator", "max_chars", "budget_tokens", "budget_tokens_from_settings",
        "prioritization_mode", "max_depth_from_settings", "max_nodes_from_settings",
        "edge_allowlist_from_settings", "compact_code", "rules", "inbox_key", "divide_new_content", "on_ok",
        "on_over", "on_allow", "on_deny", "next", "max_turn_loops_from_settings", "max_turn_loops", "prompt_key",
        "user_parts", "repository", "branch", "snapshot_id", "snapshot_id_b", "evidence_budget_tokens",
        "graph_max_depth", "graph_max_nodes", "graph_edge_allowlist", "node_id", "id",
        // Inbox and companions (send_message, render_context_blocks).
        "target_step_id", "topic", "payload", "payload_from", "layout",
        // Graphviz presentation attributes.
        "rankdir", "rank", "ranksep", "nodesep", "splines", "fontname", "fontsize", "fontcolor", "fontpath",
        "color", "fillcolor", "bgcolor", "pencolor", "style", "penwidth", "width", "height", "fixedsize", "margin",
        "pad", "size", "ratio", "dpi", "xlabel", "tooltip", "URL", "href", "target", "comment", "concentrate",
        "compound", "newrank", "ordering", "peripheries", "sides", "skew", "distortion", "orientation", "regular",
        "labelloc", "labeljust", "lhead", "ltail", "headlabel", "taillabel", "arrowhead", "arrowtail", "arrowsize",
        "dir", "constraint", "minlen", "headport", "tailport", "labelfontsize", "labelfontcolor", "labelfontname",
        "labelangle", "labeldistance", "decorate", "samehead", "sametail", "group", "image", "imagescale", "center",
        "charset", "clusterrank", "layout", "outputorder", "overlap", "sep", "esep", "forcelabels",
        "gradientangle", "nojustify", "root", "searchsize", "showboxes", "stylesheet", "truecolor", "viewport",
        "pos", "vertices", "headclip", "tailclip", "headtooltip", "tailtooltip", "edgetooltip", "labeltooltip",
        "layer", "layers", "quantum", "remincross", "mclimit", "nslimit", "packmode", "pack", "rotate", "landscape"};
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    return list;
  }();
  return names;
}

/// Names people write for an attribute that is spelt differently here (edit distance would
/// suggest the wrong thing, e.g. `command` -> `comment`).
const std::map<std::string_view, std::string, std::less<>>& aliases() {
  static const std::map<std::string_view, std::string, std::less<>> table = {
      {"cmd", "tool_command"},        {"command", "tool_command"}, {"model", "llm_model"},
      {"provider", "llm_provider"},   {"retries", "max_retries"},  {"max_retry", "max_retries"},
      {"effort", "reasoning_effort"}, {"retry", "retry_target"}};
  return table;
}

}  // namespace

const std::string& SpellingChecker::suggestion(std::string_view name) {
  auto it = cache_.find(name);
  if (it != cache_.end()) return it->second;
  const auto& known = known_attributes();
  std::string guess;
  if (auto alias = aliases().find(name); alias != aliases().end()) {
    guess = alias->second;
  } else if (!std::binary_search(known.begin(), known.end(), name)) {
    guess = closest_match(name, known, name.size() < 5 ? 1 : 2);
  }
  return cache_.emplace(name, std::move(guess)).first->second;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string closest_match(std::string_view name, const std::vector<std::string>& candidates,
                          std::size_t max_distance) {
  std::string best;
  std::size_t best_distance = max_distance + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t length_gap = candidate.size() > name.size() ? candidate.size() - name.size()
                                                                    : name.size() - candidate.size();
    if (length_gap >= best_distance) continue;
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace attractor::lint_detail
