#include "retrieval/local/csharp_extractor.h"

#include <algorithm>
#include <regex>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "retrieval/local/csharp_preprocessor.h"
#include "retrieval/local/sql_extractor.h"

namespace attractor::retrieval {

namespace {

using nlohmann::json;

std::string strip_spaces(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') out.push_back(c);
  }
  return out;
}

/// `System.Collections.Generic.List<Meeting>` -> `List`; `IRepo<T>?` -> `IRepo`.
std::string simple_type_name(std::string_view type) {
  std::string s = strip_spaces(type);
  auto lt = s.find('<');
  if (lt != std::string::npos) s = s.substr(0, lt);
  while (!s.empty() && (s.back() == '?' || s.back() == ']' || s.back() == '[')) s.pop_back();
  auto dot = s.rfind('.');
  if (dot != std::string::npos) s = s.substr(dot + 1);
  return s;
}

/// How a base type is written: its qualifier (`A.B` of `A.B.Repository<T, TId>`, `global::` dropped)
/// and its generic arity (2 there; `Foo` and `Foo<T>` are different types).
json written_type_name(std::string_view type) {
  std::string s = strip_spaces(type);
  if (s.rfind("global::", 0) == 0) s = s.substr(8);
  const int arity = generic_arity(s);
  s = s.substr(0, s.find('<'));
  auto dot = s.rfind('.');
  std::string qual = dot == std::string::npos ? std::string() : s.substr(0, dot);
  return {{"qual", qual}, {"arity", arity}};
}

/// The expression of an interpolation hole (`{Table}` -> `Table`), without alignment or format.
std::string interpolated_expression(const SyntaxTree& tree, TSNode hole) {
  for (auto part : named_children(hole)) {
    auto t = node_type(part);
    if (t != "interpolation_brace" && t != "interpolation_alignment_clause" && t != "interpolation_format_clause") {
      return strip_spaces(tree.text(part));
    }
  }
  return {};
}

/// The content of a C# string literal node (quotes, @ and $ prefixes removed; an interpolation
/// becomes `{expression}`, which the graph linker resolves against string members).
std::string literal_content(const SyntaxTree& tree, TSNode node) {
  std::string out;
  for (auto child : named_children(node)) {
    auto t = node_type(child);
    if (t == "string_literal_content" || t == "string_content" || t == "raw_string_content" || t == "escape_sequence") {
      out += tree.text(child);
    } else if (t == "interpolation") {
      out += "{" + interpolated_expression(tree, child) + "}";
    }
  }
  if (out.empty() && node_type(node) == "verbatim_string_literal") {
    auto text = tree.text(node);
    if (text.size() >= 3) out = std::string(text.substr(2, text.size() - 3));
  }
  return out;
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// The generic arguments of a base type as written (`Repository<User, Guid>` -> [User, Guid]),
/// split at top-level commas, each reduced to its simple name.
json generic_arguments(std::string_view text) {
  json out = json::array();
  auto open = text.find('<');
  if (open == std::string_view::npos || text.back() != '>') return out;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open + 1; i + 1 < text.size(); ++i) {
    if (text[i] == '<') ++depth;
    else if (text[i] == '>') --depth;
    else if (text[i] == ',' && depth == 0) {
      out.push_back(simple_type_name(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(simple_type_name(text.substr(start, text.size() - 1 - start)));
  return out;
}

bool is_string_node(std::string_view t) {
  return t == "string_literal" || t == "verbatim_string_literal" || t == "raw_string_literal" ||
         t == "interpolated_string_expression";
}

int argument_count(TSNode args) {
  if (ts_node_is_null(args)) return 0;
  int n = 0;
  for (auto c : named_children(args)) {
    if (node_type(c) == "argument") ++n;
  }
  return n;
}

/// How deep the extractor follows nested syntax (namespaces, blocks, expressions) before it stops
/// with a parse issue: far beyond real code, well within a thread's stack.
constexpr int kMaxSyntaxNesting = 1000;
/// How deep types may nest: the text of a type holds the text of every type inside it again.
constexpr int kMaxTypeNesting = 32;

class Extractor {
 public:
  Extractor(const SyntaxTree& tree, ExtractedFile& out) : tree_(tree), out_(out) {}

  void run() { walk_scope(tree_.root(), "", nullptr, Usings{}); }

 private:
  /// The `using` directives in force at a point of the file (those of the file and of every
  /// enclosing namespace declaration written so far).
  struct Usings {
    json namespaces = json::array();
    json aliases = json::object();  // alias -> qualified name as written
    json statics = json::array();
    json globals = json::array();
  };

  struct TypeCtx {
    std::string id;     // with "cs:" prefix
    std::string qname;  // qualified name
    std::string simple;
    int depth = 1;  // 1 for a type directly in a namespace
  };

  /// One level of recursion, counted while it lives; the first level past kMaxSyntaxNesting
  /// becomes a parse issue.
  class Level {
   public:
    Level(Extractor& e, TSNode node) : e_(e) {
      if (++e_.depth_ == kMaxSyntaxNesting + 1) {
        e_.too_deep(node, fmt::format("nesting deeper than {} levels; the code inside is not read", kMaxSyntaxNesting));
      }
    }
    ~Level() { --e_.depth_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;
    bool too_deep() const { return e_.depth_ > kMaxSyntaxNesting; }

   private:
    Extractor& e_;
  };

  /// Records `message` at `node` once per file.
  void too_deep(TSNode node, const std::string& message) {
    if (reported_depth_) return;
    reported_depth_ = true;
    TSPoint p = ts_node_start_point(node);
    out_.issues.push_back({static_cast<int>(p.row) + 1, static_cast<int>(p.column) + 1, message});
  }

  void walk_scope(TSNode node, std::string ns, const TypeCtx* outer, Usings usings) {
    Level level(*this, node);
    if (level.too_deep()) return;
    for (auto child : named_children(node)) {
      auto t = node_type(child);
      if (t == "using_directive") {
        using_directive(child, usings);
      } else if (t == "namespace_declaration") {
        std::string name = strip_spaces(tree_.text(field(child, "name")));
        TSNode body = field(child, "body");
        if (!ts_node_is_null(body)) walk_scope(body, ns.empty() ? name : ns + "." + name, outer, usings);
      } else if (t == "file_scoped_namespace_declaration") {
        std::string name = strip_spaces(tree_.text(field(child, "name")));
        ns = ns.empty() ? name : ns + "." + name;
        walk_scope(child, ns, outer, usings);  // older grammars nest the declarations inside
      } else if (t == "class_declaration" || t == "struct_declaration" || t == "interface_declaration" ||
                 t == "record_declaration" || t == "record_struct_declaration" || t == "enum_declaration") {
        type_declaration(child, ns, outer, usings);
      } else if (outer &&
                 (t == "method_declaration" || t == "constructor_declaration" || t == "property_declaration")) {
        member_declaration(child, *outer);
      } else if (t == "declaration_list") {
        walk_scope(child, ns, outer, usings);
      }
    }
  }

  /// `using A.B;`, `global using A.B;`, `using static A.B.C;`, `using X = A.B.C<D>;`.
  void using_directive(TSNode node, Usings& usings) const {
    std::string text = strip_spaces(tree_.text(node));
    bool global = text.rfind("global", 0) == 0 && text.size() > 6 && text[6] == 'u';
    TSNode alias = field(node, "name");
    std::string target;
    for (auto c : named_children(node)) {
      if (!ts_node_eq(c, alias)) target = strip_spaces(tree_.text(c));
    }
    if (target.empty()) return;
    if (!ts_node_is_null(alias)) {
      usings.aliases[std::string(tree_.text(alias))] = target;
    } else if (text.find("usingstatic") != std::string::npos) {
      usings.statics.push_back(target);
    } else {
      usings.namespaces.push_back(target);
      if (global) {
        usings.globals.push_back(target);
        out_.global_usings.push_back(target);
      }
    }
  }

  void type_declaration(TSNode node, const std::string& ns, const TypeCtx* outer, const Usings& usings) {
    auto t = node_type(node);
    std::string kind = t == "class_declaration"       ? "class"
                       : t == "struct_declaration"    ? "struct"
                       : t == "interface_declaration" ? "interface"
                       : t == "enum_declaration"      ? "enum"
                                                      : "record";
    std::string simple(tree_.text(field(node, "name")));
    if (simple.empty()) return;
    std::string display = simple + type_parameter_suffix(node);
    TypeCtx ctx;
    ctx.depth = outer ? outer->depth + 1 : 1;
    if (ctx.depth > kMaxTypeNesting) {
      return too_deep(node,
                      fmt::format("types nested deeper than {} levels; the inner ones are not read", kMaxTypeNesting));
    }
    ctx.qname = outer ? outer->qname + "." + display : (ns.empty() ? display : ns + "." + display);
    ctx.id = "cs:" + ctx.qname;
    ctx.simple = simple;

    json facts = {{"ns", ns}, {"simple", simple}, {"arity", type_arity(node)}};
    if (outer) facts["outer"] = outer->id;
    add_usings(usings, facts);
    json bases = json::array(), base_args = json::array(), fields = json::object(), base_generics = json::object(),
         base_names = json::array();
    for (auto child : named_children(node)) {
      auto ct = node_type(child);
      if (ct == "base_list") {
        for (auto b : named_children(child)) {
          std::string text(tree_.text(b));
          if (node_type(b) == "primary_constructor_base_type" || node_type(b) == "argument_list") {
            TSNode ty = field(b, "type");
            if (!ts_node_is_null(ty)) text = std::string(tree_.text(ty));
            else if (node_type(b) == "argument_list") continue;
          }
          bases.push_back(simple_type_name(text));
          base_names.push_back(written_type_name(text));
          if (auto args = generic_arguments(text); !args.empty()) base_generics[simple_type_name(text)] = args;
          static const std::regex generic_arg(R"(<\s*([A-Za-z_][\w\.]*)\s*>)");
          std::smatch m;
          if (std::regex_search(text, m, generic_arg)) base_args.push_back(simple_type_name(m[1].str()));
        }
      } else if (ct == "attribute_list") {
        table_attribute(child, facts);
      } else if (ct == "modifier" && tree_.text(child) == "partial") {
        facts["partial_type"] = true;
      } else if (ct == "parameter_list") {
        primary_constructor_parameters(child, fields);
      }
    }
    TSNode body = field(node, "body");
    if (!ts_node_is_null(body)) {
      for (auto member : named_children(body)) {
        if (node_type(member) != "field_declaration") continue;
        for (auto vd : named_children(member)) {
          if (node_type(vd) != "variable_declaration") continue;
          std::string type = simple_type_name(tree_.text(field(vd, "type")));
          for (auto d : named_children(vd)) {
            if (node_type(d) == "variable_declarator") fields[std::string(tree_.text(field(d, "name")))] = type;
          }
        }
      }
    }
    facts["bases"] = bases;
    facts["base_names"] = base_names;
    facts["base_args"] = base_args;
    facts["fields"] = fields;
    if (!base_generics.empty()) facts["base_generics"] = base_generics;
    for (auto child : named_children(node)) {
      if (node_type(child) == "type_parameter_list") facts["type_params"] = type_parameters(child);
    }
    if (!ts_node_is_null(body)) {
      if (auto strings = string_members(body); !strings.empty()) facts["strings"] = strings;
      db_sets(node, body, facts);
    }
    emit(node, ctx.id, kind, ctx.qname, std::move(facts));
    if (!ts_node_is_null(body)) walk_scope(body, ns, &ctx, usings);
  }

  /// The parameters of a primary constructor (`class Service(IRepository repo)`): in scope in every
  /// member, so they are read like fields (name -> simple type name).
  void primary_constructor_parameters(TSNode list, json& fields) const {
    for (auto p : named_children(list)) {
      if (node_type(p) != "parameter") continue;
      TSNode type = field(p, "type");
      std::string name(tree_.text(field(p, "name")));
      if (!ts_node_is_null(type) && !name.empty()) fields[name] = simple_type_name(strip_spaces(tree_.text(type)));
    }
  }

  /// The number of type parameters of a type declaration (its `type_parameter_list` child).
  static int type_arity(TSNode type) {
    int n = 0;
    for (auto list : named_children(type)) {
      if (node_type(list) != "type_parameter_list") continue;
      for (auto p : named_children(list)) n += node_type(p) == "type_parameter" ? 1 : 0;
    }
    return n;
  }

  static void add_usings(const Usings& usings, json& facts) {
    if (!usings.namespaces.empty()) facts["usings"] = usings.namespaces;
    if (!usings.aliases.empty()) facts["aliases"] = usings.aliases;
    if (!usings.statics.empty()) facts["static_usings"] = usings.statics;
    if (!usings.globals.empty()) facts["global_usings"] = usings.globals;
  }

  /// EF Core's convention: `DbSet<Order> Orders` maps Order to table Orders, in the schema of
  /// `HasDefaultSchema("...")` when the context sets one.
  void db_sets(TSNode type, TSNode body, json& facts) const {
    static const std::regex dbset_re(R"(^DbSet\s*<\s*([\w\.]+)\s*>\??$)");
    json sets = json::array();
    for (auto member : named_children(body)) {
      if (node_type(member) != "property_declaration") continue;
      std::string type_text = strip_spaces(tree_.text(field(member, "type")));
      std::smatch m;
      if (!std::regex_match(type_text, m, dbset_re)) continue;
      sets.push_back(
          {{"entity", simple_type_name(m[1].str())}, {"table", std::string(tree_.text(field(member, "name")))}});
    }
    if (sets.empty()) return;
    facts["db_sets"] = sets;
    static const std::regex schema_re(R"re(HasDefaultSchema\s*\(\s*"([^"]*)")re");
    std::string text(tree_.text(type));
    std::smatch m;
    if (std::regex_search(text, m, schema_re)) facts["default_schema"] = m[1].str();
  }

  /// `<T,TId>` for a generic declaration (the parameter names only: no variance, no attributes),
  /// "" otherwise. Classes, structs and records hold the list as a child, interfaces, methods and
  /// delegates as the `type_parameters` field.
  std::string type_parameter_suffix(TSNode decl) const {
    TSNode list = field(decl, "type_parameters");
    for (auto child : named_children(decl)) {
      if (ts_node_is_null(list) && node_type(child) == "type_parameter_list") list = child;
    }
    if (ts_node_is_null(list)) return "";
    std::string names;
    for (const auto& name : type_parameters(list)) names += (names.empty() ? "" : ",") + name.get<std::string>();
    return names.empty() ? "" : "<" + names + ">";
  }

  json type_parameters(TSNode list) const {
    json out = json::array();
    for (auto p : named_children(list)) {
      if (node_type(p) == "type_parameter") out.push_back(std::string(tree_.text(field(p, "name"))));
    }
    return out;
  }

  /// Fields and properties initialized with a string (`Schema = "dbo"`, `const string Proc = "..."`)
  /// or with `typeof(T).Name`, by lowercase name: what an interpolated or concatenated SQL string
  /// of a member can be resolved with. Values: the string, or `typeof:T`.
  json string_members(TSNode body) const {
    json out = json::object();
    for (auto member : named_children(body)) {
      auto mt = node_type(member);
      if (mt == "property_declaration") {
        TSNode value = field(member, "value");
        if (auto v = string_value(value)) out[lower_ascii(tree_.text(field(member, "name")))] = *v;
      } else if (mt == "field_declaration") {
        for (auto vd : named_children(member)) {
          if (node_type(vd) != "variable_declaration") continue;
          for (auto d : named_children(vd)) {
            if (node_type(d) != "variable_declarator") continue;
            for (auto e : named_children(d)) {
              if (ts_node_eq(e, field(d, "name"))) continue;
              if (auto v = string_value(e)) out[lower_ascii(tree_.text(field(d, "name")))] = *v;
            }
          }
        }
      }
    }
    return out;
  }

  std::optional<std::string> string_value(TSNode value) const {
    if (ts_node_is_null(value)) return std::nullopt;
    auto t = node_type(value);
    if (t == "string_literal" || t == "verbatim_string_literal" || t == "raw_string_literal") {
      return literal_content(tree_, value);
    }
    if (t == "member_access_expression" && tree_.text(field(value, "name")) == "Name") {
      TSNode inner = field(value, "expression");
      if (!ts_node_is_null(inner) && node_type(inner) == "typeof_expression") {
        return "typeof:" + simple_type_name(tree_.text(field(inner, "type")));
      }
    }
    return std::nullopt;
  }

  void table_attribute(TSNode list, json& facts) {
    for (auto attr : named_children(list)) {
      if (node_type(attr) != "attribute") continue;
      std::string name = simple_type_name(tree_.text(field(attr, "name")));
      if (name != "Table" && name != "TableAttribute") continue;
      for (auto args : named_children(attr)) {
        if (node_type(args) != "attribute_argument_list") continue;
        for (auto arg : named_children(args)) {
          std::string text(tree_.text(arg));
          static const std::regex schema_re(R"(Schema\s*=\s*"([^"]*)\")");
          std::smatch m;
          if (std::regex_search(text, m, schema_re)) {
            facts["schema"] = m[1].str();
          } else if (!facts.contains("table")) {
            static const std::regex str_re("\"([^\"]*)\"");
            if (std::regex_search(text, m, str_re)) facts["table"] = m[1].str();
          }
        }
      }
    }
  }

  void member_declaration(TSNode node, const TypeCtx& type) {
    auto t = node_type(node);
    std::string kind = t == "method_declaration"        ? "method"
                       : t == "constructor_declaration" ? "constructor"
                                                        : "property";
    std::string simple(tree_.text(field(node, "name")));
    if (simple.empty()) return;
    json facts = {{"type", type.id}, {"simple", simple}};
    json locals = json::object();
    std::string qname = type.qname + "." + simple;
    if (kind != "property") {
      qname += type_parameter_suffix(node);
      std::string params;
      int arity = 0, required = 0;
      TSNode plist = field(node, "parameters");
      if (!ts_node_is_null(plist)) {
        for (auto p : named_children(plist)) {
          if (node_type(p) != "parameter") continue;
          TSNode ptype = field(p, "type");
          std::string ptext = ts_node_is_null(ptype) ? "?" : strip_spaces(tree_.text(ptype));
          if (arity) params += ",";
          params += ptext;
          ++arity;
          bool has_default = false;
          for (auto c : named_children(p)) {
            auto ct = node_type(c);
            if (ct != "identifier" && !ts_node_eq(c, ptype) && ct != "modifier" && ct != "attribute_list" &&
                ct != "parameter_modifier") {
              has_default = true;
            }
          }
          if (tree_.text(p).substr(0, 7) == "params ") has_default = true;
          if (!has_default) ++required;
          locals[std::string(tree_.text(field(p, "name")))] = simple_type_name(ptext);
        }
      }
      qname += "(" + params + ")";
      facts["arity"] = arity;
      facts["required"] = required;
    }
    json calls = json::array(), news = json::array(), sql = json::array(), procs = json::array(),
         to_table = json::array();
    std::set<std::string> idents;
    std::vector<std::string> literals;
    scan_body(node, calls, news, locals, idents, literals, to_table);
    std::string_view text = tree_.text(node);
    bool stored_procedure = text.find("StoredProcedure") != std::string_view::npos;
    if (stored_procedure) facts["stored_procedure"] = true;
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& lit : literals) {
      if (looks_like_sql(lit)) {
        for (const auto& r : sql_references(lit)) {
          if (seen.insert({r.role, r.target}).second) sql.push_back({{"role", r.role}, {"target", r.target}});
        }
      } else if (stored_procedure) {
        static const std::regex proc_name(R"(^\s*[\[\w\]{}]+(\.[\[\w\]{}]+){0,2}\s*$)");
        if (std::regex_match(lit, proc_name)) procs.push_back(normalize_sql_name(lit));
      }
    }
    facts["calls"] = calls;
    facts["news"] = news;
    facts["locals"] = locals;
    facts["idents"] = json(std::vector<std::string>(idents.begin(), idents.end()));
    facts["sql"] = sql;
    facts["procs"] = procs;
    facts["to_table"] = to_table;
    emit(node, "cs:" + qname, kind, qname, std::move(facts));
  }

  void scan_body(TSNode node, json& calls, json& news, json& locals, std::set<std::string>& idents,
                 std::vector<std::string>& literals, json& to_table) {
    Level level(*this, node);
    if (level.too_deep()) return;
    auto t = node_type(node);
    if (t == "identifier") {
      idents.insert(std::string(tree_.text(node)));
      return;
    }
    if (is_string_node(t)) {
      literals.push_back(literal_content(tree_, node));
    } else if (is_concatenation_top(node)) {
      literals.push_back(folded_string(node));
    } else if (t == "invocation_expression") {
      invocation(node, calls, to_table);
    } else if (t == "object_creation_expression") {
      TSNode ty = field(node, "type");
      if (!ts_node_is_null(ty)) {
        news.push_back(
            {{"type", simple_type_name(tree_.text(ty))}, {"arity", argument_count(field(node, "arguments"))}});
      }
    } else if (t == "variable_declaration") {
      TSNode ty = field(node, "type");
      std::string type = ts_node_is_null(ty) ? "" : simple_type_name(tree_.text(ty));
      for (auto d : named_children(node)) {
        if (node_type(d) != "variable_declarator") continue;
        std::string local_type = type;
        if (type == "var") {
          local_type.clear();
          for (auto init : named_children(d)) {
            if (node_type(init) == "object_creation_expression") {
              local_type = simple_type_name(tree_.text(field(init, "type")));
            }
          }
        }
        if (!local_type.empty()) locals[std::string(tree_.text(field(d, "name")))] = local_type;
      }
    }
    for (auto child : named_children(node)) scan_body(child, calls, news, locals, idents, literals, to_table);
  }

  static bool is_plus(TSNode node) {
    if (ts_node_is_null(node) || node_type(node) != "binary_expression") return false;
    TSNode op = field(node, "operator");
    return !ts_node_is_null(op) && node_type(op) == "+";
  }

  /// The outermost `a + b + ...` that has a string operand: one SQL text built by concatenation.
  bool is_concatenation_top(TSNode node) const {
    return is_plus(node) && !is_plus(parent(node)) && has_string_operand(node, 0);
  }

  static bool has_string_operand(TSNode n, int depth) {
    if (is_string_node(node_type(n))) return true;
    return depth < kMaxSyntaxNesting && is_plus(n) &&
           (has_string_operand(field(n, "left"), depth + 1) || has_string_operand(field(n, "right"), depth + 1));
  }

  /// A concatenation as one string: literals as written, a named operand as a `{Name}` hole the
  /// graph linker fills from string members (constants, initialized fields and properties).
  std::string folded_string(TSNode node, int depth = 0) const {
    auto t = node_type(node);
    if (depth >= kMaxSyntaxNesting) return "{?}";
    if (is_plus(node)) {
      return folded_string(field(node, "left"), depth + 1) + folded_string(field(node, "right"), depth + 1);
    }
    if (is_string_node(t)) return literal_content(tree_, node);
    if (t == "parenthesized_expression" && named_children(node).size() == 1) {
      return folded_string(named_child(node, 0), depth + 1);
    }
    if (t == "identifier") return "{" + std::string(tree_.text(node)) + "}";
    if (t == "member_access_expression") return "{" + std::string(tree_.text(field(node, "name"))) + "}";
    return "{?}";
  }

  /// The entity a `ToTable`/`ToView` call configures when its own chain does not say: an enclosing
  /// `Entity<T>(b => ...)` call or a `Configure(EntityTypeBuilder<T> builder)` method.
  std::string enclosing_entity(TSNode node) const {
    static const std::regex entity_re(R"(Entity\s*<\s*([\w\.]+)\s*>)");
    static const std::regex builder_re(R"(EntityTypeBuilder\s*<\s*([\w\.]+)\s*>)");
    std::smatch m;
    for (TSNode p = parent(node); !ts_node_is_null(p); p = parent(p)) {
      auto pt = node_type(p);
      if (pt == "invocation_expression") {
        std::string fn(tree_.text(field(p, "function")));
        if (std::regex_search(fn, m, entity_re)) return simple_type_name(m[1].str());
      } else if (pt == "method_declaration") {
        std::string params(tree_.text(field(p, "parameters")));
        if (std::regex_search(params, m, builder_re)) return simple_type_name(m[1].str());
        return {};
      }
    }
    return {};
  }

  void invocation(TSNode node, json& calls, json& to_table) {
    TSNode fn = field(node, "function");
    if (ts_node_is_null(fn)) return;
    std::string name, recv;
    auto ft = node_type(fn);
    if (ft == "identifier") {
      name = tree_.text(fn);
    } else if (ft == "generic_name") {
      name = tree_.text(named_child(fn, 0));
    } else if (ft == "member_access_expression") {
      TSNode n = field(fn, "name");
      name = node_type(n) == "generic_name" ? std::string(tree_.text(named_child(n, 0))) : std::string(tree_.text(n));
      TSNode e = field(fn, "expression");
      auto et = node_type(e);
      if (et == "identifier") recv = tree_.text(e);
      else if (et == "this_expression") recv = "this";
      else if (et == "base_expression") recv = "base";
      else if (et == "member_access_expression" && node_type(field(e, "expression")) == "this_expression") {
        recv = tree_.text(field(e, "name"));
      } else {
        recv = "?";
      }
    } else {
      return;
    }
    TSNode args = field(node, "arguments");
    int arity = argument_count(args);
    calls.push_back({{"name", name}, {"arity", arity}, {"recv", recv}});
    if ((name == "ToTable" || name == "ToView") && arity >= 1) {
      std::vector<std::string> strings;
      for (auto arg : named_children(args)) {
        for (auto c : named_children(arg)) {
          if (is_string_node(node_type(c))) strings.push_back(literal_content(tree_, c));
        }
      }
      if (strings.empty()) return;
      static const std::regex entity_re(R"(Entity\s*<\s*([\w\.]+)\s*>)");
      std::string chain(tree_.text(fn));
      std::smatch m;
      std::string entity = std::regex_search(chain, m, entity_re) ? simple_type_name(m[1].str())
                                                                  : enclosing_entity(node);
      to_table.push_back({{"entity", entity}, {"table", strings[0]}, {"schema", strings.size() > 1 ? strings[1] : ""}});
    }
  }

  void emit(TSNode node, const std::string& id, const std::string& kind, const std::string& qname, json facts) {
    ExtractedNode n;
    n.id = id;
    n.kind = kind;
    n.name = qname;
    n.start_line = start_line(node);
    n.end_line = end_line(node);
    n.text = std::string(tree_.text(node));
    n.facts = std::move(facts);
    if (auto doc = leading_comments(node); !doc.empty()) n.facts["doc"] = doc;
    out_.nodes.push_back(std::move(n));
  }

  /// The comments directly above a declaration (`///` doc comments and others), in source order.
  std::string leading_comments(TSNode node) const {
    std::vector<std::string_view> parts;
    TSNode prev = prev_sibling(node);
    uint32_t row = ts_node_start_point(node).row;
    while (!ts_node_is_null(prev) && node_type(prev) == "comment" && ts_node_end_point(prev).row + 1 >= row) {
      parts.push_back(tree_.text(prev));
      row = ts_node_start_point(prev).row;
      prev = prev_sibling(prev);
    }
    std::string out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += std::string(*it) + "\n";
    return out;
  }

  const SyntaxTree& tree_;
  ExtractedFile& out_;
  int depth_ = 0;
  bool reported_depth_ = false;
};

}  // namespace

ExtractedFile extract_csharp(std::string_view source) {
  ExtractedFile file;
  std::string masked = mask_csharp_preprocessor(source);
  SyntaxTree tree(Grammar::kCSharp, source, masked);
  Extractor(tree, file).run();
  auto issues = parse_issues(tree);
  issues.insert(issues.end(), file.issues.begin(), file.issues.end());
  std::stable_sort(issues.begin(), issues.end(), [](const ParseIssue& a, const ParseIssue& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  file.issues = std::move(issues);
  return file;
}

int generic_arity(std::string_view written) {
  auto lt = written.find('<');
  if (lt == std::string_view::npos) return 0;
  int arity = 1, depth = 0;
  for (size_t i = lt; i < written.size(); ++i) {
    if (written[i] == '<') ++depth;
    else if (written[i] == '>') --depth;
    else if (written[i] == ',' && depth == 1) ++arity;
  }
  return arity;
}

}  // namespace attractor::retrieval
