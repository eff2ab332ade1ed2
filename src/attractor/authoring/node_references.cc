#include "attractor/authoring/node_references.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "attractor/check/attributes.h"
#include "attractor/model/value.h"
#include "parser/dot_lexemes.h"

namespace attractor {

namespace {

bool is_condition_attribute(std::string_view name, const AuthoringCatalog& catalog) {
  if (name == "condition") return true;
  for (const HandlerDescription* d : catalog.handlers->descriptions()) {
    for (const AttributeSpec& a : d->attributes) {
      if (a.name == name && a.type == AttributeType::kCondition) return true;
    }
  }
  return false;
}

class ReferenceScan {
 public:
  explicit ReferenceScan(const PipelineDocument& doc) : doc_(doc), tree_(doc.syntax()) {
    for (const std::string& name : node_id_attribute_names(doc.catalog())) id_attributes_.insert(name);
  }

  std::vector<NodeReference> run() {
    for_each_stmt(tree_.body, [&](const SyntaxStmt& s) { collect_ids(s); });
    for_each_stmt(tree_.body, [&](const SyntaxStmt& s) { collect_attributes(s); });
    std::sort(out_.begin(), out_.end(),
              [](const NodeReference& a, const NodeReference& b) { return a.range.begin < b.range.begin; });
    return std::move(out_);
  }

 private:
  /// Adds the reference token `t` makes; false when it is no usable id (empty, escaped, open).
  bool add(NodeReference::Kind kind, TokenIndex t) {
    std::optional<std::string_view> plain = plain_token_text(tree_, t);
    if (!plain || plain->empty()) return false;
    NodeReference r{kind, std::string(*plain), doc_.range_of(t), tree_.tokens[t].kind == SyntaxKind::kString};
    out_.push_back(std::move(r));
    return true;
  }

  void collect_ids(const SyntaxStmt& s) {
    if (s.kind != SyntaxStmt::Kind::kNode && s.kind != SyntaxStmt::Kind::kEdge) return;
    auto kind = s.kind == SyntaxStmt::Kind::kNode ? NodeReference::Kind::kStatement : NodeReference::Kind::kEdgeEnd;
    for (TokenIndex t : s.ids) {
      if (add(kind, t)) ids_.insert(out_.back().id);
    }
  }

  void collect_attributes(const SyntaxStmt& s) {
    for (const SyntaxAttrList& list : s.lists) {
      for (const SyntaxAttr& a : list.attrs) attribute(a.key, a.value);
    }
    if (s.kind == SyntaxStmt::Kind::kAssign) attribute(s.ids[0], s.value);
  }

  void attribute(TokenIndex key_token, const std::optional<SyntaxValue>& value) {
    if (!value || value->first != value->last) return;
    std::optional<std::string_view> key = plain_token_text(tree_, key_token);
    if (!key) return;
    if (id_attributes_.count(std::string(*key)) > 0) {
      std::optional<std::string_view> text = plain_token_text(tree_, value->first);
      if (text && ids_.count(std::string(*text)) > 0) add(NodeReference::Kind::kAttribute, value->first);
    } else if (is_condition_attribute(*key, doc_.catalog())) {
      condition(value->first);
    }
  }

  /// The words of a condition string, with their offsets in the text.
  void condition(TokenIndex t) {
    std::optional<std::string_view> inner = plain_token_text(tree_, t);
    if (!inner || tree_.tokens[t].kind != SyntaxKind::kString) return;
    std::size_t base = tree_.tokens[t].begin + 1;
    std::string_view previous;
    std::string_view between;
    std::size_t i = 0;
    while (i < inner->size()) {
      std::size_t start = i;
      if (!is_key_char((*inner)[i])) {
        while (i < inner->size() && !is_key_char((*inner)[i])) ++i;
        between = inner->substr(start, i - start);
        continue;
      }
      while (i < inner->size() && is_key_char((*inner)[i])) ++i;
      std::string_view word = inner->substr(start, i - start);
      condition_word(word, base + start, previous, between);
      previous = word;
      between = {};
    }
  }

  void condition_word(std::string_view word, std::size_t at, std::string_view previous, std::string_view between) {
    auto strip_context = [](std::string_view w) { return w.rfind("context.", 0) == 0 ? w.substr(8) : w; };
    std::string_view key = strip_context(word);
    std::size_t shift = word.size() - key.size();
    std::string_view prev = strip_context(previous);
    std::string_view op = between;
    while (!op.empty() && op.front() == ' ') op.remove_prefix(1);
    while (!op.empty() && op.back() == ' ') op.remove_suffix(1);
    if ((prev == "current_node" || prev == "last_stage") && (op == "=" || op == "!=")) {
      candidate(word, at);
      return;
    }
    for (std::string_view prefix : {std::string_view("parallel.branch."), std::string_view("internal.retry_count.")}) {
      if (key.rfind(prefix, 0) != 0) continue;
      std::string_view rest = key.substr(prefix.size());
      std::size_t dot = rest.find('.');
      if (prefix.front() == 'p' && dot == std::string_view::npos) return;
      candidate(rest.substr(0, dot), at + shift + prefix.size());
      return;
    }
  }

  void candidate(std::string_view id, std::size_t at) {
    if (ids_.count(std::string(id)) == 0) return;
    out_.push_back({NodeReference::Kind::kCondition, std::string(id), {at, at + id.size()}, false});
  }

  const PipelineDocument& doc_;
  const SyntaxTree& tree_;
  std::set<std::string> id_attributes_;
  std::set<std::string> ids_;
  std::vector<NodeReference> out_;
};

}  // namespace

std::vector<std::string> node_id_attribute_names(const AuthoringCatalog& catalog) {
  std::set<std::string> names;
  for (const auto* table : {&node_attributes(), &graph_attributes(), &edge_attributes()}) {
    for (const AttributeSpec& a : *table) {
      if (a.type == AttributeType::kNodeId) names.insert(a.name);
    }
  }
  for (const HandlerDescription* d : catalog.handlers->descriptions()) {
    for (const AttributeSpec& a : d->attributes) {
      if (a.type == AttributeType::kNodeId) names.insert(a.name);
    }
  }
  return {names.begin(), names.end()};
}

std::vector<NodeReference> node_references(const PipelineDocument& doc) { return ReferenceScan(doc).run(); }

std::optional<NodeReference> node_reference_at(const std::vector<NodeReference>& refs, std::size_t offset) {
  for (const NodeReference& r : refs) {
    if (r.range.begin <= offset && offset <= r.range.end) return r;
  }
  return std::nullopt;
}

std::optional<NodeReference> node_reference_at(const PipelineDocument& doc, std::size_t offset) {
  return node_reference_at(node_references(doc), offset);
}

std::optional<NodeReference> node_definition(const std::vector<NodeReference>& refs, const std::string& id) {
  std::optional<NodeReference> first_edge;
  for (const NodeReference& r : refs) {
    if (r.id != id) continue;
    if (r.kind == NodeReference::Kind::kStatement) return r;
    if (r.kind == NodeReference::Kind::kEdgeEnd && !first_edge) first_edge = r;
  }
  return first_edge;
}

std::optional<NodeReference> node_definition(const PipelineDocument& doc, const std::string& id) {
  return node_definition(node_references(doc), id);
}

RenameResult rename_node(const PipelineDocument& doc, const std::string& id, const std::string& new_name) {
  RenameResult result;
  if (!is_identifier(new_name) || dot::is_dot_keyword(new_name)) {
    result.error = "'" + new_name + "' is not a node id: use letters, digits and '_', starting with a letter or '_'";
    return result;
  }
  std::vector<NodeReference> refs = node_references(doc);
  if (new_name != id &&
      std::any_of(refs.begin(), refs.end(), [&](const NodeReference& r) { return r.id == new_name; })) {
    result.error = "a node '" + new_name + "' exists already";
    return result;
  }
  for (const NodeReference& r : refs) {
    if (r.id != id) continue;
    result.edits.push_back({r.range, r.quoted ? "\"" + new_name + "\"" : new_name});
  }
  if (result.edits.empty()) result.error = "no node '" + id + "' here";
  return result;
}

}  // namespace attractor
