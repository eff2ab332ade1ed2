#pragma once
// Helpers shared by the token tests: reference data, generated long texts, counters.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attractor/tokens/tiktoken_file.h"
#include "attractor/tokens/token_counter.h"

namespace attractor::test {

/// tests/data/tokens/reference.json, parsed once.
const nlohmann::json& token_reference();

/// The text of one reference case: `text`, `bytes_hex` (raw bytes) or `generate`.
std::string reference_case_text(const nlohmann::json& c);

/// The same xorshift32 text generator as generate_reference.js.
std::string generate_text(const nlohmann::json& spec);

/// Ids joined by single spaces.
std::string join_ids(const std::vector<TokenId>& ids);

/// Encodes a code point as UTF-8.
std::string utf8_of(char32_t cp);

/// A small rank table: ranks 0..255 are the single bytes, then `merges` in order.
RankTable byte_table(const std::vector<std::string>& merges);

}  // namespace attractor::test
