#pragma once
/// \file
/// What changed in a worktree between two commits, from Linux inotify (docs/workspace.md, 2.2),
/// so a stage's commit looks at the files the stage touched instead of `stat`-ing every tracked
/// file. Every directory of the tree but `.git` is watched; the kernel queues an event when a
/// file in one is created, written, removed, moved or has its mode changed, at the moment it
/// happens, so once a stage's processes have ended its events are all queued.
///
/// Whenever the events cannot say everything, the answer is "look at everything" (a full scan):
/// the first answer after the watch was set up, an overflowed queue, a directory moved or removed,
/// a tree whose directories exceed the watches the system allows, no inotify at all.

#include <set>
#include <string>
#include <unordered_map>

namespace attractor {

class ChangeWatch {
 public:
  /// Starts watching the directories under `root`. Never throws: a watch that cannot be set up
  /// makes every `take` answer `everything`.
  explicit ChangeWatch(std::string root);
  ~ChangeWatch();
  ChangeWatch(const ChangeWatch&) = delete;
  ChangeWatch& operator=(const ChangeWatch&) = delete;

  /// What changed since the last `take` or `forget`.
  struct Changes {
    bool everything = false;      ///< the events do not tell: look at the whole tree
    std::set<std::string> paths;  ///< files touched, relative to the root, '/'-separated
  };
  Changes take();
  /// Drops what is queued: after a reset the tree and the index are the commit's, whatever the
  /// events say, so the next `take` tells only what changes after it.
  void forget();

 private:
  /// Sets every watch up again (at the start, and after events that leave watches misnamed).
  void rewatch();
  void watch_tree(const std::string& relative, std::set<std::string>* found);
  void read_events(Changes& changes);

  std::string root_;
  int fd_ = -1;
  bool everything_ = true;                     ///< the next take answers everything
  std::unordered_map<int, std::string> dirs_;  ///< watch descriptor -> directory relative to root ("" = root)
};

}  // namespace attractor
