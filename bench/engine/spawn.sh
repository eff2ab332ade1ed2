#!/usr/bin/env bash
# bench/engine/spawn.sh: what a tool stage costs against the floor of starting a program.
# Usage: bench/engine/spawn.sh [BUILD_DIR] [STAGES] [ROUNDS]
#   STAGES  default 1000: spawns of the floor, tool stages of the engine, loop iterations
#   ROUNDS  default 5; rounds alternate the order of the programs, the tables show medians
# Environment:
#   BENCH_DIR      where the run directories go (default /var/tmp; /dev/shm leaves the disk out)
#   OLD_ATTRACTOR  a second attractor binary measured in the same rounds (e.g. a build of main)
#   PEER_CLI       the TypeScript peer's CLI (default: where bench/peer/setup.sh puts it); the loop
#                  case runs it too when it exists
#
# Rows:
#   floor       spawn_floor STAGES: posix_spawn + blocking waitpid of /bin/true, median per spawn
#   supervised  spawn_floor STAGES --supervised: the same under SupervisedProcess
#   tool        `attractor run` of gen_graph.sh tool STAGES (a chain of tool stages running `true`),
#               wall time of the run / STAGES
#   toolloop    gen_graph.sh toolloop STAGES (a review loop whose tool stage adds one to a counter
#               file), wall time of the whole run followed by `sync`, in a fresh working directory;
#               the peer runs the same file the same way
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
stages=${2:-1000}
rounds=${3:-5}
bench_root=${BENCH_DIR:-/var/tmp}
peer_cli=${PEER_CLI:-${XDG_CACHE_HOME:-$HOME/.cache}/attractor-bench/peer/src/packages/attractor-pi/dist/attractor.mjs}
cmake --build "$build" -j 2 --target attractor spawn_floor >/dev/null
build=$(cd "$build" && pwd)  # the loop runs in a directory of its own
work=$(mktemp -d "$bench_root/attractor-spawn-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
bash bench/engine/gen_graph.sh tool "$stages" > "$work/tool.dot"
bash bench/engine/gen_graph.sh toolloop "$stages" > "$work/toolloop.dot"

engines=("new:$build/attractor")
[ -n "${OLD_ATTRACTOR:-}" ] && engines+=("old:$(cd "$(dirname "$OLD_ATTRACTOR")" && pwd)/$(basename "$OLD_ATTRACTOR")")
[ -f "$peer_cli" ] && command -v node >/dev/null && have_peer=1 || have_peer=0

# wall_ms CMD...: runs CMD (output discarded, must succeed) and prints its wall milliseconds.
wall_ms() {
  local s=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || { echo "spawn bench: $* failed" >&2; exit 1; }
  local e=$EPOCHREALTIME
  echo $(((${e/[.,]/} - ${s/[.,]/}) / 1000))
}
# loop_ms NAME CMD...: one toolloop run in a fresh working directory, then sync.
loop_ms() {
  local dir=$work/loop-$1-$RANDOM$RANDOM
  shift
  mkdir -p "$dir"
  (cd "$dir" && wall_ms bash -c '"$@" && sync' bash "$@")
  [ "$(cat "$dir/counter")" = "$stages" ] || { echo "spawn bench: the loop ended at $(cat "$dir/counter")" >&2; exit 1; }
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$work/floor" && : > "$work/supervised" && : > "$work/peer-loop"
for r in $(seq 1 "$rounds"); do
  order=("${engines[@]}")
  [ $((r % 2)) = 0 ] && order=($(printf '%s\n' "${engines[@]}" | tac))
  "$build/bench/engine/spawn_floor" "$stages" | cut -d' ' -f1 >> "$work/floor"
  "$build/bench/engine/spawn_floor" "$stages" --supervised | cut -d' ' -f1 >> "$work/supervised"
  for e in "${order[@]}"; do
    name=${e%%:*} bin=${e#*:}
    wall_ms "$bin" run "$work/tool.dot" --simulate -q --logs-root "$work/tool-$name-$r" >> "$work/tool-$name"
    loop_ms "$name" "$bin" run "$work/toolloop.dot" --simulate -q --logs-root "$work/runs/loop-$name-$r" \
      >> "$work/loop-$name"
  done
  if [ "$have_peer" = 1 ]; then
    loop_ms peer node "$peer_cli" run "$work/toolloop.dot" --simulate --logs-dir "$work/runs/loop-peer-$r" \
      >> "$work/peer-loop"
  fi
done

floor_us=$(median < "$work/floor")
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $stages stages, $rounds rounds, run directories in $bench_root ($(stat -f -c %T "$bench_root"))"
printf '%-22s %12s %10s\n' case ms "x floor"
printf '%-22s %12.3f %10.2f\n' "floor (per spawn)" "$(echo "$floor_us / 1000" | bc -l)" 1
printf '%-22s %12.3f %10.2f\n' "supervised (per spawn)" "$(median < "$work/supervised" | awk '{ print $1 / 1000 }')" \
  "$(median < "$work/supervised" | awk -v f="$floor_us" '{ print $1 / f }')"
for e in "${engines[@]}"; do
  name=${e%%:*}
  t=$(median < "$work/tool-$name")
  printf '%-22s %12.3f %10.2f\n' "tool stage ($name)" "$(echo "$t / $stages" | bc -l)" \
    "$(echo "$t * 1000 / $stages / $floor_us" | bc -l)"
done
echo
printf '%-22s %12s %10s\n' "loop of $stages" "ms" "peer/this"
peer=$([ "$have_peer" = 1 ] && median < "$work/peer-loop" || echo 0)
for e in "${engines[@]}"; do
  name=${e%%:*}
  t=$(median < "$work/loop-$name")
  printf '%-22s %12d %10s\n' "attractor ($name)" "$t" "$([ "$peer" -gt 0 ] && echo "scale=2; $peer / $t" | bc || echo -)"
done
[ "$have_peer" = 1 ] && printf '%-22s %12d\n' "peer" "$peer" || echo "peer: not set up (bench/peer/setup.sh), skipped"
