#!/usr/bin/env bash
# Index cost on whole public repositories (issue 37): a cold index, a no-change re-index, a one-file
# change (a comment inside the file's first type) and its revert, each with wall time, CPU, peak
# RSS and bytes written (the kernel's count of blocks written, 512 bytes each, /usr/bin/time %O). The repositories are exported from the local
# mirrors (see real_repos.sh) into OUT_DIR at pinned commits, never into git.
#
# Usage: bench/retrieval/reindex.sh [BINARY] [OUT_DIR] [NAME...]   (names: bitwarden efcore)
#   BASELINE=OTHER_BINARY runs every step with OTHER_BINARY first, in the same run, for ratios.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(realpath "${1:-$root/build/attractor}")"
out="${2:-/tmp/attractor-reindex}"
only=("${@:3}")
mirror="${ATTRACTOR_MIRROR:-/work/.mirror}"
# name | owner+repo | pinned commit | the file the one-file change edits
repos=(
  "bitwarden|bitwarden+server|ac309aa19ed351406a56032d5f26a7a9a99f4abd|src/Infrastructure.Dapper/Vault/Repositories/CipherRepository.cs"
  "efcore|dotnet+efcore|ecd0ba4c23377e479ce94c74119c499f1339351c|src/EFCore/DbContext.cs"
)
binaries=()
[[ -n "${BASELINE:-}" ]] && binaries+=("$(realpath "$BASELINE")")
binaries+=("$bin")

# step LABEL BINARY SRC INDEX: one index run, one line of figures.
step() {
  local label="$1" b="$2" src="$3" index="$4" stats
  /usr/bin/time -o "$out/last.time" -f "%e %U %M %O" "$b" index "$src" --index "$index" --repository r \
    --branch main -q > /dev/null 2> "$out/last.err"
  stats="$(tail -n 1 "$out/last.time")"
  read -r wall user rss blocks <<< "$stats"
  awk -v l="$label" -v b="$b" -v w="$wall" -v u="$user" -v r="$rss" -v o="$blocks" 'BEGIN {
    printf "  %-10s %-40s %7.2f s wall %7.2f s cpu %6d MiB peak %9.2f MB written\n", l, b, w, u, r / 1024, o * 512 / 1e6 }'
}

# shellcheck source=export_pinned.sh
source "$here/export_pinned.sh"
mkdir -p "$out"
for line in "${repos[@]}"; do
  IFS='|' read -r name mirror_name commit touched <<< "$line"
  if [[ ${#only[@]} -gt 0 && ! " ${only[*]} " =~ " $name " ]]; then continue; fi
  src="$out/src-$name"
  export_pinned "$src" "$mirror/$mirror_name/repo" "$commit"
  echo "== $name ($mirror_name @ ${commit:0:12}): $(find "$src" -type f \( -name '*.cs' -o -name '*.sql' \) | wc -l) .cs/.sql files"
  cp "$src/$touched" "$out/touched.orig"
  for b in "${binaries[@]}"; do
    index="$out/index-$name"
    rm -rf "$index"
    step cold "$b" "$src" "$index"
    step no-change "$b" "$src" "$index"
    # A comment inside the file's first type: that type's text changes, its members' do not.
    sed -i '0,/{[[:space:]]*$/s//{ \/\/ one-file change/' "$src/$touched"
    step one-file "$b" "$src" "$index"
    cp "$out/touched.orig" "$src/$touched"
    step revert "$b" "$src" "$index"
    db="$index/index.sqlite"
    echo "  nodes $(sqlite3 "$db" 'SELECT COUNT(*) FROM nodes'), edges $(sqlite3 "$db" 'SELECT COUNT(*) FROM edges')," \
      "files $(sqlite3 "$db" 'SELECT COUNT(*) FROM files'), index $(du -sm "$index" | cut -f1) MiB"
  done
done
