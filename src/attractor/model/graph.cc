#include "attractor/model/graph.h"

#include <algorithm>

#include "attractor/base/comma_list.h"

namespace attractor {

std::optional<ValueView> AttributeBag::find(std::string_view key) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return std::nullopt;
  return it->second;
}

std::string AttributeBag::get(std::string_view key, std::string_view fallback) const {
  auto v = find(key);
  return std::string(v ? v->text() : fallback);
}

std::optional<std::int64_t> AttributeBag::get_integer(std::string_view key) const {
  auto v = find(key);
  return v ? parse_integer(v->text()) : std::nullopt;
}

std::optional<bool> AttributeBag::get_boolean(std::string_view key) const {
  auto v = find(key);
  return v ? parse_boolean(v->text()) : std::nullopt;
}

std::optional<double> AttributeBag::get_float(std::string_view key) const {
  auto v = find(key);
  return v ? parse_float(v->text()) : std::nullopt;
}

std::optional<std::int64_t> AttributeBag::get_duration_ms(std::string_view key) const {
  auto v = find(key);
  return v ? parse_duration_ms(v->text()) : std::nullopt;
}

void AttributeBag::set(std::string_view key, std::string_view text, ValueKind kind, SourceLocation loc) {
  attrs.insert_or_assign(key, kind, text, loc);
}

std::vector<std::string> NodeData::classes() const {
  const std::optional<ValueView> all = find("class");
  return all ? split_comma_list(all->text()) : std::vector<std::string>{};
}

std::int64_t GraphData::default_max_retries() const {
  if (auto v = get_integer("default_max_retries")) return *v;
  if (auto v = get_integer("default_max_retry")) return *v;
  return 0;
}

Graph::Graph(const Graph& other)
    : g_(std::make_unique<BoostGraph>(*other.g_)), index_(other.index_), source_(other.source_) {
  edges_.reserve(other.edges_.size());
  for (auto [it, end] = boost::edges(*g_); it != end; ++it) edges_.push_back(*it);
  std::sort(edges_.begin(), edges_.end(),
            [&](const Edge& a, const Edge& b) { return (*g_)[a].order < (*g_)[b].order; });
}

Graph::Graph(Graph&& other) noexcept
    : g_(std::move(other.g_)),
      index_(std::move(other.index_)),
      edges_(std::move(other.edges_)),
      source_(std::move(other.source_)) {
  other.g_ = std::make_unique<BoostGraph>();  // a moved-from Graph is empty, not broken
}

Graph& Graph::operator=(const Graph& other) {
  if (this != &other) *this = Graph(other);
  return *this;
}

Graph& Graph::operator=(Graph&& other) noexcept {
  if (this == &other) return *this;
  g_ = std::move(other.g_);
  index_ = std::move(other.index_);
  edges_ = std::move(other.edges_);
  source_ = std::move(other.source_);
  other.g_ = std::make_unique<BoostGraph>();
  return *this;
}

VertexIndex::IdOf Graph::id_of() const {
  const BoostGraph* g = g_.get();
  return [g](std::size_t v) { return std::string_view((*g)[v].id); };
}

Vertex Graph::add_node(const std::string& id, SourceLocation location) {
  if (auto found = index_.find(id, id_of())) return *found;
  Vertex v = boost::add_vertex(*g_);
  (*g_)[v].id = id;
  (*g_)[v].location = location;
  index_.insert(v, id_of());
  return v;
}

Edge Graph::add_edge(Vertex from, Vertex to, AttributeBag attrs, SourceLocation location) {
  Edge e = boost::add_edge(from, to, *g_).first;
  EdgeData& data = (*g_)[e];
  data.attrs = std::move(attrs.attrs);
  data.order = edges_.size();
  data.location = location;
  edges_.push_back(e);
  return e;
}

Edge Graph::add_edge(const std::string& from, const std::string& to, AttributeBag attrs) {
  Vertex f = add_node(from);
  Vertex t = add_node(to);
  return add_edge(f, t, std::move(attrs));
}

std::optional<Vertex> Graph::find(std::string_view id) const {
  if (auto found = index_.find(id, id_of())) return static_cast<Vertex>(*found);
  return std::nullopt;
}

const NodeData* Graph::node(std::string_view id) const {
  auto v = find(id);
  return v ? &(*g_)[*v] : nullptr;
}

NodeData* Graph::node(std::string_view id) {
  auto v = find(id);
  return v ? &(*g_)[*v] : nullptr;
}

std::vector<Vertex> Graph::nodes() const {
  std::vector<Vertex> out;
  out.reserve(boost::num_vertices(*g_));
  for (auto [it, end] = boost::vertices(*g_); it != end; ++it) out.push_back(*it);
  return out;
}

std::vector<Edge> Graph::out_edges(Vertex v) const {
  std::vector<Edge> out;
  for (auto [it, end] = boost::out_edges(v, *g_); it != end; ++it) out.push_back(*it);
  std::sort(out.begin(), out.end(), [&](const Edge& a, const Edge& b) { return (*g_)[a].order < (*g_)[b].order; });
  return out;
}

std::vector<Edge> Graph::in_edges(Vertex v) const {
  std::vector<Edge> out;
  for (auto [it, end] = boost::in_edges(v, *g_); it != end; ++it) out.push_back(*it);
  std::sort(out.begin(), out.end(), [&](const Edge& a, const Edge& b) { return (*g_)[a].order < (*g_)[b].order; });
  return out;
}

}  // namespace attractor
