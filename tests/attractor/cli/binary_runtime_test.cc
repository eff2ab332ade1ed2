// The runtime the attractor binary carries (CMakeLists.txt; docs/decisions.md "The binary
// allocates with jemalloc" and "The binary links libstdc++ statically"): jemalloc linked in and
// exported, its own copy of libstdc++, and the shared libgcc_s. The modules it loads bring the
// shared libstdc++ with FAISS or cpp-httplib, so values, output streams and exceptions cross
// between two copies of the C++ runtime; these tests drive each crossing through the real binary.
// Sanitizer builds keep the C library's allocator and the shared libstdc++, and skip what needs them.

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ProcessOptions;
using hardening::ProcessResult;
using hardening::run_attractor;
using hardening::run_program;

#ifdef ATTRACTOR_WITH_JEMALLOC
constexpr bool kWithJemalloc = true;
#else
constexpr bool kWithJemalloc = false;
#endif
#ifdef ATTRACTOR_WITH_STATIC_LIBSTDCXX
constexpr bool kWithStaticLibstdcxx = true;
#else
constexpr bool kWithStaticLibstdcxx = false;
#endif

std::string dynamic_section() {
  ProcessResult r = run_program({"readelf", "-d", "-W", ATTRACTOR_BINARY_PATH});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

/// A fresh index of tests/data/csharp_sql_repo in a temporary directory.
class BinaryRuntimeIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_ = fs::path(::testing::TempDir()) / ("binary_runtime_" + std::to_string(::getpid()));
    fs::remove_all(index_);
  }
  void TearDown() override { fs::remove_all(index_); }

  ProcessResult index(const ProcessOptions& options, bool quiet) {
    std::vector<std::string> args = {"index",        std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo",
                                     "--index",      index_.string(),
                                     "--repository", "r",
                                     "--branch",     "b"};
    if (quiet) args.push_back("-q");
    return run_attractor(args, options);
  }

  fs::path index_;
};

TEST(BinaryRuntimeTest, TheBinaryAllocatesWithJemalloc) {
  if (!kWithJemalloc) GTEST_SKIP() << "built without jemalloc (sanitizer build or ATTRACTOR_JEMALLOC=OFF)";
  // Only jemalloc reads MALLOC_CONF; `stats_print` makes it report on stderr at exit.
  ProcessOptions options;
  options.env = {"MALLOC_CONF=stats_print:true"};
  ProcessResult r = run_attractor({"--version"}, options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Begin jemalloc statistics"), std::string::npos) << r.err.substr(0, 400);
  // The binary's built-in option (main.cc): one arena for all threads.
  EXPECT_NE(r.err.find("opt.narenas: 1\n"), std::string::npos);
}

TEST(BinaryRuntimeTest, JemallocIsLinkedInAndExported) {
  if (!kWithJemalloc) GTEST_SKIP() << "built without jemalloc (sanitizer build or ATTRACTOR_JEMALLOC=OFF)";
  EXPECT_EQ(dynamic_section().find("jemalloc"), std::string::npos);
  // Exported, so the C library and the modules' libstdc++ allocate from the same heap.
  ProcessResult symbols = run_program({"nm", "-D", "--defined-only", ATTRACTOR_BINARY_PATH});
  ASSERT_EQ(symbols.exit_code, 0) << symbols.err;
  for (const char* name : {" T malloc\n", " T free\n", " T realloc\n", " T calloc\n", " T posix_memalign\n",
                           " T aligned_alloc\n", " T malloc_usable_size\n"}) {
    EXPECT_NE(symbols.out.find(name), std::string::npos) << "not exported:" << name;
  }
}

TEST(BinaryRuntimeTest, LibstdcxxIsLinkedInAndTheUnwinderShared) {
  if (!kWithStaticLibstdcxx) GTEST_SKIP() << "built with the shared libstdc++ (sanitizer build or option off)";
  const std::string needed = dynamic_section();
  EXPECT_EQ(needed.find("[libstdc++"), std::string::npos) << needed;
  EXPECT_NE(needed.find("[libgcc_s.so.1]"), std::string::npos) << needed;
}

TEST_F(BinaryRuntimeIndexTest, TheRetrievalModuleWritesProgressAndAllocatesThroughTheBinary) {
  // Junk filling makes a block freed by another allocator than the one that made it fail loudly;
  // without -q the module writes its progress to a stream the binary made.
  ProcessOptions options;
  if (kWithJemalloc) options.env = {"MALLOC_CONF=junk:true"};
  ProcessResult r = index(options, false);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("30 indexed"), std::string::npos) << r.out;
}

TEST_F(BinaryRuntimeIndexTest, AnErrorThrownInTheModuleIsCaughtByTypeInTheBinary) {
  ASSERT_EQ(index({}, true).exit_code, 0);
  // RetrievalError thrown by the module's search, caught in the binary: exit 3 with its message.
  ProcessResult missing = run_attractor(
      {"search", "--index", index_.string(), "--repository", "nope", "--branch", "b", "customer"});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_NE(missing.err.find("no index for repository 'nope' branch 'b'"), std::string::npos) << missing.err;
  // FAISS throws inside the module (through the shared libstdc++); the module turns it into a
  // RetrievalError that the binary catches.
  std::ofstream(index_ / "default.faiss", std::ios::trunc) << "garbage";
  ProcessResult corrupt = run_attractor(
      {"search", "--index", index_.string(), "--repository", "r", "--branch", "b", "--type", "semantic", "customer"});
  EXPECT_EQ(corrupt.exit_code, 3) << corrupt.err;
  EXPECT_NE(corrupt.err.find("cannot read vector index"), std::string::npos) << corrupt.err;
  // The lexical half of the index is untouched and still answers.
  ProcessResult ok = run_attractor(
      {"search", "--index", index_.string(), "--repository", "r", "--branch", "b", "--type", "bm25", "customer"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
}  // namespace attractor
