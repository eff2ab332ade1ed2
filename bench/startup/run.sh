#!/usr/bin/env bash
# bench/startup/run.sh [BINARY...] — whole-process start-up time of attractor against Graphviz's gc.
#
# For each BINARY (default: build/attractor) it times RUNS runs (default 50) of:
#   attractor --version
#   attractor validate bench/startup/three_nodes.dot
#   attractor run bench/startup/three_nodes.dot --simulate -q --logs-root TMP
# and `gc bench/startup/three_nodes.dot`, and prints the median wall time and the mean CPU time
# (user + system, from wait4) of each in ms and as a ratio to gc's (the target of the start-up
# issue: --version and validate within 3x gc's whole-process time). The commands of all binaries run in
# alternating rounds, so every figure sees the same machine; compare figures of one run only.
# Example (before/after): bench/startup/run.sh /work/main/build/attractor build/attractor
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-50}
binaries=("$@")
[ ${#binaries[@]} -eq 0 ] && binaries=(build/attractor)
command -v gc >/dev/null || { echo "run.sh: gc (Graphviz) not found; apt-get install graphviz" >&2; exit 3; }
for b in "${binaries[@]}"; do
  [ -x "$b" ] || { echo "run.sh: $b: no such binary (build it: ninja -C build attractor)" >&2; exit 2; }
done
python3 - "$runs" "${binaries[@]}" <<'PY'
import os, shutil, statistics, sys, tempfile, time

runs = int(sys.argv[1])
binaries = sys.argv[2:]
graph = "bench/startup/three_nodes.dot"
logs = tempfile.mkdtemp(prefix="attractor-startup-")
devnull = os.open(os.devnull, os.O_WRONLY)

def commands(binary):
    return {
        "--version": [binary, "--version"],
        "validate": [binary, "validate", graph],
        "run --simulate": [binary, "run", graph, "--simulate", "-q", "--logs-root", logs],
    }

def once(argv):
    """Wall time of one whole process (spawn to exit) and its CPU time (user + system), in ms."""
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, usage = os.wait4(pid, 0)
    elapsed = ((time.perf_counter() - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000)
    if os.waitstatus_to_exitcode(status) != 0:
        shutil.rmtree(logs, ignore_errors=True)
        sys.exit(f"run.sh: {' '.join(argv)} failed (exit {os.waitstatus_to_exitcode(status)})")
    return elapsed

jobs = [("gc", "gc", ["gc", graph])]
for b in binaries:
    jobs += [(b, name, argv) for name, argv in commands(b).items()]
samples = {(who, name): [] for who, name, _ in jobs}
cpu = {(who, name): [] for who, name, _ in jobs}
for argv in [j[2] for j in jobs]:
    once(argv)  # warm the page cache
for _ in range(runs):
    for who, name, argv in jobs:
        wall_ms, cpu_ms = once(argv)
        samples[(who, name)].append(wall_ms)
        cpu[(who, name)].append(cpu_ms)

shutil.rmtree(logs, ignore_errors=True)
gc = statistics.median(samples[("gc", "gc")])
gc_cpu = statistics.mean(cpu[("gc", "gc")])
print(f"{runs} runs each, alternating. wall: median ms; cpu: mean user+system ms (less sensitive to a busy machine)")
print(f"{'binary':<40} {'command':<16} {'wall':>7} {'x gc':>6} {'cpu':>7} {'x gc':>6}")
print(f"{'gc':<40} {graph.split('/')[-1]:<16} {gc:7.2f} {1:6.1f} {gc_cpu:7.2f} {1:6.1f}")
for who, name, _ in jobs[1:]:
    m = statistics.median(samples[(who, name)])
    c = statistics.mean(cpu[(who, name)])
    print(f"{who:<40} {name:<16} {m:7.2f} {m / gc:6.1f} {c:7.2f} {c / gc_cpu:6.1f}")
PY
