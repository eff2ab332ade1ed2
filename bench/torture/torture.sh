#!/usr/bin/env bash
# Crash torture (issue 8): runs bench/torture/torture.dot (50 nodes: tools, a retry loop, a human gate
# answered from answers.json, a parallel block), SIGKILLs it at random moments, resumes after every
# kill until the run finishes, and compares the final checkpoint and every stage's status.json with an
# uninterrupted run (timestamps and run ids aside). Seeded and reproducible.
#
# Usage: bench/torture/torture.sh [--kills N] [--seed S] [--snapshot-every N] [--binary PATH] [--work DIR] [--keep]
#   --kills N   stop after at least N SIGKILLs (default 200)
#   --seed S    seed of the kill delays (default 1)
#   --snapshot-every N  run the killed runs with `--snapshot-every N` (the reference keeps the default
#               policy): with N=2 every second save is a compaction, so many kills land inside one
# Exit 0 when every finished run matched the reference; 1 on a mismatch or a resume failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kills_wanted=200
seed=1
binary="$here/../../build/attractor"
work=""
keep=0
snapshot_every=()
while [ $# -gt 0 ]; do
  case "$1" in
    --kills) kills_wanted=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --snapshot-every) snapshot_every=(--snapshot-every "$2"); shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "torture.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "torture.sh: needs jq (apt-get install jq)" >&2; exit 2; }
[ -x "$binary" ] || { echo "torture.sh: no attractor binary at $binary" >&2; exit 2; }
if [ -z "$work" ]; then work=$(mktemp -d); [ $keep -eq 1 ] || trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work"
graph="$here/torture.dot"
answers="$here/answers.json"

# The comparable state of a run directory: the checkpoint without timestamps and run ids, then the
# outcome of each stage's status.json (the Outcome fields; stage_info facts such as token usage are
# measurements, not outcomes), in a stable order.
snapshot() {
  local dir=$1
  jq -S 'del(.timestamp, .timestamp_ms, .run_id, .usage, .journal_seq) | .context |= del(.["internal.run_id"])' "$dir/checkpoint.json"
  for status in $(cd "$dir" && ls -d */status.json 2>/dev/null | sort); do
    echo "== $status"
    jq -S '{outcome, preferred_label, suggested_next_ids, context_updates, notes, failure_reason, jump_to,
            messages, retry_after_ms, error_category}' "$dir/$status"
  done
}

now_ms() { date +%s%3N; }

# Reference: two uninterrupted runs must agree (otherwise the comparison would be meaningless).
t0=$(now_ms)
"$binary" run "$graph" --simulate --answers "$answers" --logs-root "$work/reference" -q 2>"$work/reference.err" || {
  echo "torture.sh: reference run failed"; cat "$work/reference.err"; exit 1; }
duration=$(( $(now_ms) - t0 ))
"$binary" run "$graph" --simulate --answers "$answers" --logs-root "$work/reference2" -q 2>/dev/null
snapshot "$work/reference" > "$work/reference.snapshot"
snapshot "$work/reference2" > "$work/reference2.snapshot"
if ! cmp -s "$work/reference.snapshot" "$work/reference2.snapshot"; then
  echo "torture.sh: two uninterrupted runs differ:"; diff "$work/reference.snapshot" "$work/reference2.snapshot" | head -20
  exit 1
fi
echo "reference run: ${duration} ms, $(jq '.completed_nodes | length' "$work/reference/checkpoint.json") stages"

RANDOM=$seed
kills=0 runs=0 identical=0 restarts=0 failures=0
# A kill lands uniformly in [0, duration + 20%) after the process starts.
window=$(( duration + duration / 5 + 1 ))
while [ $kills -lt "$kills_wanted" ]; do
  runs=$((runs + 1))
  dir="$work/run$runs"
  command=(run "$graph" --simulate --logs-root "$dir" "${snapshot_every[@]}")
  finished=0
  while [ $finished -eq 0 ]; do
    delay=$(( (RANDOM * 32768 + RANDOM) % window ))
    "$binary" "${command[@]}" --answers "$answers" -q 2>>"$dir.err" &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    if kill -KILL "$pid" 2>/dev/null; then
      wait "$pid" 2>/dev/null
      kills=$((kills + 1))
      if [ ! -f "$dir/checkpoint.json" ]; then
        # Killed before the first checkpoint: nothing to resume, the run starts again.
        rm -rf "$dir"; command=(run "$graph" --simulate --logs-root "$dir" "${snapshot_every[@]}"); restarts=$((restarts + 1))
      else
        command=(resume "$dir")
      fi
    else
      wait "$pid"; code=$?
      if [ $code -ne 0 ]; then
        echo "run $runs: ${command[0]} exited with $code (see $dir.err)"; failures=$((failures + 1)); break
      fi
      finished=1
    fi
  done
  [ $finished -eq 1 ] || continue
  snapshot "$dir" > "$dir.snapshot"
  if cmp -s "$work/reference.snapshot" "$dir.snapshot"; then
    identical=$((identical + 1))
    [ $keep -eq 1 ] || rm -rf "$dir" "$dir.snapshot" "$dir.err"
  else
    echo "run $runs: differs from the uninterrupted run:"; diff "$work/reference.snapshot" "$dir.snapshot" | head -20
    failures=$((failures + 1))
  fi
done
echo "seed $seed: $kills SIGKILLs over $runs runs ($restarts killed before their first checkpoint); identical: $identical/$runs"
[ $failures -eq 0 ] && [ $identical -eq $runs ]
