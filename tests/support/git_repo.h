#pragma once
/// \file
/// Real git repositories in temporary directories for the workspace tests, driven by the `git`
/// command (so the tests check libgit2's work with another implementation of git).

#include <string>
#include <vector>

namespace attractor::testing {

/// A worktree pipeline of tool stages over a repository holding `a.txt` ("hello\n") and
/// `gone.txt`: `edit` appends to a.txt, `look` only reads, `more` adds `src/new.txt` and removes
/// gone.txt.
inline constexpr char kWorktreeEditsGraph[] = R"(digraph edits {
  graph [goal="edit", workspace="worktree"]
  start [shape=Mdiamond]
  edit  [shape=parallelogram, tool_command="printf 'world\n' >> a.txt"]
  look  [shape=parallelogram, tool_command="cat a.txt"]
  more  [shape=parallelogram, tool_command="mkdir -p src && printf 'new\n' > src/new.txt && rm gone.txt"]
  exit  [shape=Msquare]
  start -> edit -> look -> more -> exit
}
)";

/// Runs `git -C dir args...` with a fixed identity and no user or system configuration; returns
/// its stdout. Throws std::runtime_error with its stderr when it exits non-zero.
std::string git(const std::string& dir, const std::vector<std::string>& args);

/// Makes `dir` a repository on branch `main` whose first commit holds `files` (name, content pairs).
void make_repo(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);

/// Every file below `dir` (the `.git` folder or file excepted) with its content, one line each, in
/// name order: equal snapshots mean byte-identical trees.
std::string tree_snapshot(const std::string& dir);

}  // namespace attractor::testing
