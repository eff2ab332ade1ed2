#!/usr/bin/env bash
# bench/engine: wall time and peak RSS of `attractor run --simulate` on generated pipelines,
# against engine_floor replaying the same file writes. Usage: bench/engine/run.sh [BUILD_DIR] [SIZES]
# Needs GNU time (/usr/bin/time). Prints one row per case and the engine/floor ratio.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sizes=${2:-"linear:10 linear:1000 linear:10000 parallel:100"}
work=$(mktemp -d /tmp/attractor-engine-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cmake --build "$build" -j 2 --target attractor engine_floor >/dev/null
printf "%-16s %8s %12s %12s %12s %12s %7s\n" case nodes engine_s engine_MB floor_s floor_MB ratio
for spec in $sizes; do
  kind=${spec%%:*}
  n=${spec##*:}
  dot="$work/$kind-$n.dot"
  bash bench/engine/gen_graph.sh "$kind" "$n" > "$dot"
  if [ "$kind" = linear ]; then nodes=$n; else nodes=$((n * 10)); fi
  /usr/bin/time -f "%e %M" -o "$work/engine.time" "$build/attractor" run "$dot" --simulate -q --logs-root "$work/run-$kind-$n" >/dev/null 2>&1
  /usr/bin/time -f "%e %M" -o "$work/floor.time" "$build/bench/engine/engine_floor" "$work/run-$kind-$n" "$work/floor-$kind-$n"
  read -r es em < "$work/engine.time"
  read -r fs fm < "$work/floor.time"
  ratio=$(awk -v a="$es" -v b="$fs" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  printf "%-16s %8d %12s %12.1f %12s %12.1f %7s\n" "$kind-$n" "$nodes" "$es" "$(awk -v k="$em" 'BEGIN{print k/1024}')" "$fs" "$(awk -v k="$fm" 'BEGIN{print k/1024}')" "$ratio"
  rm -rf "$work/run-$kind-$n" "$work/floor-$kind-$n"
done
