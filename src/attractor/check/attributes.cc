#include "attractor/check/attributes.h"
#include "attractor/model/sandbox_level.h"
#include "attractor/model/visit_limit.h"

#include <algorithm>

namespace attractor {

namespace {

using T = AttributeType;

/// The fidelity modes (docs/fidelity.md).
const std::vector<std::string>& fidelity_mode_values() {
  static const std::vector<std::string> modes = {"full",        "truncate",       "compact",
                                                 "summary:low", "summary:medium", "summary:high"};
  return modes;
}

/// The retry settings (retry.cc), which a node sets for itself and the graph for every node that sets
/// none; `note` ends each meaning.
std::vector<AttributeSpec> retry_settings(const std::string& note) {
  auto spec = [&](const char* name, AttributeType type, const char* value, const std::string& meaning) {
    return AttributeSpec{name, type, value, meaning + " (" + note + ")."};
  };
  return {
      AttributeSpec{"retry_policy",
                    T::kEnum,
                    "",
                    "Retry preset that sets the attempt count and the backoff (" + note + ").",
                    {"none", "standard", "aggressive", "linear", "patient"}},
      spec("retry_initial_delay", T::kDurationOrMillis, "200ms",
           "Delay before the first retry; later delays grow by retry_backoff_factor"),
      spec("retry_backoff_factor", T::kNumber, "2.0", "Factor by which each retry delay grows"),
      spec("retry_max_delay", T::kDurationOrMillis, "60s", "Longest delay between two attempts"),
      spec("retry_jitter", T::kBoolean, "true", "Multiplies each retry delay by a random factor between 0.5 and 1.5"),
  };
}

/// The sandbox settings (docs/security.md): a node sets them for the commands it starts, the graph
/// for nodes that set none. `level_note` says what the level overrides.
std::vector<AttributeSpec> sandbox_settings(const std::string& level_note, const std::string& note) {
  return {
      AttributeSpec{"sandbox", T::kEnum, "",
                    "Sandbox of the commands started (tool_command, tool hooks, the coding agent's shell): none, "
                    "workspace (system read-only, workspace and stage folder writable, home and logs hidden) or "
                    "strict (also no network, resource limits); " +
                        level_note + "; a server's --sandbox floor raises it.",
                    sandbox_level_names()},
      AttributeSpec{"sandbox.network", T::kEnum, "",
                    "Network of confined commands: none (no IP sockets at all), loopback (a network namespace of "
                    "its own: servers the command starts, never the host's) or all; default all under workspace, "
                    "none under strict (" +
                        note + ").",
                    sandbox_network_names()},
      AttributeSpec{"sandbox.read", T::kString, "",
                    "Comma-separated extra paths confined commands may read (`~/` is the home directory; relative "
                    "paths are in the workspace); taken as written, never from context (" +
                        note + ")."},
      AttributeSpec{"sandbox.write", T::kString, "",
                    "Comma-separated extra paths confined commands may write, as sandbox.read (" + note + ")."},
  };
}

}  // namespace

const std::vector<AttributeSpec>& node_attributes() {
  static const std::vector<AttributeSpec> specs = [] {
    std::vector<AttributeSpec> list = {
        {"label", T::kString, "",
         "Display name (default: the node id); an LLM stage without a prompt sends it as its prompt and a human "
         "gate asks it as its question."},
        {"shape", T::kString, "box", "Graphviz shape; selects the handler type when `type` is not set."},
        {"type", T::kString, "", "Handler type; overrides the type the shape selects."},
        {"prompt", T::kString, "",
         "Instructions of an LLM stage; `$goal` expands to the graph goal and `${key}` to the context value of "
         "key."},
        {"class", T::kString, "",
         "Comma-separated classes that model_stylesheet `.name` rules select; the first also names the thread "
         "when nothing else does."},
        {"max_retries", T::kNonNegativeInteger, "",
         "Extra attempts after a retryable failure (default: the graph's default_max_retries); overrides the "
         "count of retry_policy."},
        {"goal_gate", T::kBoolean, "false",
         "The run may only exit after this node succeeded; otherwise it jumps to the node's or the graph's "
         "retry target."},
        {"retry_target", T::kNodeId, "",
         "Node to continue at when this node fails and no outgoing condition matches, or when its goal gate is "
         "unmet."},
        {"fallback_retry_target", T::kNodeId, "", "Retry target used when retry_target is unset or not a node."},
        {"fidelity", T::kEnum, "",
         "How much of the run an LLM stage sees (default: the graph's default_fidelity, else compact).",
         fidelity_mode_values()},
        {"thread_id", T::kString, "",
         "Conversation a stage with fidelity full continues (default: the incoming edge's thread_id, the graph's "
         "default_thread_id, the first class, else the previous node)."},
        {"timeout", T::kDuration, "", "Cancels the stage when it runs longer than this."},
        {"llm_model", T::kString, "", "Model an LLM stage asks; model_stylesheet rules can set it."},
        {"llm_provider", T::kString, "",
         "Backend of an LLM stage, a provider of `attractor help providers` such as openai, anthropic, agent, "
         "cli:NAME or simulate (default: from llm_model, --backend, the graph's llm_provider; with none of them "
         "the run is refused unless --simulate)."},
        {"reasoning_effort",
         T::kEnum,
         "high",
         "Reasoning effort sent to reasoning models; none sends nothing.",
         {"low", "medium", "high", "none"}},
        {"auto_status", T::kBoolean, "false",
         "When a stage leaves its status to a status.json that the agent never writes, the stage succeeds "
         "instead of failing."},
        {"allow_partial", T::kBoolean, "false",
         "A stage that still asks for a retry after its last attempt ends in partial_success instead of fail."},
        {"max_visits", T::kNonNegativeInteger, "",
         "How often the run may enter this node; one more entry fails the stage without running it (normal "
         "failure routing applies). 0 = no limit. Default: the graph's default_max_visits, else " +
             std::to_string(kDefaultMaxVisits) + "."},
    };
    for (AttributeSpec& s : retry_settings("default: the graph's")) list.push_back(std::move(s));
    for (AttributeSpec& s : sandbox_settings("overrides --sandbox and the graph's", "node over graph")) {
      list.push_back(std::move(s));
    }
    return list;
  }();
  return specs;
}

const std::vector<AttributeSpec>& edge_attributes() {
  static const std::vector<AttributeSpec> specs = {
      {"label", T::kString, "",
       "Name of the transition; a stage's preferred label and a human gate's answer select the edge by it."},
      {"condition", T::kCondition, "", "The edge is taken only when the condition holds (see Conditions)."},
      {"weight", T::kInteger, "0", "Among edges still eligible, the highest weight wins (then the target id)."},
      {"fidelity", T::kEnum, "", "Fidelity of the target stage when it is entered through this edge.",
       fidelity_mode_values()},
      {"thread_id", T::kString, "",
       "Thread of the target stage when it is entered through this edge, unless the node sets thread_id."},
      {"loop_restart", T::kBoolean, "false",
       "Taking the edge starts the run over at its target, in a new run directory with the initial context."},
  };
  return specs;
}

const std::vector<AttributeSpec>& graph_attributes() {
  static const std::vector<AttributeSpec> specs = [] {
    std::vector<AttributeSpec> list = {
        {"goal", T::kString, "", "What the pipeline is for; `$goal` in prompts expands to it."},
        {"label", T::kString, "", "Display name of the pipeline."},
        {"model_stylesheet", T::kString, "",
         "Rules such as `.code { llm_model: NAME; reasoning_effort: high; }` that set llm_model, llm_provider "
         "and reasoning_effort by `*`, shape, `.class` or `#id`."},
        {"default_max_retries", T::kNonNegativeInteger, "0", "max_retries of nodes that set none."},
        {"default_max_retry", T::kNonNegativeInteger, "0", "Older spelling of default_max_retries."},
        {"default_fidelity", T::kEnum, "compact", "Fidelity of stages that set none.", fidelity_mode_values()},
        {"default_thread_id", T::kString, "", "Thread of stages whose node and incoming edge set none."},
        {"retry_target", T::kNodeId, "", "Where an unmet goal gate jumps when its node sets no retry target."},
        {"fallback_retry_target", T::kNodeId, "", "Used when retry_target is unset or not a node."},
        {"max_node_executions", T::kInteger, "",
         "Caps node executions per run (default: 1000 or 10 times the node count, whichever is larger); "
         "hitting it fails the run."},
        {"default_max_visits", T::kNonNegativeInteger, std::to_string(kDefaultMaxVisits),
         "max_visits of nodes that set none (0 = no limit)."},
        {"llm_provider", T::kString, "", "Backend of LLM stages that name none and whose model implies none."},
        {"strict", T::kBoolean, "false",
         "Lint warnings are errors for this pipeline, as with --strict (validate, run and resume refuse it)."},
        {"token_encoding",
         T::kEnum,
         "o200k_base",
         "Tokenizer for fidelity preambles and token budgets.",
         {"o200k_base", "cl100k_base"}},
        {"max_context_tokens", T::kInteger, "",
         "Token budget of the prompt context that manage_context_budget enforces and fetch_node_texts takes "
         "70% of when it sets no budget."},
        {"index_dir", T::kString, "",
         "Code index the retrieval handlers search (relative to the pipeline file; --index overrides it)."},
        {"retrieval_backend", T::kString, "local", "Kind of retrieval backend that opens index_dir."},
        {"active_index", T::kString, "", "Restricts retrieval to one named index inside index_dir."},
        {"top_k", T::kInteger, "", "Hits per search for search_nodes nodes that set no top_k."},
        {"stack.child_dotfile", T::kString, "", "Child pipeline of stack.manager_loop nodes that set none."},
        {"stack.child_workdir", T::kString, "", "Directory child_dotfile is relative to, for nodes that set none."},
        {"llm_fallbacks", T::kString, "",
         "Model fallback chain of LLM stages that set none: provider:model pairs tried in order after a "
         "retryable provider failure."},
        {"max_total_tokens", T::kNonNegativeInteger, "",
         "Token budget of the run's model requests (every attempt and retry): once reached, the run stops before its "
         "next LLM stage (exit 4, "
         "resumable); --max-total-tokens overrides it."},
        {"max_cost", T::kNumber, "",
         "Cost budget in US dollars (needs --prices): once reached, the run stops before its next LLM stage "
         "(exit 4, resumable); --max-cost overrides it."},
        {"workdir", T::kPath, "",
         "Working directory of coding-agent stages (llm_provider=agent) that set none, relative to the directory "
         "attractor was started in."},
        {"tool_hooks.pre", T::kString, "",
         "Shell command run before every tool call of nodes that set none; a non-zero exit refuses the call."},
        {"tool_hooks.post", T::kString, "",
         "Shell command run after every tool call of nodes that set none; failures are recorded only."},
        {"workspace",
         T::kEnum,
         "in-place",
         "Where the run's stages change files: `worktree`, a git worktree of its own on branch attractor/<run-id> "
         "with a commit per stage that changed files (resume, rewind and fork restore it), or `in-place`, the "
         "working directory itself; --workspace overrides it.",
         {"worktree", "in-place"}},
    };
    for (AttributeSpec& s : retry_settings("for every node that sets none")) list.push_back(std::move(s));
    for (AttributeSpec& s :
         sandbox_settings("for nodes that set none; --sandbox overrides it", "for nodes that set none")) {
      list.push_back(std::move(s));
    }
    return list;
  }();
  return specs;
}

const std::vector<std::string>& graphviz_attributes() {
  static const std::vector<std::string> names = {
      "rankdir",       "rank",        "ranksep",       "nodesep",       "splines",
      "fontname",      "fontsize",    "fontcolor",     "fontpath",      "color",
      "fillcolor",     "bgcolor",     "pencolor",      "style",         "penwidth",
      "width",         "height",      "fixedsize",     "margin",        "pad",
      "size",          "ratio",       "dpi",           "xlabel",        "tooltip",
      "URL",           "href",        "target",        "comment",       "concentrate",
      "compound",      "newrank",     "ordering",      "peripheries",   "sides",
      "skew",          "distortion",  "orientation",   "regular",       "labelloc",
      "labeljust",     "lhead",       "ltail",         "headlabel",     "taillabel",
      "arrowhead",     "arrowtail",   "arrowsize",     "dir",           "constraint",
      "minlen",        "headport",    "tailport",      "labelfontsize", "labelfontcolor",
      "labelfontname", "labelangle",  "labeldistance", "decorate",      "samehead",
      "sametail",      "group",       "image",         "imagescale",    "center",
      "charset",       "clusterrank", "layout",        "outputorder",   "overlap",
      "sep",           "esep",        "forcelabels",   "gradientangle", "nojustify",
      "root",          "searchsize",  "showboxes",     "stylesheet",    "truecolor",
      "viewport",      "pos",         "vertices",      "headclip",      "tailclip",
      "headtooltip",   "tailtooltip", "edgetooltip",   "labeltooltip",  "layer",
      "layers",        "quantum",     "remincross",    "mclimit",       "nslimit",
      "packmode",      "pack",        "rotate",        "landscape"};
  return names;
}

std::vector<std::string> known_attribute_names(const HandlerCatalog& handlers) {
  std::vector<std::string> names = graphviz_attributes();
  for (const auto* specs : {&node_attributes(), &edge_attributes(), &graph_attributes()}) {
    for (const AttributeSpec& s : *specs) names.push_back(s.name);
  }
  for (const HandlerDescription* d : handlers.descriptions()) {
    for (const AttributeSpec& s : d->attributes) names.push_back(s.name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

const AttributeSpec* find_attribute(const std::vector<AttributeSpec>& specs, std::string_view name) {
  auto it = std::find_if(specs.begin(), specs.end(), [&](const AttributeSpec& s) { return s.name == name; });
  return it == specs.end() ? nullptr : &*it;
}

}  // namespace attractor
