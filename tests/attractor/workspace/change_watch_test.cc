// The change watch of a worktree (attractor/workspace/libgit2/change_watch.h): the files a stage
// touched, on a real directory with real inotify; "everything" whenever the events cannot tell.

#include "attractor/workspace/libgit2/change_watch.h"

#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "support/hardening_support.h"

namespace attractor {
namespace {

namespace fs = std::filesystem;
using hardening::ScratchDir;
using hardening::spit;

class ChangeWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.sub("tree/src/deep"));
    fs::create_directories(dir_.sub("tree/.git"));
    spit(dir_.sub("tree/a.txt"), "a\n");
    spit(dir_.sub("tree/src/deep/b.txt"), "b\n");
  }
  std::string at(const std::string& p) { return dir_.sub("tree/" + p); }
  ScratchDir dir_;
};

TEST_F(ChangeWatchTest, TheFirstAnswerIsEverythingThenOnlyWhatWasTouched) {
  ChangeWatch watch(dir_.sub("tree"));
  EXPECT_TRUE(watch.take().everything);
  EXPECT_TRUE(watch.take().paths.empty()) << "nothing touched since";

  spit(at("a.txt"), "changed\n");
  spit(at("src/deep/new.txt"), "new\n");
  fs::remove(at("src/deep/b.txt"));
  fs::permissions(at("a.txt"), fs::perms::owner_exec, fs::perm_options::add);
  spit(at(".git/index"), "not the tree's");
  ChangeWatch::Changes c = watch.take();
  EXPECT_FALSE(c.everything);
  EXPECT_EQ(c.paths, (std::set<std::string>{"a.txt", "src/deep/b.txt", "src/deep/new.txt"}));
}

TEST_F(ChangeWatchTest, ANewDirectorysFilesAreSeenEvenWhenWrittenBeforeItIsWatched) {
  ChangeWatch watch(dir_.sub("tree"));
  watch.take();
  fs::create_directories(at("made/inner"));
  spit(at("made/inner/x.txt"), "x\n");
  spit(at("made/y.txt"), "y\n");
  ChangeWatch::Changes c = watch.take();
  EXPECT_FALSE(c.everything);
  EXPECT_EQ(c.paths, (std::set<std::string>{"made/inner/x.txt", "made/y.txt"}));
  spit(at("made/inner/x.txt"), "again\n");
  EXPECT_EQ(watch.take().paths, (std::set<std::string>{"made/inner/x.txt"})) << "the new directory is watched";
}

TEST_F(ChangeWatchTest, AMovedOrRemovedDirectoryMeansEverythingAndTheWatchesFollow) {
  ChangeWatch watch(dir_.sub("tree"));
  watch.take();
  fs::rename(at("src"), at("lib"));
  EXPECT_TRUE(watch.take().everything);
  spit(at("lib/deep/b.txt"), "moved\n");
  EXPECT_EQ(watch.take().paths, (std::set<std::string>{"lib/deep/b.txt"})) << "watched under its new name";
  fs::remove_all(at("lib"));
  EXPECT_TRUE(watch.take().everything);
}

TEST_F(ChangeWatchTest, ForgetDropsWhatIsQueued) {
  ChangeWatch watch(dir_.sub("tree"));
  spit(at("a.txt"), "reset wrote this\n");
  watch.forget();
  ChangeWatch::Changes c = watch.take();
  EXPECT_FALSE(c.everything) << "after a reset the tree is known";
  EXPECT_TRUE(c.paths.empty());
}

TEST_F(ChangeWatchTest, AMissingRootAnswersEverythingAlways) {
  ChangeWatch watch(dir_.sub("nowhere"));
  watch.take();
  EXPECT_TRUE(watch.take().everything);
}

}  // namespace
}  // namespace attractor
