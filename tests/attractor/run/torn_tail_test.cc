// RunDisk::cut_torn_tail on the real disk (its own tail-reading version) and through the default
// every other disk inherits (MemoryRunDisk), and the whole-record appends of PosixRunDisk.
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/memory_run_disk.h"
#include "attractor/run/posix_run_disk.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;

void expect_cut(RunDisk& disk, const std::string& dir) {
  const std::string path = dir + "/events.jsonl";
  disk.write_file(path, "{\"a\":1}\n{\"b\":2}\n{\"c\":");
  EXPECT_EQ(disk.cut_torn_tail(path), path + ".torn-16");
  EXPECT_EQ(disk.read_file(path), "{\"a\":1}\n{\"b\":2}\n");
  EXPECT_EQ(disk.read_file(path + ".torn-16"), "{\"c\":");
  EXPECT_EQ(disk.cut_torn_tail(path), "");  // whole lines: nothing to cut
  EXPECT_EQ(disk.cut_torn_tail(dir + "/missing"), "");
  disk.write_file(path, "no newline at all");
  EXPECT_EQ(disk.cut_torn_tail(path), path + ".torn-0");
  EXPECT_EQ(disk.read_file(path), "");
}

TEST(TornTailTest, TheDefaultCutsThroughTheDisksOwnOperations) {
  MemoryRunDisk disk;
  ASSERT_FALSE(disk.make_directories("/run"));
  expect_cut(disk, "/run");
}

TEST(TornTailTest, ThePosixDiskReadsOnlyTheTail) {
  const fs::path dir = fs::temp_directory_path() / ("attractor-torn-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  expect_cut(posix_run_disk(), dir.string());
  // A torn line longer than one read block, after a long file.
  const std::string path = (dir / "big.jsonl").string();
  const std::string whole(200000, 'x');
  const std::string torn(100000, 'y');
  posix_run_disk().write_file(path, whole + "\n" + torn);
  EXPECT_EQ(posix_run_disk().cut_torn_tail(path), path + ".torn-200001");
  EXPECT_EQ(fs::file_size(path), 200001u);
  EXPECT_EQ(posix_run_disk().read_file(path + ".torn-200001"), torn);
  fs::remove_all(dir);
}

TEST(TornTailTest, AnAppendThatFailsPartWayIsUndone) {
  const fs::path dir = fs::temp_directory_path() / ("attractor-append-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "events.jsonl").string();
  std::shared_ptr<AppendFile> file = posix_run_disk().open_append(path);
  ASSERT_TRUE(file);
  file->append("{\"one\":1}\n");
  rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit small{20, old.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  file->append("{\"two\":\"a line that does not fit\"}\n");  // written up to 20 bytes, then undone
  ::setrlimit(RLIMIT_FSIZE, &old);
  file->append("{\"three\":3}\n");
  EXPECT_EQ(posix_run_disk().read_file(path), "{\"one\":1}\n{\"three\":3}\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attractor
