#pragma once
// A stage environment for calling handlers directly, in a temporary run directory.

#include <filesystem>
#include <random>
#include <string>

#include <fmt/format.h>

#include "attractor/engine/handler.h"

namespace attractor::testing {

class StageFixture {
 public:
  StageFixture() {
    std::random_device rd;
    root_ = (std::filesystem::temp_directory_path() / fmt::format("attractor-h-{:08x}{:08x}", rd(), rd())).string();
    std::filesystem::create_directories(root_);
  }
  ~StageFixture() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  /// An env whose stage directory `{root}/{node_id}` exists.
  StageEnv env(const std::string& node_id) {
    StageEnv e;
    e.run_dir = root_;
    e.stage_dir = root_ + "/" + node_id;
    std::filesystem::create_directories(e.stage_dir);
    e.clock = &clock;
    e.events = &events;
    return e;
  }
  const std::string& root() const { return root_; }

  FakeClock clock;
  RecordingObserver events;

 private:
  std::string root_;
};

}  // namespace attractor::testing
