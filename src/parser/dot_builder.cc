#include "parser/dot_builder.h"

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "parser/dot_lexemes.h"
#include "parser/dot_writer.h"

namespace attractor::dot {
namespace {

using ast::Token;
using ast::TokenForm;

/// Offset -> line/column for offsets visited mostly in increasing order: counts newlines from
/// the previous answer instead of searching, so locating every token costs O(file size).
class Locator {
 public:
  explicit Locator(const SourceFile& file) : file_(file), text_(file.text().data()), size_(file.text().size()) {}

  SourceLocation at(const char* p) {
    auto offset = static_cast<std::size_t>(p - text_);
    if (offset < offset_ || offset > size_) return file_.locate(offset);
    const char* q = text_ + offset_;
    const char* stop = text_ + offset;
    while (q < stop) {
      const void* nl = std::memchr(q, '\n', static_cast<std::size_t>(stop - q));
      if (nl == nullptr) break;
      q = static_cast<const char*>(nl) + 1;
      ++line_;
      line_start_ = static_cast<std::size_t>(q - text_);
    }
    offset_ = offset;
    SourceLocation loc;
    loc.line = line_;
    loc.column = static_cast<int>(offset - line_start_ + 1);
    loc.offset = offset;
    return loc;
  }

 private:
  const SourceFile& file_;
  const char* text_;
  std::size_t size_;
  std::size_t offset_ = 0;
  std::size_t line_start_ = 0;
  int line_ = 1;
};

/// Open-addressing map from node id (a view into the source text) to vertex: one contiguous
/// array with cached hashes, so looking up an id costs about one cache miss.
class IdTable {
 public:
  /// The vertex stored for `id`, or npos.
  static constexpr std::uint32_t npos = 0xFFFFFFFFu;

  std::uint32_t find(std::string_view id, std::uint64_t hash) const {
    if (slots_.empty()) return npos;
    for (std::size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.data == nullptr) return npos;
      if (s.hash == hash && s.size == id.size() && std::memcmp(s.data, id.data(), id.size()) == 0) return s.vertex;
    }
  }

  void insert(std::string_view id, std::uint64_t hash, std::uint32_t vertex) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    place(Slot{hash, id.data(), static_cast<std::uint32_t>(id.size()), vertex});
    ++count_;
  }

  static std::uint64_t hash(std::string_view id) { return std::hash<std::string_view>{}(id); }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    const char* data = nullptr;
    std::uint32_t size = 0;
    std::uint32_t vertex = 0;
  };

  void place(const Slot& slot) {
    std::size_t i = slot.hash & mask_;
    while (slots_[i].data != nullptr) i = (i + 1) & mask_;
    slots_[i] = slot;
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.data != nullptr) place(s);
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t count_ = 0;
};

void append_token_text(const Token& t, const char* text_begin, std::string& out) {
  if (t.form == TokenForm::kPlain) {
    out.append(t.first, t.last);
  } else if (t.form == TokenForm::kQuoted) {
    append_unescaped(t.first, t.last, out);
  } else {
    const char* p = t.first;
    while (p < t.last) {
      bool escaped = false;
      const char* q = scan_quoted(p, t.last, escaped);
      append_unescaped(p, q, out);
      p = skip_space(q, text_begin, t.last);
      if (p < t.last && *p == '+') p = skip_space(p + 1, text_begin, t.last);
    }
  }
}

Value make_value(const Token& t, const char* text_begin, SourceLocation loc) {
  Value v;
  v.location = loc;
  if (t.form == TokenForm::kPlain) {
    v.text.assign(t.first, t.last);
    if (!classify_unquoted(v.text, v.kind)) v.kind = ValueKind::kBare;
  } else {
    v.kind = ValueKind::kString;
    append_token_text(t, text_begin, v.text);
  }
  return v;
}

std::string quoted_for_message(const std::string& text) {
  return quote_dot_string(text.size() > 40 ? text.substr(0, 37) + "..." : text);
}

class Builder {
 public:
  Builder(const SourceFilePtr& source, std::vector<Diagnostic>& diagnostics)
      : source_(source), text_(source->text().data()), locator_(*source), diagnostics_(diagnostics) {}

  Graph build(const ast::DotGraph& tree) {
    if (tree.name) graph_.data().name = std::string(tree.name->inner());
    Scope top;
    for (const auto& stmt : tree.body) statement(stmt, top, true);
    finish_classes();
    graph_.set_source(source_);
    return std::move(graph_);
  }

 private:
  static constexpr int kNone = -1;

  struct Scope {
    Attributes node_defaults;
    Attributes edge_defaults;
    int class_set = kNone;  ///< index into class_sets_: classes derived from enclosing subgraph labels
  };

  /// Per vertex: its first node statement with attributes, and its derived classes.
  struct NodeInfo {
    const ast::AttrList* first_statement = nullptr;
    int class_set = kNone;
  };

  SourceLocation loc(const char* p) { return locator_.at(p); }

  Value value(const Token& t) { return make_value(t, text_, loc(t.first)); }

  static std::string key_text(const Token& key) { return std::string(key.inner()); }

  /// For each entry of `list`, whether an earlier entry has the same key. Short lists compare
  /// pairwise; long ones use a hash set, so no list is quadratic.
  static std::vector<bool> repeated_keys(const ast::AttrList& list) {
    std::vector<bool> repeated(list.size(), false);
    if (list.size() <= 8) {
      for (std::size_t i = 1; i < list.size(); ++i) {
        for (std::size_t j = 0; j < i && !repeated[i]; ++j) repeated[i] = list[j].key.inner() == list[i].key.inner();
      }
      return repeated;
    }
    std::unordered_set<std::string_view> seen;
    for (std::size_t i = 0; i < list.size(); ++i) repeated[i] = !seen.insert(list[i].key.inner()).second;
    return repeated;
  }

  /// Applies an attribute list onto `attrs`, warning about keys repeated within the list.
  void apply(const ast::AttrList& list, Attributes& attrs) {
    std::vector<bool> repeated;
    if (list.size() > 1) repeated = repeated_keys(list);
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!repeated.empty() && repeated[i]) {
        std::string key(list[i].key.inner());
        diagnostics_.push_back(make_diagnostic(
            "duplicate_attribute", Severity::kWarning,
            "attribute '" + key + "' is set twice in one attribute list; the last value wins", "",
            "remove one of the two '" + key + "' entries", loc(list[i].key.first)));
      }
      attrs.insert_or_assign(key_text(list[i].key), value(list[i].value));
    }
  }

  void statement(const ast::Statement& stmt, Scope& scope, bool top) {
    struct Visitor {
      Builder& b;
      Scope& scope;
      bool top;
      void operator()(const ast::AttrStmt& s) const { b.attr_stmt(s, scope, top); }
      void operator()(const ast::Assignment& s) const { b.assignment(s, top); }
      void operator()(const ast::NodeOrEdgeStmt& s) const { b.node_or_edge(s, scope); }
      void operator()(const boost::spirit::x3::forward_ast<ast::Subgraph>& s) const { b.subgraph(s.get(), scope); }
    };
    boost::apply_visitor(Visitor{*this, scope, top}, stmt);
  }

  void attr_stmt(const ast::AttrStmt& s, Scope& scope, bool top) {
    switch (s.target) {
      case ast::DefaultsTarget::kNode: apply(s.attrs, scope.node_defaults); break;
      case ast::DefaultsTarget::kEdge: apply(s.attrs, scope.edge_defaults); break;
      case ast::DefaultsTarget::kGraph: {
        if (top) {
          apply(s.attrs, graph_.data().attrs);
        } else {
          Attributes ignored;
          apply(s.attrs, ignored);
        }
        break;
      }
    }
  }

  void assignment(const ast::Assignment& s, bool top) {
    if (top) graph_.data().attrs.insert_or_assign(key_text(s.key), value(s.value));
  }

  /// The subgraph's label, if its body sets one (the last one wins).
  std::string subgraph_label(const ast::Subgraph& sub) {
    const Token* label = nullptr;
    for (const auto& stmt : sub.body) {
      if (const auto* a = boost::get<ast::Assignment>(&stmt)) {
        if (a->key.inner() == "label") label = &a->value;
      } else if (const auto* s = boost::get<ast::AttrStmt>(&stmt)) {
        if (s->target != ast::DefaultsTarget::kGraph) continue;
        for (const auto& attr : s->attrs) {
          if (attr.key.inner() == "label") label = &attr.value;
        }
      }
    }
    if (label == nullptr) return {};
    std::string text;
    append_token_text(*label, text_, text);
    return text;
  }

  void subgraph(const ast::Subgraph& sub, const Scope& parent) {
    Scope scope = parent;
    std::string cls = derive_class(subgraph_label(sub));
    if (!cls.empty()) {
      std::vector<std::string> classes;
      if (parent.class_set != kNone) classes = class_sets_[static_cast<std::size_t>(parent.class_set)];
      if (std::find(classes.begin(), classes.end(), cls) == classes.end()) {
        classes.push_back(std::move(cls));
        class_sets_.push_back(std::move(classes));
        scope.class_set = static_cast<int>(class_sets_.size() - 1);
      }
    }
    for (const auto& stmt : sub.body) statement(stmt, scope, false);
  }

  /// Adds the scope's derived classes to the node's (a new merged set only when both differ).
  void add_classes(Vertex v, const Scope& scope) {
    int& mine = info_[v].class_set;
    if (scope.class_set == kNone || mine == scope.class_set) return;
    if (mine == kNone) {
      mine = scope.class_set;
      return;
    }
    std::vector<std::string> merged = class_sets_[static_cast<std::size_t>(mine)];
    for (const auto& c : class_sets_[static_cast<std::size_t>(scope.class_set)]) {
      if (std::find(merged.begin(), merged.end(), c) == merged.end()) merged.push_back(c);
    }
    if (merged.size() == class_sets_[static_cast<std::size_t>(mine)].size()) return;
    class_sets_.push_back(std::move(merged));
    mine = static_cast<int>(class_sets_.size() - 1);
  }

  /// The vertex for an id token, creating it with the scope's node defaults when new.
  Vertex ensure_node(const Token& t, const Scope& scope, bool& created) {
    std::string_view id = t.inner();
    std::uint64_t hash = IdTable::hash(id);
    std::uint32_t found = ids_.find(id, hash);
    if (found != IdTable::npos) {
      created = false;
      return static_cast<Vertex>(found);
    }
    created = true;
    Vertex v = graph_.add_node(std::string(id), loc(t.first));
    if (!scope.node_defaults.empty()) graph_.node(v).attrs = scope.node_defaults;
    if (info_.size() <= v) info_.resize(v + 1);
    add_classes(v, scope);
    ids_.insert(id, hash, static_cast<std::uint32_t>(v));
    return v;
  }

  void node_statement(const ast::NodeOrEdgeStmt& s, const Scope& scope) {
    bool created = false;
    Vertex v = ensure_node(s.head, scope, created);
    NodeInfo& info = info_[v];
    if (!created) add_classes(v, scope);
    if (s.attrs.empty()) return;
    if (info.first_statement != nullptr) check_redefinitions(v, s.attrs, info);
    apply(s.attrs, graph_.node(v).attrs);
    if (info.first_statement == nullptr) info.first_statement = &s.attrs;
  }

  /// Warns when `attrs` gives an attribute a different value than an earlier node statement did.
  /// The keys set by earlier statements are indexed only for nodes that have several statements.
  void check_redefinitions(Vertex v, const ast::AttrList& attrs, const NodeInfo& info) {
    auto& known = explicit_[v];
    if (known.empty()) {
      for (const auto& a : *info.first_statement) known[a.key.inner()] = &a;
    }
    const std::string& id = graph_.node(v).id;
    std::vector<bool> later(attrs.size(), false);
    {
      std::vector<bool> repeated = repeated_keys(ast::AttrList(attrs.rbegin(), attrs.rend()));
      for (std::size_t i = 0; i < attrs.size(); ++i) later[attrs.size() - 1 - i] = repeated[i];
    }
    for (std::size_t i = 0; i < attrs.size(); ++i) {
      if (later[i]) continue;
      std::string_view key = attrs[i].key.inner();
      auto found = known.find(key);
      if (found == known.end()) continue;
      std::string was, now;
      append_token_text(found->second->value, text_, was);
      append_token_text(attrs[i].value, text_, now);
      if (was == now) continue;
      diagnostics_.push_back(make_diagnostic("duplicate_node", Severity::kWarning,
                                             "node '" + id + "' redefines attribute '" + std::string(key) + "' (was " +
                                                 quoted_for_message(was) + ", now " + quoted_for_message(now) + ")",
                                             id, "set '" + std::string(key) + "' once, in one node statement",
                                             loc(attrs[i].key.first)));
    }
    for (const auto& a : attrs) known[a.key.inner()] = &a;
  }

  void node_or_edge(const ast::NodeOrEdgeStmt& s, Scope& scope) {
    if (s.targets.empty()) {
      node_statement(s, scope);
      return;
    }
    bool created = false;
    auto& chain = chain_;
    chain.clear();
    chain.emplace_back(ensure_node(s.head, scope, created), loc(s.head.first));
    for (const auto& t : s.targets) chain.emplace_back(ensure_node(t, scope, created), loc(t.first));
    Attributes attrs = scope.edge_defaults;
    apply(s.attrs, attrs);
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
      AttributeBag bag;
      if (i + 2 < chain.size()) bag.attrs = attrs;
      else bag.attrs = std::move(attrs);
      graph_.add_edge(chain[i].first, chain[i + 1].first, std::move(bag), chain[i].second);
    }
  }

  void finish_classes() {
    for (std::size_t v = 0; v < info_.size(); ++v) {
      if (info_[v].class_set == kNone) continue;
      const auto& derived = class_sets_[static_cast<std::size_t>(info_[v].class_set)];
      NodeData& node = graph_.node(static_cast<Vertex>(v));
      std::vector<std::string> classes = node.classes();
      for (const auto& c : derived) {
        if (std::find(classes.begin(), classes.end(), c) == classes.end()) classes.push_back(c);
      }
      std::string joined;
      for (const auto& c : classes) {
        if (!joined.empty()) joined += ',';
        joined += c;
      }
      const Value* old = node.find("class");
      SourceLocation where = old ? old->location : SourceLocation{};
      node.set("class", std::move(joined), ValueKind::kString, where);
    }
  }

  SourceFilePtr source_;
  const char* text_;
  Locator locator_;
  std::vector<Diagnostic>& diagnostics_;
  Graph graph_;
  IdTable ids_;
  std::vector<NodeInfo> info_;
  /// Keys set by node statements, for nodes with more than one statement.
  std::unordered_map<Vertex, std::unordered_map<std::string_view, const ast::Attribute*>> explicit_;
  std::vector<std::vector<std::string>> class_sets_;
  std::vector<std::pair<Vertex, SourceLocation>> chain_;
};

}  // namespace

std::string derive_class(std::string_view label) {
  std::string out;
  out.reserve(label.size());
  for (char c : label) {
    if (c >= 'A' && c <= 'Z') out += static_cast<char>(c - 'A' + 'a');
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') out += c;
    else if (c == ' ') out += '-';
  }
  return out;
}

Value token_value(const ast::Token& token, const SourceFile& file) {
  return make_value(token, file.text().data(), file.locate(static_cast<std::size_t>(token.first - file.text().data())));
}

Graph build_graph(const ast::DotGraph& tree, const SourceFilePtr& source, std::vector<Diagnostic>& diagnostics) {
  return Builder(source, diagnostics).build(tree);
}

}  // namespace attractor::dot
