// libFuzzer target: `status.json` loading (outcome_from_json), as the engine reads an external
// agent's status file. The only allowed failure is std::runtime_error; an accepted outcome
// survives outcome_to_json -> outcome_from_json unchanged.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "attractor/outcome.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor;
  nlohmann::json json = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  Outcome outcome;
  try {
    outcome = outcome_from_json(json);
  } catch (const std::runtime_error&) {
    return 0;
  }
  const std::string text = outcome_to_json(outcome).dump();
  Outcome again = outcome_from_json(nlohmann::json::parse(text));
  if (outcome_to_json(again).dump() != text) __builtin_trap();
  return 0;
}
