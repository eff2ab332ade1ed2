#!/usr/bin/env bash
# make lint / make format (CONTRIBUTING.md, "Style"): clang-format, the layer check, clang-tidy.
#
#   tools/lint.sh [--build DIR] [--jobs N] [--format report|enforce] [--tidy-base REF | --tidy-all]
#   tools/lint.sh --fix             rewrite every C++ file of the tree with clang-format (make format)
#
# format  clang-format --dry-run --Werror (.clang-format) over the C++ files of src, tests, tools and
#         bench. `report` prints how many files differ and passes; `enforce` fails on any.
# layers  tools/check_layers.py: the folder include graph against the documented layer order.
# tidy    clang-tidy (.clang-tidy) on the .cc files of src/ and tests/ (not tests/fuzz) that DIR's
#         compile_commands.json compiles: all of them (--tidy-all, the default; about 10 CPU seconds
#         a file), or those changed since `git merge-base HEAD REF` (--tidy-base REF).
# Exit 0 when every step passes, 1 otherwise; each failing step names the files and lines.
set -uo pipefail
cd "$(dirname "$0")/.."

build=build
jobs=$(nproc)
format_mode=enforce
tidy_base=""
fix=0
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --format) format_mode=$2; shift 2 ;;
    --tidy-base) tidy_base=$2; shift 2 ;;
    --tidy-all) tidy_base=""; shift ;;
    --fix) fix=1; shift ;;
    *) echo "lint: unknown argument '$1' (see the top of tools/lint.sh)" >&2; exit 2 ;;
  esac
done
case $format_mode in report|enforce) ;; *) echo "lint: --format takes report or enforce" >&2; exit 2 ;; esac

clang_format=$(command -v clang-format-14 || command -v clang-format) || {
  echo "lint: clang-format not found: run .ci/deps.sh --lint" >&2; exit 2; }

# The C++ files of the tree, in a stable order (git's list in a checkout, find's in a tarball).
cxx_files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- 'src/*.cc' 'src/*.h' 'tests/*.cc' 'tests/*.h' 'tools/*.cc' 'bench/*.cc' 'bench/*.h'
  else
    find src tests tools bench \( -name '*.cc' -o -name '*.h' \) -type f | LC_ALL=C sort
  fi
}

if [ $fix -eq 1 ]; then
  cxx_files | xargs -P "$jobs" -n 32 "$clang_format" -i
  echo "format: $(cxx_files | wc -l) files formatted with $("$clang_format" --version | grep -o 'version [0-9.]*')"
  exit 0
fi

failed=()

step_format() {
  local out; out=$(mktemp)
  cxx_files | xargs -P "$jobs" -n 32 "$clang_format" --dry-run --Werror 2>"$out"
  local files; files=$(grep -o '^[^:]*\.\(cc\|h\):[0-9]*:[0-9]*: error' "$out" | cut -d: -f1 | sort -u)
  local n; n=$(printf '%s' "$files" | grep -c . || true)
  if [ "$n" -eq 0 ]; then
    echo "format: ok ($(cxx_files | wc -l) files)"
  elif [ "$format_mode" = report ]; then
    echo "format: $n files differ from .clang-format (reported, not enforced: FORMAT_CHECK=report; make format fixes them)"
  else
    head -c 20000 "$out"
    echo "format: $n files differ from .clang-format; run \`make format\` (or clang-format -i FILE):"
    printf '%s\n' "$files" | sed 's/^/  /'
    failed+=(format)
  fi
  rm -f "$out"
}

step_layers() {
  local out
  if out=$(python3 tools/check_layers.py . 2>&1); then
    echo "layers: ok"
  else
    printf '%s\n' "$out" | grep -v '^  ' ; failed+=(layers)
  fi
}

# compile_commands.json without the precompiled-header arguments (clang cannot read gcc's .gch),
# and with one entry per source of each unity batch (ATTRACTOR_UNITY), so clang-tidy checks every
# source on its own, with the flags of its batch.
tidy_database() {
  local dir=$build/lint
  mkdir -p "$dir"
  python3 - "$build/compile_commands.json" "$dir/compile_commands.json" <<'EOF'
import json, re, sys
entries = []
for e in json.load(open(sys.argv[1])):
    e["command"] = re.sub(r" -include \S*cmake_pch\.hxx| -Winvalid-pch", "", e["command"])
    if "/Unity/unity_" not in e["file"]:
        entries.append(e)
        continue
    for source in re.findall(r'^#include "([^"]+)"', open(e["file"]).read(), re.M):
        entries.append({"directory": e["directory"], "file": source,
                        "command": e["command"].replace(e["file"], source)})
json.dump(entries, open(sys.argv[2], "w"), indent=1)
EOF
  echo "$dir"
}

step_tidy() {
  local clang_tidy
  clang_tidy=$(command -v clang-tidy-14 || command -v clang-tidy) || {
    echo "tidy: clang-tidy not found: run .ci/deps.sh --lint"; failed+=(tidy); return; }
  if [ ! -f "$build/compile_commands.json" ]; then
    echo "tidy: $build/compile_commands.json missing: configure first (make configure)"; failed+=(tidy); return
  fi
  local files
  if [ -n "$tidy_base" ]; then
    local base
    if ! base=$(git merge-base HEAD "$tidy_base" 2>/dev/null); then
      # A shallow clone may not reach it: check what its history holds.
      base=$(git rev-list --max-parents=0 HEAD | tail -1)
      echo "tidy: $tidy_base is not in this clone's history; checking the files changed since $(git rev-parse --short "$base")"
    fi
    # The files the commits since $base changed, leaving out the whole-tree formatting commits
    # listed in .git-blame-ignore-revs (they change layout only, and every file).
    local skip; skip=$(grep -o '^[0-9a-f]\{40\}' .git-blame-ignore-revs 2>/dev/null || true)
    files=$(git rev-list "$base"..HEAD | grep -vxF -e "${skip:-none}" | while read -r c; do
      git diff-tree --no-commit-id --name-only -r --diff-filter=d "$c" -- 'src/*.cc' 'tests/*.cc'; done |
      sort -u | grep -v '^tests/fuzz/' || true)
  else
    files=$(git ls-files -- 'src/*.cc' 'tests/*.cc' | grep -v '^tests/fuzz/')
  fi
  # Only files the build compiles (the database knows them, unity batches unpacked).
  local db; db=$(tidy_database)
  files=$(printf '%s\n' "$files" | while read -r f; do
    [ -n "$f" ] && grep -q "\"file\": \"$PWD/$f\"" "$db/compile_commands.json" && echo "$f"; done)
  local n; n=$(printf '%s' "$files" | grep -c . || true)
  if [ "$n" -eq 0 ]; then echo "tidy: no files to check"; return; fi
  local out; out=$(mktemp)
  printf '%s\n' "$files" | xargs -P "$jobs" -n 4 "$clang_tidy" -p "$db" --quiet >"$out" 2>&1
  local rc=$?
  if [ $rc -eq 0 ] && ! grep -q ': \(warning\|error\): ' "$out"; then
    echo "tidy: ok ($n files)"
  else
    grep -A3 ': \(warning\|error\): ' "$out" | head -c 20000
    echo "tidy: findings in $n files checked (see above; .clang-tidy lists the checks)"
    failed+=(tidy)
  fi
  rm -f "$out"
}

step_format
step_layers
step_tidy
if [ ${#failed[@]} -gt 0 ]; then
  echo "lint: FAILED (${failed[*]})"
  exit 1
fi
echo "lint: ok"
