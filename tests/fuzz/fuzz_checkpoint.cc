// libFuzzer target: checkpoint loading. The input is written as `checkpoint.json` of a scratch run
// directory and loaded with load_checkpoint; the only allowed failure is std::runtime_error. A loaded
// checkpoint must survive to_json -> from_json unchanged, and the incremental CheckpointWriter
// must produce exactly the bytes of to_json().dump().
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
    std::string path = (std::filesystem::temp_directory_path() / ("attractor-fuzz-checkpoint-" + std::to_string(::getpid()))).string();
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
  const nlohmann::json first = checkpoint.to_json();
  const std::string text = first.dump();
  Checkpoint again = Checkpoint::from_json(nlohmann::json::parse(text));
  if (again.to_json().dump() != text) __builtin_trap();
  CheckpointWriter writer;
  if (writer.serialize(checkpoint) != text) __builtin_trap();
  checkpoint.completed_nodes.push_back("extra");
  checkpoint.logs.push_back("extra");
  checkpoint.visit_counts["extra"] = 1;
  if (writer.serialize(checkpoint) != checkpoint.to_json().dump()) __builtin_trap();
  return 0;
}
