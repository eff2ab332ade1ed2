#!/usr/bin/env bash
# `make run`: validates every example pipeline in graphs/ and renders each to SVG under
# build/graphs/, then runs graphs/engine_demo.dot end to end (simulated LLM, auto-approved human
# gate, real tool commands) and renders that run. Usage: graphs/demo.sh PATH/TO/attractor
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/attractor}
out=build/graphs
mkdir -p "$out"
for graph in graphs/*.dot; do
  name=$(basename "$graph" .dot)
  "$bin" validate "$graph"
  "$bin" render "$graph" -o "$out/$name.svg" 2>/dev/null
  echo "  rendered $out/$name.svg"
done
echo
run=build/runs/engine_demo
rm -rf "$run"
"$bin" run graphs/engine_demo.dot --simulate --auto-approve --logs-root "$run"
"$bin" render graphs/engine_demo.dot --run "$run" -o "$out/engine_demo-run.svg"
echo "  run directory: $run; its drawing: $out/engine_demo-run.svg"
