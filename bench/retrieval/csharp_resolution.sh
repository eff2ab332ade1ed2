#!/usr/bin/env bash
# C# name resolution on the whole of bitwarden/server (issue 37): how many Dapper classes deriving
# from the generic base `Repository<T, TId>` have their `inherits` edge, against an independent
# regular-expression count, and how many procedures have a caller (`executes`). The repository is
# exported from the local mirror (see real_repos.sh) into OUT_DIR, never into git.
#
# Usage: bench/retrieval/csharp_resolution.sh [BINARY] [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(realpath "${1:-$root/build/attractor}")"
out="${2:-/tmp/attractor-csharp-resolution}"
mirror="${ATTRACTOR_MIRROR:-/work/.mirror}"
commit=ac309aa19ed351406a56032d5f26a7a9a99f4abd
src="$out/bitwarden"
# shellcheck source=export_pinned.sh
source "$here/export_pinned.sh"
export_pinned "$src" "$mirror/bitwarden+server/repo" "$commit"
rm -rf "$out/index"
/usr/bin/time -f "index: %e s wall, %U s user, %M KiB peak RSS" \
  "$bin" index "$src" --index "$out/index" --repository bitwarden --branch main -q
db="$out/index/index.sqlite"
expected="$(python3 - "$src" <<'PY'
import pathlib, re, sys
names = set()
for p in pathlib.Path(sys.argv[1], "src/Infrastructure.Dapper").rglob("*.cs"):
    text = p.read_text(encoding="utf-8-sig", errors="replace")
    for m in re.finditer(r"\bclass\s+(\w+)[^{;]*?:\s*(?:[\w.]+\.)?Repository\s*<", text, re.S):
        names.add(m.group(1))
print(len(names))
PY
)"
got="$(sqlite3 "$db" "SELECT COUNT(DISTINCT e.from_id) FROM edges e JOIN nodes n ON n.id = e.to_id
  WHERE e.edge_type = 'inherits' AND n.name IN ('Bit.Infrastructure.Dapper.Repositories.Repository',
  'Bit.Infrastructure.Dapper.Repositories.Repository<T,TId>')")"
echo "Dapper Repository<T, TId> subclasses with inherits: $got of $expected (regular-expression count)"
echo "procedures with at least one executes edge: $(sqlite3 "$db" "SELECT COUNT(*) FROM nodes n
  WHERE n.kind = 'procedure' AND EXISTS (SELECT 1 FROM edges e WHERE e.to_id = n.id
  AND e.edge_type = 'executes')") of $(sqlite3 "$db" "SELECT COUNT(*) FROM nodes WHERE kind = 'procedure'")"
for p in Cipher_DeleteById Cipher_ReadById Cipher_Create Cipher_Update; do
  echo "callers of $p: $(sqlite3 "$db" "SELECT group_concat(from_id, ' ') FROM edges
    WHERE edge_type = 'executes' AND to_id = 'sql:dbo.$p'")"
done
