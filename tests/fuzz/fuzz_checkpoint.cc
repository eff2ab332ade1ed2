// libFuzzer target: checkpoint loading. The input is written as `checkpoint.json` of a scratch run
// directory and loaded with load_checkpoint; the only allowed failure is std::runtime_error. The
// text of a loaded checkpoint (Checkpoint::to_text, the one serializer) must be the compact,
// key-ordered document nlohmann::json::dump() writes, must load back to the same text, and a
// writer that serialized it must give a fresh writer's bytes for the grown checkpoint too.
// tests/attractor/run/checkpoint_test.cc checks the same on random runs in the normal suite.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "attractor/run/checkpoint.h"

namespace {

const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::string path =
        (std::filesystem::temp_directory_path() / ("attractor-fuzz-checkpoint-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(path);
    return path;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attractor;
  const std::string file = scratch_dir() + "/checkpoint.json";
  if (std::FILE* out = std::fopen(file.c_str(), "wb")) {
    if (size > 0) std::fwrite(data, 1, size, out);
    std::fclose(out);
  }
  Checkpoint checkpoint;
  try {
    checkpoint = load_checkpoint(scratch_dir());
  } catch (const std::runtime_error&) {
    return 0;
  }
  const std::string text = checkpoint.to_text();
  const nlohmann::json parsed = nlohmann::json::parse(text);
  if (parsed.dump() != text) __builtin_trap();
  Checkpoint again = Checkpoint::from_json(parsed);
  if (again.to_text() != text) __builtin_trap();
  CheckpointWriter writer;
  if (writer.serialize(checkpoint) != text) __builtin_trap();
  checkpoint.completed_nodes.push_back("extra");
  checkpoint.logs.push_back("extra");
  checkpoint.visit_counts["extra"] = 1;
  if (writer.serialize(checkpoint) != checkpoint.to_text()) __builtin_trap();
  return 0;
}
