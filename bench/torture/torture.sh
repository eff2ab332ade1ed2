#!/usr/bin/env bash
# Crash torture (issue 8): runs bench/torture/torture.dot (50 nodes: tools, a retry loop, a human gate
# answered from answers.json, a parallel block), SIGKILLs it at random moments, resumes after every
# kill until the run finishes, and compares the final checkpoint and every stage's status.json with an
# uninterrupted run (timestamps and run ids aside). Seeded and reproducible.
#
# Usage: bench/torture/torture.sh [--case kill|orphan|disk-full] [--kills N] [--seed S] [--snapshot-every N]
#                                 [--binary PATH] [--work DIR] [--keep]
#   --case kill       (default) random SIGKILLs anywhere in torture.dot, as described above
#   --case orphan     orphan.dot: each run is SIGKILLed while its `write` tool runs (often between the two
#                     halves of the status.json it writes), then resumed at once; a tool of the killed
#                     run that survived would write a failing outcome into the resumed run
#   --case disk-full  torture.dot under a random file-size limit (RLIMIT_FSIZE, 1 to 48 KiB, SIGXFSZ
#                     ignored: every write past it fails as on a full disk) until it stops, then resumed
#                     without the limit
#   --case worktree  worktree.dot in a git repository (a fresh copy per run): random SIGKILLs during
#                     stages, commits and restores; the final checkpoint, every stage commit's tree,
#                     the branch's commit subjects and the worktree's files by content must match
#   --case rewind     worktree.dot run to its end, then `attractor rewind` (odd runs) or `attractor fork`
#                     (even runs) to a random stage under a random SIGKILL, then resumed under random
#                     SIGKILLs until it ends: the rewound run or the fork must match the uninterrupted
#                     run as in the worktree case, and a forked original must be unchanged
#   --kills N   stop after at least N SIGKILLs (default 200; for disk-full: N runs stopped by the limit)
#   --seed S    seed of the kill delays (default 1)
#   --snapshot-every N  run the killed runs with `--snapshot-every N` (the reference keeps the default
#               policy): with N=2 every second save is a compaction, so many kills land inside one
# Exit 0 when every finished run matched the reference; 1 on a mismatch or a resume failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kills_wanted=200
seed=1
case_name=kill
binary="$here/../../build/attractor"
work=""
keep=0
snapshot_every=()
while [ $# -gt 0 ]; do
  case "$1" in
    --case) case_name=$2; shift 2 ;;
    --kills) kills_wanted=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --snapshot-every) snapshot_every=(--snapshot-every "$2" --checkpoint-rewrite-below 0); shift 2 ;;
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
case "$case_name" in
  kill|disk-full) graph="$here/torture.dot" ;;
  orphan) graph="$here/orphan.dot" ;;
  worktree|rewind) graph="$here/worktree.dot" ;;
  *) echo "torture.sh: unknown case $case_name (kill, orphan, disk-full, worktree, rewind)" >&2; exit 2 ;;
esac
git_case=0
case "$case_name" in worktree|rewind) git_case=1 ;; esac
answers="$here/answers.json"

# The comparable state of a run directory: the checkpoint without timestamps and run ids, then the
# outcome of each stage's status.json (the Outcome fields; stage_info facts such as token usage are
# measurements, not outcomes), in a stable order.
snapshot() {
  local dir=$1
  jq -S 'del(.timestamp, .timestamp_ms, .run_id, .usage, .journal_seq, .completed_commits) | .context |= del(.["internal.run_id"])' "$dir/checkpoint.json"
  [ $git_case -eq 1 ] && worktree_snapshot "$dir"
  for status in $(cd "$dir" && ls -d */status.json 2>/dev/null | sort); do
    echo "== $status"
    jq -S '{outcome, preferred_label, suggested_next_ids, context_updates, notes, failure_reason, jump_to,
            messages, retry_after_ms, error_category}' "$dir/$status"
  done
}

now_ms() { date +%s%3N; }

# worktree case: a repository to copy for each run, and the run's commits and files. Commits are
# compared by tree (their ids hold the commit time), files by content.
if [ $git_case -eq 1 ]; then
  command -v git >/dev/null || { echo "torture.sh: needs git" >&2; exit 2; }
  mkdir -p "$work/template"
  printf 'seed\n' > "$work/template/a.txt"
  printf '*.tmp\n' > "$work/template/.gitignore"
  git -C "$work/template" init -q -b main
  git -C "$work/template" add -A
  git -C "$work/template" -c user.name=t -c user.email=t@localhost commit -q -m seed
fi
fresh_repo() { rm -rf "$1.repo"; cp -a "$work/template" "$1.repo"; }
worktree_snapshot() {
  local dir=$1 wt branch
  wt=$(jq -r .workspace.worktree "$dir/manifest.json")
  branch=$(jq -r .workspace.branch "$dir/manifest.json")
  jq -r '.completed_commits[]' "$dir/checkpoint.json" | while read -r c; do
    if [ -z "$c" ]; then echo "-"; else git -C "$wt" rev-parse "$c^{tree}"; fi
  done
  git -C "$wt" log --format='%T %s' "$branch"
  (cd "$wt" && find . -path ./.git -prune -o -type f -print | sort | while read -r f; do echo "== $f"; cat "$f"; done)
  git -C "$wt" status --porcelain
}

# Reference: two uninterrupted runs must agree (otherwise the comparison would be meaningless).
# In the worktree case every run works in its own copy of the template repository (`DIR.repo`).
in_repo() { local dir=$1; shift; if [ $git_case -eq 1 ]; then (cd "$dir.repo" && exec "$@"); else "$@"; fi; }
[ $git_case -eq 1 ] && fresh_repo "$work/reference" && fresh_repo "$work/reference2"
t0=$(now_ms)
in_repo "$work/reference" "$binary" run "$graph" --simulate --answers "$answers" --logs-root "$work/reference" -q 2>"$work/reference.err" || {
  echo "torture.sh: reference run failed"; cat "$work/reference.err"; exit 1; }
duration=$(( $(now_ms) - t0 ))
in_repo "$work/reference2" "$binary" run "$graph" --simulate --answers "$answers" --logs-root "$work/reference2" -q 2>/dev/null
snapshot "$work/reference" > "$work/reference.snapshot"
snapshot "$work/reference2" > "$work/reference2.snapshot"
if ! cmp -s "$work/reference.snapshot" "$work/reference2.snapshot"; then
  echo "torture.sh: two uninterrupted runs differ:"; diff "$work/reference.snapshot" "$work/reference2.snapshot" | head -20
  exit 1
fi
echo "reference run: ${duration} ms, $(jq '.completed_nodes | length' "$work/reference/checkpoint.json") stages"

RANDOM=$seed
kills=0 runs=0 identical=0 restarts=0 failures=0

# Compares a finished run with the reference; counts it.
compare() {
  local dir=$1
  snapshot "$dir" > "$dir.snapshot"
  if cmp -s "$work/reference.snapshot" "$dir.snapshot"; then
    identical=$((identical + 1))
    [ $keep -eq 1 ] || rm -rf "$dir" "$dir.snapshot" "$dir.err" "$dir.repo"
  else
    echo "run $runs: differs from the uninterrupted run:"; diff "$work/reference.snapshot" "$dir.snapshot" | head -20
    failures=$((failures + 1))
  fi
}

# Resumes `dir` until it finishes; 0 when it did with exit 0.
resume_to_end() {
  local dir=$1 code
  "$binary" resume "$dir" -q 2>>"$dir.err"; code=$?
  if [ $code -ne 0 ]; then echo "run $runs: resume exited with $code (see $dir.err)"; failures=$((failures + 1)); fi
  return $code
}

if [ "$case_name" = orphan ]; then
  halves=0
  while [ $kills -lt "$kills_wanted" ]; do
    runs=$((runs + 1))
    dir="$work/run$runs"
    "$binary" run "$graph" --simulate --logs-root "$dir" -q 2>>"$dir.err" &
    pid=$!
    for _ in $(seq 1 2000); do [ -d "$dir/write" ] && break; sleep 0.005; done
    delay=$(( RANDOM % 200 ))
    sleep "$(printf '0.%03d' "$delay")"
    if ! kill -KILL "$pid" 2>/dev/null; then  # it finished first: compared like any other run
      wait "$pid"; compare "$dir"; continue
    fi
    wait "$pid" 2>/dev/null
    kills=$((kills + 1))
    for written in "$dir"/write/status.json "$dir"/write/attempt-*/status.json; do
      [ -f "$written" ] && ! jq -e . "$written" >/dev/null 2>&1 && halves=$((halves + 1))
    done
    resume_to_end "$dir" || continue
    sleep 0.2  # a surviving tool of the killed run would have written by now
    compare "$dir"
  done
  echo "orphan, seed $seed: $kills SIGKILLs while a tool ran ($halves with its status.json half-written); identical: $identical/$runs"
  [ $failures -eq 0 ] && [ $identical -eq $runs ]
  exit
fi

if [ "$case_name" = disk-full ]; then
  stopped=0 smallest=999999 largest=0
  while [ $stopped -lt "$kills_wanted" ]; do
    runs=$((runs + 1))
    dir="$work/run$runs"
    limit=$(( RANDOM % 48 + 1 ))  # KiB
    ( ulimit -f "$limit"; trap '' XFSZ; exec "$binary" run "$graph" --simulate --answers "$answers" \
        --logs-root "$dir" "${snapshot_every[@]}" -q ) 2>>"$dir.err"
    code=$?
    if [ $code -eq 0 ]; then compare "$dir"; continue; fi
    if [ $code -ne 3 ]; then echo "run $runs: a full disk gave exit $code, not 3 (see $dir.err)"; failures=$((failures + 1)); continue; fi
    stopped=$((stopped + 1))
    [ $limit -lt $smallest ] && smallest=$limit
    [ $limit -gt $largest ] && largest=$limit
    if [ ! -f "$dir/checkpoint.json" ]; then restarts=$((restarts + 1)); runs=$((runs - 1)); rm -rf "$dir" "$dir.err"; continue; fi
    resume_to_end "$dir" || continue
    compare "$dir"
  done
  echo "disk-full, seed $seed: $stopped runs stopped by a full disk (limits $smallest to $largest KiB; $restarts before their first checkpoint, not counted as runs); identical: $identical/$runs"
  [ $failures -eq 0 ] && [ $identical -eq $runs ]
  exit
fi
# A kill lands uniformly in [0, duration + 20%) after the process starts.
window=$(( duration + duration / 5 + 1 ))

# Runs `attractor ARGS...` killed after a random delay in [0, WINDOW) ms; returns 0 when it ended
# by itself with exit 0, 9 when it was killed, else its exit code.
killed_or_done() {
  local window=$1 log=$2 pid delay code; shift 2
  delay=$(( (RANDOM * 32768 + RANDOM) % window ))
  "$binary" "$@" 2>>"$log" >/dev/null &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  if kill -KILL "$pid" 2>/dev/null; then wait "$pid" 2>/dev/null; kills=$((kills + 1)); return 9; fi
  wait "$pid"; code=$?
  return $code
}

# Resumes `dir` under random kills until it ends; 0 when it did with exit 0.
resume_under_kills() {
  local dir=$1 code
  while :; do
    killed_or_done "$window" "$dir.err" resume "$dir" -q; code=$?
    [ $code -eq 9 ] && continue
    [ $code -eq 0 ] && return 0
    echo "run $runs: resume exited with $code (see $dir.err)"; failures=$((failures + 1)); return 1
  done
}

if [ "$case_name" = rewind ]; then
  stages=$(jq '.completed_nodes | length' "$work/reference/checkpoint.json")
  declare -A op_window
  in_ops=0
  while [ $kills -lt "$kills_wanted" ]; do
    runs=$((runs + 1))
    dir="$work/run$runs"
    fresh_repo "$dir"
    in_repo "$dir" "$binary" run "$graph" --simulate --logs-root "$dir" -q 2>>"$dir.err" || {
      echo "run $runs: the run failed (see $dir.err)"; failures=$((failures + 1)); continue; }
    point=$(jq -r ".completed_nodes[$(( RANDOM % stages ))]" "$dir/checkpoint.json")
    target=$dir
    if [ $((runs % 2)) -eq 1 ]; then
      kind=rewind; op=(rewind "$dir" --to "$point")
    else
      kind=fork; target="$dir.fork"; op=(fork "$dir" --at "$point" --logs-root "$target")
      snapshot "$dir" > "$dir.before"
    fi
    if [ -z "${op_window[$kind]:-}" ]; then  # the first of each, unkilled, sets the window of the others
      t0=$(now_ms); "$binary" "${op[@]}" >/dev/null 2>>"$dir.err"; code=$?
      op_window[$kind]=$(( ($(now_ms) - t0) * 6 / 5 + 1 ))
    else
      while :; do  # a fork killed before its rename left no run: fork again
        killed_or_done "${op_window[$kind]}" "$dir.err" "${op[@]}"; code=$?
        [ $code -eq 9 ] && in_ops=$((in_ops + 1))
        [ $code -eq 9 ] && [ $kind = fork ] && [ ! -f "$target/manifest.json" ] && continue
        break
      done
    fi
    if [ $code -ne 0 ] && [ $code -ne 9 ]; then echo "run $runs: exit $code (see $dir.err)"; failures=$((failures + 1)); continue; fi
    resume_under_kills "$target" || continue
    if [ "$target" != "$dir" ]; then
      snapshot "$dir" > "$dir.after"
      if ! cmp -s "$dir.before" "$dir.after"; then echo "run $runs: the fork changed its original"; failures=$((failures + 1)); fi
      rm -f "$dir.before" "$dir.after"
    fi
    before=$identical
    compare "$target"
    [ "$target" != "$dir" ] && [ $identical -gt $before ] && [ $keep -eq 0 ] && rm -rf "$dir" "$dir.err" "$dir.repo"
  done
  echo "rewind/fork, seed $seed: $kills SIGKILLs over $runs runs ($in_ops inside a rewind or fork; windows: rewind ${op_window[rewind]} ms, fork ${op_window[fork]} ms); identical: $identical/$runs"
  [ $failures -eq 0 ] && [ $identical -eq $runs ]
  exit
fi
while [ $kills -lt "$kills_wanted" ]; do
  runs=$((runs + 1))
  dir="$work/run$runs"
  [ $git_case -eq 1 ] && fresh_repo "$dir"
  command=(run "$graph" --simulate --logs-root "$dir" "${snapshot_every[@]}")
  finished=0
  while [ $finished -eq 0 ]; do
    delay=$(( (RANDOM * 32768 + RANDOM) % window ))
    ( [ $git_case -eq 1 ] && cd "$dir.repo"; exec "$binary" "${command[@]}" --answers "$answers" -q 2>>"$dir.err" ) &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    if kill -KILL "$pid" 2>/dev/null; then
      wait "$pid" 2>/dev/null
      kills=$((kills + 1))
      if [ ! -f "$dir/checkpoint.json" ]; then
        # Killed before the first checkpoint: nothing to resume, the run starts again.
        rm -rf "$dir"; command=(run "$graph" --simulate --logs-root "$dir" "${snapshot_every[@]}"); restarts=$((restarts + 1))
        [ $git_case -eq 1 ] && fresh_repo "$dir"
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
  compare "$dir"
done
echo "seed $seed: $kills SIGKILLs over $runs runs ($restarts killed before their first checkpoint); identical: $identical/$runs"
[ $failures -eq 0 ] && [ $identical -eq $runs ]
