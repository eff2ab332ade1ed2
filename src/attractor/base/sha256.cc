#include "attractor/base/sha256.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <array>
#include <cstdint>
#include <cstring>

namespace attractor {

namespace {

/// The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4
/// section 4.2.2).
constexpr std::array<std::uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

/// The initial hash value (section 5.3.3): square roots of the first 8 primes.
constexpr std::array<std::uint32_t, 8> kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

using State = std::array<std::uint32_t, 8>;

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

std::uint32_t load_be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

/// The message schedule of one 64-byte block (section 6.2.2, step 1).
std::array<std::uint32_t, 64> schedule(const unsigned char* block) {
  std::array<std::uint32_t, 64> w{};
  for (int t = 0; t < 16; ++t) w[t] = load_be32(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  return w;
}

/// One round of section 6.2.2 step 3, on the working variables named by the caller's rotation.
inline void round(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t& d, std::uint32_t e, std::uint32_t f,
                  std::uint32_t g, std::uint32_t& h, std::uint32_t k_plus_w) {
  const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k_plus_w;
  const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
  d += t1;
  h = t1 + t2;
}

/// Folds one 64-byte block into `state` (section 6.2.2, steps 2 to 4). Instead of shifting the
/// eight working variables after every round, the rounds rotate which variable plays which role.
void compress(State& state, const unsigned char* block) {
  const std::array<std::uint32_t, 64> w = schedule(block);
  std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; t += 8) {
    round(a, b, c, d, e, f, g, h, kRoundConstants[t] + w[t]);
    round(h, a, b, c, d, e, f, g, kRoundConstants[t + 1] + w[t + 1]);
    round(g, h, a, b, c, d, e, f, kRoundConstants[t + 2] + w[t + 2]);
    round(f, g, h, a, b, c, d, e, kRoundConstants[t + 3] + w[t + 3]);
    round(e, f, g, h, a, b, c, d, kRoundConstants[t + 4] + w[t + 4]);
    round(d, e, f, g, h, a, b, c, kRoundConstants[t + 5] + w[t + 5]);
    round(c, d, e, f, g, h, a, b, kRoundConstants[t + 6] + w[t + 6]);
    round(b, c, d, e, f, g, h, a, kRoundConstants[t + 7] + w[t + 7]);
  }
  const State v = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) state[i] += v[i];
}

#if defined(__x86_64__)
/// compress() for `count` consecutive blocks with the x86 SHA extensions: each sha256rnds2 does
/// two rounds on the state kept as the (a, b, e, f) and (c, d, g, h) halves the instruction takes,
/// and sha256msg1/msg2 extend the message schedule four words at a time.
__attribute__((target("sha,sse4.1,ssse3"))) void compress_sha_ni(State& state, const unsigned char* blocks,
                                                                 std::size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  const __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0]));
  const __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4]));
  const __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (; count > 0; --count, blocks += 64) {
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];  // w[i % 4] holds schedule words 4i .. 4i+3
    for (int i = 0; i < 16; ++i) {
      if (i < 4) {
        w[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * i)), byte_swap);
      } else {
        const __m128i w7 = _mm_alignr_epi8(w[(i + 3) % 4], w[(i + 2) % 4], 4);
        w[i % 4] = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w[i % 4], w[(i + 1) % 4]), w7),
                                        w[(i + 3) % 4]);
      }
      const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&kRoundConstants[4 * i]));
      const __m128i k_plus_w = _mm_add_epi32(w[i % 4], k);
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k_plus_w);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k_plus_w, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), _mm_alignr_epi8(dchg, feba, 8));
}

/// The CPU has the SHA extensions and the SSE4.1 and SSSE3 instructions compress_sha_ni uses
/// (CPUID leaf 7 EBX bit 29; leaf 1 ECX bits 19 and 9).
bool cpu_has_sha_ni() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19)) || !(c & (1u << 9))) return false;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}
#endif

/// Folds `count` consecutive 64-byte blocks into `state`, with the SHA extensions when `fast` and
/// the CPU has them.
void compress_blocks(State& state, const unsigned char* blocks, std::size_t count, bool fast) {
#if defined(__x86_64__)
  static const bool has_sha_ni = cpu_has_sha_ni();
  if (fast && has_sha_ni) return compress_sha_ni(state, blocks, count);
#endif
  for (std::size_t i = 0; i < count; ++i) compress(state, blocks + 64 * i);
}

/// The padded last block or two (section 5.1.1): the tail of the data, 0x80, zeros and the
/// message length in bits, big-endian. Returns how many of the 128 bytes are used (64 or 128).
std::size_t pad_tail(std::string_view tail, std::uint64_t total_bytes, unsigned char (&out)[128]) {
  std::memset(out, 0, sizeof out);
  std::memcpy(out, tail.data(), tail.size());
  out[tail.size()] = 0x80;
  const std::size_t used = tail.size() + 1 + 8 <= 64 ? 64 : 128;
  const std::uint64_t bits = total_bytes * 8;
  for (int i = 0; i < 8; ++i) out[used - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  return used;
}

std::string to_hex(const State& state) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(64);
  for (std::uint32_t word : state) {
    for (int shift = 28; shift >= 0; shift -= 4) hex += kHex[(word >> shift) & 0xF];
  }
  return hex;
}

/// The digest of `data`; `fast` allows the SHA extensions.
std::string digest_hex(std::string_view data, bool fast) {
  State state = kInitialState;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  compress_blocks(state, bytes, data.size() / 64, fast);
  unsigned char tail[128];
  const std::size_t whole = data.size() / 64 * 64;
  const std::size_t used = pad_tail(data.substr(whole), data.size(), tail);
  compress_blocks(state, tail, used / 64, fast);
  return to_hex(state);
}

}  // namespace

std::string sha256_hex(std::string_view data) { return digest_hex(data, true); }

std::string sha256_hex_portable(std::string_view data) { return digest_hex(data, false); }

}  // namespace attractor
