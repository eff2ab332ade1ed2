#!/usr/bin/env bash
# bench/serve: load and fault benchmark of `attractor serve` (see README.md).
# Usage: bench/serve/run.sh [BUILD_DIR] [serve_bench.mjs options...]
#   BUILD_DIR  default build; the binary is BUILD_DIR/attractor (not rebuilt here)
# The run directories go to a temporary folder (removed at the end unless KEEP=1); the summary is
# copied to build/bench-serve/results-<UTC date and time>.{json,txt}. The exit code is the
# benchmark's: 0 when every check passed, 1 when one failed (the numbers are written either way).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
binary="$build/attractor"
[ -x "$binary" ] || { echo "run.sh: $binary not found (build it first)" >&2; exit 2; }
command -v node >/dev/null || { echo "run.sh: node (20 or later) is needed" >&2; exit 2; }
work=$(mktemp -d /tmp/attractor-serve-bench.XXXXXX)
if [ "${KEEP:-0}" = 1 ]; then
  echo "run.sh: keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
results=build/bench-serve
mkdir -p "$results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
status=0
node bench/serve/serve_bench.mjs "$binary" "$work/out" "$@" > /dev/null || status=$?
if [ -f "$work/out/summary.json" ]; then
  cp "$work/out/summary.json" "$results/results-$stamp.json"
  cp "$work/out/summary.txt" "$results/results-$stamp.txt"
  for log in "$work"/out/serve-*.log; do cp "$log" "$results/results-$stamp.$(basename "$log")"; done
  echo "run.sh: $results/results-$stamp.json (exit $status)" >&2
fi
exit "$status"
