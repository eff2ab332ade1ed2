#include "handlers/rag/code_classifier.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "handlers/rag/code_scan.h"

namespace attractor {
namespace {

bool any_of_words(std::string_view word, std::initializer_list<std::string_view> words, bool ignore_case) {
  for (std::string_view w : words) {
    if (ignore_case ? iequals(word, w) : word == w) return true;
  }
  return false;
}

bool is_word(const std::vector<CodeToken>& t, std::size_t i) { return i < t.size() && t[i].word; }

bool is_punct(const std::vector<CodeToken>& t, std::size_t i, char c) {
  return i < t.size() && !t[i].word && !t[i].string && t[i].text.size() == 1 && t[i].text[0] == c;
}

bool is_sql_statement_keyword(std::string_view word) {
  return any_of_words(word,
                      {"SELECT", "INSERT", "UPDATE", "DELETE", "EXEC", "EXECUTE", "CREATE", "ALTER", "DROP", "DECLARE",
                       "SET", "MERGE", "WITH", "RETURN", "PRINT", "RAISERROR", "GRANT", "IF", "WHILE"},
                      true);
}

/// `Type Name(...);` at the start of a statement (an interface member or a call with a type
/// prefix) starting at token `i`.
bool member_signature_at(const std::vector<CodeToken>& t, std::size_t i) {
  if (!is_word(t, i) || is_sql_statement_keyword(t[i].text)) return false;
  std::size_t j = i;
  std::size_t words = 0;
  while (j < t.size() && (t[j].word || is_punct(t, j, '<') || is_punct(t, j, '>') || is_punct(t, j, '.') ||
                          is_punct(t, j, ',') || is_punct(t, j, '?') || is_punct(t, j, '[') || is_punct(t, j, ']'))) {
    if (t[j].word) ++words;
    ++j;
  }
  if (words < 2 || !is_punct(t, j, '(') || !t[j - 1].word) return false;
  int depth = 0;
  for (; j < t.size(); ++j) {
    if (is_punct(t, j, '(')) ++depth;
    if (is_punct(t, j, ')') && --depth == 0) return is_punct(t, j + 1, ';');
    if (is_punct(t, j, ';') || is_punct(t, j, '{')) return false;
  }
  return false;
}

int dotnet_score_of(const std::vector<CodeToken>& t) {
  int score = 0;
  bool open_brace = false;
  bool close_brace = false;
  bool statement_start = true;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const CodeToken& tok = t[i];
    if (statement_start && member_signature_at(t, i)) score += 2;
    statement_start = false;
    if (tok.string) continue;
    if (!tok.word) {
      char c = tok.text[0];
      if (c == '{') open_brace = true;
      if (c == '}') close_brace = true;
      if (c == '=' && is_punct(t, i + 1, '>') && t[i + 1].offset == tok.offset + 1) score += 1;
      statement_start = c == ';' || c == '{' || c == '}';
      continue;
    }
    std::string_view w = tok.text;
    if (w == "namespace" && is_word(t, i + 1)) {
      score += 3;
    } else if (w == "using" &&
               (i == 0 || is_punct(t, i - 1, ';') || is_punct(t, i - 1, '}') || is_punct(t, i - 1, '{'))) {
      std::size_t j = i + 1;
      while (j < t.size() && (t[j].word || is_punct(t, j, '.') || is_punct(t, j, '='))) ++j;
      if (j > i + 1 && is_punct(t, j, ';')) score += 2;
    } else if (any_of_words(w, {"class", "interface", "struct", "record", "enum"}, false) && is_word(t, i + 1)) {
      score += 2;
    } else if (any_of_words(w, {"public", "private", "protected", "internal"}, false)) {
      score += 1;
    } else if (any_of_words(w,
                            {"void", "readonly", "static", "override", "virtual", "abstract", "async", "await", "var",
                             "new", "this", "foreach", "throw"},
                            false)) {
      score += 1;
    }
  }
  if (open_brace && close_brace) score += 2;
  return score;
}

bool is_object_kind(std::string_view w) {
  return any_of_words(w,
                      {"TABLE", "VIEW", "PROC", "PROCEDURE", "FUNCTION", "TRIGGER", "INDEX", "UNIQUE", "CLUSTERED",
                       "NONCLUSTERED", "SCHEMA", "TYPE", "SEQUENCE", "SYNONYM"},
                      true);
}

int sql_score_of(std::string_view text, const std::vector<CodeToken>& t) {
  int score = 0;
  auto word_is = [&](std::size_t i, std::string_view w) { return is_word(t, i) && iequals(t[i].text, w); };
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!t[i].word) continue;
    std::string_view w = t[i].text;
    if (iequals(w, "CREATE")) {
      std::size_t j = i + 1;
      if (word_is(j, "OR") && word_is(j + 1, "ALTER")) j += 2;
      if (is_word(t, j) && is_object_kind(t[j].text)) score += 3;
    } else if (iequals(w, "ALTER")) {
      if (is_word(t, i + 1) && is_object_kind(t[i + 1].text) && !(i > 0 && word_is(i - 1, "OR"))) score += 3;
    } else if (iequals(w, "SELECT")) {
      for (std::size_t j = i + 1; j < t.size(); ++j) {
        if (is_punct(t, j, ';') || word_is(j, "SELECT")) break;
        if (word_is(j, "FROM")) {
          score += 2;
          break;
        }
      }
    } else if ((iequals(w, "INSERT") && word_is(i + 1, "INTO")) || (iequals(w, "DELETE") && word_is(i + 1, "FROM")) ||
               (iequals(w, "MERGE") && word_is(i + 1, "INTO"))) {
      score += 2;
    } else if (iequals(w, "UPDATE")) {
      std::size_t j = i + 1;
      while (is_word(t, j) && (is_punct(t, j + 1, '.'))) j += 2;
      if (is_word(t, j) && word_is(j + 1, "SET")) score += 2;
    } else if (iequals(w, "DECLARE") && is_word(t, i + 1) && t[i + 1].text[0] == '@') {
      score += 2;
    } else if ((iequals(w, "EXEC") || iequals(w, "EXECUTE")) && is_word(t, i + 1)) {
      score += 1;
    } else if (iequals(w, "WHERE") || iequals(w, "JOIN")) {
      score += 1;
    } else if (iequals(w, "GO")) {
      std::size_t line_begin = text.rfind('\n', t[i].offset == 0 ? 0 : t[i].offset - 1);
      line_begin = line_begin == std::string_view::npos ? 0 : line_begin + 1;
      std::size_t line_stop = text.find('\n', t[i].offset);
      std::string_view line = text.substr(line_begin,
                                          (line_stop == std::string_view::npos ? text.size() : line_stop) - line_begin);
      std::size_t a = line.find_first_not_of(" \t\r");
      std::size_t b = line.find_last_not_of(" \t\r;");
      if (a != std::string_view::npos && b != std::string_view::npos && iequals(line.substr(a, b - a + 1), "GO")) {
        score += 2;
      }
    }
  }
  return score;
}

}  // namespace

int dotnet_score(std::string_view text) {
  auto segments = scan_segments(text, CodeDialect::kCSharp);
  return dotnet_score_of(code_tokens(text, segments, CodeDialect::kCSharp));
}

int sql_score(std::string_view text) {
  auto segments = scan_segments(text, CodeDialect::kSql);
  return sql_score_of(text, code_tokens(text, segments, CodeDialect::kSql));
}

bool is_sql_object_name(std::string_view text) {
  std::size_t parts = 0;
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t start = i;
    if (i < text.size() && text[i] == '[') {
      std::size_t close = text.find(']', i);
      if (close == std::string_view::npos || close == i + 1) return false;
      i = close + 1;
    } else {
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
      if (i == start || std::isdigit(static_cast<unsigned char>(text[start]))) return false;
    }
    ++parts;
    if (i == text.size()) break;
    if (text[i] != '.') return false;
    ++i;
  }
  return parts >= 2 && parts <= 3;
}

CodeKind classify_code(std::string_view text) {
  auto segments = scan_segments(text, CodeDialect::kCSharp);
  auto tokens = code_tokens(text, segments, CodeDialect::kCSharp);
  auto sql_segments = scan_segments(text, CodeDialect::kSql);
  int dotnet = std::min(dotnet_score_of(tokens), dotnet_score_of(code_tokens(text, sql_segments, CodeDialect::kSql)));
  std::vector<CodeToken> code_only;
  int sql_in_strings = 0;
  bool bare_object_name = false;
  for (const CodeToken& t : tokens) {
    if (!t.string) {
      code_only.push_back(t);
      continue;
    }
    std::string_view content = string_content(t.text);
    sql_in_strings += sql_score(content);
    if (is_sql_object_name(content)) bare_object_name = true;
  }
  int sql_code = sql_score_of(text, code_only);
  if (dotnet >= 2 && dotnet >= sql_code) {
    return sql_in_strings >= 2 || bare_object_name ? CodeKind::kDotnetWithSql : CodeKind::kDotnet;
  }
  if (sql_score(text) >= 2) return CodeKind::kSql;
  return CodeKind::kUnknown;
}

std::string_view code_kind_name(CodeKind kind) {
  switch (kind) {
    case CodeKind::kSql: return "SQL";
    case CodeKind::kDotnet: return "DOTNET";
    case CodeKind::kDotnetWithSql: return "DOTNET_WITH_SQL";
    case CodeKind::kUnknown: break;
  }
  return "unknown";
}

std::string_view code_language(CodeKind kind) {
  switch (kind) {
    case CodeKind::kSql: return "sql";
    case CodeKind::kDotnet:
    case CodeKind::kDotnetWithSql: return "dotnet";
    case CodeKind::kUnknown: break;
  }
  return "unknown";
}

}  // namespace attractor
