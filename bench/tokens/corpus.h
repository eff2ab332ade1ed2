#pragma once
// Deterministic mixed corpus for the token benchmark: English-like prose, source code (C++,
// Python, C#, SQL, JSON) and some non-Latin text, generated from a seed.

#include <cstddef>
#include <cstdint>
#include <string>

namespace attractor::bench {

/// About `bytes` bytes of mixed text (ends at a paragraph boundary). Same seed, same text.
std::string generate_token_corpus(std::size_t bytes, std::uint32_t seed = 20240601);

}  // namespace attractor::bench
