#!/usr/bin/env bash
# bench/sandbox/run.sh [BINARY] — per-command cost of the sandbox levels (docs/security.md).
#
# Generates a linear pipeline of N tool stages (default 1000) that each run `true`, and runs it
# with `attractor run -q --sandbox LEVEL` for LEVEL = none, workspace, strict, alternating over
# R rounds (default 3) so every level sees the same machine. Prints, per level, the median wall
# time of the run divided by N (ms per stage) and the overhead per command against `none`. Also
# times the mechanism alone: N runs of `bwrap <the workspace level's options> /bin/true` and of
# `/bin/sh -c true`, as the floor the level cannot go under.
# Example: N=1000 R=3 bench/sandbox/run.sh build/attractor
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-build/attractor}
stages=${N:-1000}
rounds=${R:-3}
[ -x "$binary" ] || { echo "run.sh: $binary: no such binary (build it: cmake --build build --target attractor)" >&2; exit 2; }
[ -x /usr/bin/bwrap ] || { echo "run.sh: /usr/bin/bwrap missing; apt-get install bubblewrap" >&2; exit 3; }
python3 - "$(realpath "$binary")" "$stages" "$rounds" <<'PY'
import os, shutil, statistics, sys, tempfile, time

binary, stages, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
work = tempfile.mkdtemp(prefix="attractor-sandbox-bench-")
devnull = os.open(os.devnull, os.O_WRONLY)
graph = os.path.join(work, "chain.dot")
with open(graph, "w") as f:
    f.write("digraph chain {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n")
    for i in range(stages):
        f.write(f'  s{i} [shape=parallelogram, tool_command="true"]\n')
    f.write("  start -> " + " -> ".join(f"s{i}" for i in range(stages)) + " -> exit\n}\n")

def once(argv, cwd=work):
    """Wall time in ms of one process from spawn to exit; exits the script when it fails."""
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        shutil.rmtree(work, ignore_errors=True)
        sys.exit(f"run.sh: {' '.join(argv[:6])} ... failed (exit {os.waitstatus_to_exitcode(status)})")
    return elapsed

def pipeline(level, n):
    logs = os.path.join(work, f"run-{level}-{n}")
    ms = once([binary, "run", graph, "-q", "--sandbox", level, "--logs-root", logs])
    shutil.rmtree(logs, ignore_errors=True)
    return ms / stages

home = os.environ.get("HOME", "/root")
bwrap = ["/usr/bin/bwrap", "--die-with-parent", "--new-session", "--unshare-user", "--unshare-pid",
         "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL",
         "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp",
         "--tmpfs", home, "--bind", work, work, "--chdir", work, "--", "/bin/sh", "-c", "true"]

def loop(argv):
    start = time.perf_counter()
    for _ in range(stages):
        once(argv)
    return (time.perf_counter() - start) * 1000 / stages

levels = ["none", "workspace", "strict"]
per_stage = {level: [] for level in levels}
floor = {"sh -c true": [], "bwrap ... sh -c true": []}
os.chdir(work)
for r in range(rounds):
    for level in levels:
        per_stage[level].append(pipeline(level, r))
    floor["sh -c true"].append(loop(["/bin/sh", "-c", "true"]))
    floor["bwrap ... sh -c true"].append(loop(bwrap))
shutil.rmtree(work, ignore_errors=True)

print(f"{stages} tool stages running `true`, {rounds} rounds, median of the rounds")
print(f"{'level':<12}{'ms/stage':>10}{'overhead ms/command vs none':>30}")
base = statistics.median(per_stage["none"])
for level in levels:
    m = statistics.median(per_stage[level])
    print(f"{level:<12}{m:>10.2f}{m - base:>30.2f}")
print("mechanism floor (one process per command, no attractor):")
for name, samples in floor.items():
    print(f"  {name:<24}{statistics.median(samples):>8.2f} ms")
sh, bw = statistics.median(floor["sh -c true"]), statistics.median(floor["bwrap ... sh -c true"])
print(f"  bwrap's own cost        {bw - sh:>8.2f} ms per command")
PY
