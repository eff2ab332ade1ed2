#include "parser/dot_writer.h"

#include "parser/dot_lexemes.h"

namespace attractor {
namespace {

/// An id or key: bare when it is an identifier and not a keyword, quoted otherwise.
void append_name(std::string& out, std::string_view name) {
  if (is_identifier(name) && !dot::is_dot_keyword(name)) out.append(name);
  else out += quote_dot_string(name);
}

void append_attributes(std::string& out, const AttributeMap& attrs) {
  if (attrs.empty()) return;
  out += " [";
  bool first = true;
  for (const auto& [key, value] : attrs) {
    if (!first) out += ", ";
    first = false;
    append_name(out, key);
    out += '=';
    out += quote_dot_string(value.text());
  }
  out += ']';
}

}  // namespace

std::string quote_dot_string(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default: out += c; break;
    }
  }
  out += '"';
  return out;
}

std::string write_dot(const Graph& graph) {
  std::string out = "digraph ";
  if (!graph.name().empty()) {
    append_name(out, graph.name());
    out += ' ';
  }
  out += "{\n";
  if (!graph.data().attrs.empty()) {
    out += "  graph";
    append_attributes(out, graph.data().attrs);
    out += ";\n";
  }
  for (Vertex v : graph.nodes()) {
    const NodeData& node = graph.node(v);
    out += "  ";
    append_name(out, node.id);
    append_attributes(out, node.attrs);
    out += ";\n";
  }
  for (const Edge& e : graph.edges()) {
    const EdgeData& edge = graph.edge(e);
    out += "  ";
    append_name(out, graph.from_id(e));
    out += " -> ";
    append_name(out, graph.to_id(e));
    append_attributes(out, edge.attrs);
    out += ";\n";
  }
  out += "}\n";
  return out;
}

}  // namespace attractor
