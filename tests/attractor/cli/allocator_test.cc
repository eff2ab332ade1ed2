// The attractor binary allocates with jemalloc linked from its archive (CMakeLists.txt,
// ATTRACTOR_JEMALLOC; docs/decisions.md "The binary allocates with jemalloc"). Sanitizer builds
// keep their own allocator, and these tests skip there.

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/hardening_support.h"

namespace attractor {
namespace {

using hardening::ProcessOptions;
using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::run_program;

#ifdef ATTRACTOR_WITH_JEMALLOC
constexpr bool kWithJemalloc = true;
#else
constexpr bool kWithJemalloc = false;
#endif

TEST(AllocatorTest, TheBinaryAllocatesWithJemalloc) {
  if (!kWithJemalloc) GTEST_SKIP() << "built without jemalloc (sanitizer build or ATTRACTOR_JEMALLOC=OFF)";
  // Only jemalloc reads MALLOC_CONF; `stats_print` makes it report on stderr at exit.
  ProcessOptions options;
  options.env = {"MALLOC_CONF=stats_print:true"};
  ProcessResult r = run_attractor({"--version"}, options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Begin jemalloc statistics"), std::string::npos) << r.err.substr(0, 400);
}

TEST(AllocatorTest, JemallocIsLinkedInNotLoaded) {
  if (!kWithJemalloc) GTEST_SKIP() << "built without jemalloc (sanitizer build or ATTRACTOR_JEMALLOC=OFF)";
  ProcessResult needed = run_program({"readelf", "-d", "-W", ATTRACTOR_BINARY_PATH});
  ASSERT_EQ(needed.exit_code, 0) << needed.err;
  EXPECT_EQ(needed.out.find("jemalloc"), std::string::npos) << needed.out;
  // Exported, so the libraries and modules the binary loads allocate from the same heap.
  ProcessResult symbols = run_program({"nm", "-D", "--defined-only", ATTRACTOR_BINARY_PATH});
  ASSERT_EQ(symbols.exit_code, 0) << symbols.err;
  for (const char* name : {" T malloc\n", " T free\n", " T realloc\n", " T _Znwm\n", " T _ZdlPvm\n"}) {
    EXPECT_NE(symbols.out.find(name), std::string::npos) << "not exported:" << name;
  }
}

TEST(AllocatorTest, ARunWithTheRetrievalModuleSharesTheHeap) {
  if (!kWithJemalloc) GTEST_SKIP() << "built without jemalloc (sanitizer build or ATTRACTOR_JEMALLOC=OFF)";
  // The module's allocations go through the binary's malloc: with jemalloc's junk filling on, a
  // block freed by the other allocator would crash or corrupt; the index must build cleanly.
  const std::filesystem::path index = std::filesystem::path(::testing::TempDir()) / "allocator_test_index";
  std::filesystem::remove_all(index);
  ProcessOptions options;
  options.env = {"MALLOC_CONF=junk:true"};
  ProcessResult r = run_attractor({"index", std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo", "--index",
                                   index.string(), "--repository", "r", "--branch", "b", "-q"},
                                  options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("30 indexed"), std::string::npos) << r.out;
  std::filesystem::remove_all(index);
}

}  // namespace
}  // namespace attractor
