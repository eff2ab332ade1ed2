#!/usr/bin/env bash
# Builds and runs the retrieval benchmark: bench/retrieval/run.sh [--files 5000] [--queries 200] [--vector-index flat|hnsw]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" --target retrieval_bench >/dev/null
exec "$BUILD_DIR"/bench/retrieval/retrieval_bench "$@"
