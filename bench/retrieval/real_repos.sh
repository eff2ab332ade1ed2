#!/usr/bin/env bash
# Index public C# + SQL Server repositories and report what the index made of them next to an
# independent ground count (count_sql_objects.py). The repositories' code stays out of git: it is
# exported from local mirrors (the `fetch` tool of the development sandbox puts them under
# $ATTRACTOR_MIRROR/<owner>+<name>/repo) into bench/retrieval/data/, which .gitignore excludes.
#
# Usage: bench/retrieval/real_repos.sh [BINARY] [OUT_DIR] [NAME...]
#   BINARY   attractor binary to measure (default build/attractor)
#   OUT_DIR  where indexes and reports go (default /tmp/attractor-real-repos)
#   NAME     only these repositories (bitwarden eshop maintenance mmddd efcore; default: all)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(realpath "${1:-$root/build/attractor}")"
out="${2:-/tmp/attractor-real-repos}"
only=("${@:3}")  # names to run (default: all)
mirror="${ATTRACTOR_MIRROR:-/work/.mirror}"
data="$here/data"

# name | owner+repo | pinned commit | paths to export (the C# and SQL that matter)
repos=(
  "bitwarden|bitwarden+server|ac309aa19ed351406a56032d5f26a7a9a99f4abd|src/Sql src/Infrastructure.Dapper src/Core/Entities"
  "eshop|dotnet+eShop|5624ad564d1602a927879df32a79b94522eb6101|src"
  "maintenance|olahallengren+sql-server-maintenance-solution|be63a5e57887b4b2bd388621dfd7acb5ef6a6564|."
  "mmddd|kgrzybek+modular-monolith-with-ddd|91c8ef24b4cb6ef558c95d8267fa07d68c7059f8|src"
  "efcore|dotnet+efcore|ecd0ba4c23377e479ce94c74119c499f1339351c|."
)

# shellcheck source=export_pinned.sh
source "$here/export_pinned.sh"

report() {
  local name="$1" db="$2" scope="repository = '$name'"
  echo "nodes by kind:"
  sqlite3 "$db" "SELECT '  ' || kind || ' ' || COUNT(*) FROM nodes WHERE $scope GROUP BY kind ORDER BY kind"
  echo "distinct SQL objects by kind (name, case-insensitive):"
  sqlite3 "$db" "SELECT '  ' || kind || ' ' || COUNT(DISTINCT lower(name)) FROM nodes WHERE $scope AND language = 'sql' GROUP BY kind ORDER BY kind"
  echo "edges by type:"
  sqlite3 "$db" "SELECT '  ' || edge_type || ' ' || COUNT(*) FROM edges WHERE $scope GROUP BY edge_type ORDER BY edge_type"
}

mkdir -p "$out"
for line in "${repos[@]}"; do
  IFS='|' read -r name mirror_name commit paths <<< "$line"
  if [[ ${#only[@]} -gt 0 && ! " ${only[*]} " =~ " $name " ]]; then continue; fi
  # shellcheck disable=SC2086
  export_pinned "$data/$name" "$mirror/$mirror_name/repo" "$commit" $paths 2>&1 || continue
  echo "== $name ($mirror_name @ ${commit:0:12})"
  echo "files: $(find "$data/$name" -type f \( -name '*.cs' -o -name '*.sql' \) | wc -l) (.cs and .sql)"
  echo "ground count (count_sql_objects.py): $(python3 "$here/count_sql_objects.py" "$data/$name")"
  rm -rf "${out:?}/$name"
  /usr/bin/time -f "index: %e s wall, %M KiB peak RSS" \
    "$bin" index "$data/$name" --index "$out/$name" --repository "$name" --branch main -q 2>&1 | tail -n 8
  report "$name" "$(find "$out/$name" -name '*.sqlite*' -o -name '*.db' | head -n 1)"
done
