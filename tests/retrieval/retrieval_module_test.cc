// The retrieval module loader: where it looks, the errors when the module is missing, broken or
// from another build, and calls (exceptions included) across the boundary into the real module.

#include "retrieval/retrieval_module.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/base/log.h"
#include "support/temp_dir.h"

namespace attractor::retrieval {
namespace {

namespace fs = std::filesystem;

/// The error `load(candidates)` throws (fails the test when it does not throw).
RetrievalModuleError load_error(const std::vector<fs::path>& candidates) {
  try {
    RetrievalModule::load(candidates);
  } catch (const RetrievalModuleError& e) {
    return e;
  }
  ADD_FAILURE() << "load did not throw";
  return RetrievalModuleError("");
}

TEST(RetrievalModuleTest, LooksBesideTheExecutableThenInLibAttractor) {
  EXPECT_EQ(retrieval_module_candidates("/opt/attractor/bin/attractor"),
            (std::vector<fs::path>{"/opt/attractor/bin/libattractor_retrieval.so",
                                   "/opt/attractor/lib/attractor/libattractor_retrieval.so"}));
  EXPECT_EQ(retrieval_module_candidates("/work/build/attractor"),
            (std::vector<fs::path>{"/work/build/libattractor_retrieval.so",
                                   "/work/lib/attractor/libattractor_retrieval.so"}));
}

TEST(RetrievalModuleTest, MissingModuleNamesEveryPathSearchedAndTheFix) {
  testing::TempDir dir;
  const std::vector<fs::path> candidates = retrieval_module_candidates(dir.path() / "bin" / "attractor");
  RetrievalModuleError e = load_error(candidates);
  EXPECT_EQ(e.kind(), RetrievalError::Kind::kUnavailable);
  const std::string message = e.what();
  EXPECT_NE(message.find("the retrieval module libattractor_retrieval.so is missing"), std::string::npos) << message;
  for (const auto& c : candidates) EXPECT_NE(message.find(c.string()), std::string::npos) << message;
  EXPECT_NE(message.find("attractor_retrieval_module target"), std::string::npos) << message;
  EXPECT_NE(message.find("cmake --install"), std::string::npos) << message;
}

TEST(RetrievalModuleTest, AFileThatIsNotASharedObjectIsRefusedWithTheLoaderMessage) {
  testing::TempDir dir;
  const fs::path bogus = dir.path() / "libattractor_retrieval.so";
  std::ofstream(bogus) << "not an ELF file\n";
  const std::string message = load_error({bogus, "/nonexistent/libattractor_retrieval.so"}).what();
  EXPECT_NE(message.find("cannot load the retrieval module " + bogus.string()), std::string::npos) << message;
}

TEST(RetrievalModuleTest, AModuleWithAnotherAbiVersionIsRefusedBeforeAnyCall) {
  const std::string message = load_error({ATTRACTOR_WRONG_ABI_MODULE}).what();
  EXPECT_NE(message.find(std::string(ATTRACTOR_WRONG_ABI_MODULE) +
                         " is a retrieval module for another attractor build (ABI version 999, this attractor needs " +
                         std::to_string(kRetrievalModuleAbiVersion) + ")"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("rebuild or reinstall it"), std::string::npos) << message;
}

TEST(RetrievalModuleTest, TheFirstExistingCandidateIsLoadedAndTheRestIgnored) {
  RetrievalModule module = RetrievalModule::load(
      {"/nonexistent/libattractor_retrieval.so", ATTRACTOR_RETRIEVAL_MODULE});
  EXPECT_EQ(module.path(), fs::path(ATTRACTOR_RETRIEVAL_MODULE));
  // A broken first candidate is reported, not skipped in favour of a later one.
  EXPECT_NE(
      std::string(load_error({ATTRACTOR_WRONG_ABI_MODULE, ATTRACTOR_RETRIEVAL_MODULE}).what()).find("ABI version 999"),
      std::string::npos);
}

TEST(RetrievalModuleTest, ErrorsThrownInsideTheModuleReachTheCallerWithTheirKind) {
  RetrievalModule module = RetrievalModule::load({ATTRACTOR_RETRIEVAL_MODULE});
  try {
    module.make_backend("remote", "/nonexistent");
    FAIL() << "no exception";
  } catch (const RetrievalError& e) {
    EXPECT_EQ(e.kind(), RetrievalError::Kind::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("unknown retrieval backend 'remote'"), std::string::npos) << e.what();
  }
  testing::TempDir dir;
  try {
    module.make_backend("local", (dir.path() / "no-index").string());
    FAIL() << "no exception";
  } catch (const RetrievalError& e) {
    EXPECT_EQ(e.kind(), RetrievalError::Kind::kUnavailable) << e.what();
  }
}

/// Indexing tests/data/csharp_sql_repo (30 files) as acme/main into `index_dir`.
IndexOptions fixture_repository(const std::string& index_dir) {
  IndexOptions o;
  o.src_dir = std::string(ATTRACTOR_SOURCE_DIR) + "/tests/data/csharp_sql_repo";
  o.index_dir = index_dir;
  o.repository = "acme";
  o.branch = "main";
  return o;
}

TEST(RetrievalModuleTest, IndexesAndSearchesThroughTheModule) {
  RetrievalModule module = RetrievalModule::load({ATTRACTOR_RETRIEVAL_MODULE});
  testing::TempDir dir;
  IndexSummary summary = module.index_repository(fixture_repository(dir.str()), nullptr, false);
  EXPECT_EQ(summary.files_seen, 30);
  auto backend = module.make_backend("local", dir.str());
  SearchRequest request;
  request.query = "get meeting by id";
  request.repository = "acme";
  request.branch = "main";
  EXPECT_FALSE(backend->search(request).hits.empty());
}

TEST(RetrievalModuleTest, TheModuleLogsThroughTheCallersLogger) {
  // The module links its own copy of spdlog; what it logs must still reach this process's sinks
  // (a run's run.log, the console level), which the loader hands it through adopt_log.
  std::vector<std::string> lines;
  RetrievalModule module = RetrievalModule::load({ATTRACTOR_RETRIEVAL_MODULE});
  testing::TempDir dir;
  {
    LogFile file([&lines](std::string_view line) { lines.emplace_back(line); });
    module.index_repository(fixture_repository(dir.str()), nullptr, false);
  }
  const std::string expected = "[info] index " + dir.str() + ": 30 files indexed, 0 unchanged, 0 removed";
  const auto found = std::count_if(lines.begin(), lines.end(),
                                   [&](const std::string& line) { return line.find(expected) != std::string::npos; });
  EXPECT_EQ(found, 1) << ::testing::PrintToString(lines);
}

}  // namespace
}  // namespace attractor::retrieval
