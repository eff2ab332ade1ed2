// SHA-256 against the FIPS 180-4 example digests, on both paths (the x86 SHA extensions where the
// CPU has them, and the portable one), across every padding case around the block boundary.

#include "attractor/base/sha256.h"

#include <string>

#include <gtest/gtest.h>

namespace attractor {
namespace {

TEST(Sha256Test, KnownDigests) {
  for (auto* digest : {&sha256_hex, &sha256_hex_portable}) {
    EXPECT_EQ(digest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(digest(std::string(1'000'000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
}

TEST(Sha256Test, BothPathsAgreeAroundTheBlockBoundaries) {
  std::string data;
  for (int n = 0; n < 300; ++n) {
    EXPECT_EQ(sha256_hex(data), sha256_hex_portable(data)) << n << " bytes";
    data += static_cast<char>((n * 131 + 7) & 0xFF);
  }
}

}  // namespace
}  // namespace attractor
