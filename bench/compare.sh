#!/usr/bin/env bash
# bench/compare.sh OLD_BUILD NEW_BUILD [ROUNDS]: the engine and parse benchmarks of two builds of
# attractor (e.g. the build of an older commit in a git worktree and the current one), run in
# alternating rounds in one session so both see the same machine. Prints each round's tables with
# the build they came from; compare the medians across rounds. Each build dir must have been
# configured with bench targets available (they are EXCLUDE_FROM_ALL; the scripts build them).
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
new=$2
rounds=${3:-2}
sizes=${ENGINE_SIZES:-"linear:10 linear:1000 linear:10000 parallel:100"}
for r in $(seq 1 "$rounds"); do
  for build in "$old" "$new"; do
    echo "== round $r: engine, $build"
    bash bench/engine/run.sh "$build" "$sizes" 3
    echo "== round $r: parse, $build"
    cmake --build "$build" -j 2 --target parse_bench attractor >/dev/null
    "$build/bench/parse/parse_bench" --sizes "${PARSE_SIZES:-1000,10000,100000}" --repeat 3
  done
done
