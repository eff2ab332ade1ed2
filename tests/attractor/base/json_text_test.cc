#include "attractor/base/json_text.h"

#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace attractor {
namespace {

std::string reference(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<nlohmann::json> values() {
  using nlohmann::json;
  std::vector<json> v = {
      json(),
      json(true),
      json(false),
      json(0),
      json(-7),
      json(std::numeric_limits<std::int64_t>::min()),
      json(std::numeric_limits<std::uint64_t>::max()),
      json(0.1),
      json(1e300),
      json(-0.0),
      json(3.0),
      json(""),
      json("plain text"),
      json("quote \" and \\ backslash"),
      json("tab\tnew\nline\x01\x1f\x7f"),
      json("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"),
      json("bad \xff byte \xc3"),
      json("/slash/"),
      json::object(),
      json::array(),
      json::binary({1, 2, 3}),
      json{{"b", 1}, {"a", json::array({1, "x", nullptr, json::object()})}, {"\xc3\xa9", "k\xff"}},
      json{{"nested", {{"deep", {{"deeper", json::array({json::array(), 2.5})}}}}}},
  };
  return v;
}

TEST(JsonText, EqualsNlohmannsCompactDump) {
  for (const auto& value : values()) {
    EXPECT_EQ(json_text(value), reference(value)) << reference(value);
  }
}

TEST(JsonText, HandlesInvalidUtf8AsAskedLikeDump) {
  for (const auto& value : values()) {
    for (auto on_invalid : {JsonInvalidUtf8::strict, JsonInvalidUtf8::ignore}) {
      std::string expected;
      try {
        expected = value.dump(-1, ' ', false, on_invalid);
      } catch (const nlohmann::json::type_error&) {
        EXPECT_THROW(json_text(value, on_invalid), nlohmann::json::type_error) << reference(value);
        continue;
      }
      EXPECT_EQ(json_text(value, on_invalid), expected);
    }
  }
}

TEST(JsonText, AppendsAfterWhatIsThere) {
  std::string out = "x=";
  append_json(out, nlohmann::json{{"k", "v"}});
  append_json_string(out, "\n");
  EXPECT_EQ(out, "x={\"k\":\"v\"}\"\\n\"");
}

}  // namespace
}  // namespace attractor
