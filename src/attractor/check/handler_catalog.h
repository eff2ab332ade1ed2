#pragma once
/// \file
/// The one description of each handler type: its type string, the shapes that select it, the
/// attributes it reads (type, default, meaning), the configuration checks lint runs before a run
/// and the handler runs again when its stage executes, and the traits the engine needs to schedule
/// it. Each handler defines its description next to its code (`handlers/*.cc`); the registry
/// (`handlers/registry.cc`) gathers them into a HandlerCatalog that lint, the engine, the CLI's
/// reference (`attractor help shapes|attributes`) and `docs/pipelines.md` all read.

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attractor/model/diagnostic.h"
#include "attractor/model/graph.h"

namespace attractor {

/// The value type of an attribute, as lint's attribute_type rule checks it (the integer, boolean,
/// duration, enumeration and path types; the others are checked by their own rules or not at all)
/// and the reference prints it.
enum class AttributeType {
  kString,              ///< any text
  kInteger,             ///< a signed integer
  kNonNegativeInteger,  ///< an integer >= 0
  kPositiveInteger,     ///< an integer >= 1
  kBoolean,             ///< true or false
  kDuration,            ///< 250ms, 900s, 15m, 2h, 1d
  kDurationOrMillis,    ///< a duration, or a whole number of milliseconds
  kNumber,              ///< an integer or a decimal
  kJson,                ///< a JSON document in a string
  kNodeId,              ///< the id of a node of the graph
  kCondition,           ///< a condition expression
  kEnum,                ///< one of the spec's `values`
  kPath,                ///< a file system path (no control characters)
};

/// The name `attractor help attributes` prints for `type`.
std::string_view attribute_type_name(AttributeType type);

/// One attribute a handler (or the engine, for every node) reads. A name with a dot belongs to the
/// family before the dot (`agent.max_turns` to `agent`): lint flags any other name of a family as
/// unknown (docs/pipelines.md, "Attribute families").
struct AttributeSpec {
  AttributeSpec() = default;
  /// `values`: what a kEnum attribute accepts, as written in DOT.
  AttributeSpec(std::string name, AttributeType type, std::string default_value, std::string meaning,
                std::vector<std::string> values = {})
      : name(std::move(name)),
        type(type),
        default_value(std::move(default_value)),
        meaning(std::move(meaning)),
        values(std::move(values)) {}

  std::string name;
  AttributeType type = AttributeType::kString;
  std::string default_value;        ///< as written in DOT; "" when there is none
  std::string meaning;              ///< one sentence
  std::vector<std::string> values;  ///< the accepted values of a kEnum attribute
};

/// The family of attribute `name`: the part before its first dot, or "" when it has none.
std::string_view attribute_family(std::string_view name);

/// A configuration check of one node. Lint runs it on every node of the handler's type before a
/// run; the handler runs the same function when its stage executes, so both say the same thing.
struct ConfigCheck {
  std::string rule;  ///< the lint rule id its diagnostics carry
  std::function<void(const NodeData& node, const Graph& graph, std::vector<Diagnostic>& out)> check;
  /// Checks an attribute of the handler wherever it appears: lint runs it on every node, not only
  /// on nodes of the handler's type (a misplaced value is still a wrong value).
  bool every_node = false;
};

/// What the engine needs to know about a handler type besides calling it.
struct HandlerTraits {
  bool start = false;  ///< the pipeline's entry: no stage of its own in histories
  bool exit = false;   ///< the pipeline's exit: the run ends when it is reached
  /// Prompts an LLM backend: never, on every execution, or only when the node has a `prompt` (the
  /// fan-in's optional evaluation). For `kAlways` the engine prepares the stage's conversation
  /// (fidelity preamble or thread, docs/fidelity.md); the fan-in sends its prompt as it is.
  enum class Llm { kNever, kAlways, kWithPrompt } llm = Llm::kNever;
  bool fans_out = false;         ///< runs its outgoing edges as parallel branches up to a fan-in
  bool fans_in = false;          ///< joins parallel branches; a branch stops before it
  bool handles_timeout = false;  ///< applies the node `timeout` itself; otherwise the engine cancels
  /// Writes the run directory only through StageEnv::write_file and flushes before any effect
  /// outside the process, so the engine may run it while earlier writes are still queued.
  bool queues_writes = false;
  bool runs_tools = false;  ///< runs a shell command whose output preambles summarize
};

/// True when the node's stage prompts an LLM backend under `traits`.
bool uses_llm(const HandlerTraits& traits, const NodeData& node);

/// The description of one handler type.
struct HandlerDescription {
  std::string type;
  std::vector<std::string> shapes;  ///< shapes that select this type when a node has no `type`
  std::string summary;              ///< one sentence for the reference
  std::vector<AttributeSpec> attributes;
  HandlerTraits traits;
  std::vector<ConfigCheck> checks;
};

/// The handler types a pipeline may use, keyed by type string.
class HandlerCatalog {
 public:
  /// Adds `description`, replacing one of the same type.
  void add(HandlerDescription description);
  /// The type of nodes that set neither `type` nor a known shape (codergen in the built-in catalog).
  void set_default_type(std::string type) { default_type_ = std::move(type); }
  const std::string& default_type() const { return default_type_; }

  /// nullptr when `type` is not in the catalog.
  const HandlerDescription* find(std::string_view type) const;
  /// The node's handler type: its `type` when set (known or not), else the type its shape selects,
  /// else the default type.
  std::string type_of(const NodeData& node) const;
  /// The description of the node's handler type; nullptr for an unknown explicit `type`.
  const HandlerDescription* describe(const NodeData& node) const;
  /// The type `shape` selects, or "" when no description claims it.
  std::string_view type_for_shape(std::string_view shape) const;
  /// Every shape some description claims, sorted.
  std::vector<std::string> shapes() const;
  /// The node's traits (all false for an unknown type).
  const HandlerTraits& traits(const NodeData& node) const;

  /// Every type, sorted.
  std::vector<std::string> types() const;
  /// Every description, sorted by type.
  std::vector<const HandlerDescription*> descriptions() const;

  /// Runs the configuration checks of the node's handler type and returns their findings.
  std::vector<Diagnostic> check_config(const NodeData& node, const Graph& graph) const;

 private:
  std::map<std::string, HandlerDescription, std::less<>> by_type_;
  std::map<std::string, std::string, std::less<>> by_shape_;
  std::string default_type_;
};

/// Throws StageError (ErrorCategory::kTerminal) with the message of the first error of `diagnostics`,
/// for handlers that re-run their configuration checks at run time; returns when there is none.
void throw_first_config_error(const std::vector<Diagnostic>& diagnostics);

}  // namespace attractor
