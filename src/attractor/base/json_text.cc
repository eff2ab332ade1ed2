#include "attractor/base/json_text.h"

#include <algorithm>

#include <fmt/format.h>

namespace attractor {

namespace {

/// Printable ASCII other than the quote and the backslash: copied as is by nlohmann's dump.
bool plain(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

void append_slow(std::string& out, const nlohmann::json& value, JsonInvalidUtf8 on_invalid) {
  out += value.dump(-1, ' ', false, on_invalid);
}

}  // namespace

void append_json_string(std::string& out, std::string_view text, JsonInvalidUtf8 on_invalid) {
  if (!plain(text)) {
    append_slow(out, nlohmann::json(text), on_invalid);
    return;
  }
  out += '"';
  out += text;
  out += '"';
}

void append_json(std::string& out, const nlohmann::json& value, JsonInvalidUtf8 on_invalid) {
  switch (value.type()) {
    case nlohmann::json::value_t::string:
      append_json_string(out, value.get_ref<const std::string&>(), on_invalid);
      return;
    case nlohmann::json::value_t::number_integer:
      fmt::format_to(std::back_inserter(out), "{}", value.get<std::int64_t>());
      return;
    case nlohmann::json::value_t::number_unsigned:
      fmt::format_to(std::back_inserter(out), "{}", value.get<std::uint64_t>());
      return;
    case nlohmann::json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case nlohmann::json::value_t::null: out += "null"; return;
    case nlohmann::json::value_t::object: {
      out += '{';
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (it != value.begin()) out += ',';
        append_json_string(out, it.key(), on_invalid);
        out += ':';
        append_json(out, it.value(), on_invalid);
      }
      out += '}';
      return;
    }
    case nlohmann::json::value_t::array: {
      out += '[';
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out += ',';
        append_json(out, value[i], on_invalid);
      }
      out += ']';
      return;
    }
    default: append_slow(out, value, on_invalid);
  }
}

std::string json_text(const nlohmann::json& value, JsonInvalidUtf8 on_invalid) {
  std::string out;
  append_json(out, value, on_invalid);
  return out;
}

}  // namespace attractor
