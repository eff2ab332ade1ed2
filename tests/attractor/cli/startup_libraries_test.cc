// Start-up cost: the attractor binary (and this test binary, which links the whole CLI) must not
// load the code index's libraries at start-up. SQLite, FAISS, BLAS/LAPACK and OpenMP belong to
// libattractor_retrieval.so, which is dlopened on first use (retrieval/retrieval_module.h).

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/hardening_support.h"

namespace attractor {
namespace {

using hardening::ProcessResult;
using hardening::run_program;

const std::vector<std::string> kRetrievalLibraries = {"libsqlite3", "libfaiss", "libblas", "liblapack",
                                                      "libopenblas", "libgomp", "libgfortran", "libtree-sitter"};

/// The DT_NEEDED entries of the ELF file at `path`, as `readelf -d` prints them.
std::vector<std::string> needed_libraries(const std::string& path) {
  ProcessResult r = run_program({"readelf", "-d", "-W", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> needed;
  const std::string marker = "(NEEDED)";
  for (size_t at = r.out.find(marker); at != std::string::npos; at = r.out.find(marker, at + 1)) {
    const size_t open = r.out.find('[', at), close = r.out.find(']', at);
    if (open != std::string::npos && close != std::string::npos) needed.push_back(r.out.substr(open + 1, close - open - 1));
  }
  return needed;
}

void expect_no_retrieval_libraries(const std::string& path) {
  const std::vector<std::string> needed = needed_libraries(path);
  ASSERT_FALSE(needed.empty()) << path;
  for (const auto& lib : needed) {
    for (const auto& heavy : kRetrievalLibraries) {
      EXPECT_NE(lib.rfind(heavy, 0), 0u) << path << " needs " << lib << " at start-up";
    }
  }
}

TEST(StartupLibrariesTest, TheBinaryDoesNotNeedTheRetrievalLibraries) {
  expect_no_retrieval_libraries(ATTRACTOR_BINARY_PATH);
}

TEST(StartupLibrariesTest, TheCliTestBinaryDoesNotNeedThemEither) { expect_no_retrieval_libraries("/proc/self/exe"); }

TEST(StartupLibrariesTest, TheRetrievalModuleNeedsThem) {
  const std::string module = std::filesystem::path(ATTRACTOR_BINARY_PATH).parent_path() / "libattractor_retrieval.so";
  const std::vector<std::string> needed = needed_libraries(module);
  auto has = [&](const std::string& prefix) {
    for (const auto& lib : needed) {
      if (lib.rfind(prefix, 0) == 0) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("libsqlite3")) << module;
  EXPECT_TRUE(has("libblas") || has("libopenblas")) << module;
}

}  // namespace
}  // namespace attractor
