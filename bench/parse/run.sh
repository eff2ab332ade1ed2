#!/usr/bin/env bash
# Builds and runs the parse benchmark: bench/parse/run.sh [--sizes 1000,10000,100000] [--repeat N]
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target parse_bench attractor >/dev/null
exec build/bench/parse/parse_bench "$@"
