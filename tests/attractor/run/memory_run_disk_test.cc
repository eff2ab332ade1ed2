// MemoryRunDisk behaves like the real disk where a run can tell: files live in directories that
// exist, atomic writes replace whole files and report when their input is no longer needed,
// appends accumulate, and the errors carry the real disk's messages.

#include "support/memory_run_disk.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "attractor/run/checkpoint.h"
#include "attractor/run/run_directory.h"

namespace attractor {
namespace {

TEST(MemoryRunDiskTest, DirectoriesAreCreatedWithTheirParents) {
  MemoryRunDisk disk;
  EXPECT_FALSE(disk.make_directories("/r/run/a/"));
  EXPECT_TRUE(disk.is_directory("/r/run"));
  EXPECT_TRUE(disk.is_directory("/r/run/a"));
  EXPECT_TRUE(disk.exists("/r"));
  EXPECT_FALSE(disk.make_directories("/r/run/a"));
  disk.write_file("/r/run/f", "x");
  EXPECT_TRUE(disk.make_directories("/r/run/f/g"));
  EXPECT_FALSE(disk.exists("/r/run/f/g"));
}

TEST(MemoryRunDiskTest, AFileNeedsAnExistingDirectory) {
  MemoryRunDisk disk;
  const std::string_view part = "{}";
  try {
    disk.write_file_atomic("/r/checkpoint.json", std::span<const std::string_view>(&part, 1));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot write /r/checkpoint.json.tmp: No such file or directory");
  }
  EXPECT_EQ(disk.open_append("/r/events.jsonl"), nullptr);
  try {
    disk.read_file("/r/checkpoint.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot read /r/checkpoint.json");
  }
}

TEST(MemoryRunDiskTest, AtomicWritesReplaceTheFileAndReleaseTheirParts) {
  MemoryRunDisk disk;
  disk.make_directories("/r");
  std::vector<std::string_view> parts = {"{\"a\":", "1}", "\n"};
  bool released = false;
  disk.write_file_atomic("/r/checkpoint.json", parts, [&] { released = true; });
  EXPECT_TRUE(released);
  disk.write_file_atomic("/r/checkpoint.json", std::vector<std::string_view>{"{}\n"});
  EXPECT_EQ(disk.read_file("/r/./checkpoint.json"), "{}\n");
  EXPECT_FALSE(disk.exists("/r/checkpoint.json.tmp"));
}

TEST(MemoryRunDiskTest, AppendsAccumulateAndRemoveIgnoresMissingFiles) {
  MemoryRunDisk disk;
  disk.make_directories("/r");
  auto events = disk.open_append("/r/events.jsonl");
  ASSERT_NE(events, nullptr);
  EXPECT_EQ(disk.read_file("/r/events.jsonl"), "");
  events->append("one\n");
  disk.open_append("/r/events.jsonl")->append("two\n");
  EXPECT_EQ(disk.read_file("/r/events.jsonl"), "one\ntwo\n");
  disk.remove_file("/r/events.jsonl");
  disk.remove_file("/r/events.jsonl");
  EXPECT_FALSE(disk.exists("/r/events.jsonl"));
}

TEST(MemoryRunDiskTest, TheRunDirectoryHelpersReadAndWriteThroughIt) {
  MemoryRunDisk disk;
  disk.make_directories("/r/run");
  Manifest manifest;
  manifest.name = "g";
  manifest.run_id = "1-abcdef";
  write_manifest(manifest, "/r/run", disk);
  EXPECT_EQ(read_manifest("/r/run", disk).run_id, "1-abcdef");
  EXPECT_EQ(disk.read_file("/r/run/manifest.json"), manifest.to_json().dump(2) + "\n");
  Checkpoint checkpoint;
  checkpoint.run_id = "1-abcdef";
  checkpoint.completed_nodes = {"start"};
  CheckpointWriter writer;
  writer.save(checkpoint, "/r/run", disk);
  EXPECT_EQ(disk.read_file("/r/run/checkpoint.json"), checkpoint.to_json().dump() + "\n");
  EXPECT_EQ(load_checkpoint("/r/run", disk).completed_nodes, checkpoint.completed_nodes);
  try {
    read_manifest("/r/other", disk);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "/r/other is not a directory");
  }
}

}  // namespace
}  // namespace attractor
