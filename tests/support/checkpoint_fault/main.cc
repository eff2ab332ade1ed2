// attractor_checkpoint_fault kill|term|fail|kill-compaction|fail-write:PATH|kill-after:PATH N COMMAND ARGS...
//
// Runs `attractor COMMAND ARGS...` on a disk that acts at the N-th checkpoint of the process
// (support/checkpoint_hook_disk.h): `kill` SIGKILLs the process once that checkpoint (a snapshot
// renamed into place or a journal record appended, and synced) is durable, a crash at a real node
// boundary while the engine may already compute the next stage; `fail` makes that checkpoint's
// write fail like a full disk; `term` sends the process SIGTERM there (as a Ctrl-C or a service
// manager would, at a node boundary or after the last checkpoint); `kill-compaction` SIGKILLs it inside the N-th
// compaction, after the new snapshot is in place and before the journal it folded is emptied; `fail-write:PATH` makes
// the N-th write of a file whose path ends with /PATH (a stage file, e.g. `work/prompt.md`) fail like a full disk;
// `kill-after:PATH` SIGKILLs the process once the N-th write or rename onto a path ending with /PATH is done (a
// rewind's `rewind.json` or `checkpoint.json`, a fork's `fork.json`). The
// kill-and-resume and disk-failure tests run this executable, so the production binary carries no test hook.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <cstdlib>
#include <string>
#include <vector>

#include "attractor/cli/cli.h"
#include "support/checkpoint_hook_disk.h"

int main(int argc, char** argv) {
  const std::string mode = argc > 3 ? argv[1] : "";
  const long n = argc > 3 ? std::atol(argv[2]) : 0;
  const std::string write_prefix = "fail-write:";
  const bool fail_write = mode.starts_with(write_prefix) && mode.size() > write_prefix.size();
  const std::string kill_prefix = "kill-after:";
  const bool kill_after = mode.starts_with(kill_prefix) && mode.size() > kill_prefix.size();
  if ((mode != "kill" && mode != "term" && mode != "fail" && mode != "kill-compaction" && !fail_write && !kill_after) ||
      n <= 0) {
    std::fprintf(stderr,
                 "usage: attractor_checkpoint_fault kill|term|fail|kill-compaction|fail-write:PATH|kill-after:PATH N "
                 "COMMAND ARGS...\n");
    return 2;
  }
  attractor::testing::CheckpointHookDisk disk;
  if (kill_after) {
    disk.after_write = [suffix = "/" + mode.substr(kill_prefix.size()), n,
                        seen = std::make_shared<std::atomic<long>>(0)](const std::string& path) {
      if (path.ends_with(suffix) && ++*seen == n) ::kill(::getpid(), SIGKILL);
    };
  } else if (fail_write) {
    disk.fail_write_path = mode.substr(write_prefix.size());
    disk.fail_write = n;
  } else if (mode == "kill" || mode == "term") {
    const int sig = mode == "kill" ? SIGKILL : SIGTERM;
    disk.after_checkpoint = [n, sig](std::int64_t written) {
      if (written == n) ::kill(::getpid(), sig);
    };
  } else if (mode == "kill-compaction") {
    disk.before_journal_emptied = [n](std::int64_t emptying) {
      if (emptying == n) ::kill(::getpid(), SIGKILL);
    };
  } else {
    disk.fail_checkpoint = n;
  }
  std::vector<char*> args = {argv[0]};
  args.insert(args.end(), argv + 3, argv + argc);
  args.push_back(nullptr);
  return attractor::run_cli(static_cast<int>(args.size() - 1), args.data(), disk);
}
