// libFuzzer target: the edge condition grammar. A parsed condition is evaluated against a resolver
// that answers from the input itself; a parse error must point inside the text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "parser/condition.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ConditionParseResult result = parse_condition(text);
  if (result.ok() == result.error.has_value()) __builtin_trap();
  if (result.error && result.error->offset > text.size()) __builtin_trap();
  if (result.condition) {
    for (const ConditionClause& clause : result.condition->clauses) {
      if (clause.offset > text.size()) __builtin_trap();
    }
    evaluate_condition(*result.condition, [&](std::string_view key) { return std::string(key.substr(0, 3)); });
  }
  return 0;
}
