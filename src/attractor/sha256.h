#pragma once
/// \file
/// SHA-256 (FIPS 180-4), used to fingerprint the graph file in a run's manifest.

#include <string>
#include <string_view>

namespace attractor {

/// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace attractor
