#include "handlers/rag/code_compactor.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "handlers/rag/code_scan.h"

namespace attractor {
namespace {

std::string_view trim(std::string_view s) {
  std::size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos) return {};
  std::size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

bool punct_at(const std::vector<CodeToken>& t, std::size_t i, char c) {
  return i < t.size() && !t[i].word && !t[i].string && t[i].text.size() == 1 && t[i].text[0] == c;
}

bool adjacent(const CodeToken& a, const CodeToken& b) { return a.offset + a.text.size() == b.offset; }

bool is_sql_keyword(std::string_view w) {
  static const char* const kWords[] = {
      "SET",     "AS",      "SELECT",  "WHERE",       "VALUES",     "ON",       "DEFAULT",  "OUTPUT",   "WITH",
      "AND",     "OR",      "NOT",     "NULL",        "TOP",        "DISTINCT", "BEGIN",    "END",      "RETURN",
      "RETURNS", "IF",      "ELSE",    "INSERT",      "UPDATE",     "DELETE",   "FROM",     "INTO",     "TABLE",
      "EXEC",    "EXECUTE", "USING",   "MERGE",       "WHEN",       "THEN",     "MATCHED",  "JOIN",     "INNER",
      "LEFT",    "RIGHT",   "OUTER",   "CROSS",       "GROUP",      "ORDER",    "BY",       "HAVING",   "UNION",
      "ALL",     "CASE",    "DECLARE", "PROCEDURE",   "PROC",       "VIEW",     "FUNCTION", "TRIGGER",  "INDEX",
      "KEY",     "PRIMARY", "FOREIGN", "REFERENCES",  "CONSTRAINT", "CHECK",    "UNIQUE",   "IDENTITY", "OR",
      "ALTER",   "CREATE",  "DROP",    "GO",          "AFTER",      "INSTEAD",  "OF",       "FOR",      "WHILE",
      "TRY",     "CATCH",   "TRAN",    "TRANSACTION", "COMMIT",     "ROLLBACK"};
  for (const char* k : kWords) {
    if (iequals(w, k)) return true;
  }
  return false;
}

/// The dotted name starting at token `i` (`a`, `a.b`, `[a].[b]`), or "" when none; `next` receives
/// the index after it.
std::string_view dotted_name(std::string_view text, const std::vector<CodeToken>& t, std::size_t i, std::size_t* next) {
  if (i >= t.size() || !t[i].word) return {};
  std::size_t j = i;
  while (j + 2 < t.size() && punct_at(t, j + 1, '.') && t[j + 2].word && adjacent(t[j], t[j + 1]) &&
         adjacent(t[j + 1], t[j + 2])) {
    j += 2;
  }
  *next = j + 1;
  return text.substr(t[i].offset, t[j].offset + t[j].text.size() - t[i].offset);
}

bool object_keyword(std::string_view w) {
  static const char* const kWords[] = {"FROM",  "JOIN", "INTO",     "UPDATE",  "EXEC", "EXECUTE",  "REFERENCES",
                                       "TABLE", "VIEW", "FUNCTION", "TRIGGER", "PROC", "PROCEDURE"};
  for (const char* k : kWords) {
    if (iequals(w, k)) return true;
  }
  return false;
}

bool body_start_keyword(std::string_view w) {
  static const char* const kWords[] = {"BEGIN",    "RETURN",   "SELECT", "SET",       "INSERT",  "UPDATE", "DELETE",
                                       "DECLARE",  "IF",       "WITH",   "EXEC",      "EXECUTE", "MERGE",  "WHILE",
                                       "EXTERNAL", "TRUNCATE", "PRINT",  "RAISERROR", "THROW"};
  for (const char* k : kWords) {
    if (iequals(w, k)) return true;
  }
  return false;
}

/// Text without comments: block comments become one space, line comments disappear.
std::string strip_comments(std::string_view text, CodeDialect dialect) {
  std::string out;
  out.reserve(text.size());
  for (const Segment& s : scan_segments(text, dialect)) {
    if (s.kind == SegmentKind::kComment) {
      if (text[s.begin + 1] == '*' && !out.empty() && !std::isspace(static_cast<unsigned char>(out.back()))) {
        out += ' ';
      }
      continue;
    }
    out.append(text.substr(s.begin, s.end - s.begin));
  }
  return out;
}

bool is_go_line(std::string_view line) {
  std::string_view t = trim(line);
  if (t.size() < 2 || !iequals(t.substr(0, 2), "GO")) return false;
  std::string_view rest = trim(t.substr(2));
  if (rest == ";") return true;
  return std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

/// Compacts one GO batch (comments already removed).
std::string compact_sql_batch(std::string_view batch) {
  auto tokens = code_tokens(batch, scan_segments(batch, CodeDialect::kSql), CodeDialect::kSql);
  std::size_t kind_at = tokens.size();
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (!tokens[i].word || !(iequals(tokens[i].text, "CREATE") || iequals(tokens[i].text, "ALTER"))) continue;
    std::size_t j = i + 1;
    if (iequals(tokens[j].text, "OR") && j + 2 < tokens.size() && iequals(tokens[j + 1].text, "ALTER")) j += 2;
    const std::string_view w = tokens[j].text;
    if (iequals(w, "PROC") || iequals(w, "PROCEDURE") || iequals(w, "FUNCTION") || iequals(w, "TRIGGER")) {
      kind_at = j;
      break;
    }
  }
  if (kind_at == tokens.size()) return std::string(batch);
  int depth = 0;
  for (std::size_t i = kind_at + 1; i < tokens.size(); ++i) {
    if (punct_at(tokens, i, '(')) ++depth;
    if (punct_at(tokens, i, ')')) --depth;
    if (depth != 0 || !tokens[i].word || !iequals(tokens[i].text, "AS")) continue;
    bool last = i + 1 == tokens.size();
    bool body = last || (tokens[i + 1].word && body_start_keyword(tokens[i + 1].text));
    if (!body && !last) {
      std::string_view between = batch.substr(tokens[i].offset, tokens[i + 1].offset - tokens[i].offset);
      body = between.find('\n') != std::string_view::npos && !tokens[i + 1].word;
    }
    if (!body) continue;
    std::size_t header_end = tokens[i].offset + tokens[i].text.size();
    std::string out(batch.substr(0, header_end));
    out += " ...";
    auto names = sql_object_names(batch.substr(header_end));
    if (!names.empty()) {
      out += " uses: ";
      for (std::size_t k = 0; k < names.size(); ++k) {
        if (k > 0) out += ", ";
        out += names[k];
      }
    }
    out += '\n';
    return out;
  }
  return std::string(batch);
}

bool structural_header(std::string_view header) {
  auto tokens = code_tokens(header, scan_segments(header, CodeDialect::kCSharp), CodeDialect::kCSharp);
  std::size_t first = 0;
  while (punct_at(tokens, first, '[')) {
    int depth = 0;
    for (; first < tokens.size(); ++first) {
      if (punct_at(tokens, first, '[')) ++depth;
      if (punct_at(tokens, first, ']') && --depth == 0) break;
    }
    ++first;
  }
  tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(std::min(first, tokens.size())));
  if (tokens.empty()) return false;
  std::size_t paren = tokens.size();
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (punct_at(tokens, i, '(')) {
      paren = i;
      break;
    }
  }
  for (std::size_t i = 0; i < paren; ++i) {
    if (!tokens[i].word) continue;
    std::string_view w = tokens[i].text;
    if ((w == "namespace" || w == "class" || w == "struct" || w == "interface" || w == "record" || w == "enum") &&
        i + 1 < tokens.size() && tokens[i + 1].word) {
      return true;
    }
  }
  const CodeToken& last = tokens.back();
  if (last.word && (last.text == "get" || last.text == "set" || last.text == "init" || last.text == "add" ||
                    last.text == "remove")) {
    return false;
  }
  for (const CodeToken& t : tokens) {
    if (punct_at(tokens, &t - tokens.data(), '(') || punct_at(tokens, &t - tokens.data(), ')') ||
        punct_at(tokens, &t - tokens.data(), '=')) {
      return false;
    }
  }
  return true;
}

void add_unique(std::vector<std::string>& names, std::set<std::string>& seen, std::string_view name) {
  if (seen.insert(std::string(name)).second) names.emplace_back(name);
}

}  // namespace

std::string drop_blank_lines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    std::size_t last = line.find_last_not_of(" \t\r");
    if (last != std::string_view::npos) {
      if (!out.empty()) out += '\n';
      out.append(line.substr(0, last + 1));
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

std::vector<std::string> sql_object_names(std::string_view sql) {
  auto tokens = code_tokens(sql, scan_segments(sql, CodeDialect::kSql), CodeDialect::kSql);
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (!tokens[i].word) continue;
    std::size_t next = 0;
    if (object_keyword(tokens[i].text)) {
      std::string_view name = dotted_name(sql, tokens, i + 1, &next);
      if (name.empty() || name[0] == '@' || is_sql_keyword(name) || iequals(name, "inserted") ||
          iequals(name, "deleted")) {
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(name[0]))) continue;
      add_unique(names, seen, name);
      continue;
    }
    if (i > 0 && punct_at(tokens, i - 1, '.')) continue;
    std::string_view name = dotted_name(sql, tokens, i, &next);
    if (next > i + 1 && punct_at(tokens, next, '(') && name[0] != '@') add_unique(names, seen, name);
  }
  return names;
}

std::string compact_sql(std::string_view text) {
  std::string clean = strip_comments(text, CodeDialect::kSql);
  std::string out;
  std::string batch;
  std::size_t pos = 0;
  auto flush = [&] {
    out += compact_sql_batch(batch);
    out += '\n';
    batch.clear();
  };
  while (pos <= clean.size()) {
    std::size_t nl = clean.find('\n', pos);
    std::size_t end = nl == std::string::npos ? clean.size() : nl;
    std::string_view line = std::string_view(clean).substr(pos, end - pos);
    if (is_go_line(line)) {
      flush();
    } else {
      batch.append(line);
      batch += '\n';
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  flush();
  return drop_blank_lines(out);
}

std::string compact_csharp(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t header_start = 0;
  int collapse_depth = 0;
  std::vector<std::string> names;
  std::set<std::string> seen;
  bool to_table_next = false;            // the string is the table name of an EF `ToTable(` call
  bool to_table_schema_pending = false;  // the last name came from `ToTable(`
  bool to_table_schema_next = false;     // the string is that call's schema argument
  for (const Segment& s : scan_segments(text, CodeDialect::kCSharp)) {
    std::string_view piece = text.substr(s.begin, s.end - s.begin);
    if (s.kind == SegmentKind::kComment) {
      if (collapse_depth == 0 && piece[1] == '*' && !out.empty() &&
          !std::isspace(static_cast<unsigned char>(out.back()))) {
        out += ' ';
      }
      continue;
    }
    if (s.kind == SegmentKind::kString) {
      if (collapse_depth > 0) {
        std::string_view content = string_content(piece);
        if (to_table_schema_next && !content.empty()) {
          std::string qualified = std::string(content) + "." + names.back();
          seen.erase(names.back());
          names.pop_back();
          add_unique(names, seen, qualified);
        } else if (to_table_next && !content.empty()) {
          add_unique(names, seen, content);
          to_table_schema_pending = names.back() == content;
        } else if (is_sql_object_name(content)) {
          add_unique(names, seen, content);
        } else if (sql_score(content) >= 1) {
          for (const std::string& n : sql_object_names(content)) add_unique(names, seen, n);
        }
        to_table_next = false;
        to_table_schema_next = false;
      } else {
        out.append(piece);
      }
      continue;
    }
    for (char c : piece) {
      if (collapse_depth > 0) {
        if (c == '{') ++collapse_depth;
        if (c == '}' && --collapse_depth == 0) {
          out += " ...";
          if (!names.empty()) {
            out += " sql: ";
            for (std::size_t k = 0; k < names.size(); ++k) {
              if (k > 0) out += ", ";
              out += names[k];
            }
          }
          out += " }";
          header_start = out.size();
        }
        continue;
      }
      if (c == '{') {
        if (structural_header(std::string_view(out).substr(header_start))) {
          out += c;
          header_start = out.size();
        } else {
          while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
          if (!out.empty()) out += ' ';
          out += '{';
          collapse_depth = 1;
          names.clear();
          seen.clear();
        }
        continue;
      }
      out += c;
      if (c == ';' || c == '}') header_start = out.size();
    }
    if (collapse_depth > 0) {
      std::string_view code = trim(piece);
      to_table_next = code.ends_with("ToTable(");
      to_table_schema_next = to_table_schema_pending && code == ",";
    }
    to_table_schema_pending = false;
  }
  if (collapse_depth > 0) out += " ... }";
  std::string compact = drop_blank_lines(out);
  std::string result;
  std::size_t pos = 0;
  while (pos <= compact.size()) {
    std::size_t nl = compact.find('\n', pos);
    std::size_t end = nl == std::string::npos ? compact.size() : nl;
    std::string_view line = std::string_view(compact).substr(pos, end - pos);
    std::string_view t = trim(line);
    if (!(t.starts_with("#region") || t.starts_with("#endregion"))) {
      if (!result.empty()) result += '\n';
      result.append(line);
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return result;
}

std::string compact_code(std::string_view text, CodeKind kind) {
  switch (kind) {
    case CodeKind::kSql: return compact_sql(text);
    case CodeKind::kDotnet:
    case CodeKind::kDotnetWithSql: return compact_csharp(text);
    case CodeKind::kUnknown: break;
  }
  return std::string(text);
}

}  // namespace attractor
