#!/usr/bin/env bash
# Plain-English questions (issue 37) over two whole public repositories: hit rates at 5 and 10 of
# questions/plain/<name>.json per search type, for one split (dev or test; default test, the half no
# tuning decision looked at). The repositories are exported from the local mirrors (see
# real_repos.sh) into OUT_DIR at pinned commits, never into git, and indexed with BINARY.
#
# Usage: bench/retrieval/plain_english.sh [BINARY_DIR] [OUT_DIR] [SPLIT] [--verbose]
#   BINARY_DIR  holds attractor and bench/retrieval/recall_bench (default build)
# Build first: ninja -C build attractor recall_bench
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bindir="$(realpath "${1:-$root/build}")"
out="${2:-/tmp/attractor-plain-english}"
split="${3:-test}"
verbose=("${@:4}")
mirror="${ATTRACTOR_MIRROR:-/work/.mirror}"
# name | owner+repo | pinned commit
repos=(
  "bitwarden|bitwarden+server|ac309aa19ed351406a56032d5f26a7a9a99f4abd"
  "eshop|dotnet+eShop|5624ad564d1602a927879df32a79b94522eb6101"
)
# shellcheck source=export_pinned.sh
source "$here/export_pinned.sh"
mkdir -p "$out"
for line in "${repos[@]}"; do
  IFS='|' read -r name mirror_name commit <<< "$line"
  src="$out/$name"
  export_pinned "$src" "$mirror/$mirror_name/repo" "$commit"
  if [[ ! -f "$out/idx-$name/.built-by" || "$(cat "$out/idx-$name/.built-by")" != "$bindir" ]]; then
    rm -rf "$out/idx-$name"
    "$bindir/attractor" index "$src" --index "$out/idx-$name" --repository "$name" --branch main -q
    echo "$bindir" > "$out/idx-$name/.built-by"
  fi
  echo "== $name ($split half)"
  "$bindir/bench/retrieval/recall_bench" "${verbose[@]}" --split "$split" "$out/idx-$name" "$name" \
    "$here/questions/plain/$name.json"
done
