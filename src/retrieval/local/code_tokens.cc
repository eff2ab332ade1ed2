#include "retrieval/local/code_tokens.h"

#include "attractor/base/ascii.h"

#include <cctype>

namespace attractor::retrieval {

namespace {

bool is_ident_byte(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::vector<std::string_view> identifier_runs(std::string_view text) {
  std::vector<std::string_view> runs;
  size_t i = 0;
  while (i < text.size()) {
    if (!is_ident_byte(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && is_ident_byte(static_cast<unsigned char>(text[i]))) ++i;
    runs.push_back(text.substr(start, i - start));
  }
  return runs;
}

std::vector<std::string> split_identifier(std::string_view id) {
  std::vector<std::string> parts;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) parts.push_back(ascii_lower(current));
    current.clear();
  };
  for (size_t i = 0; i < id.size(); ++i) {
    char c = id[i];
    if (c == '_') {
      flush();
      continue;
    }
    if (!current.empty()) {
      char prev = current.back();
      bool boundary = false;
      if (is_digit(c) != is_digit(prev)) boundary = true;
      else if (is_upper(c) && is_lower(prev)) boundary = true;
      else if (is_upper(c) && is_upper(prev) && i + 1 < id.size() && is_lower(id[i + 1])) boundary = true;
      if (boundary) flush();
    }
    current.push_back(c);
  }
  flush();
  return parts;
}

std::string joined_identifier(std::string_view id) {
  std::string out;
  for (char c : id) {
    if (c != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::string index_terms(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (auto run : identifier_runs(text)) {
    std::string joined = joined_identifier(run);
    if (joined.empty()) continue;
    out += joined;
    out.push_back(' ');
    auto parts = split_identifier(run);
    if (parts.size() > 1) {
      for (const auto& p : parts) {
        out += p;
        out.push_back(' ');
      }
    }
  }
  if (!out.empty()) out.pop_back();
  return out;
}

std::string fts_match_expression(std::string_view query, MatchOperator op) {
  std::vector<std::string> groups;
  for (auto run : identifier_runs(query)) {
    std::string joined = joined_identifier(run);
    if (joined.empty()) continue;
    auto parts = split_identifier(run);
    std::string group = "\"" + joined + "\"";
    if (parts.size() > 1) {
      group = "(" + group + " OR (";
      for (size_t i = 0; i < parts.size(); ++i) {
        if (i) group += " ";
        group += "\"" + parts[i] + "\"";
      }
      group += "))";
    }
    groups.push_back(std::move(group));
  }
  if (groups.empty()) {
    throw RetrievalError(RetrievalError::Kind::kInvalidArgument, "query has no searchable terms");
  }
  std::string expr;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i) expr += op == MatchOperator::kAnd ? " AND " : " OR ";
    expr += groups[i];
  }
  return expr;
}

}  // namespace attractor::retrieval
