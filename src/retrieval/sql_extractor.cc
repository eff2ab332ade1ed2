#include "retrieval/sql_extractor.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace attractor::retrieval {

namespace {

struct Token {
  enum Kind { kWord, kQuoted, kString, kPunct } kind;
  std::string_view text;
  size_t begin = 0;
  size_t end = 0;
};

bool word_byte(unsigned char c) { return std::isalnum(c) || c == '_' || c == '@' || c == '#' || c == '$' || c >= 0x80; }

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      auto e = s.find("*/", i + 2);
      i = e == std::string_view::npos ? s.size() : e + 2;
    } else if (c == '\'') {
      size_t b = i++;
      while (i < s.size()) {
        if (s[i] == '\'' && i + 1 < s.size() && s[i + 1] == '\'') i += 2;
        else if (s[i++] == '\'') break;
      }
      out.push_back({Token::kString, s.substr(b, i - b), b, i});
    } else if (c == '[' || c == '"' || c == '`') {
      char close = c == '[' ? ']' : c;
      size_t b = i;
      auto e = s.find(close, i + 1);
      i = e == std::string_view::npos ? s.size() : e + 1;
      out.push_back({Token::kQuoted, s.substr(b, i - b), b, i});
    } else if (word_byte(static_cast<unsigned char>(c))) {
      size_t b = i;
      while (i < s.size() && word_byte(static_cast<unsigned char>(s[i]))) ++i;
      out.push_back({Token::kWord, s.substr(b, i - b), b, i});
    } else {
      out.push_back({Token::kPunct, s.substr(i, 1), i, i + 1});
      ++i;
    }
  }
  return out;
}

bool is_kw(const Token& t, std::string_view kw) {
  if (t.kind != Token::kWord || t.text.size() != kw.size()) return false;
  for (size_t i = 0; i < kw.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(t.text[i])) != kw[i]) return false;
  }
  return true;
}

std::string unquote(std::string_view part) {
  if (part.size() >= 2 && (part[0] == '[' || part[0] == '"' || part[0] == '`')) part = part.substr(1, part.size() - 2);
  return std::string(part);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// A dotted name starting at token i: its parts as written (unquoted) and the index after it.
struct NameAt {
  std::vector<std::string> parts;
  size_t next = 0;
};

std::optional<NameAt> name_at(const std::vector<Token>& t, size_t i) {
  if (i >= t.size() || (t[i].kind != Token::kWord && t[i].kind != Token::kQuoted)) return std::nullopt;
  NameAt n;
  n.parts.push_back(unquote(t[i].text));
  size_t j = i + 1;
  while (j + 1 < t.size() && t[j].kind == Token::kPunct && t[j].text == "." &&
         (t[j + 1].kind == Token::kWord || t[j + 1].kind == Token::kQuoted)) {
    n.parts.push_back(unquote(t[j + 1].text));
    j += 2;
  }
  n.next = j;
  char first = n.parts.back().empty() ? '@' : n.parts.back()[0];
  if (first == '@' || first == '#') return std::nullopt;  // variables and temp tables
  return n;
}

std::string join_lower(const std::vector<std::string>& parts) {
  std::string out;
  size_t start = parts.size() > 2 ? parts.size() - 2 : 0;  // drop server/database qualifiers
  for (size_t i = start; i < parts.size(); ++i) {
    if (i > start) out += ".";
    out += lower(parts[i]);
  }
  return out;
}

const std::set<std::string> kReservedAfterFrom = {"select", "where", "set", "values", "as", "on", "("};

void lexical_refs(const std::vector<Token>& t, size_t from, size_t to, bool exec_only, std::vector<SqlReference>& out) {
  for (size_t i = from; i < to && i < t.size(); ++i) {
    auto add = [&](size_t at, const char* role) {
      auto n = name_at(t, at);
      if (!n) return;
      if (n->parts.size() == 1 && kReservedAfterFrom.count(lower(n->parts[0]))) return;
      out.push_back({role, join_lower(n->parts), t[at].begin});
    };
    if (is_kw(t[i], "exec") || is_kw(t[i], "execute")) {
      size_t j = i + 1;
      if (j < t.size() && t[j].kind == Token::kWord && t[j].text[0] == '@' && j + 1 < t.size() && t[j + 1].text == "=") {
        j += 2;  // EXEC @rc = dbo.Proc
      }
      if (j < t.size() && !is_kw(t[j], "sp_executesql")) add(j, "executes");
      continue;
    }
    if (exec_only) continue;
    if (is_kw(t[i], "from") || is_kw(t[i], "join")) {
      bool after_delete = i > 0 && is_kw(t[i - 1], "delete");
      add(i + 1, after_delete ? "writes" : "reads");
    } else if (is_kw(t[i], "insert") || is_kw(t[i], "merge")) {
      size_t j = i + 1;
      if (j < t.size() && is_kw(t[j], "into")) ++j;
      add(j, "writes");
    } else if (is_kw(t[i], "update")) {
      if (i + 1 < t.size() && !is_kw(t[i + 1], "set")) add(i + 1, "writes");
    } else if (is_kw(t[i], "delete")) {
      if (i + 1 < t.size() && !is_kw(t[i + 1], "from")) add(i + 1, "writes");
    } else if (is_kw(t[i], "using")) {
      add(i + 1, "reads");
    } else if (is_kw(t[i], "references")) {
      add(i + 1, "references");
    }
  }
}

bool has_child_type(TSNode node, std::string_view type) {
  uint32_t n = ts_node_child_count(node);
  for (uint32_t i = 0; i < n; ++i) {
    if (node_type(ts_node_child(node, i)) == type) return true;
  }
  return false;
}

/// Role of an object_reference node from its syntactic context; nullopt to ignore it.
std::optional<std::string> tree_role(TSNode ref) {
  TSNode parent = ts_node_parent(ref);
  if (ts_node_is_null(parent)) return std::nullopt;
  auto p = node_type(parent);
  if (p == "relation") {
    TSNode g = ts_node_parent(parent);
    if (!ts_node_is_null(g) && node_type(g) == "update") return "writes";
    return "reads";
  }
  if (p == "insert") return "writes";
  if (p == "from") {
    TSNode prev = ts_node_prev_named_sibling(parent);
    if (!ts_node_is_null(prev) && node_type(prev) == "delete") return "writes";
    return "reads";
  }
  if (p == "statement" && has_child_type(parent, "keyword_merge")) {
    TSNode prev = ts_node_prev_sibling(ref);
    if (!ts_node_is_null(prev) && node_type(prev) == "keyword_using") return "reads";
    return "writes";
  }
  if (p == "column_definition" || p == "constraint" || p == "foreign_key_constraint" ||
      p == "references_constraint") {
    return "references";
  }
  if (p == "create_trigger") {
    TSNode prev = ts_node_prev_sibling(ref);
    if (!ts_node_is_null(prev) && node_type(prev) != "keyword_trigger") return "references";
    return std::nullopt;
  }
  if (p == "invocation") return "calls";
  return std::nullopt;
}

void tree_refs(const SyntaxTree& tree, TSNode node, std::vector<SqlReference>& out,
               std::vector<std::pair<size_t, size_t>>& error_ranges) {
  auto type = node_type(node);
  if (type == "ERROR") {
    error_ranges.emplace_back(ts_node_start_byte(node), ts_node_end_byte(node));
  }
  if (type == "object_reference") {
    if (auto role = tree_role(node)) {
      std::vector<std::string> parts;
      for (auto child : named_children(node)) parts.push_back(unquote(tree.text(child)));
      if (!parts.empty() && !parts.back().empty() && parts.back()[0] != '@' && parts.back()[0] != '#') {
        out.push_back({*role, join_lower(parts), ts_node_start_byte(node)});
      }
    }
    return;
  }
  uint32_t n = ts_node_child_count(node);
  for (uint32_t i = 0; i < n; ++i) tree_refs(tree, ts_node_child(node, i), out, error_ranges);
}

std::vector<SqlReference> dedupe(std::vector<SqlReference> refs) {
  std::stable_sort(refs.begin(), refs.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  std::vector<SqlReference> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (auto& r : refs) {
    if (seen.insert({r.role, r.target}).second) out.push_back(std::move(r));
  }
  return out;
}

/// All references of a text with their offsets (not deduplicated).
std::vector<SqlReference> all_references(const SyntaxTree& tree, const std::vector<Token>& tokens) {
  std::vector<SqlReference> refs;
  std::vector<std::pair<size_t, size_t>> errors;
  tree_refs(tree, tree.root(), refs, errors);
  lexical_refs(tokens, 0, tokens.size(), true, refs);
  for (const auto& [b, e] : errors) {
    auto first = std::lower_bound(tokens.begin(), tokens.end(), b, [](const Token& t, size_t v) { return t.begin < v; });
    size_t from = static_cast<size_t>(first - tokens.begin());
    size_t to = from;
    while (to < tokens.size() && tokens[to].begin < e) ++to;
    lexical_refs(tokens, from, to, false, refs);
  }
  return refs;
}

struct Header {
  std::string kind;
  std::vector<std::string> parts;
  size_t begin = 0;        // byte of CREATE
  size_t name_end_tok = 0; // token index after the name
};

std::vector<Header> find_headers(const std::vector<Token>& t) {
  std::vector<Header> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!is_kw(t[i], "create")) continue;
    size_t j = i + 1;
    if (j + 1 < t.size() && is_kw(t[j], "or") && (is_kw(t[j + 1], "alter") || is_kw(t[j + 1], "replace"))) j += 2;
    if (j >= t.size()) break;
    std::string kind;
    if (is_kw(t[j], "table")) kind = "table";
    else if (is_kw(t[j], "view")) kind = "view";
    else if (is_kw(t[j], "procedure") || is_kw(t[j], "proc")) kind = "procedure";
    else if (is_kw(t[j], "function")) kind = "function";
    else if (is_kw(t[j], "trigger")) kind = "trigger";
    else continue;
    ++j;
    if (kind == "table" && j + 2 < t.size() && is_kw(t[j], "if") && is_kw(t[j + 1], "not") && is_kw(t[j + 2], "exists")) {
      j += 3;
    }
    auto name = name_at(t, j);
    if (!name) continue;
    out.push_back({kind, name->parts, t[i].begin, name->next});
  }
  return out;
}

/// End byte of each clean create_table / create_view / create_function / create_trigger node, by start byte.
void clean_create_spans(TSNode node, std::map<size_t, size_t>& out) {
  auto type = node_type(node);
  if ((type == "create_table" || type == "create_view" || type == "create_function" || type == "create_trigger") &&
      !ts_node_has_error(node)) {
    out[ts_node_start_byte(node)] = ts_node_end_byte(node);
    return;
  }
  uint32_t n = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < n; ++i) clean_create_spans(ts_node_named_child(node, i), out);
}

int line_of(std::string_view s, size_t offset) {
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(std::min(offset, s.size())), '\n'));
}

/// A copy of `s` with T-SQL `GO` batch-separator lines blanked (same length, so offsets hold).
std::string mask_batch_separators(std::string_view s) {
  std::string out(s);
  size_t line = 0;
  while (line < out.size()) {
    size_t end = out.find('\n', line);
    if (end == std::string::npos) end = out.size();
    size_t b = line;
    while (b < end && std::isspace(static_cast<unsigned char>(out[b]))) ++b;
    size_t e = end;
    while (e > b && std::isspace(static_cast<unsigned char>(out[e - 1]))) --e;
    if (e - b == 2 && std::tolower(static_cast<unsigned char>(out[b])) == 'g' &&
        std::tolower(static_cast<unsigned char>(out[b + 1])) == 'o') {
      out[b] = ' ';
      out[b + 1] = ' ';
    }
    line = end + 1;
  }
  return out;
}

}  // namespace

std::string normalize_sql_name(std::string_view name) {
  auto tokens = lex(name);
  auto n = name_at(tokens, 0);
  return n ? join_lower(n->parts) : lower(std::string(name));
}

bool looks_like_sql(std::string_view text) {
  for (const auto& t : lex(text)) {
    for (auto kw : {"select", "insert", "update", "delete", "merge", "exec", "execute"}) {
      if (is_kw(t, kw)) return true;
    }
  }
  return false;
}

std::vector<SqlReference> sql_references(std::string_view sql) {
  std::string masked = mask_batch_separators(sql);
  SyntaxTree tree(Grammar::kSql, masked);
  return dedupe(all_references(tree, lex(sql)));
}

ExtractedFile extract_sql(std::string_view source) {
  ExtractedFile file;
  std::string masked = mask_batch_separators(source);
  SyntaxTree tree(Grammar::kSql, masked);
  auto tokens = lex(source);
  auto headers = find_headers(tokens);
  std::map<size_t, size_t> clean;
  clean_create_spans(tree.root(), clean);
  std::vector<size_t> go_offsets;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (is_kw(tokens[i], "go") && (i == 0 || line_of(source, tokens[i - 1].begin) < line_of(source, tokens[i].begin))) {
      go_offsets.push_back(tokens[i].begin);
    }
  }
  auto refs = all_references(tree, tokens);
  std::vector<std::pair<size_t, size_t>> fallback_spans;

  for (size_t h = 0; h < headers.size(); ++h) {
    const auto& header = headers[h];
    size_t end;
    bool from_tree = false;
    if (auto it = clean.find(header.begin); it != clean.end()) {
      end = it->second;
      from_tree = true;
    } else {
      end = h + 1 < headers.size() ? headers[h + 1].begin : source.size();
      auto go = std::upper_bound(go_offsets.begin(), go_offsets.end(), header.begin);
      if (go != go_offsets.end()) end = std::min(end, *go);
      while (end > header.begin && std::isspace(static_cast<unsigned char>(source[end - 1]))) --end;
      fallback_spans.emplace_back(header.begin, end);
    }
    if (from_tree && end < source.size() && source[end] == ';') ++end;

    std::vector<std::string> parts = header.parts;
    if (parts.size() > 2) parts.erase(parts.begin(), parts.end() - 2);
    if (parts.size() == 1) parts.insert(parts.begin(), "dbo");
    ExtractedNode node;
    node.kind = header.kind;
    node.name = parts[0] + "." + parts[1];
    node.id = "sql:" + node.name;
    node.start_line = line_of(source, header.begin);
    node.end_line = line_of(source, end > header.begin ? end - 1 : end);
    node.text = std::string(source.substr(header.begin, end - header.begin));
    std::string self = lower(node.name);

    std::vector<SqlReference> mine;
    for (const auto& r : refs) {
      if (r.offset < header.begin || r.offset >= end) continue;
      if (r.target == self || "dbo." + r.target == self) continue;
      mine.push_back(r);
    }
    if (header.kind == "trigger" && header.name_end_tok + 1 < tokens.size() && is_kw(tokens[header.name_end_tok], "on")) {
      if (auto n = name_at(tokens, header.name_end_tok + 1)) mine.push_back({"references", join_lower(n->parts), tokens[header.name_end_tok + 1].begin});
    }
    nlohmann::json jrefs = nlohmann::json::array();
    for (const auto& r : dedupe(mine)) jrefs.push_back({{"role", r.role}, {"target", r.target}});
    node.facts = {{"refs", jrefs}};
    file.nodes.push_back(std::move(node));
  }

  for (auto& issue : parse_issues(tree, 200)) {
    size_t offset = 0;
    int line = 1;
    for (; offset < source.size() && line < issue.line; ++offset) {
      if (source[offset] == '\n') ++line;
    }
    bool covered = std::any_of(fallback_spans.begin(), fallback_spans.end(),
                               [&](const auto& s) { return offset >= s.first && offset < s.second; });
    if (!covered && file.issues.size() < 20) file.issues.push_back(issue);
  }
  return file;
}

}  // namespace attractor::retrieval
