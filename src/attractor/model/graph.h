#pragma once
/// \file
/// The pipeline graph: a Boost.Graph adjacency_list with bundled node, edge and graph properties,
/// an id -> vertex index, and typed accessors carrying the spec's defaults (Appendix A).
/// Unknown attributes are kept verbatim so rendering and custom handlers can read them.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "attractor/model/attribute_map.h"
#include "attractor/model/edge_condition.h"
#include "attractor/model/source_file.h"
#include "attractor/model/value.h"
#include "attractor/model/vertex_index.h"

namespace attractor {

/// Attributes shared by nodes, edges and the graph, with typed reads.
struct AttributeBag {
  AttributeMap attrs;

  /// The attribute's value, or nullopt when it is absent. Valid until the bag is next changed.
  std::optional<ValueView> find(std::string_view key) const;
  bool has(std::string_view key) const { return attrs.contains(key); }
  /// Text of the attribute, or `fallback` when absent.
  std::string get(std::string_view key, std::string_view fallback = "") const;
  std::optional<std::int64_t> get_integer(std::string_view key) const;
  std::optional<bool> get_boolean(std::string_view key) const;
  std::optional<double> get_float(std::string_view key) const;
  std::optional<std::int64_t> get_duration_ms(std::string_view key) const;
  /// Sets (or replaces) an attribute, keeping the location unknown unless given.
  void set(std::string_view key, std::string_view text, ValueKind kind = ValueKind::kString, SourceLocation loc = {});
};

/// Bundled vertex property: one pipeline stage.
struct NodeData : AttributeBag {
  std::string id;
  SourceLocation location;  ///< where the node was first declared or referenced

  std::string label() const { return get("label", id); }
  std::string shape() const { return get("shape", "box"); }
  std::string type() const { return get("type"); }
  std::string prompt() const { return get("prompt"); }
  /// nullopt when omitted (inherits the graph default).
  std::optional<std::int64_t> max_retries() const { return get_integer("max_retries"); }
  bool goal_gate() const { return get_boolean("goal_gate").value_or(false); }
  std::string retry_target() const { return get("retry_target"); }
  std::string fallback_retry_target() const { return get("fallback_retry_target"); }
  std::string fidelity() const { return get("fidelity"); }
  std::string thread_id() const { return get("thread_id"); }
  /// `class` split on commas, trimmed, empty entries dropped.
  std::vector<std::string> classes() const;
  std::optional<std::int64_t> timeout_ms() const { return get_duration_ms("timeout"); }
  std::string llm_model() const { return get("llm_model"); }
  std::string llm_provider() const { return get("llm_provider"); }
  std::string reasoning_effort() const { return get("reasoning_effort", "high"); }
  bool auto_status() const { return get_boolean("auto_status").value_or(false); }
  bool allow_partial() const { return get_boolean("allow_partial").value_or(false); }
};

/// Bundled edge property: one transition. Its ends are the Boost edge's source and target, whose
/// ids `Graph::from_id` and `Graph::to_id` read (an edge keeps no copy of them).
struct EdgeData : AttributeBag {
  std::size_t order = 0;    ///< declaration order, for deterministic iteration
  SourceLocation location;  ///< position of the edge's source id in the statement
  /// `condition` as parsed when the pipeline was loaded (parser/condition.h,
  /// parse_edge_conditions); null for edges built in code, whose condition is parsed when read.
  std::shared_ptr<const EdgeCondition> parsed_condition;

  std::string label() const { return get("label"); }
  std::string condition() const { return get("condition"); }
  std::int64_t weight() const { return get_integer("weight").value_or(0); }
  std::string fidelity() const { return get("fidelity"); }
  std::string thread_id() const { return get("thread_id"); }
  bool loop_restart() const { return get_boolean("loop_restart").value_or(false); }
};

/// Bundled graph property.
struct GraphData : AttributeBag {
  std::string name;

  std::string goal() const { return get("goal"); }
  std::string label() const { return get("label"); }
  std::string model_stylesheet() const { return get("model_stylesheet"); }
  /// `default_max_retries`, else its legacy alias `default_max_retry`, else 0.
  std::int64_t default_max_retries() const;
  std::string retry_target() const { return get("retry_target"); }
  std::string fallback_retry_target() const { return get("fallback_retry_target"); }
  std::string default_fidelity() const { return get("default_fidelity"); }
};

using BoostGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, NodeData, EdgeData, GraphData>;
using Vertex = boost::graph_traits<BoostGraph>::vertex_descriptor;
using Edge = boost::graph_traits<BoostGraph>::edge_descriptor;

/// The pipeline graph. Vertices keep insertion order; edges are also listed in declaration order.
/// The Boost graph lives on the heap: moving a Graph is O(1) and keeps edge descriptors valid;
/// copying rebuilds the edge list for the copy (Boost's adjacency_list has no move constructor,
/// and a copied adjacency_list invalidates the original's edge descriptors).
class Graph {
 public:
  Graph() : g_(std::make_unique<BoostGraph>()) {}
  Graph(const Graph& other);
  Graph(Graph&& other) noexcept;
  Graph& operator=(const Graph& other);
  Graph& operator=(Graph&& other) noexcept;
  ~Graph() = default;

  BoostGraph& boost() { return *g_; }
  const BoostGraph& boost() const { return *g_; }

  GraphData& data() { return (*g_)[boost::graph_bundle]; }
  const GraphData& data() const { return (*g_)[boost::graph_bundle]; }
  const std::string& name() const { return data().name; }

  /// The file the graph came from (may be null for graphs built in code).
  const SourceFilePtr& source() const { return source_; }
  void set_source(SourceFilePtr source) { source_ = std::move(source); }

  std::size_t node_count() const { return boost::num_vertices(*g_); }
  std::size_t edge_count() const { return edges_.size(); }

  /// Adds a node, or returns the existing one with that id.
  Vertex add_node(const std::string& id, SourceLocation location = {});
  /// Adds an edge between existing vertices, recording declaration order.
  Edge add_edge(Vertex from, Vertex to, AttributeBag attrs = {}, SourceLocation location = {});
  /// Convenience for tests and transforms: adds missing nodes by id.
  Edge add_edge(const std::string& from, const std::string& to, AttributeBag attrs = {});

  std::optional<Vertex> find(std::string_view id) const;
  NodeData& node(Vertex v) { return (*g_)[v]; }
  const NodeData& node(Vertex v) const { return (*g_)[v]; }
  /// Node by id; nullptr when absent.
  const NodeData* node(std::string_view id) const;
  NodeData* node(std::string_view id);
  EdgeData& edge(Edge e) { return (*g_)[e]; }
  const EdgeData& edge(Edge e) const { return (*g_)[e]; }
  /// The id of the node an edge leaves.
  const std::string& from_id(Edge e) const { return node(boost::source(e, *g_)).id; }
  /// The id of the node an edge enters.
  const std::string& to_id(Edge e) const { return node(boost::target(e, *g_)).id; }

  /// All vertices in insertion order.
  std::vector<Vertex> nodes() const;
  /// All edges in declaration order.
  const std::vector<Edge>& edges() const { return edges_; }
  /// Outgoing / incoming edges of a vertex, in declaration order.
  std::vector<Edge> out_edges(Vertex v) const;
  std::vector<Edge> in_edges(Vertex v) const;

 private:
  /// Reads vertex ids for index_.
  VertexIndex::IdOf id_of() const;

  std::unique_ptr<BoostGraph> g_;
  VertexIndex index_;
  std::vector<Edge> edges_;
  SourceFilePtr source_;
};

}  // namespace attractor
