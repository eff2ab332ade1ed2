// The generic module loader: the lookup rule and the error texts, with a made-up module. The real
// modules are loaded in tests/retrieval/retrieval_module_test.cc and tests/http/http_module_test.cc.

#include "attractor/base/module_loader.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace attractor {
namespace {

namespace fs = std::filesystem;

ModuleSpec test_spec() {
  return {"test module", "a test module", "libattractor_test.so", "attractor_test_module", "build it", 7, 42};
}

std::string load_error(const std::vector<fs::path>& candidates) {
  try {
    load_module(candidates, test_spec());
  } catch (const ModuleLoadError& e) {
    return e.what();
  }
  ADD_FAILURE() << "load_module did not throw";
  return "";
}

TEST(ModuleLoaderTest, CandidatesAreBesideTheExecutableThenInLibAttractor) {
  EXPECT_EQ(module_candidates("/usr/local/bin/attractor", "libx.so"),
            (std::vector<fs::path>{"/usr/local/bin/libx.so", "/usr/local/lib/attractor/libx.so"}));
  const std::vector<fs::path> own = module_candidates_of_this_process(test_spec());
  ASSERT_EQ(own.size(), 2u);
  EXPECT_EQ(own[0], fs::read_symlink("/proc/self/exe").parent_path() / "libattractor_test.so");
}

TEST(ModuleLoaderTest, TheLayoutFingerprintDependsOnEverySizeAndItsOrder) {
  EXPECT_EQ(module_layout({8, 16}), module_layout({8, 16}));
  EXPECT_NE(module_layout({8, 16}), module_layout({8, 24}));
  EXPECT_NE(module_layout({8, 16}), module_layout({16, 8}));
}

TEST(ModuleLoaderTest, NoCandidateExists) {
  EXPECT_EQ(load_error({"/nonexistent/a/libattractor_test.so", "/nonexistent/b/libattractor_test.so"}),
            "the test module libattractor_test.so is missing (searched /nonexistent/a/libattractor_test.so, "
            "/nonexistent/b/libattractor_test.so); build it");
}

TEST(ModuleLoaderTest, TheFirstExistingCandidateFailsWithoutTryingTheNext) {
  const fs::path bogus = fs::temp_directory_path() / ("attractor-module-test-" + std::to_string(getpid()) + ".so");
  std::ofstream(bogus) << "not an ELF file\n";
  const std::string message = load_error({"/nonexistent/libattractor_test.so", bogus, "/proc/self/exe"});
  fs::remove(bogus);
  EXPECT_EQ(message.rfind("cannot load the test module " + bogus.string() + ": ", 0), 0u) << message;
  EXPECT_EQ(message.substr(message.size() - 10), "; build it") << message;
}

}  // namespace
}  // namespace attractor
