#pragma once
/// \file
/// ASCII case folding for names, keys and keywords (attribute values, header names, SQL words):
/// only A-Z change, so UTF-8 text passes through unchanged whatever the locale.

#include <string>
#include <string_view>

namespace attractor {

/// `text` with A-Z turned into a-z; every other byte unchanged.
std::string ascii_lower(std::string_view text);

}  // namespace attractor
