#!/usr/bin/env bash
# Builds tokens_bench and compares it with the reference JavaScript tokenizer on the same corpus:
#   bench/tokens/run.sh [BYTES] [RUNS]        (defaults: 10 MiB, best of 3 runs after a warm-up)
# then measures start-up to the first count, rank-file text against built-in tables
# (tokens_startup_bench, 20 fresh processes per path).
# Environment: BUILD_DIR (default build). Needs `make deps` (third_party/gpt-tokenizer) and node.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${BUILD_DIR:-build}
BYTES=${1:-10485760}
RUNS=${2:-3}
[ -f "$BUILD_DIR/build.ninja" ] || cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" --target tokens_bench tokens_startup_bench attractor_token_data -j 2 >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus="$work/corpus.txt"

field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" | head -1; }

printf 'corpus: %s bytes (deterministic, prose + C++/Python/C#/SQL/JSON + non-Latin text), best of %s runs\n' "$BYTES" "$RUNS"
status=0
for enc in o200k_base cl100k_base; do
  "$BUILD_DIR/tokens_bench" --encoding "$enc" --bytes "$BYTES" --runs "$RUNS" --write-corpus "$corpus" > "$work/cpp.txt"
  node bench/tokens/bench_js.js "$corpus" "$enc" "$RUNS" > "$work/js.txt"
  cat "$work/cpp.txt" "$work/js.txt"
  cpp_tps=$(grep '^impl=cpp ' "$work/cpp.txt" | head -1 | field encode_tokens_per_s)
  js_tps=$(grep '^impl=js ' "$work/js.txt" | head -1 | field encode_tokens_per_s)
  cpp_count_tps=$(grep '^impl=cpp ' "$work/cpp.txt" | head -1 | field count_tokens_per_s)
  js_count_tps=$(grep '^impl=js ' "$work/js.txt" | head -1 | field count_tokens_per_s)
  cpp_sha=$(grep 'ids_sha256' "$work/cpp.txt" | field ids_sha256)
  js_sha=$(grep 'ids_sha256' "$work/js.txt" | field ids_sha256)
  cpp_rss=$(grep 'peak_rss_kb' "$work/cpp.txt" | field peak_rss_kb)
  js_rss=$(grep 'peak_rss_kb' "$work/js.txt" | field peak_rss_kb)
  same=yes; [ "$cpp_sha" = "$js_sha" ] || { same=NO; status=1; }
  awk -v e="$enc" -v c="$cpp_tps" -v j="$js_tps" -v cc="$cpp_count_tps" -v jc="$js_count_tps" -v cr="$cpp_rss" \
      -v jr="$js_rss" -v s="$same" 'BEGIN {
    printf "%s: encode %.2fx the JS throughput (%.0f vs %.0f tokens/s, one thread), count %.2fx; peak RSS %.0f MB vs %.0f MB; identical ids: %s\n\n",
      e, c / j, c, j, cc / jc, cr / 1024, jr / 1024, s }'
done
for enc in o200k_base cl100k_base; do
  "$BUILD_DIR/tokens_startup_bench" --encoding "$enc" --runs 20
done
exit $status
