#pragma once
/// \file
/// SHA-256 (FIPS 180-4), used to fingerprint the graph file in a run's manifest and to verify token
/// data files. Our own implementation, so that the binary does not load OpenSSL's libcrypto at
/// start-up (bench/startup): portable C++, and the x86 SHA extensions when the CPU has them (about
/// ten times faster, as fast as libcrypto).

#include <string>
#include <string_view>

namespace attractor {

/// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

/// The same digest computed without the SHA extensions (what CPUs without them get; for tests).
std::string sha256_hex_portable(std::string_view data);

}  // namespace attractor
