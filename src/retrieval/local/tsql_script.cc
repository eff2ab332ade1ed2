#include "retrieval/local/tsql_script.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "attractor/base/ascii.h"
#include "retrieval/local/tsql_lexer.h"

namespace attractor::retrieval {

namespace {

using Kind = TsqlToken::Kind;
using Tokens = std::vector<TsqlToken>;

/// Words that are never a one-part object name where a name is expected.
const std::set<std::string, std::less<>> kNotNames = {
    "select",   "where",  "set",      "values",    "as",         "on",        "with",       "from",
    "join",     "into",   "top",      "table",     "exec",       "execute",   "inner",      "left",
    "right",    "full",   "cross",    "outer",     "apply",      "group",     "order",      "by",
    "having",   "union",  "except",   "intersect", "statistics", "begin",     "end",        "if",
    "else",     "output", "default",  "not",       "null",       "and",       "or",         "when",
    "then",     "case",   "for",      "after",     "instead",    "of",        "return",     "declare",
    "database", "all",    "inserted", "deleted",   "openjson",   "openquery", "openrowset", "string_split"};

/// A dotted name as written: its parts unquoted, the token it starts at and the token after it.
struct Name {
  std::vector<std::string> parts;
  size_t first = 0;
  size_t next = 0;
};

std::optional<Name> name_at(const Tokens& t, size_t i, size_t end) {
  if (i >= end || !t[i].is_name()) return std::nullopt;
  Name n{{unquote_tsql_name(t[i].text)}, i, i + 1};
  while (n.next + 1 < end && t[n.next].is_punct('.')) {
    if (t[n.next + 1].is_name()) {
      n.parts.push_back(unquote_tsql_name(t[n.next + 1].text));
      n.next += 2;
    } else if (t[n.next + 1].is_punct('.')) {
      n.parts.emplace_back();  // db..table: the default schema
      n.next += 1;
    } else {
      break;
    }
  }
  if (n.parts.size() == 1 && t[i].kind == Kind::kWord && kNotNames.count(ascii_lower(n.parts[0]))) return std::nullopt;
  return n;
}

/// `schema.name` or `name` in lowercase; server and database parts are dropped.
std::string normalized(const std::vector<std::string>& parts) {
  std::string name = parts.empty() ? std::string() : parts.back();
  std::string schema = parts.size() >= 2 ? parts[parts.size() - 2] : std::string();
  return ascii_lower(schema.empty() ? name : schema + "." + name);
}

/// The token after a balanced parenthesized group starting at `i` (a `(`), or `end`.
size_t after_parens(const Tokens& t, size_t i, size_t end) {
  int depth = 0;
  for (; i < end; ++i) {
    if (t[i].is_punct('(')) ++depth;
    else if (t[i].is_punct(')') && --depth == 0) return i + 1;
  }
  return end;
}

/// Skips `TOP (n) [PERCENT]` or `TOP n` at `i`.
size_t skip_top(const Tokens& t, size_t i, size_t end) {
  if (i >= end || !t[i].is("top")) return i;
  ++i;
  if (i < end && t[i].is_punct('(')) i = after_parens(t, i, end);
  else if (i < end) ++i;
  if (i < end && t[i].is("percent")) ++i;
  return i;
}

/// `ON UPDATE CASCADE` / `ON DELETE SET NULL` of a foreign key: an action, not a statement
/// (unlike `SET NOCOUNT ON` followed by an UPDATE).
bool foreign_key_action(const Tokens& t, size_t i, size_t end) {
  if (i == 0 || !t[i - 1].is("on") || i + 1 >= end) return false;
  const TsqlToken& next = t[i + 1];
  return next.is("cascade") || next.is("no") || next.is("set") || next.is("restrict");
}

bool is_write_keyword(const TsqlToken& tok) {
  return tok.is("insert") || tok.is("update") || tok.is("delete") || tok.is("merge");
}

/// A FROM/JOIN binding `table [AS] alias`, for UPDATE/DELETE targets written as an alias.
struct Binding {
  std::string alias;
  std::string target;
  size_t token = 0;
};

/// A write whose target may be an alias, resolved once the whole range is scanned.
struct PendingAlias {
  size_t ref = 0;
  size_t token = 0;
};

/// Reference scanning over tokens [begin, end) of one object or loose range.
class RefScanner {
 public:
  RefScanner(const Tokens& t, size_t begin, size_t end) : t_(t), begin_(begin), end_(end) { collect_ctes(); }

  std::vector<SqlReference> run() {
    for (size_t i = begin_; i < end_; ++i) {
      if (t_[i].kind == Kind::kWord) on_keyword(i);
    }
    calls();
    resolve_aliases();
    std::stable_sort(refs_.begin(), refs_.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    std::vector<SqlReference> out;
    for (auto& r : refs_) {
      if (!r.target.empty() && !ctes_.count(r.target)) out.push_back(std::move(r));
    }
    return out;
  }

 private:
  /// `WITH name [(cols)] AS (` and `, name [(cols)] AS (`: CTE names are not objects.
  void collect_ctes() {
    for (size_t i = begin_; i + 3 < end_; ++i) {
      if (!t_[i].is("with") && !t_[i].is_punct(',')) continue;
      if (!t_[i + 1].is_name()) continue;
      size_t j = i + 2;
      if (t_[j].is_punct('(')) j = after_parens(t_, j, end_);
      if (j + 1 < end_ && t_[j].is("as") && t_[j + 1].is_punct('('))
        ctes_.insert(ascii_lower(unquote_tsql_name(t_[i + 1].text)));
    }
  }

  const TsqlToken* prev(size_t i) const { return i > begin_ ? &t_[i - 1] : nullptr; }

  std::optional<Name> add(size_t at, const char* role) {
    auto n = name_at(t_, at, end_);
    if (!n) return std::nullopt;
    consumed_.insert(n->first);
    refs_.push_back({role, normalized(n->parts), t_[n->first].begin});
    return n;
  }

  void on_keyword(size_t i) {
    const TsqlToken& k = t_[i];
    bool after_on = i > begin_ && foreign_key_action(t_, i, end_);
    if (k.is("from") || k.is("join")) from_or_join(i);
    else if (k.is("apply")) apply(i);
    else if (k.is("using")) add(i + 1, "reads");
    else if (k.is("insert") && !after_on) insert_or_merge(i);
    else if (k.is("merge")) insert_or_merge(i);
    else if (k.is("update") && !after_on) update_or_delete(i, false);
    else if (k.is("delete") && !after_on) update_or_delete(i, true);
    else if (k.is("into") && !consumed_.count(i)) add(i + 1, "writes");
    else if (k.is("truncate") && i + 1 < end_ && t_[i + 1].is("table")) add(i + 2, "writes");
    else if (k.is("exec") || k.is("execute")) exec(i);
    else if (k.is("references")) add(i + 1, "references");
    else if (k.is("on")) index_target(i);
    else if (k.is("for") && i >= begin_ + 2 && t_[i - 1].is("value") && t_[i - 2].is("next")) add(i + 1, "references");
  }

  void from_or_join(size_t i) {
    const TsqlToken* p = prev(i);
    if (p && (p->is("next") || p->is("prior") || p->is("first") || p->is("last") || p->is("absolute") ||
              p->is("relative"))) {
      return;  // FETCH ... FROM cursor
    }
    if (consumed_.count(i + 1)) return;
    auto n = name_at(t_, i + 1, end_);
    if (!n) return;
    consumed_.insert(n->first);
    if (n->next < end_ && t_[n->next].is_punct('(')) {
      if (n->parts.size() >= 2) refs_.push_back({"calls", normalized(n->parts), t_[n->first].begin});
      return;
    }
    refs_.push_back({"reads", normalized(n->parts), t_[n->first].begin});
    bind_alias(*n);
  }

  void bind_alias(const Name& n) {
    size_t j = n.next;
    if (j < end_ && t_[j].is("as")) ++j;
    if (j >= end_ || !t_[j].is_name()) return;
    std::string alias = ascii_lower(unquote_tsql_name(t_[j].text));
    if (t_[j].kind == Kind::kWord && kNotNames.count(alias)) return;
    bindings_.push_back({alias, normalized(n.parts), j});
  }

  void apply(size_t i) {
    auto n = name_at(t_, i + 1, end_);
    if (!n || n->next >= end_ || !t_[n->next].is_punct('(') || n->parts.size() < 2) return;
    consumed_.insert(n->first);
    refs_.push_back({"calls", normalized(n->parts), t_[n->first].begin});
  }

  void insert_or_merge(size_t i) {
    size_t j = skip_top(t_, i + 1, end_);
    if (j < end_ && t_[j].is("into")) consumed_.insert(j++);
    add(j, "writes");
  }

  void update_or_delete(size_t i, bool is_delete) {
    if (i + 1 < end_ && t_[i + 1].is_punct('(')) return;  // UPDATE(column) in a trigger
    size_t j = skip_top(t_, i + 1, end_);
    if (is_delete && j < end_ && t_[j].is("from")) consumed_.insert(j++);
    auto n = add(j, "writes");
    if (n && n->parts.size() == 1) pending_.push_back({refs_.size() - 1, i});
  }

  void exec(size_t i) {
    size_t j = i + 1;
    if (j >= end_ || t_[j].is("as") || t_[j].is_punct('(')) return;  // EXECUTE AS, EXEC('dynamic')
    if (t_[j].kind == Kind::kVariable && j + 1 < end_ && t_[j + 1].is_punct('=')) j += 2;
    auto n = name_at(t_, j, end_);
    if (!n || ascii_lower(n->parts.back()) == "sp_executesql") return;
    consumed_.insert(n->first);
    refs_.push_back({"executes", normalized(n->parts), t_[n->first].begin});
  }

  /// `CREATE INDEX ... ON table (columns)`: the table is not a function call.
  void index_target(size_t i) {
    auto n = name_at(t_, i + 1, end_);
    if (n && n->next < end_ && t_[n->next].is_punct('(')) consumed_.insert(n->first);
  }

  /// `schema.function(` anywhere else: a call (one-part names are built-ins; SQL Server requires
  /// the schema on scalar user functions).
  void calls() {
    for (size_t i = begin_; i < end_; ++i) {
      if (consumed_.count(i) || !t_[i].is_name()) continue;
      if (i > begin_ && t_[i - 1].is_punct('.')) continue;
      auto n = name_at(t_, i, end_);
      if (!n || n->next >= end_) continue;
      if (t_[n->next].is("readonly")) {  // a table-valued parameter's type
        refs_.push_back({"references", normalized(n->parts), t_[n->first].begin});
      } else if (n->parts.size() >= 2 && t_[n->next].is_punct('(')) {
        refs_.push_back({"calls", normalized(n->parts), t_[n->first].begin});
      } else {
        continue;
      }
      i = n->next - 1;
    }
  }

  /// `UPDATE u SET ... FROM dbo.Users u`: the write goes to the table bound to the alias, if a
  /// FROM/JOIN of the same statement binds it.
  void resolve_aliases() {
    for (const auto& p : pending_) {
      auto& ref = refs_[p.ref];
      size_t limit = end_;
      for (size_t k = p.token + 1; k < end_; ++k) {
        if (is_write_keyword(t_[k])) {
          limit = k;
          break;
        }
      }
      for (const auto& b : bindings_) {
        if (b.token > p.token && b.token < limit && b.alias == ref.target) {
          ref.target = b.target;
          break;
        }
      }
    }
  }

  const Tokens& t_;
  size_t begin_;
  size_t end_;
  std::set<std::string> ctes_;
  std::set<size_t> consumed_;
  std::vector<SqlReference> refs_;
  std::vector<Binding> bindings_;
  std::vector<PendingAlias> pending_;
};

std::vector<SqlReference> dedupe(std::vector<SqlReference> refs) {
  std::vector<SqlReference> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (auto& r : refs) {
    if (seen.insert({r.role, r.target}).second) out.push_back(std::move(r));
  }
  return out;
}

/// A definition's first tokens: CREATE [OR ALTER] | ALTER, the kind, the name.
struct Header {
  std::string kind;
  bool partial = false;
  Name name;
};

bool is_routine(const std::string& kind) {
  return kind == "view" || kind == "procedure" || kind == "function" || kind == "trigger";
}

std::string kind_word(const TsqlToken& tok) {
  for (const char* k : {"table", "view", "procedure", "function", "trigger", "type", "sequence", "synonym", "schema"}) {
    if (tok.is(k)) return k;
  }
  if (tok.is("proc")) return "procedure";
  return {};
}

std::optional<Header> header_at(const Tokens& t, size_t i, size_t end) {
  bool create = t[i].is("create");
  if (!create && !t[i].is("alter")) return std::nullopt;
  size_t j = i + 1;
  if (create && j + 1 < end && t[j].is("or") && t[j + 1].is("alter")) j += 2;
  if (j >= end) return std::nullopt;
  Header h;
  h.kind = kind_word(t[j]);
  if (h.kind.empty()) return std::nullopt;
  if (!create && !is_routine(h.kind) && h.kind != "table") return std::nullopt;  // ALTER SCHEMA/SEQUENCE ...
  h.partial = !create && h.kind == "table";
  ++j;
  if (h.kind == "table" && j + 2 < end && t[j].is("if") && t[j + 1].is("not") && t[j + 2].is("exists")) j += 3;
  auto n = name_at(t, j, end);
  if (!n) return std::nullopt;
  h.name = *n;
  return h;
}

/// Whether token `k` starts a new statement (ends a table/type/... statement written without `;`).
bool starts_statement(const Tokens& t, size_t k, size_t end) {
  const TsqlToken& tok = t[k];
  bool after_on = foreign_key_action(t, k, end);
  if (tok.is("create") || tok.is("alter") || tok.is("merge") || tok.is("exec") || tok.is("execute") ||
      tok.is("declare") || tok.is("if") || tok.is("print") || tok.is("grant") || tok.is("begin") || tok.is("select") ||
      tok.is("truncate")) {
    return true;
  }
  if ((tok.is("insert") || tok.is("update") || tok.is("delete")) && !after_on) return true;
  if (tok.is("set") && !(k + 1 < end && t[k + 1].is_punct('('))) return true;
  if (tok.is("drop") && k + 1 < end && !kind_word(t[k + 1]).empty()) return true;
  return false;
}

/// The token after a non-routine definition: its `;`, the batch end or the next statement.
size_t statement_end(const Tokens& t, size_t from, size_t batch_end) {
  int depth = 0;
  for (size_t k = from; k < batch_end; ++k) {
    if (t[k].is_punct('(')) ++depth;
    else if (t[k].is_punct(')')) depth = std::max(0, depth - 1);
    else if (depth == 0 && t[k].is_punct(';')) return k + 1;
    else if (depth == 0 && starts_statement(t, k, batch_end)) return k;
  }
  return batch_end;
}

/// The token after a CREATE TABLE: the column list, storage options (`ON [PRIMARY]`,
/// `TEXTIMAGE_ON`, `WITH (...)`) and a `;`.
size_t table_end(const Tokens& t, size_t from, size_t batch_end) {
  if (from >= batch_end || !t[from].is_punct('(')) return statement_end(t, from, batch_end);
  size_t k = after_parens(t, from, batch_end);
  while (k < batch_end) {
    if ((t[k].is("on") || t[k].is("textimage_on") || t[k].is("filestream_on")) && k + 1 < batch_end) {
      k += 2;
      if (k < batch_end && t[k].is_punct('(')) k = after_parens(t, k, batch_end);
    } else if (t[k].is("with") && k + 1 < batch_end && t[k + 1].is_punct('(')) {
      k = after_parens(t, k + 1, batch_end);
    } else {
      break;
    }
  }
  if (k < batch_end && t[k].is_punct(';')) ++k;
  return k;
}

class ScriptReader {
 public:
  explicit ScriptReader(std::string_view source) : lexed_(lex_tsql(source)), t_(lexed_.tokens) {}

  TsqlScript run() {
    script_.issues = std::move(lexed_.issues);
    size_t loose_from = 0;
    size_t i = 0;
    size_t batch_end = next_batch_end(0);
    while (i < t_.size()) {
      if (i > batch_end) batch_end = next_batch_end(i);
      auto h = header_at(t_, i, batch_end);
      if (!h) {
        ++i;
        continue;
      }
      scan_loose(loose_from, i);
      i = read_object(i, *h, batch_end);
      loose_from = i;
    }
    scan_loose(loose_from, t_.size());
    script_.loose_refs = dedupe(std::move(script_.loose_refs));
    return std::move(script_);
  }

 private:
  size_t next_batch_end(size_t i) const {
    for (; i < t_.size(); ++i) {
      if (t_[i].kind == Kind::kBatchEnd) return i;
    }
    return t_.size();
  }

  void scan_loose(size_t from, size_t to) {
    if (from >= to) return;
    auto refs = RefScanner(t_, from, to).run();
    script_.loose_refs.insert(script_.loose_refs.end(), refs.begin(), refs.end());
  }

  /// The token after the end of a routine: the batch end or the next routine definition.
  size_t routine_end(size_t from, size_t batch_end) const {
    for (size_t k = from; k < batch_end; ++k) {
      if (auto h = header_at(t_, k, batch_end); h && is_routine(h->kind)) return k;
    }
    return batch_end;
  }

  size_t read_object(size_t at, const Header& h, size_t batch_end) {
    size_t body = h.name.next;
    size_t end = is_routine(h.kind)                ? routine_end(body, batch_end)
                 : h.kind == "table" && !h.partial ? table_end(t_, body, batch_end)
                                                   : statement_end(t_, body, batch_end);
    end = std::max(end, body);
    TsqlObject o;
    o.kind = h.kind;
    o.partial = h.partial;
    o.name = h.name.parts.back();
    if (h.kind == "schema") {
      o.name = h.name.parts.front();
    } else {
      std::string schema = h.name.parts.size() >= 2 ? h.name.parts[h.name.parts.size() - 2] : std::string();
      o.schema = schema.empty() ? "dbo" : schema;
    }
    o.begin = t_[at].begin;
    o.end = t_[end - 1].end;
    std::vector<SqlReference> refs;
    header_refs(h, body, end, refs);
    auto scanned = RefScanner(t_, body, end).run();
    refs.insert(refs.end(), scanned.begin(), scanned.end());
    std::string self = ascii_lower(o.schema + "." + o.name);
    std::erase_if(refs, [&](const SqlReference& r) { return r.target == self || "dbo." + r.target == self; });
    o.refs = dedupe(std::move(refs));
    script_.objects.push_back(std::move(o));
    if (is_routine(h.kind)) read_nested_tables(body, end);
    return end;
  }

  /// A permanent table a routine creates (`CREATE TABLE dbo.Log (...)` inside a procedure) is an
  /// object of its own too; temporary tables are not.
  void read_nested_tables(size_t from, size_t to) {
    for (size_t k = from; k < to; ++k) {
      if (!t_[k].is("create")) continue;
      auto h = header_at(t_, k, to);
      if (h && h->kind == "table" && !h->partial) k = read_object(k, *h, to) - 1;
    }
  }

  /// A trigger's `ON table` and a synonym's `FOR target`.
  void header_refs(const Header& h, size_t& body, size_t end, std::vector<SqlReference>& refs) const {
    bool trigger = h.kind == "trigger" && body < end && t_[body].is("on");
    bool synonym = h.kind == "synonym" && body < end && t_[body].is("for");
    if (!trigger && !synonym) return;
    if (auto n = name_at(t_, body + 1, end)) {
      refs.push_back({"references", normalized(n->parts), t_[n->first].begin});
      body = n->next;
    }
  }

  TsqlTokens lexed_;
  const Tokens& t_;
  TsqlScript script_;
};

}  // namespace

TsqlScript read_tsql_script(std::string_view source) { return ScriptReader(source).run(); }

std::string normalize_sql_name(std::string_view name) {
  auto lexed = lex_tsql(name);
  auto n = name_at(lexed.tokens, 0, lexed.tokens.size());
  if (!n && !lexed.tokens.empty() && lexed.tokens[0].kind == Kind::kWord) {
    return ascii_lower(std::string(lexed.tokens[0].text));
  }
  return n ? normalized(n->parts) : ascii_lower(std::string(name));
}

}  // namespace attractor::retrieval
