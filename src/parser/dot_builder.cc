#include "parser/dot_builder.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>
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

std::string quoted_for_message(std::string_view text) {
  if (text.size() <= 40) return quote_dot_string(text);
  return quote_dot_string(std::string(text.substr(0, 37)) + "...");
}

}  // namespace

class GraphBuilder::Impl {
 public:
  Impl(SourceFilePtr source, std::vector<Diagnostic>& diagnostics)
      : source_(std::move(source)), text_(source_->text().data()), locator_(*source_), diagnostics_(diagnostics) {}

  void add(const ast::Statement& stmt) { statement(stmt, top_, true); }

  Graph finish(const ast::GraphName& name) {
    if (name) graph_.data().name = std::string(name->inner());
    finish_classes();
    graph_.set_source(source_);
    return std::move(graph_);
  }

 private:
  static constexpr int kNone = -1;

  struct Scope {
    AttributeMap node_defaults;
    AttributeMap edge_defaults;
    int class_set = kNone;  ///< index into class_sets_: classes derived from enclosing subgraph labels
  };

  /// Per vertex: where its first node statement with attributes wrote them (byte offsets of the
  /// first key and past the last value; the AST itself is gone by the time a second statement
  /// comes), and its derived classes.
  struct NodeInfo {
    std::size_t first_begin = 0;
    std::size_t first_end = 0;
    int class_set = kNone;

    bool has_first() const { return first_end != 0; }
  };

  SourceLocation loc(const char* p) { return locator_.at(p); }

  /// Sets `key` to the value token `t`. Values that need no unescaping stay views of the text.
  void set_value(AttributeMap& attrs, std::string_view key, const Token& t) {
    if (t.form == TokenForm::kPlain) {
      ValueKind kind = ValueKind::kString;
      if (!classify_unquoted(t.raw(), kind)) kind = ValueKind::kBare;
      attrs.insert_or_assign_in_source(key, kind, t.raw(), false, source_);
    } else if (t.form == TokenForm::kQuoted && t.inner().find('\\') == std::string_view::npos) {
      attrs.insert_or_assign_in_source(key, ValueKind::kString, t.inner(), true, source_);
    } else {
      attrs.insert_or_assign(key, make_value(t, text_, loc(t.first)));
    }
  }

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
  void apply(const ast::AttrList& list, AttributeMap& attrs) {
    std::vector<bool> repeated;
    if (list.size() > 1) repeated = repeated_keys(list);
    attrs.reserve(attrs.size() + list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!repeated.empty() && repeated[i]) {
        std::string key(list[i].key.inner());
        diagnostics_.push_back(
            make_diagnostic("duplicate_attribute", Severity::kWarning,
                            "attribute '" + key + "' is set twice in one attribute list; the last value wins", "",
                            "remove one of the two '" + key + "' entries", loc(list[i].key.first)));
      }
      set_value(attrs, list[i].key.inner(), list[i].value);
    }
  }

  void statement(const ast::Statement& stmt, Scope& scope, bool top) {
    struct Visitor {
      Impl& b;
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
          AttributeMap ignored;
          apply(s.attrs, ignored);
        }
        break;
      }
    }
  }

  void assignment(const ast::Assignment& s, bool top) {
    if (top) set_value(graph_.data().attrs, s.key.inner(), s.value);
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
    if (auto found = graph_.find(id)) {
      created = false;
      return *found;
    }
    created = true;
    Vertex v = graph_.add_node(std::string(id), loc(t.first));
    if (!scope.node_defaults.empty()) graph_.node(v).attrs = scope.node_defaults;
    if (info_.size() <= v) info_.resize(v + 1);
    add_classes(v, scope);
    return v;
  }

  void node_statement(const ast::NodeOrEdgeStmt& s, const Scope& scope) {
    bool created = false;
    Vertex v = ensure_node(s.head, scope, created);
    NodeInfo& info = info_[v];
    if (!created) add_classes(v, scope);
    if (s.attrs.empty()) return;
    if (info.has_first()) check_redefinitions(v, s.attrs, info);
    apply(s.attrs, graph_.node(v).attrs);
    if (!info.has_first()) {
      info.first_begin = offset_of(s.attrs.front().key.first);
      info.first_end = offset_of(s.attrs.back().value.last);
    }
  }

  std::size_t offset_of(const char* p) const { return static_cast<std::size_t>(p - text_); }

  /// The keys node statements have set on `v` so far. The first statement's keys are the node's
  /// attributes whose value was written inside that statement: defaults only apply when a node is
  /// created, so nothing else can have replaced them.
  std::set<std::string, std::less<>>& explicit_keys(Vertex v, const NodeInfo& info) {
    auto& known = explicit_[v];
    if (!known.empty()) return known;
    for (const auto& [key, value] : graph_.node(v).attrs) {
      SourceLocation at = value.location();
      if (at.known() && at.offset >= info.first_begin && at.offset < info.first_end) known.emplace(key);
    }
    return known;
  }

  /// Warns when `attrs` gives an attribute a different value than an earlier node statement did
  /// (the node's current value of an explicitly set key is the last one a statement gave it).
  /// The keys set by earlier statements are indexed only for nodes that have several statements.
  void check_redefinitions(Vertex v, const ast::AttrList& attrs, const NodeInfo& info) {
    auto& known = explicit_keys(v, info);
    const NodeData& node = graph_.node(v);
    const std::string& id = node.id;
    std::vector<bool> later(attrs.size(), false);
    {
      std::vector<bool> repeated = repeated_keys(ast::AttrList(attrs.rbegin(), attrs.rend()));
      for (std::size_t i = 0; i < attrs.size(); ++i) later[attrs.size() - 1 - i] = repeated[i];
    }
    for (std::size_t i = 0; i < attrs.size(); ++i) {
      if (later[i]) continue;
      std::string_view key = attrs[i].key.inner();
      if (known.find(key) == known.end()) continue;
      std::string_view was = node.find(key)->text();
      std::string now;
      append_token_text(attrs[i].value, text_, now);
      if (was == now) continue;
      diagnostics_.push_back(make_diagnostic("duplicate_node", Severity::kWarning,
                                             "node '" + id + "' redefines attribute '" + std::string(key) + "' (was " +
                                                 quoted_for_message(was) + ", now " + quoted_for_message(now) + ")",
                                             id, "set '" + std::string(key) + "' once, in one node statement",
                                             loc(attrs[i].key.first)));
    }
    for (const auto& a : attrs) known.emplace(a.key.inner());
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
    AttributeMap attrs = scope.edge_defaults;
    apply(s.attrs, attrs);
    attrs.shrink_to_fit();  // keys the list shares with the defaults left room unused
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
      auto old = node.find("class");
      SourceLocation where = old ? old->location() : SourceLocation{};
      node.set("class", joined, ValueKind::kString, where);
    }
  }

  SourceFilePtr source_;
  const char* text_;
  Locator locator_;
  std::vector<Diagnostic>& diagnostics_;
  Graph graph_;
  std::vector<NodeInfo> info_;
  /// Keys set by node statements, for nodes with more than one statement.
  std::unordered_map<Vertex, std::set<std::string, std::less<>>> explicit_;
  std::vector<std::vector<std::string>> class_sets_;
  std::vector<std::pair<Vertex, SourceLocation>> chain_;
  Scope top_;
};

GraphBuilder::GraphBuilder(SourceFilePtr source, std::vector<Diagnostic>& diagnostics)
    : impl_(std::make_unique<Impl>(std::move(source), diagnostics)) {}

GraphBuilder::~GraphBuilder() = default;

void GraphBuilder::add(const ast::Statement& statement) { impl_->add(statement); }

Graph GraphBuilder::finish(const ast::GraphName& name) { return impl_->finish(name); }

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

}  // namespace attractor::dot
