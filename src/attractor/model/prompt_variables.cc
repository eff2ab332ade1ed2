#include "attractor/model/prompt_variables.h"

#include <algorithm>

namespace attractor {

namespace {

bool key_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool key_char(char c) { return key_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-'; }

bool is_key(const std::string& s) { return !s.empty() && key_start(s[0]) && std::all_of(s.begin(), s.end(), key_char); }

}  // namespace

std::size_t prompt_reference_end(const std::string& text, std::size_t i) {
  if (text.compare(i, 2, "${") != 0) return 0;
  std::size_t close = text.find('}', i + 2);
  if (close == std::string::npos || !is_key(text.substr(i + 2, close - i - 2))) return 0;
  return close + 1;
}

std::vector<std::string> prompt_variable_keys(const std::string& text) {
  std::vector<std::string> keys;
  std::size_t i = 0;
  while ((i = text.find('$', i)) != std::string::npos) {
    if (text.compare(i, 3, "$${") == 0) {
      i += 3;
    } else if (std::size_t end = prompt_reference_end(text, i); end != 0) {
      std::string key = text.substr(i + 2, end - i - 3);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
      i = end;
    } else {
      ++i;
    }
  }
  return keys;
}

}  // namespace attractor
