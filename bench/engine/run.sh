#!/usr/bin/env bash
# bench/engine: wall time, CPU time, peak RSS and bytes written of `attractor run --simulate` on
# generated pipelines, against engine_floor replaying the same file writes.
# Usage: bench/engine/run.sh [BUILD_DIR] [SIZES] [REPEATS]
#   SIZES   default "linear:10 linear:1000 linear:10000 parallel:100"; also linear:50000, loop:N
#           (a review loop of N iterations, 2N stages)
#   REPEATS default 5; each repeat times the engine and the floor back to back, alternating which
#           goes first, and the table shows medians. A case of at most 100 stages runs at least
#           SMALL_REPEATS times (default 31): one such run takes about 10 ms, so a handful of
#           them measures the machine's hiccups more than the engine.
# Nothing is deleted until the end: ext4 makes file creation slower for a minute after many
# deletions (it skips recently freed inodes), which would charge one side for the other's cleanup.
# Needs GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sizes=${2:-"linear:10 linear:1000 linear:10000 parallel:100"}
repeats=${3:-5}
small_repeats=${SMALL_REPEATS:-31}
work=$(mktemp -d /tmp/attractor-engine-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cmake --build "$build" -j 2 --target attractor engine_floor >/dev/null

# time_into FILE CMD...: appends "wall user+sys maxrss_kb write_bytes" to FILE. The command runs
# in a shell that then reads its own /proc/PID/io, which includes the waited-for child's writes
# (bytes sent to the page cache: what the command asked the disk to store). The wall time is the
# shell's clock (EPOCHREALTIME, microseconds) around the command alone, since GNU time's has only
# two decimals and would also count the wrapper shell.
time_into() {
  local out=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$work/last.time" \
    bash -c 's=$EPOCHREALTIME; "$@" >/dev/null 2>&1; e=$EPOCHREALTIME
             echo "${s/[.,]/} ${e/[.,]/} $(awk "/^write_bytes/ { print \$2 }" /proc/$$/io)"' bash "$@" > "$work/last.io"
  read -r started ended written < "$work/last.io"
  awk -v us=$((ended - started)) -v io="$written" '{ printf "%.4f %.2f %s %s\n", us / 1e6, $2 + $3, $4, io }' \
    "$work/last.time" >> "$out"
}
# median FILE COLUMN
median() {
  sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

printf "%-14s %6s %9s %9s %9s %9s %9s %8s %6s %11s %11s %11s %9s\n" case stages engine_s cpu_s engine_MB floor_s floor_cpu \
  floor_MB ratio ms_per_stage written_MB floor_wr_MB KB/stage
for spec in $sizes; do
  kind=${spec%%:*}
  n=${spec##*:}
  dot="$work/$kind-$n.dot"
  bash bench/engine/gen_graph.sh "$kind" "$n" > "$dot"
  case $kind in linear) nodes=$n ;; loop) nodes=$((2 * n)) ;; *) nodes=$((n * 10)) ;; esac
  reference="$work/ref-$kind-$n"
  "$build/attractor" run "$dot" --simulate -q --logs-root "$reference" >/dev/null 2>&1
  : > "$work/engine.times"
  : > "$work/floor.times"
  case_repeats=$repeats
  if [ "$nodes" -le 100 ] && [ "$case_repeats" -lt "$small_repeats" ]; then case_repeats=$small_repeats; fi
  for r in $(seq 1 "$case_repeats"); do
    engine=(time_into "$work/engine.times" "$build/attractor" run "$dot" --simulate -q --logs-root "$work/run-$kind-$n-$r")
    floor=(time_into "$work/floor.times" "$build/bench/engine/engine_floor" "$reference" "$work/floor-$kind-$n-$r")
    if [ $((r % 2)) = 1 ]; then "${engine[@]}"; "${floor[@]}"; else "${floor[@]}"; "${engine[@]}"; fi
  done
  es=$(median "$work/engine.times" 1); ec=$(median "$work/engine.times" 2); em=$(median "$work/engine.times" 3)
  ew=$(median "$work/engine.times" 4)
  fs=$(median "$work/floor.times" 1); fc=$(median "$work/floor.times" 2); fm=$(median "$work/floor.times" 3)
  fw=$(median "$work/floor.times" 4)
  awk -v k="$kind-$n" -v n="$nodes" -v es="$es" -v ec="$ec" -v em="$em" -v fs="$fs" -v fc="$fc" -v fm="$fm" \
      -v ew="$ew" -v fw="$fw" 'BEGIN {
    printf "%-14s %6d %9.3f %9.2f %9.1f %9.3f %9.2f %8.1f %6.2f %11.3f %11.1f %11.1f %9.1f\n", k, n, es, ec, em / 1024,
           fs, fc, fm / 1024, (fs > 0 ? es / fs : 0), 1000 * es / n, ew / 1e6, fw / 1e6, ew / 1e3 / n }'
done
