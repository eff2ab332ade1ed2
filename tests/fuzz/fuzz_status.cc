// libFuzzer target: `status.json` loading (outcome_from_json), as the engine reads an external
// agent's status file. The only allowed failure is std::runtime_error; an accepted outcome
// survives outcome_to_json -> outcome_from_json unchanged.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "attractor/base/json_limits.h"
#include "attractor/model/outcome.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor;
  Outcome outcome;
  try {
    outcome = outcome_from_json(
        parse_json_limited(std::string_view(reinterpret_cast<const char*>(data), size), "status.json"));
  } catch (const std::runtime_error&) {
    return 0;
  }
  const std::string text = outcome_to_json(outcome).dump();
  Outcome again = outcome_from_json(nlohmann::json::parse(text));
  if (outcome_to_json(again).dump() != text) __builtin_trap();
  return 0;
}
