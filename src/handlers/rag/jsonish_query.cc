#include "handlers/rag/jsonish_query.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "attractor/base/ascii.h"
#include "attractor/model/value.h"

namespace attractor {

namespace {

constexpr int kMaxDepth = 64;
constexpr int kMaxCandidates = 8;
constexpr std::int64_t kMaxCount = std::numeric_limits<std::int32_t>::max();

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim_space(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// A short, pure-ASCII rendering of a JSON value for warnings.
std::string show(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

/// The content of the first ``` fence (an info string such as `json` directly followed by a
/// newline is skipped); the whole text when there is no fence.
std::string_view strip_fence(std::string_view text) {
  std::size_t open = text.find("```");
  if (open == std::string_view::npos) return text;
  std::size_t start = open + 3;
  std::size_t i = start;
  while (i < text.size() &&
         (is_alpha(text[i]) || is_digit(text[i]) || text[i] == '-' || text[i] == '_' || text[i] == '+')) {
    ++i;
  }
  if (i < text.size() && (text[i] == '\n' || text[i] == '\r')) start = i;
  std::size_t close = text.find("```", start);
  return text.substr(start, close == std::string_view::npos ? std::string_view::npos : close - start);
}

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool too_deep = false;
};

/// The balanced `{...}` starting at `begin` (strings in either quote skipped); to the end of the
/// text when it never closes.
Span scan_object(std::string_view s, std::size_t begin) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = begin; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return {begin, i, true};
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return {begin, i + 1, false};
    }
  }
  return {begin, s.size(), false};
}

void append_control_escape(std::string& out, char c) {
  switch (c) {
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default: {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buffer;
    }
  }
}

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20; }

/// Copies the string starting at s[i] (quote `q`) to `out` as a double-quoted JSON string;
/// returns the index after its closing quote.
std::size_t copy_string(std::string_view s, std::size_t i, std::string& out) {
  char q = s[i++];
  out += '"';
  while (i < s.size() && s[i] != q) {
    char c = s[i];
    if (c == '\\' && i + 1 < s.size()) {
      if (q == '\'' && s[i + 1] == '\'') {
        out += '\'';
      } else {
        out += c;
        out += s[i + 1];
      }
      i += 2;
      continue;
    }
    if (c == '\\') {
      out += "\\\\";
    } else if (is_control(c)) {
      append_control_escape(out, c);
    } else if (c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
    ++i;
  }
  out += '"';
  return i < s.size() ? i + 1 : i;
}

bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '-' || c == '.' || c == '$'; }

/// Reads an integer count: JSON integer, integral float, or a string of digits.
std::optional<std::int64_t> count_value(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return kMaxCount + 1;
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) return std::nullopt;
    if (d > 1e15) return kMaxCount + 1;
    if (d < -1e15) return -1;
    return static_cast<std::int64_t>(d);
  }
  if (v.is_string()) {
    std::string_view text = trim_space(v.get_ref<const std::string&>());
    if (!text.empty() && text.size() <= 18) return parse_integer(text);
    bool digits = !text.empty();
    for (char c : text) digits = digits && is_digit(c);
    if (digits) return kMaxCount + 1;
  }
  return std::nullopt;
}

void read_payload(const nlohmann::json& object, JsonishQuery& out) {
  auto warn = [&](std::string text) { out.warnings.push_back(std::move(text)); };

  auto mode_of = [&](const char* key) -> std::optional<std::string> {
    auto it = object.find(key);
    if (it == object.end()) return std::nullopt;
    if (it->is_string()) {
      std::string value = ascii_lower(trim_space(it->get_ref<const std::string&>()));
      if (value == "semantic" || value == "bm25" || value == "hybrid" || value == "semantic_rerank") return value;
    }
    warn(std::string("payload ") + key + "=" + show(*it) +
         " is not one of semantic | bm25 | hybrid | semantic_rerank; ignored");
    return std::nullopt;
  };
  auto search_type = mode_of("search_type");
  auto mode = mode_of("mode");
  if (search_type && mode && *search_type != *mode) {
    warn("payload search_type=" + *search_type + " and mode=" + *mode + " disagree; search_type wins");
  }
  out.search_type = search_type ? search_type : mode;

  auto count_of = [&](const char* key) -> std::optional<std::int64_t> {
    auto it = object.find(key);
    if (it == object.end()) return std::nullopt;
    auto value = count_value(*it);
    if (!value) {
      warn(std::string("payload ") + key + "=" + show(*it) + " is not an integer; ignored");
      return std::nullopt;
    }
    if (*value < 1 || *value > kMaxCount) {
      warn(std::string("payload ") + key + "=" + show(*it) + " is outside [1, 2147483647]; ignored");
      return std::nullopt;
    }
    return value;
  };
  out.top_k = count_of("top_k");
  out.rrf_k = count_of("rrf_k");

  if (auto it = object.find("match_operator"); it != object.end()) {
    std::string value = it->is_string() ? ascii_lower(trim_space(it->get_ref<const std::string&>())) : std::string();
    if (value == "and" || value == "or") {
      out.match_operator = value;
    } else {
      warn("payload match_operator=" + show(*it) + " is not one of and | or; ignored");
    }
  }

  if (auto it = object.find("query"); it != object.end()) {
    if (it->is_string()) {
      out.query = std::string(trim_space(it->get_ref<const std::string&>()));
    } else {
      warn("payload query=" + show(*it) + " is not a string; ignored");
    }
  } else {
    warn("payload has no 'query' member");
  }

  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (key == "query" || key == "filters" || is_jsonish_metadata_key(key)) continue;
    if (key == "rerank") {
      warn("payload rerank ignored: rerank is a node attribute (mode semantic_rerank selects keyword_rerank)");
      continue;
    }
    out.filters[key] = it.value();
  }
  if (auto it = object.find("filters"); it != object.end() && !it->is_null()) {
    if (!it->is_object()) {
      warn("payload filters=" + show(*it) + " is not an object; ignored");
      return;
    }
    for (auto f = it->begin(); f != it->end(); ++f) {
      const std::string& key = f.key();
      if (key == "query" || key == "filters" || is_jsonish_metadata_key(key)) {
        warn("payload filter '" + key + "' ignored: metadata keys are never filters");
        continue;
      }
      if (out.filters.contains(key)) warn("payload filter '" + key + "' given twice; the filters object wins");
      out.filters[key] = f.value();
    }
  }
}

}  // namespace

bool is_jsonish_metadata_key(std::string_view key) {
  return key == "search_type" || key == "mode" || key == "top_k" || key == "rrf_k" || key == "match_operator";
}

std::string normalize_jsonish(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"' || c == '\'') {
      i = copy_string(s, i, out);
    } else if (c == ',') {
      std::size_t j = i + 1;
      while (j < s.size() && is_space(s[j])) ++j;
      if (j >= s.size() || (s[j] != '}' && s[j] != ']')) out += ',';
      ++i;
    } else if (is_alpha(c) || c == '_' || c == '$') {
      std::size_t j = i;
      while (j < s.size() && is_word_char(s[j])) ++j;
      std::string_view word = s.substr(i, j - i);
      if (word == "true" || word == "false" || word == "null") out += word;
      else if (word == "True") out += "true";
      else if (word == "False") out += "false";
      else if (word == "None") out += "null";
      else {
        out += '"';
        out += word;
        out += '"';
      }
      i = j;
    } else if (is_digit(c) || c == '-') {
      std::size_t j = i + 1;
      while (j < s.size() && (is_alpha(s[j]) || is_digit(s[j]) || s[j] == '.' || s[j] == '+' || s[j] == '-')) ++j;
      out += s.substr(i, j - i);
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

JsonishQuery parse_jsonish_query(std::string_view text) {
  JsonishQuery out;
  std::string_view body = strip_fence(text);
  std::size_t pos = body.find('{');
  bool saw_brace = pos != std::string_view::npos;
  for (int attempt = 0; attempt < kMaxCandidates && pos != std::string_view::npos; ++attempt) {
    Span span = scan_object(body, pos);
    if (span.too_deep) {
      out.warnings.push_back("payload nests deeper than 64 levels; not parsed as JSON");
      break;
    }
    nlohmann::json parsed = nlohmann::json::parse(normalize_jsonish(body.substr(span.begin, span.end - span.begin)),
                                                  nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object()) {
      out.structured = true;
      if (!trim_space(body.substr(0, span.begin)).empty() || !trim_space(body.substr(span.end)).empty()) {
        out.warnings.push_back("text around the payload object ignored");
      }
      read_payload(parsed, out);
      return out;
    }
    pos = body.find('{', pos + 1);
  }
  if (saw_brace) out.warnings.push_back("no parseable JSON object in the payload; the whole text is the query");
  out.query = std::string(trim_space(body));
  return out;
}

}  // namespace attractor
