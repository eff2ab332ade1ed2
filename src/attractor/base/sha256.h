#pragma once
/// \file
/// SHA-256 (FIPS 180-4, computed by OpenSSL's libcrypto), used to fingerprint the graph file in a
/// run's manifest and to verify token data files.

#include <string>
#include <string_view>

namespace attractor {

/// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace attractor
