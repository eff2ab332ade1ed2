// Start-up cost: the attractor binary (and this test binary, which links the whole CLI) must not
// load the code index's libraries at start-up. SQLite, FAISS, BLAS/LAPACK and OpenMP belong to
// libattractor_retrieval.so, which is dlopened on first use (retrieval/retrieval_module.h). Nor
// may the binary load the HTTP stack: cpp-httplib, OpenSSL (libssl, libcrypto), zlib and brotli
// belong to libattractor_http.so (http/http_module.h); SHA-256 is our own and zlib's crc32 is
// linked from its archive. (This test binary links cpp-httplib itself, for the fake servers.)

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/hardening_support.h"

namespace attractor {
namespace {

using hardening::ProcessResult;
using hardening::run_program;

const std::vector<std::string> kRetrievalLibraries = {"libsqlite3",  "libfaiss", "libblas",     "liblapack",
                                                      "libopenblas", "libgomp",  "libgfortran", "libtree-sitter"};

const std::vector<std::string> kHttpLibraries = {"libcpp-httplib", "libssl", "libcrypto", "libz.so", "libbrotli"};

/// The DT_NEEDED entries of the ELF file at `path`, as `readelf -d` prints them.
std::vector<std::string> needed_libraries(const std::string& path) {
  ProcessResult r = run_program({"readelf", "-d", "-W", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> needed;
  const std::string marker = "(NEEDED)";
  for (size_t at = r.out.find(marker); at != std::string::npos; at = r.out.find(marker, at + 1)) {
    const size_t open = r.out.find('[', at), close = r.out.find(']', at);
    if (open != std::string::npos && close != std::string::npos)
      needed.push_back(r.out.substr(open + 1, close - open - 1));
  }
  return needed;
}

/// Expects no DT_NEEDED entry of the ELF file at `path` to start with one of `prefixes`.
void expect_none_of(const std::string& path, const std::vector<std::string>& prefixes) {
  const std::vector<std::string> needed = needed_libraries(path);
  ASSERT_FALSE(needed.empty()) << path;
  for (const auto& lib : needed) {
    for (const auto& heavy : prefixes) {
      EXPECT_NE(lib.rfind(heavy, 0), 0u) << path << " needs " << lib << " at start-up";
    }
  }
}

/// The module `file_name` beside the attractor binary needs a library starting with `prefix`.
bool module_needs(const std::string& file_name, const std::string& prefix) {
  const std::string module = std::filesystem::path(ATTRACTOR_BINARY_PATH).parent_path() / file_name;
  for (const auto& lib : needed_libraries(module)) {
    if (lib.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(StartupLibrariesTest, TheBinaryDoesNotNeedTheRetrievalLibraries) {
  expect_none_of(ATTRACTOR_BINARY_PATH, kRetrievalLibraries);
}

TEST(StartupLibrariesTest, TheCliTestBinaryDoesNotNeedThemEither) {
  expect_none_of("/proc/self/exe", kRetrievalLibraries);
}

TEST(StartupLibrariesTest, TheBinaryDoesNotNeedTheHttpLibraries) {
  expect_none_of(ATTRACTOR_BINARY_PATH, kHttpLibraries);
}

TEST(StartupLibrariesTest, TheRetrievalModuleNeedsThem) {
  EXPECT_TRUE(module_needs("libattractor_retrieval.so", "libsqlite3"));
  EXPECT_TRUE(module_needs("libattractor_retrieval.so", "libblas") ||
              module_needs("libattractor_retrieval.so", "libopenblas"));
}

TEST(StartupLibrariesTest, TheHttpModuleNeedsTheHttpLibraries) {
  EXPECT_TRUE(module_needs("libattractor_http.so", "libcpp-httplib"));
}

}  // namespace
}  // namespace attractor
