// libFuzzer target: the model stylesheet grammar. Exactly one of stylesheet/error is set and every
// offset points inside the text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parser/stylesheet.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  StylesheetParseResult result = parse_stylesheet(text);
  if (result.ok() == result.error.has_value()) __builtin_trap();
  if (result.error && result.error->offset > text.size()) __builtin_trap();
  if (result.stylesheet) {
    for (const StyleRule& rule : result.stylesheet->rules) {
      if (rule.offset > text.size()) __builtin_trap();
      if (rule.selector.specificity() < 0 || rule.selector.specificity() > 3) __builtin_trap();
      for (const StyleDeclaration& d : rule.declarations) {
        if (d.offset > text.size()) __builtin_trap();
      }
    }
  }
  return 0;
}
