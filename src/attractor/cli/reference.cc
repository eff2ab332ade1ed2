#include "attractor/cli/reference.h"

#include <fmt/format.h>

#include "attractor/check/attributes.h"

namespace attractor {

namespace {

/// Text for one Markdown table cell: pipes escaped.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string code(std::string_view text) { return text.empty() ? "-" : fmt::format("`{}`", cell(text)); }

std::string join_codes(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + code(item);
  return out.empty() ? "-" : out;
}

/// The type column: the type's name, and for an enumeration the values it accepts.
std::string type_cell(const AttributeSpec& spec) {
  std::string name(attribute_type_name(spec.type));
  return spec.type == AttributeType::kEnum ? name + " " + join_codes(spec.values) : name;
}

std::string attribute_table(const std::vector<AttributeSpec>& specs) {
  std::string out = "| attribute | type | default | meaning |\n|---|---|---|---|\n";
  for (const AttributeSpec& s : specs) {
    out += fmt::format("| {} | {} | {} | {} |\n", code(s.name), type_cell(s), code(s.default_value), cell(s.meaning));
  }
  return out;
}

std::string shapes_section(const HandlerCatalog& handlers) {
  std::string out =
      "## Shapes\n\n"
      "A node's `shape` selects its handler type unless the node sets `type`; a node without a shape is a `box` "
      "and runs `" +
      handlers.default_type() +
      "`. Any other shape is an error (lint rule `shape_known`) unless the "
      "node sets `type`, which makes the shape only a drawing.\n\n"
      "| shape | handler type | summary |\n|---|---|---|\n";
  for (const HandlerDescription* d : handlers.descriptions()) {
    for (const std::string& shape : d->shapes) {
      out += fmt::format("| {} | {} | {} |\n", code(shape), code(d->type), cell(d->summary));
    }
  }
  return out;
}

std::string types_section(const HandlerCatalog& handlers) {
  std::string out =
      "## Handler types\n\n"
      "Set `type=NAME` on a node to run a handler that no shape selects, or to override its shape.\n\n"
      "| type | shapes | summary |\n|---|---|---|\n";
  for (const HandlerDescription* d : handlers.descriptions()) {
    out += fmt::format("| {} | {} | {} |\n", code(d->type), join_codes(d->shapes), cell(d->summary));
  }
  return out;
}

std::string common_attributes_section() {
  return "## How values are checked\n\n"
         "`attractor validate` (and `run`, before the first stage) checks every attribute listed below against "
         "its type: an integer, a boolean, a duration, a path, or `one of` a fixed set of values, with a \"did "
         "you mean\" for a near miss (`reasoning_effort=hihg` is an error that suggests `high`; lint rule "
         "`attribute_type`). An attribute nobody reads is kept for custom handlers, but a name close to a "
         "listed one, or any unlisted name of a family such as `agent.*` (the part before the dot of listed "
         "names), is a warning, an error with `--strict` (lint rule `attribute_spelling`). An edge or a "
         "`retry_target` naming a node that does not exist gets the closest node id.\n\n"
         "## Node attributes\n\n"
         "Every node may set these, whatever its handler type.\n\n" +
         attribute_table(node_attributes()) + "\n## Edge attributes\n\n" + attribute_table(edge_attributes()) +
         "\nAfter a stage the engine takes one outgoing edge: among the edges whose `condition` holds, the one "
         "with the highest `weight`, then the lowest target id. When no condition holds it looks at the edges "
         "without a condition: the one whose `label` is the stage's preferred label (accelerator prefixes such "
         "as `[Y] ` are ignored), else one leading to a node the stage suggested, else the highest `weight`, "
         "then the lowest target id. A stage that failed follows only an edge whose condition holds, else its "
         "`retry_target`, else its `fallback_retry_target`; without one the run fails.\n"
         "\n## Graph attributes\n\n"
         "Set in `graph [...]` at the top of the file.\n\n" +
         attribute_table(graph_attributes());
}

std::string handler_attributes_section(const HandlerCatalog& handlers) {
  std::string out =
      "## Handler attributes\n\n"
      "Attributes read by one handler type, besides the node attributes above.\n";
  for (const HandlerDescription* d : handlers.descriptions()) {
    out += fmt::format("\n### {}\n\n{}\n\n", d->type, d->summary);
    out += d->attributes.empty() ? std::string("No attributes of its own.\n") : attribute_table(d->attributes);
  }
  return out;
}

std::string conditions_section() {
  return "## Conditions\n\n"
         "An edge `condition` (and `manager.stop_condition`) is one or more clauses joined by `&&`; it holds "
         "when every clause holds. An empty condition always holds. Values compare as text.\n\n"
         "| clause | holds when |\n|---|---|\n"
         "| `KEY=VALUE` | the value of KEY is VALUE |\n"
         "| `KEY==VALUE` | the same as `KEY=VALUE` |\n"
         "| `KEY!=VALUE` | the value of KEY is not VALUE |\n"
         "| `KEY` | the value of KEY is not empty, `false` or `0` |\n\n"
         "Keys:\n\n"
         "- `outcome`: the status of the stage that just ran: `success`, `partial_success`, `retry`, `fail` or "
         "`skipped`.\n"
         "- `preferred_label`: the label that stage prefers (a human gate's answer, a simulated label).\n"
         "- `context.KEY`: the context value KEY, e.g. `context.tool.exit_code`; a bare `KEY` is looked up in the "
         "context too. A missing key is empty.\n\n"
         "A VALUE is a word of letters, digits, `_`, `.`, `:` and `-` (`success`, `-3`, `0.5`) or a quoted string "
         "with the escapes `\\\"`, `\\\\`, `\\n` and `\\t`. Nothing else is accepted: instead of `||` write one "
         "edge per alternative; `<` and `>` do not exist.\n\n"
         "```dot\n"
         "check -> fix  [condition=\"outcome=fail\"]\n"
         "check -> ship [condition=\"outcome=success && context.review.approved=true\"]\n"
         "```\n";
}

std::string presentation_section() {
  std::string names;
  for (const std::string& name : graphviz_attributes()) names += (names.empty() ? "" : ", ") + code(name);
  return "## Presentation attributes\n\n"
         "Graphviz attributes that a run ignores and `attractor render` passes on: " +
         names + ".\n";
}

std::string introduction() {
  return fmt::format(
      "# Writing pipelines\n\n"
      "<!-- Generated by `attractor help reference` from the handler descriptions (src/handlers) and "
      "src/attractor/check/attributes.cc; do not edit. Regenerate with: {} -->\n\n"
      "A pipeline is a Graphviz `digraph` in a `.dot` file: every node is a stage of the work and every edge a "
      "step that may follow it. A run starts at the node with `shape=Mdiamond`, runs one stage after the other "
      "along the edges it picks, and ends when it reaches the node with `shape=Msquare`. The shape of a node, "
      "or its `type`, chooses the handler that runs it: a plain node (a `box`) is an LLM stage that sends its "
      "`prompt` to a model, a `hexagon` asks a human, a `parallelogram` runs a shell command. Attributes in "
      "`[...]` configure nodes and edges, and `graph [...]` holds settings for the whole pipeline, such as its "
      "`goal`. Check a file with `attractor validate FILE.dot`, then run it with `attractor run FILE.dot` "
      "(add `--simulate` to try it without an LLM).\n\n"
      "```dot\n"
      "digraph Haiku {{\n"
      "    graph [goal=\"Write a haiku about graphs\"]\n\n"
      "    start  [shape=Mdiamond]\n"
      "    draft  [prompt=\"Write a haiku. Goal: $goal\"]\n"
      "    review [shape=hexagon, label=\"Keep this haiku?\"]\n"
      "    exit   [shape=Msquare]\n\n"
      "    start -> draft -> review\n"
      "    review -> exit  [label=\"[Y] Yes\"]\n"
      "    review -> draft [label=\"[N] No, write another\"]\n"
      "}}\n"
      "```\n\n"
      "The sections below list every shape and handler type, every attribute with its type, default and "
      "meaning, and the condition syntax of edges.\n",
      kReferenceRegenerateCommand);
}

}  // namespace

std::string shapes_reference(const HandlerCatalog& handlers) {
  return shapes_section(handlers) + "\n" + types_section(handlers);
}

std::string attributes_reference(const HandlerCatalog& handlers) {
  return common_attributes_section() + "\n" + handler_attributes_section(handlers) + "\n" + conditions_section();
}

std::string pipeline_reference(const HandlerCatalog& handlers) {
  return introduction() + "\n" + shapes_reference(handlers) + "\n" + attributes_reference(handlers) + "\n" +
         presentation_section();
}

}  // namespace attractor
