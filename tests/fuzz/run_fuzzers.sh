#!/usr/bin/env bash
# Runs the libFuzzer targets of build dir BUILD_DIR for SECONDS each, one after the other, at low
# priority. Usage: tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]
# The growing corpus is kept in BUILD_DIR/corpus/TARGET, seeded from graphs/, tests/data/ and
# tests/fuzz/seeds/; crashes, leaks and timeouts go to BUILD_DIR/artifacts/TARGET/ and fail the run.
# Logs: ${FUZZ_LOG_DIR:-BUILD_DIR/logs}/fuzz-TARGET.log (last line: executions and coverage).
set -uo pipefail
cd "${FUZZ_ROOT:-$(dirname "$0")/../..}"
build=${1:?usage: run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$build"/fuzz_*; do [ -x "$exe" ] && targets+=("$(basename "$exe")"); done
fi
log_dir=${FUZZ_LOG_DIR:-$build/logs}
mkdir -p "$log_dir"

seed_dirs() {
  case "$1" in
    fuzz_dot | fuzz_authoring) echo "graphs tests/data/parse tests/data/engine tests/data/bad" ;;
    fuzz_retrieval) echo "tests/data/csharp_sql_repo tests/data/ssdt_repo tests/data/encodings_repo" ;;
    *) echo "tests/fuzz/seeds/${1#fuzz_}" ;;
  esac
}

failed=0
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  artifacts="$build/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  # The retrieval seeds are the .cs and .sql files of whole fixture repositories, at any depth.
  select=(-maxdepth 1 -type f ! -name '*.expected' ! -name '*.sh')
  [ "$target" = fuzz_retrieval ] && select=(-type f \( -name '*.cs' -o -name '*.sql' \))
  for dir in $(seed_dirs "$target"); do
    [ -d "$dir" ] || continue
    find "$dir" "${select[@]}" -size -64k -exec cp -n {} "$corpus/" \;
  done
  extra=()
  case "$target" in fuzz_dot | fuzz_authoring) extra+=(-dict=tests/fuzz/dot.dict -max_len=16384) ;; esac
  log="$log_dir/fuzz-${target#fuzz_}.log"
  echo "== $target: ${seconds}s, corpus $corpus, log $log"
  nice -n 15 "$build/$target" "${extra[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
  status=$?
  grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -1
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log"
  if [ $status -ne 0 ]; then
    echo "!! $target failed (exit $status); see $log and $artifacts/"
    grep -m3 -E 'ERROR|SUMMARY|runtime error' "$log"
    failed=1
  fi
done
exit $failed
