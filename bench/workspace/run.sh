#!/usr/bin/env bash
# bench/workspace/run.sh [BINARY] — what a worktree run costs per stage (docs/workspace.md).
#
# Makes a git repository of FILES tracked files (default 1000) in a temporary directory and a
# linear pipeline of N tool stages (default 1000), stage i rewriting one file (files/f<i mod
# FILES>.txt) with `printf`. Runs it with `attractor run -q --sandbox none` in the repository,
# `--workspace in-place` and `--workspace worktree` alternating over R rounds (default 3), and
# prints the median wall time per stage of each, their ratio, and the commit cost per stage
# (worktree minus in-place). SIZES (default "100 N") repeats it for each pipeline length, to show
# how the cost grows with the run. Each round starts from a fresh copy of the repository. Nothing is
# deleted until the end: on ext4 without a journal, creating a file skips every inode deleted in
# the last minutes, so removing one run's files would slow the file creations of the next.
# Example: N=1000 R=3 FILES=1000 bench/workspace/run.sh build/attractor
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-build/attractor}
stages=${N:-1000}
rounds=${R:-3}
files=${FILES:-1000}
sizes=${SIZES:-"100 $stages"}
[ -x "$binary" ] || { echo "run.sh: $binary: no such binary (build it: make binary)" >&2; exit 2; }
command -v git >/dev/null || { echo "run.sh: git missing; apt-get install git" >&2; exit 3; }
python3 - "$(realpath "$binary")" "$rounds" "$files" $sizes <<'PY'
import os, shutil, statistics, subprocess, sys, tempfile, time

binary, rounds, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sizes = [int(s) for s in sys.argv[4:]]
work = tempfile.mkdtemp(prefix="attractor-workspace-bench-")
env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")

def git(repo, *args):
    subprocess.run(["git", "-C", repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost", *args],
                   check=True, env=env, stdout=subprocess.DEVNULL)

def make_repo(path):
    os.makedirs(os.path.join(path, "files"))
    for i in range(files):
        with open(os.path.join(path, "files", f"f{i}.txt"), "w") as f:
            f.write(f"file {i}\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "base")

def make_graph(n):
    path = os.path.join(work, f"edits{n}.dot")
    with open(path, "w") as f:
        f.write("digraph edits {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n")
        for i in range(n):
            f.write(f"  s{i} [shape=parallelogram, tool_command=\"printf 'stage {i}\\\\n' > files/f{i % files}.txt\"]\n")
        f.write("  start -> " + " -> ".join(f"s{i}" for i in range(n)) + " -> exit\n}\n")
    return path

template = os.path.join(work, "template")
make_repo(template)

def once(mode, graph, n, r):
    repo = os.path.join(work, f"repo-{mode}-{n}-{r}")
    shutil.copytree(template, repo, symlinks=True)
    logs = os.path.join(work, f"run-{mode}-{n}-{r}")
    start = time.perf_counter()
    p = subprocess.run([binary, "run", graph, "-q", "--sandbox", "none", "--workspace", mode, "--logs-root", logs],
                       cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = (time.perf_counter() - start) * 1000
    if p.returncode != 0:
        sys.exit(f"run.sh: {mode} run failed (exit {p.returncode}): {p.stderr.decode()[-500:]}")
    if mode == "worktree":
        count = subprocess.run(["git", "-C", repo, "rev-list", "--count", "--branches=attractor/*", "^main"],
                               check=True, capture_output=True, text=True).stdout.strip()
        if int(count) != n:
            sys.exit(f"run.sh: the worktree run made {count} commits, not {n}")
    return elapsed / n

print(f"tool stages each rewriting one file of a {files}-file repository, {rounds} rounds, median of the rounds")
print(f"{'stages':>7}{'in-place ms/stage':>19}{'worktree ms/stage':>19}{'ratio':>8}{'commit ms/stage':>17}")
for n in sizes:
    graph = make_graph(n)
    samples = {"in-place": [], "worktree": []}
    for r in range(rounds):
        for mode in samples:
            samples[mode].append(once(mode, graph, n, r))
    a, b = statistics.median(samples["in-place"]), statistics.median(samples["worktree"])
    print(f"{n:>7}{a:>19.2f}{b:>19.2f}{b / a:>8.2f}{b - a:>17.2f}")
shutil.rmtree(work, ignore_errors=True)
PY
