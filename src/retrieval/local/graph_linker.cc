#include "retrieval/local/graph_linker.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <tuple>

#include "attractor/base/ascii.h"
#include "retrieval/edge_types.h"
#include "retrieval/local/csharp_extractor.h"
#include "retrieval/local/sql_extractor.h"

namespace attractor::retrieval {

namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int num(const json& j, const char* key, int fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

bool is_type_kind(const std::string& k) {
  return k == "class" || k == "struct" || k == "interface" || k == "record" || k == "enum";
}

/// How a type name is written where it is used: its generic arity (-1 when unknown) and its
/// qualifier (`A.B` of `A.B.Foo`).
struct Written {
  int arity = -1;
  std::string qual;
};

class Linker {
 public:
  Linker(const std::vector<StoredNode>& nodes, CanonicalSql canonical,
         const std::map<std::string, std::set<std::string>>& global_usings)
      : canonical_(std::move(canonical)), global_usings_(global_usings) {
    for (const auto& n : nodes) by_id_[n.id] = &n;
    for (const auto& n : nodes) {
      if (n.language == "sql") continue;
      if (is_type_kind(n.kind)) {
        if (auto whole = whole_of_part(n)) {
          whole_of_[n.id] = *whole;
          parts_of_[*whole].push_back(&n);
          continue;
        }
        types_by_simple_[str(n.facts, "simple")].push_back(&n);
      } else {
        std::string type = str(n.facts, "type");
        if (n.kind == "constructor") ctors_of_[type].push_back(&n);
        else if (n.kind == "method") {
          methods_of_[type].push_back(&n);
          methods_by_name_[str(n.facts, "simple")].push_back(&n);
        }
      }
    }
    for (const auto& [name, id] : canonical_.by_name) {
      const StoredNode* n = by_id_.at(id);
      sql_by_name_[name] = n;
      auto dot = name.find('.');
      sql_by_bare_[dot == std::string::npos ? name : name.substr(dot + 1)].push_back(n);
    }
    for (const auto& n : nodes) {
      if (!is_type_kind(n.kind)) continue;
      auto& project = global_usings_[str(n.facts, "project")];
      for (const auto& g : n.facts.value("global_usings", json::array())) project.insert(g.get<std::string>());
    }
    for (const auto& n : nodes) {
      if (!is_type_kind(n.kind)) continue;
      auto& bases = bases_of_[whole(n.id)];
      for (const auto& t : resolved_bases(n)) {
        if (std::find(bases.begin(), bases.end(), t) == bases.end()) bases.push_back(t);
      }
    }
    for (const auto& [type, bases] : bases_of_) {
      if (auto base = class_base(type)) derived_of_[*base].push_back(type);
    }
  }

  std::vector<GraphEdge> run(const std::vector<StoredNode>& nodes) {
    collect_explicit_mappings(nodes);
    for (const auto& n : nodes) {
      if (n.language == "sql") link_sql(n);
      else if (is_type_kind(n.kind)) link_type(n);
      else link_member(n);
    }
    std::vector<GraphEdge> out(edges_.begin(), edges_.end());
    return out;
  }

 private:
  void add(const std::string& from_id, const std::string& to_id, const char* type) {
    const std::string& from = whole(from_id);
    const std::string& to = whole(to_id);
    if (from == to || !by_id_.count(from) || !by_id_.count(to)) return;
    edges_.insert({from, to, type});
  }

  /// The type a declaration of a partial C# type belongs to: `cs:X` for the part stored as
  /// `cs:X@path`, when both are partial declarations of a type of the same kind.
  std::optional<std::string> whole_of_part(const StoredNode& n) const {
    if (!n.facts.value("partial_type", false)) return std::nullopt;
    auto at = n.id.find('@');
    if (at == std::string::npos) return std::nullopt;
    auto it = by_id_.find(n.id.substr(0, at));
    if (it == by_id_.end() || it->second->kind != n.kind || !it->second->facts.value("partial_type", false)) {
      return std::nullopt;
    }
    return it->first;
  }

  /// The id edges use for `id`: the whole type for a part of a partial type, else `id`.
  const std::string& whole(const std::string& id) const {
    auto it = whole_of_.find(id);
    return it == whole_of_.end() ? id : it->second;
  }

  /// The node that answers for `n`'s name (itself unless another file defines it too).
  const std::string& canonical_id(const StoredNode& n) const {
    auto it = canonical_.duplicate_of.find(n.id);
    return it == canonical_.duplicate_of.end() ? n.id : it->second;
  }

  /// The type `simple` means inside `scope` (the facts of the type it is written in, or null), by
  /// the rules of docs/retrieval.md: aliases, then the one type of that name and arity, then the
  /// enclosing namespaces (innermost first), then the `using` and `global using` namespaces when
  /// exactly one of them declares it.
  std::optional<std::string> resolve_type(const std::string& simple, const std::string& ns, const json* scope = nullptr,
                                          Written written = {}) const {
    if (scope && written.qual.empty()) {
      if (auto target = alias_target(*scope, simple)) return resolve_written(*target);
    }
    if (scope && !written.qual.empty()) written.qual = expand_alias(*scope, written.qual);
    auto it = types_by_simple_.find(simple);
    if (it == types_by_simple_.end()) return std::nullopt;
    std::vector<const StoredNode*> c;
    for (const auto* t : it->second) {
      if (fits_written(*t, simple, written)) c.push_back(t);
    }
    if (c.size() == 1) return c[0]->id;
    if (c.empty()) return std::nullopt;
    if (auto best = innermost_enclosing(c, ns)) return best;
    return only_imported(c, scope);
  }

  static std::optional<std::string> alias_target(const json& scope, const std::string& name) {
    auto aliases = scope.find("aliases");
    if (aliases == scope.end() || !aliases->contains(name)) return std::nullopt;
    return (*aliases)[name].get<std::string>();
  }

  /// `Alias.Rest` with the alias replaced by what it names.
  static std::string expand_alias(const json& scope, const std::string& qual) {
    auto dot = qual.find('.');
    auto target = alias_target(scope, qual.substr(0, dot));
    if (!target) return qual;
    return dot == std::string::npos ? *target : *target + qual.substr(dot);
  }

  /// An alias target as written (`A.B.Foo<int, string>`), resolved from the global namespace.
  std::optional<std::string> resolve_written(const std::string& text) const {
    std::string base = text.substr(0, text.find('<'));
    auto dot = base.rfind('.');
    Written w;
    w.arity = generic_arity(text);
    if (dot != std::string::npos) w.qual = base.substr(0, dot);
    return resolve_type(dot == std::string::npos ? base : base.substr(dot + 1), "", nullptr, w);
  }

  /// Whether type node `t` can be the one written: same generic arity (when both are known) and,
  /// for a qualified name, a container (namespace or outer types) ending in the qualifier.
  static bool fits_written(const StoredNode& t, const std::string& simple, const Written& w) {
    if (w.arity >= 0 && t.facts.contains("arity") && num(t.facts, "arity", 0) != w.arity) return false;
    if (w.qual.empty()) return true;
    auto cut = t.name.rfind("." + simple);
    std::string container = cut == std::string::npos ? std::string() : t.name.substr(0, cut);
    return container == w.qual || container.ends_with("." + w.qual);
  }

  static std::optional<std::string> innermost_enclosing(const std::vector<const StoredNode*>& c,
                                                        const std::string& ns) {
    std::optional<std::string> best;
    size_t best_len = 0;
    for (const auto* t : c) {
      std::string tns = str(t->facts, "ns");
      bool enclosing = tns.empty() || ns == tns || ns.rfind(tns + ".", 0) == 0;
      if (enclosing && (!best || tns.size() > best_len)) {
        best = t->id;
        best_len = tns.size();
      }
    }
    return best;
  }

  /// The one candidate whose namespace a `using` of the scope imports; when none does, the one a
  /// `global using` of a file of the scope's project imports. None when several are imported (the
  /// compiler would call that ambiguous). The scope's own usings go first because they certainly
  /// apply to the use; the project is read from the `project` fact, which a tree without project
  /// files leaves empty for every file (then every global using counts for the whole tree).
  std::optional<std::string> only_imported(const std::vector<const StoredNode*>& c, const json* scope) const {
    std::set<std::string> local;
    if (scope) {
      for (const auto& u : scope->value("usings", json::array())) local.insert(u.get<std::string>());
    }
    bool several = false;
    if (auto found = only_one_in(c, local, several); found || several) return found;
    auto project = global_usings_.find(scope ? str(*scope, "project") : std::string());
    if (project == global_usings_.end()) return std::nullopt;
    return only_one_in(c, project->second, several);
  }

  /// The one candidate of `c` in one of `namespaces`; `several` says when more than one is.
  static std::optional<std::string> only_one_in(const std::vector<const StoredNode*>& c,
                                                const std::set<std::string>& namespaces, bool& several) {
    std::optional<std::string> found;
    for (const auto* t : c) {
      if (!namespaces.count(str(t->facts, "ns"))) continue;
      if (found) {
        several = true;
        return std::nullopt;
      }
      found = t->id;
    }
    return found;
  }

  /// The types of `n`'s base list that are in the index, in the order written.
  std::vector<std::string> resolved_bases(const StoredNode& n) const {
    std::vector<std::string> out;
    const json bases = n.facts.value("bases", json::array());
    const json names = n.facts.value("base_names", json::array());
    for (size_t i = 0; i < bases.size(); ++i) {
      Written w;
      if (i < names.size()) w = {num(names[i], "arity", -1), str(names[i], "qual")};
      if (auto t = resolve_type(bases[i].get<std::string>(), str(n.facts, "ns"), &n.facts, w)) out.push_back(*t);
    }
    return out;
  }

  /// The facts of type `type_id` (an empty object when it is not indexed).
  const json& facts_of(const std::string& type_id) const {
    static const json kNone = json::object();
    auto it = by_id_.find(type_id);
    return it == by_id_.end() ? kNone : it->second->facts;
  }

  /// The facts (usings, aliases) in force for a member of `type_id` declared in `path`: those of
  /// the declaration of the type in that file when the type is partial.
  const json& facts_in_file(const std::string& type_id, const std::string& path) const {
    if (auto it = parts_of_.find(type_id); it != parts_of_.end()) {
      for (const StoredNode* part : it->second) {
        if (part->path == path) return part->facts;
      }
    }
    return facts_of(type_id);
  }

  std::string ns_of_type(const std::string& type_id) const {
    auto it = by_id_.find(type_id);
    return it == by_id_.end() ? std::string() : str(it->second->facts, "ns");
  }

  /// The type and its bases, breadth-first.
  std::vector<std::string> type_chain(const std::string& type_id) const {
    std::vector<std::string> out;
    std::set<std::string> seen{type_id};
    std::deque<std::string> q{type_id};
    while (!q.empty()) {
      auto t = q.front();
      q.pop_front();
      out.push_back(t);
      auto it = bases_of_.find(t);
      if (it == bases_of_.end()) continue;
      for (const auto& b : it->second) {
        if (seen.insert(b).second) q.push_back(b);
      }
    }
    return out;
  }

  static bool arity_fits(const StoredNode& m, int arity) {
    int total = num(m.facts, "arity", 0);
    int required = num(m.facts, "required", total);
    return arity >= required && arity <= total;
  }

  std::optional<std::string> field_type(const std::string& type_id, const std::string& name) const {
    for (const auto& t : type_chain(type_id)) {
      auto it = by_id_.find(t);
      if (it == by_id_.end()) continue;
      const auto& fields = it->second->facts.value("fields", json::object());
      if (fields.contains(name)) return fields[name].get<std::string>();
    }
    return std::nullopt;
  }

  const std::vector<const StoredNode*>* sql_candidates(const std::string& target, const StoredNode** exact) const {
    *exact = nullptr;
    std::string key = target.find('.') == std::string::npos ? "dbo." + target : target;
    if (auto it = sql_by_name_.find(key); it != sql_by_name_.end()) {
      *exact = it->second;
      return nullptr;
    }
    auto dot = target.rfind('.');
    std::string bare = dot == std::string::npos ? target : target.substr(dot + 1);
    auto it = sql_by_bare_.find(bare);
    return it == sql_by_bare_.end() ? nullptr : &it->second;
  }

  const StoredNode* resolve_sql(const std::string& target) const {
    const StoredNode* exact = nullptr;
    auto* c = sql_candidates(ascii_lower(target), &exact);
    if (exact) return exact;
    if (c && c->size() == 1) return (*c)[0];
    return nullptr;
  }

  /// Entities mapped by `[Table]` or by a `ToTable`/`ToView` call that names them.
  void collect_explicit_mappings(const std::vector<StoredNode>& nodes) {
    for (const auto& n : nodes) {
      if (is_type_kind(n.kind) && !str(n.facts, "table").empty()) explicitly_mapped_.insert(whole(n.id));
      std::string ns = ns_of_type(str(n.facts, "type"));
      const json& scope = facts_in_file(str(n.facts, "type"), n.path);
      for (const auto& map : n.facts.value("to_table", json::array())) {
        if (auto e = resolve_type(str(map, "entity"), ns, &scope)) explicitly_mapped_.insert(*e);
      }
    }
  }

  /// A SQL name with `{member}` holes (from an interpolated C# string) filled with string members
  /// of the owner type or its bases; unchanged when a hole cannot be filled.
  std::string substitute(const std::string& target, const std::string& owner) const {
    std::string out;
    size_t i = 0;
    while (i < target.size()) {
      auto open = target.find('{', i);
      if (open == std::string::npos) break;
      auto close = target.find('}', open);
      if (close == std::string::npos) return target;
      auto value = string_member(owner, target.substr(open + 1, close - open - 1));
      if (!value) return target;
      out += target.substr(i, open - i) + ascii_lower(*value);
      i = close + 1;
    }
    if (i == 0) return target;
    return normalize_sql_name(out + target.substr(std::min(i, target.size())));
  }

  /// The value of string member `name` (lowercase) seen from `type_id`: its own initializer or a
  /// base's, with `typeof(T).Name` bound through the generic arguments of the base lists.
  std::optional<std::string> string_member(const std::string& type_id, const std::string& name) const {
    std::map<std::string, std::string> bound;
    std::string current = type_id;
    std::set<std::string> seen;
    while (seen.insert(current).second) {
      auto it = by_id_.find(current);
      if (it == by_id_.end()) return std::nullopt;
      const json& facts = it->second->facts;
      const json strings = facts.value("strings", json::object());
      if (auto s = strings.find(name); s != strings.end() && s->is_string())
        return bound_value(s->get<std::string>(), facts, bound);
      auto base = class_base(current);
      if (!base) return std::nullopt;
      bound = bind_base(facts, *by_id_.at(*base), bound);
      current = *base;
    }
    return std::nullopt;
  }

  static std::optional<std::string> bound_value(const std::string& value, const json& facts,
                                                const std::map<std::string, std::string>& bound) {
    if (value.rfind("typeof:", 0) != 0) return value;
    std::string param = value.substr(7);
    if (auto b = bound.find(param); b != bound.end()) return b->second;
    for (const auto& p : facts.value("type_params", json::array())) {
      if (p == param) return std::nullopt;  // an unbound type parameter: one name per subclass
    }
    return param;
  }

  /// The type parameters of `base` bound to the arguments `facts`' type gives it.
  static std::map<std::string, std::string> bind_base(const json& facts, const StoredNode& base,
                                                      const std::map<std::string, std::string>& bound) {
    std::map<std::string, std::string> next;
    const json generics = facts.value("base_generics", json::object());
    auto g = generics.find(str(base.facts, "simple"));
    if (g == generics.end()) return next;
    const json params = base.facts.value("type_params", json::array());
    for (size_t k = 0; k < params.size() && k < g->size(); ++k) {
      std::string arg = (*g)[k].get<std::string>();
      auto b = bound.find(arg);
      next[params[k].get<std::string>()] = b != bound.end() ? b->second : arg;
    }
    return next;
  }

  std::optional<std::string> class_base(const std::string& type_id) const {
    auto it = bases_of_.find(type_id);
    if (it == bases_of_.end()) return std::nullopt;
    for (const auto& b : it->second) {
      if (by_id_.at(b)->kind != "interface") return b;
    }
    return std::nullopt;
  }

  static bool is_routine(const StoredNode* n) { return n->kind == "procedure" || n->kind == "function"; }

  void link_type(const StoredNode& n) {
    std::string ns = str(n.facts, "ns");
    if (auto outer = str(n.facts, "outer"); !outer.empty()) add(outer, n.id, edge_type::kContains);
    for (const auto& target : resolved_bases(n)) {
      bool iface = by_id_.at(target)->kind == "interface";
      add(n.id, target, iface && n.kind != "interface" ? edge_type::kImplements : edge_type::kInherits);
    }
    for (const auto& a : n.facts.value("base_args", json::array())) {
      if (auto t = resolve_type(a.get<std::string>(), ns, &n.facts)) add(n.id, *t, edge_type::kUsesType);
    }
    const json fields = n.facts.value("fields", json::object());
    for (const auto& [name, type] : fields.items()) {
      if (auto t = resolve_type(type.get<std::string>(), ns, &n.facts)) add(n.id, *t, edge_type::kUsesType);
    }
    if (auto table = str(n.facts, "table"); !table.empty()) {
      std::string schema = str(n.facts, "schema");
      if (const auto* t = resolve_sql(schema.empty() ? table : schema + "." + table))
        add(n.id, t->id, edge_type::kMapsTo);
    }
    link_db_sets(n);
  }

  void link_member(const StoredNode& n) {
    std::string owner = str(n.facts, "type");
    std::string ns = ns_of_type(owner);
    const json& scope = facts_in_file(owner, n.path);
    add(owner, n.id, edge_type::kContains);
    const auto& locals = n.facts.value("locals", json::object());
    for (const auto& call : n.facts.value("calls", json::array())) {
      std::string name = str(call, "name"), recv = str(call, "recv");
      int arity = num(call, "arity", 0);
      std::vector<std::string> targets;
      bool typed = false;
      if (recv.empty() || recv == "this") {
        targets = type_chain(owner);
        typed = true;
      } else if (recv == "base") {
        if (auto it = bases_of_.find(owner); it != bases_of_.end()) {
          for (const auto& b : it->second) {
            auto chain = type_chain(b);
            targets.insert(targets.end(), chain.begin(), chain.end());
          }
        }
        typed = true;
      } else if (recv != "?") {
        std::optional<std::string> type_name;
        if (locals.contains(recv)) type_name = locals[recv].get<std::string>();
        else if (auto f = field_type(owner, recv)) type_name = f;
        else if (types_by_simple_.count(recv)) type_name = recv;
        if (type_name) {
          if (auto t = resolve_type(*type_name, ns, &scope)) {
            targets = type_chain(*t);
            typed = true;
          }
        }
      }
      bool linked = false;
      for (const auto& t : targets) {
        auto it = methods_of_.find(t);
        if (it == methods_of_.end()) continue;
        for (const auto* m : it->second) {
          if (str(m->facts, "simple") == name && arity_fits(*m, arity)) {
            add(n.id, m->id, edge_type::kCalls);
            linked = true;
          }
        }
        if (linked) break;
      }
      if (!linked && !typed) {
        std::vector<const StoredNode*> fits;
        if (auto it = methods_by_name_.find(name); it != methods_by_name_.end()) {
          for (const auto* m : it->second) {
            if (arity_fits(*m, arity)) fits.push_back(m);
          }
        }
        if (fits.size() == 1) add(n.id, fits[0]->id, edge_type::kCalls);
      }
    }
    for (const auto& created : n.facts.value("news", json::array())) {
      auto t = resolve_type(str(created, "type"), ns, &scope);
      if (!t) continue;
      if (auto it = ctors_of_.find(*t); it != ctors_of_.end()) {
        for (const auto* c : it->second) {
          if (arity_fits(*c, num(created, "arity", 0))) add(n.id, c->id, edge_type::kCalls);
        }
      }
    }
    for (const auto& ident : n.facts.value("idents", json::array())) {
      auto t = resolve_type(ident.get<std::string>(), ns, &scope);
      if (t && *t != owner) add(n.id, *t, edge_type::kUsesType);
    }
    for (const auto& ref : n.facts.value("sql", json::array()))
      link_sql_ref(n, owner, str(ref, "role"), str(ref, "target"));
    for (const auto& proc : n.facts.value("procs", json::array())) link_proc(n, owner, proc.get<std::string>());
    link_string_constants(n, owner);
    for (const auto& map : n.facts.value("to_table", json::array())) {
      std::string table = str(map, "table"), schema = str(map, "schema");
      const auto* t = resolve_sql(schema.empty() ? table : schema + "." + table);
      if (!t) continue;
      std::optional<std::string> from;
      if (auto entity = str(map, "entity"); !entity.empty()) from = resolve_type(entity, ns, &scope);
      if (!from) {
        auto it = by_id_.find(owner);
        if (it != by_id_.end()) {
          for (const auto& a : it->second->facts.value("base_args", json::array())) {
            if ((from = resolve_type(a.get<std::string>(), ns, &scope))) break;
          }
        }
      }
      add(from.value_or(n.id), t->id, edge_type::kMapsTo);
    }
  }

  /// `n` (and, for a base member that runs one object per derived type, that derived type: it
  /// inherits the member) uses SQL object `target`.
  void link_sql_ref(const StoredNode& n, const std::string& owner, const std::string& role, const std::string& target) {
    for (const auto& [t, via] : resolve_sql_all(target, owner)) {
      const char* type = is_routine(t)      ? edge_type::kExecutes
                         : role == "writes" ? edge_type::kWrites
                                            : edge_type::kReads;
      add(n.id, t->id, type);
      if (!via.empty()) add(via, t->id, type);
    }
  }

  void link_proc(const StoredNode& n, const std::string& owner, const std::string& name) {
    for (const auto& [t, via] : resolve_sql_all(name, owner)) {
      if (!is_routine(t)) continue;
      add(n.id, t->id, edge_type::kExecutes);
      if (!via.empty()) add(via, t->id, edge_type::kExecutes);
    }
  }

  /// A SQL object a name means, and the derived type it is meant for (empty when the name resolves
  /// in the owner itself).
  struct SqlTarget {
    const StoredNode* node;
    std::string via;
  };

  /// The objects a name with holes means from `owner`: one when the holes resolve there; in a
  /// generic base class (`{Table}` = `typeof(T).Name`), one per derived class that binds T.
  std::vector<SqlTarget> resolve_sql_all(const std::string& name, const std::string& owner) const {
    std::string filled = substitute(name, owner);
    if (const auto* t = resolve_sql(filled)) return {{t, ""}};
    std::vector<SqlTarget> out;
    if (filled.find('{') == std::string::npos) return out;
    std::set<std::string> seen;
    std::deque<std::string> queue{owner};
    while (!queue.empty()) {
      auto type = queue.front();
      queue.pop_front();
      auto it = derived_of_.find(type);
      if (it == derived_of_.end()) continue;
      for (const auto& d : it->second) {
        if (!seen.insert(d).second) continue;
        if (const auto* t = resolve_sql(substitute(name, d))) out.push_back({t, d});
        queue.push_back(d);
      }
    }
    return out;
  }

  /// A member that names a string constant or initialized string member of its type
  /// (`QueryAsync(SelectOpenOrders)`, `ExecuteAsync(ByEmailProc, ..., StoredProcedure)`) uses its SQL.
  void link_string_constants(const StoredNode& n, const std::string& owner) {
    bool stored_procedure = n.facts.value("stored_procedure", false);
    for (const auto& ident : n.facts.value("idents", json::array())) {
      auto value = string_member(owner, ascii_lower(ident.get<std::string>()));
      if (!value || value->rfind("typeof:", 0) == 0) continue;
      if (looks_like_sql(*value)) {
        for (const auto& r : sql_references(*value)) link_sql_ref(n, owner, r.role, r.target);
      } else if (stored_procedure && is_sql_name(*value)) {
        link_proc(n, owner, normalize_sql_name(*value));
      }
    }
  }

  static bool is_sql_name(const std::string& s) {
    static const std::regex name(R"(^\s*[\[\w\]{}]+(\.[\[\w\]{}]+){0,2}\s*$)");
    return std::regex_match(s, name);
  }

  /// EF Core's DbSet convention, for entities no ToTable/ToView/[Table] maps explicitly.
  void link_db_sets(const StoredNode& context) {
    std::string schema = str(context.facts, "default_schema");
    std::string ns = str(context.facts, "ns");
    for (const auto& set : context.facts.value("db_sets", json::array())) {
      auto entity = resolve_type(str(set, "entity"), ns, &context.facts);
      if (!entity || explicitly_mapped_.count(*entity)) continue;
      std::string table = str(set, "table");
      if (const auto* t = resolve_sql(schema.empty() ? table : schema + "." + table))
        add(*entity, t->id, edge_type::kMapsTo);
    }
  }

  void link_sql(const StoredNode& n) {
    const std::string& from = canonical_id(n);
    for (const auto& ref : n.facts.value("refs", json::array())) {
      const auto* t = resolve_sql(str(ref, "target"));
      if (!t) continue;
      std::string role = str(ref, "role");
      if (role == "writes") add(from, t->id, edge_type::kWrites);
      else if (role == "references" || is_routine(t) || n.kind == "view" || n.kind == "table") {
        add(from, t->id, edge_type::kReferences);
      } else {
        add(from, t->id, edge_type::kReads);
      }
    }
  }

  CanonicalSql canonical_;
  std::set<std::string> explicitly_mapped_;
  std::map<std::string, std::set<std::string>> global_usings_;  ///< by project
  std::map<std::string, std::vector<std::string>> derived_of_;
  std::map<std::string, const StoredNode*> by_id_;
  std::map<std::string, const StoredNode*> sql_by_name_;
  std::map<std::string, std::vector<const StoredNode*>> sql_by_bare_;
  std::map<std::string, std::vector<const StoredNode*>> types_by_simple_;
  std::map<std::string, std::vector<const StoredNode*>> methods_of_;
  std::map<std::string, std::vector<const StoredNode*>> ctors_of_;
  std::map<std::string, std::vector<const StoredNode*>> methods_by_name_;
  std::map<std::string, std::vector<std::string>> bases_of_;
  std::map<std::string, std::string> whole_of_;                     ///< part id -> whole type id
  std::map<std::string, std::vector<const StoredNode*>> parts_of_;  ///< whole type id -> its other parts
  struct EdgeLess {
    bool operator()(const GraphEdge& a, const GraphEdge& b) const {
      return std::tie(a.from_id, a.edge_type, a.to_id) < std::tie(b.from_id, b.edge_type, b.to_id);
    }
  };
  std::set<GraphEdge, EdgeLess> edges_;
};

}  // namespace

std::vector<GraphEdge> link_graph(const std::vector<StoredNode>& nodes) {
  return link_graph(nodes, choose_canonical_sql(nodes));
}

std::vector<GraphEdge> link_graph(const std::vector<StoredNode>& nodes, CanonicalSql canonical,
                                  const std::map<std::string, std::set<std::string>>& global_usings) {
  return Linker(nodes, std::move(canonical), global_usings).run(nodes);
}

}  // namespace attractor::retrieval
