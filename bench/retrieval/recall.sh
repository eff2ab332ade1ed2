#!/usr/bin/env bash
# Recall@10 of the hand-labelled questions in bench/retrieval/questions/ against indexes of real public
# repositories (built by real_repos.sh), for bm25 / semantic / hybrid, split plain / named, plus the
# recall of the hand-checked dependency chains (bitwarden_chains.json) through expand.
#
# Usage: bench/retrieval/recall.sh [BINARY_DIR] [OUT_DIR] [--verbose]
#   BINARY_DIR  build directory holding attractor and bench/retrieval/recall_bench (default build)
#   OUT_DIR     where real_repos.sh puts the indexes (default /tmp/attractor-real-repos)
#   --verbose   also print every miss (passed to recall_bench)
# Build first: ninja -C build attractor recall_bench
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
verbose=()
args=()
for a in "$@"; do
  if [[ "$a" == "--verbose" || "$a" == "-v" ]]; then verbose=(--verbose); else args+=("$a"); fi
done
bindir="$(realpath "${args[0]:-$root/build}")"
out="${args[1]:-/tmp/attractor-real-repos}"
bench="$bindir/bench/retrieval/recall_bench"
[[ -x "$bench" ]] || { echo "missing $bench (ninja -C $bindir recall_bench)" >&2; exit 1; }
[[ -x "$bindir/attractor" ]] || { echo "missing $bindir/attractor" >&2; exit 1; }

"$here/real_repos.sh" "$bindir/attractor" "$out" > "$out.real_repos.log" 2>&1 \
  || { cat "$out.real_repos.log" >&2; exit 1; }

summary=()
for name in bitwarden eshop mmddd maintenance; do
  questions="$here/questions/$name.json"
  [[ -f "$questions" ]] || continue
  chains=()
  [[ -f "$here/questions/${name}_chains.json" ]] && chains=("$here/questions/${name}_chains.json")
  echo "== $name"
  # Exit 1 with a JSON line: labelled ids missing from the index (an older binary's index); they
  # count as misses. Without a JSON line the bench itself failed.
  report="$("$bench" "${verbose[@]}" --json "$out/$name" "$name" "$questions" "${chains[@]}")" || true
  grep -q '^JSON ' <<< "$report" || { echo "$report"; echo "recall_bench failed for $name" >&2; exit 1; }
  grep -v '^JSON ' <<< "$report"
  summary+=("$(grep '^JSON ' <<< "$report" | sed 's/^JSON //')")
  echo
done

# One table: repository x search type, Recall@10 all / plain / named; chains where present.
printf '%s\n' "${summary[@]}" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
print("Recall@10 (all / plain / named)")
print("| repository | questions | bm25 | semantic | hybrid | chains (expand depth 3) |")
print("| --- | --- | --- | --- | --- | --- |")
for r in rows:
    cells = []
    for t in ("bm25", "semantic", "hybrid"):
        m = r["recall"][t]
        cells.append("%.2f / %.2f / %.2f" % (m["all"], m["plain"], m["named"]))
    c = r.get("chains")
    chain = "%d/%d targets (%.2f), %d/%d chains complete" % (c["found"], c["targets"], c["found"] / max(c["targets"], 1), c["complete"], c["count"]) if c else "-"
    print("| %s | %d | %s | %s |" % (r["repository"], r["questions"], " | ".join(cells), chain))
'
