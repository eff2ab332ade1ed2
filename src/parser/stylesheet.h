#pragma once
/// \file
/// The model stylesheet (spec §8): `Selector { property: value; ... }` rules with `*`, shape,
/// `.class` and `#id` selectors. Parsed by its own X3 grammar.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attractor {

struct StyleSelector {
  enum class Kind { kUniversal, kShape, kClass, kId };
  Kind kind = Kind::kUniversal;
  std::string name;  ///< shape, class or id ("" for `*`)
  /// 0 for `*`, 1 shape, 2 class, 3 id.
  int specificity() const;
};

struct StyleDeclaration {
  std::string property;  ///< llm_model | llm_provider | reasoning_effort
  std::string value;
  std::size_t offset = 0;
};

struct StyleRule {
  StyleSelector selector;
  std::vector<StyleDeclaration> declarations;
  std::size_t offset = 0;  ///< byte offset of the selector in the stylesheet text
};

struct Stylesheet {
  std::vector<StyleRule> rules;  ///< in source order
};

struct StylesheetError {
  std::string message;
  std::size_t offset = 0;
};

struct StylesheetParseResult {
  std::optional<Stylesheet> stylesheet;
  std::optional<StylesheetError> error;
  bool ok() const { return stylesheet.has_value(); }
};

/// Parses stylesheet text. Whitespace-only text is a valid, empty stylesheet. Only the three §8.4
/// properties are accepted; `{}` is allowed; class names may use `[A-Za-z0-9_-]`; bare values may
/// contain letters, digits and `_ . - : / @ +`.
StylesheetParseResult parse_stylesheet(std::string_view text);

}  // namespace attractor
