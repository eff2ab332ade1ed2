#!/usr/bin/env bash
# `make run`: validates every example pipeline in graphs/ and renders each to SVG under
# build/graphs/. Usage: graphs/demo.sh PATH/TO/attractor
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/attractor}
out=build/graphs
mkdir -p "$out"
status=0
for graph in graphs/*.dot; do
  name=$(basename "$graph" .dot)
  if "$bin" validate "$graph"; then
    "$bin" render "$graph" -o "$out/$name.svg" 2>/dev/null
    echo "  rendered $out/$name.svg"
  else
    status=2
  fi
done
exit $status
