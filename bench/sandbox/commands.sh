#!/usr/bin/env bash
# bench/sandbox/commands.sh: what each sandbox level costs one command through the real runner,
# without the engine (sandbox_commands.cc): N runs of `true` per case, ROUNDS rounds, medians.
# Usage: bench/sandbox/commands.sh [BUILD_DIR] [N] [ROUNDS]   (defaults build, 1000, 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cmake --build "$build" -j 2 --target sandbox_commands >/dev/null
"$build/bench/sandbox/sandbox_commands" "${2:-1000}" "${3:-3}"
