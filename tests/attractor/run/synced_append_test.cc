// The checkpoint journal's file: appended to durably, record by record. On the real disk it stays
// open between records, so it must keep working when the journal is emptied in place, and a
// disk that keeps nothing open gets each record through append_synced.

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/memory_run_disk.h"
#include "attractor/run/posix_run_disk.h"
#include "support/temp_dir.h"

namespace attractor {
namespace {

TEST(SyncedAppendTest, TheRealFileIsCreatedAtTheFirstRecordAndKeptOpen) {
  retrieval::testing::TempDir dir;
  const std::string path = dir.str() + "/checkpoint.journal";
  std::unique_ptr<SyncedAppendFile> file = posix_run_disk().open_synced_append(path);
  EXPECT_FALSE(posix_run_disk().exists(path));
  file->append("1 first\n");
  file->append("2 second\n");
  EXPECT_EQ(posix_run_disk().read_file(path), "1 first\n2 second\n");
}

TEST(SyncedAppendTest, AnOpenFileGoesOnAtTheEndOfAJournalEmptiedInPlace) {
  retrieval::testing::TempDir dir;
  const std::string path = dir.str() + "/checkpoint.journal";
  std::unique_ptr<SyncedAppendFile> file = posix_run_disk().open_synced_append(path);
  file->append("1 folded into a snapshot\n");
  posix_run_disk().write_file(path, "");
  file->append("2 after the snapshot\n");
  EXPECT_EQ(posix_run_disk().read_file(path), "2 after the snapshot\n");
}

TEST(SyncedAppendTest, AFileInAMissingDirectoryNamesItself) {
  retrieval::testing::TempDir dir;
  const std::string path = dir.str() + "/gone/checkpoint.journal";
  std::unique_ptr<SyncedAppendFile> file = posix_run_disk().open_synced_append(path);
  try {
    file->append("1\n");
    FAIL() << "appended into a missing directory";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot append " + path + ": No such file or directory");
  }
}

/// Counts the records a disk without open files receives through append_synced.
class CountingDisk : public MemoryRunDisk {
 public:
  void append_synced(const std::string& path, std::string_view data) override {
    records.emplace_back(data);
    MemoryRunDisk::append_synced(path, data);
  }
  std::vector<std::string> records;
};

TEST(SyncedAppendTest, ADiskThatKeepsNothingOpenGetsEachRecordThroughAppendSynced) {
  CountingDisk disk;
  ASSERT_FALSE(disk.make_directories("/run"));
  std::unique_ptr<SyncedAppendFile> file = disk.open_synced_append("/run/checkpoint.journal");
  file->append("1\n");
  file->append("2\n");
  EXPECT_EQ(disk.records, (std::vector<std::string>{"1\n", "2\n"}));
  EXPECT_EQ(disk.read_file("/run/checkpoint.journal"), "1\n2\n");
}

}  // namespace
}  // namespace attractor
