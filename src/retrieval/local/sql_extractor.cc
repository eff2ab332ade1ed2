#include "retrieval/local/sql_extractor.h"

#include <algorithm>
#include <map>
#include <set>

#include "retrieval/local/tsql_lexer.h"

namespace attractor::retrieval {

namespace {

/// 1-based line numbers of byte offsets, by binary search over line starts.
class LineIndex {
 public:
  explicit LineIndex(std::string_view s) {
    starts_.push_back(0);
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n') starts_.push_back(i + 1);
    }
  }
  int line_of(size_t offset) const {
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin());
  }

 private:
  std::vector<size_t> starts_;
};

/// The `--` comment lines and the `/* ... */` block directly above byte `begin` (no blank line between).
std::string leading_comments(std::string_view source, size_t begin) {
  size_t line_start = source.rfind('\n', begin == 0 ? 0 : begin - 1);
  if (begin == 0 || line_start == std::string_view::npos) return {};
  size_t top = line_start + 1;
  size_t end = line_start;  // the newline ending the line above
  while (end > 0) {
    size_t start = source.rfind('\n', end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view line = source.substr(start, end - start);
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) break;
    std::string_view trimmed = line.substr(first);
    bool comment = trimmed.starts_with("--") || trimmed.starts_with("/*") || trimmed.starts_with("*") ||
                   trimmed.ends_with("*/");
    if (!comment) break;
    top = start;
    if (start == 0) break;
    end = start - 1;
  }
  return top < line_start + 1 ? std::string(source.substr(top, line_start + 1 - top)) : std::string();
}

std::string node_id(const TsqlObject& o) {
  return o.kind == "schema" ? "sql:" + o.name : "sql:" + o.schema + "." + o.name;
}

nlohmann::json refs_json(const std::vector<SqlReference>& refs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : refs) out.push_back({{"role", r.role}, {"target", r.target}});
  return out;
}

ExtractedNode to_node(std::string_view source, const LineIndex& lines, const TsqlObject& o) {
  ExtractedNode node;
  node.kind = o.kind;
  node.name = o.kind == "schema" ? o.name : o.schema + "." + o.name;
  node.id = node_id(o);
  node.start_line = lines.line_of(o.begin);
  node.end_line = lines.line_of(o.end > o.begin ? o.end - 1 : o.end);
  node.text = std::string(source.substr(o.begin, o.end - o.begin));
  node.facts = {{"refs", refs_json(o.refs)}};
  if (o.partial) node.facts["partial"] = true;
  if (auto doc = leading_comments(source, o.begin); !doc.empty()) node.facts["doc"] = doc;
  return node;
}

std::vector<SqlReference> merged(std::vector<SqlReference> a, const std::vector<SqlReference>& b) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : a) seen.insert({r.role, r.target});
  for (const auto& r : b) {
    if (seen.insert({r.role, r.target}).second) a.push_back(r);
  }
  return a;
}

}  // namespace

bool looks_like_sql(std::string_view text) {
  for (const auto& t : lex_tsql(text).tokens) {
    for (auto kw : {"select", "insert", "update", "delete", "merge", "exec", "execute"}) {
      if (t.is(kw)) return true;
    }
  }
  return false;
}

std::vector<SqlReference> sql_references(std::string_view sql) {
  TsqlScript script = read_tsql_script(sql);
  std::vector<SqlReference> all = script.loose_refs;
  for (const auto& o : script.objects) all = merged(std::move(all), o.refs);
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  return all;
}

ExtractedFile extract_sql(std::string_view source) {
  TsqlScript script = read_tsql_script(source);
  LineIndex lines(source);
  std::map<std::string, size_t> full_tables;
  for (size_t i = 0; i < script.objects.size(); ++i) {
    const auto& o = script.objects[i];
    if (o.kind == "table" && !o.partial) full_tables.emplace(node_id(o), i);
  }
  for (auto& o : script.objects) {
    if (!o.partial) continue;
    if (auto it = full_tables.find(node_id(o)); it != full_tables.end()) {
      auto& full = script.objects[it->second];
      full.refs = merged(std::move(full.refs), o.refs);
      o.kind.clear();
    }
  }
  ExtractedFile file;
  for (const auto& o : script.objects) {
    if (!o.kind.empty()) file.nodes.push_back(to_node(source, lines, o));
  }
  for (auto& issue : script.issues) {
    if (file.issues.size() == 20) break;
    file.issues.push_back(std::move(issue));
  }
  return file;
}

}  // namespace attractor::retrieval
