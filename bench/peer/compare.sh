#!/usr/bin/env bash
# bench/peer/compare.sh ATTRACTOR_BIN [SIZES] [ROUNDS]: whole-process comparison of attractor with
# the TypeScript peer (github.com/jhugman/attractor-pi-dev, installed by bench/peer/setup.sh) on
# simulated linear pipelines.
#
#   ATTRACTOR_BIN  the attractor binary to measure (e.g. build/attractor, or a branch's build)
#   SIZES          stage counts, default "1000 10000" (e.g. "1000 10000 50000")
#   ROUNDS         runs of each tool per size, default 5
#
# Environment:
#   PEER_DIR   the DEST given to setup.sh
#              (default ${XDG_CACHE_HOME:-$HOME/.cache}/attractor-bench/peer)
#   PEER_CLI   the peer's CLI script (default PEER_DIR/src/packages/attractor-pi/dist/attractor.mjs,
#              the single-file CLI the peer publishes as @jhugman/attractor-pi)
#   BENCH_DIR  a folder on a real disk for the graphs and run directories (default /var/tmp);
#              a tmpfs is refused, since the comparison is about making the output durable
#   KEEP=1     keep the run directories and raw measurements after the script ends
#   RUN_TIMEOUT  seconds one run may take before the script stops with an error (default none)
#
# Both tools get the same file from bench/engine/gen_graph.sh linear N: the peer parses it as is
# (it ignores max_node_executions, which it does not implement), and both simulate every codergen
# stage without an LLM (attractor: --simulate -q --logs-root DIR; peer: run --simulate --logs-dir
# DIR, whose per-stage console lines go to /dev/null, as attractor's progress output would).
#
# One measured run is `/usr/bin/time bash -c 'TOOL ...; sync; cat /proc/$$/io'`, so the wall time,
# CPU (user + sys of the tool and of sync) and peak RSS cover the whole process plus the `sync`
# that makes its output durable: attractor fsyncs as it goes, the peer leaves its files in the page
# cache, and the final sync charges each tool for its own writes. Bytes written come from the
# wrapper shell's /proc/self/io, which includes its reaped children: write_bytes counts the pages
# the tool dirtied in the page cache (page granular, so a 30-byte file counts 4096). Dirty pages
# truncated before writeback would show up in cancelled_write_bytes (kept in the raw lines); it
# stays near 0 for both tools, because ext4 (auto_da_alloc) starts writeback of a file truncated
# to 0 and rewritten when it is closed, which is how the peer rewrites checkpoint.json.
#
# Rounds alternate which tool goes first. Every run writes into a new, empty directory; nothing is
# deleted until the script ends, because on ext4 creating files is slower for about a minute
# after many deletions, which would charge whichever tool runs after a cleanup (see
# bench/engine/README.md).
# Each run is checked: exit status 0 and one stage directory per stage.
set -euo pipefail

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
attractor_bin=$1
sizes=${2:-"1000 10000"}
rounds=${3:-5}

here=$(cd "$(dirname "$0")" && pwd)
gen=$here/../engine/gen_graph.sh
peer_dir=${PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/attractor-bench/peer}
peer_cli=${PEER_CLI:-$peer_dir/src/packages/attractor-pi/dist/attractor.mjs}
bench_root=${BENCH_DIR:-/var/tmp}

die() { echo "peer compare: $*" >&2; exit 1; }
[ -x "$attractor_bin" ] || die "no attractor binary at $attractor_bin"
attractor_bin=$(cd "$(dirname "$attractor_bin")" && pwd)/$(basename "$attractor_bin")
[ -f "$peer_cli" ] || die "no peer CLI at $peer_cli (run bench/peer/setup.sh first)"
[ -x /usr/bin/time ] || die "GNU time is required at /usr/bin/time (Debian: apt-get install time)"
command -v node >/dev/null || die "node is required"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, got '$rounds'"
for n in $sizes; do [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "sizes must be positive integers, got '$n'"; done

mkdir -p "$bench_root"
fs_type=$(stat -f -c %T "$bench_root")
case "$fs_type" in
  tmpfs|ramfs) die "$bench_root is on $fs_type; set BENCH_DIR to a folder on a real disk" ;;
esac
work=$(mktemp -d "$bench_root/attractor-peer-bench.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
  echo "peer compare: keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi

# Rough space check: both tools write about 3 small files (3 pages) per stage, plus directories.
need_kb=0
for n in $sizes; do need_kb=$((need_kb + n * 2 * rounds * 24 + 10240)); done
avail_kb=$(df -Pk "$work" | awk 'NR == 2 {print $4}')
[ "$avail_kb" -gt "$need_kb" ] || die "$work has ${avail_kb} KB free; this needs about ${need_kb} KB"

peer_commit=$(cat "$peer_dir/src/.peer-commit" 2>/dev/null || echo unknown)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# attractor: $attractor_bin ($("$attractor_bin" --version 2>/dev/null | head -1))"
echo "# peer:      node $(node --version) $peer_cli (commit $peer_commit)"
echo "# run dirs:  $work ($fs_type, $(df -P "$work" | awk 'NR == 2 {print $1}')), $rounds rounds"

raw=$work/raw.tsv
printf 'size\ttool\tround\twall_s\tcpu_s\tmaxrss_kb\twrite_bytes\tcancelled_bytes\tload1\n' > "$raw"

# run_one TOOL N ROUND GRAPH: one measured run into a fresh directory; appends a line to $raw.
run_one() {
  local tool=$1 n=$2 r=$3 graph=$4
  local dir=$work/runs/$tool-$n-$r
  local t=$work/meta/$tool-$n-$r
  mkdir -p "$work/runs" "$work/meta"
  [ ! -e "$dir" ] || die "$dir exists"
  local cmd
  if [ "$tool" = attractor ]; then
    cmd=("$attractor_bin" run "$graph" --simulate -q --logs-root "$dir")
  else
    cmd=(node "$peer_cli" run "$graph" --simulate --logs-dir "$dir")
  fi
  [ -z "${RUN_TIMEOUT:-}" ] || cmd=(timeout "$RUN_TIMEOUT" "${cmd[@]}")
  local load1 rc=0
  load1=$(cut -d' ' -f1 /proc/loadavg)
  # shellcheck disable=SC2016  # $$ and "$@" are expanded by the inner shell
  /usr/bin/time -f '%e %U %S %M' -o "$t.time" \
    bash -c '"$@" >/dev/null 2>"$0.err"; rc=$?; sync; cat /proc/$$/io >"$0.io"; exit $rc' \
    "$t" "${cmd[@]}" || rc=$?
  if [ "$rc" -eq 124 ] && [ -n "${RUN_TIMEOUT:-}" ]; then
    die "$tool took more than RUN_TIMEOUT=$RUN_TIMEOUT s on $n stages"
  elif [ "$rc" -ne 0 ]; then
    echo "peer compare: $tool failed on $n stages (exit $rc):" >&2
    tail -20 "$t.err" >&2 || true
    exit 1
  fi
  local stages
  stages=$(find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'n*' | wc -l)
  [ "$stages" -eq "$n" ] || die "$tool wrote $stages stage directories for $n stages ($dir)"
  local wall user sys rss wb cb
  read -r wall user sys rss < <(tail -1 "$t.time")
  wb=$(awk '$1 == "write_bytes:" {print $2}' "$t.io")
  cb=$(awk '$1 == "cancelled_write_bytes:" {print $2}' "$t.io")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$tool" "$r" "$wall" \
    "$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')" "$rss" "$wb" "$cb" "$load1" >> "$raw"
  printf '  %-9s n=%-6s round %s: %6.2f s wall\n' "$tool" "$n" "$r" "$wall" >&2
}

for n in $sizes; do
  graph=$work/linear_$n.dot
  bash "$gen" linear "$n" > "$graph"
  for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then order="attractor peer"; else order="peer attractor"; fi
    for tool in $order; do run_one "$tool" "$n" "$r" "$graph"; done
  done
done

# median SIZE TOOL COLUMN: the median of one raw column over that size's runs of that tool (mean of
# the two middle values for an even count).
median() {
  awk -F'\t' -v n="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == n && $2 == t {print $c}' "$raw" |
    sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
echo
echo "Medians of $rounds runs each; wall and CPU include the final sync; MB = 10^6 bytes."
echo
echo "| stages | attractor s | peer s | peer/attractor | attractor CPU s | peer CPU s | attractor MB RSS | peer MB RSS | attractor MB written | peer MB written |"
echo "|-------:|------------:|-------:|---------------:|----------------:|-----------:|-----------------:|------------:|---------------------:|----------------:|"
for n in $sizes; do
  aw=$(median "$n" attractor 4); pw=$(median "$n" peer 4)
  ac=$(median "$n" attractor 5); pc=$(median "$n" peer 5)
  ar=$(median "$n" attractor 6); pr=$(median "$n" peer 6)
  awb=$(median "$n" attractor 7); pwb=$(median "$n" peer 7)
  awk -v n="$n" -v aw="$aw" -v pw="$pw" -v ac="$ac" -v pc="$pc" -v ar="$ar" -v pr="$pr" \
      -v awb="$awb" -v pwb="$pwb" 'BEGIN {
    printf "| %6d | %11.2f | %6.2f | %14.2f | %15.2f | %10.2f | %16.1f | %11.1f | %20.1f | %15.1f |\n",
      n, aw, pw, pw / aw, ac, pc, ar / 1024, pr / 1024, awb / 1e6, pwb / 1e6
  }'
done
echo
echo "Raw runs (size, tool, round, wall s, CPU s, max RSS KB, write_bytes, cancelled_write_bytes,"
echo "  1-minute load average when the run started):"
tail -n +2 "$raw" | sed 's/^/  /'
