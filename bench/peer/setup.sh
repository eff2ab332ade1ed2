#!/usr/bin/env bash
# bench/peer/setup.sh [PEER_GIT_DIR] [DEST]: installs the TypeScript peer implementation of the
# Attractor spec (github.com/jhugman/attractor-pi-dev) outside this repository, for
# bench/peer/compare.sh. Nothing of the peer is committed here; this script is the only record.
#
#   PEER_GIT_DIR  a git directory (bare is fine) holding the peer's history
#                 (default: the mirror the project's fetch tool made)
#   DEST          where to put it (default ${XDG_CACHE_HOME:-$HOME/.cache}/attractor-bench/peer)
#
# Steps: export the pinned commit with `git archive` into DEST/src; `npm pack` the pinned pnpm and
# check the tarball's sha256 (the same convention as .ci/deps.sh and .ci/npm-pins.txt), unpack it
# into DEST/pnpm; `pnpm install --frozen-lockfile` (store in DEST/store) and `pnpm build`, which is
# what the peer's CI runs. Only the npm registry is contacted. Prints the peer's CLI path at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo_root=$(cd "$here/../.." && pwd)

# Pins. Bump all of them together, and re-run compare.sh.
peer_commit=f289d3b2050566c7278074fa1160315b8dc5ddf7   # 2026-02-12 "Add READNE.md" (HEAD of main)
pnpm_spec=pnpm@9.15.0                                   # the peer's package.json packageManager
pnpm_sha256=09a8fe31a34fda706354680619f4002f4ccef6dadff93240d24ef6c831f0fd28

git_dir=${1:-/work/.mirror/jhugman+attractor-pi-dev/repo}
dest=${2:-${XDG_CACHE_HOME:-$HOME/.cache}/attractor-bench/peer}

die() { echo "peer setup: $*" >&2; exit 1; }

command -v git >/dev/null || die "git is required"
command -v node >/dev/null || die "node >= 20 is required (Debian: apt-get install nodejs)"
command -v npm >/dev/null || die "npm is required (Debian: apt-get install npm)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "the peer needs node >= 20, found $(node --version)"

[ -d "$git_dir" ] || die "no git directory at $git_dir (fetch github:jhugman/attractor-pi-dev first)"
git --git-dir="$git_dir" cat-file -e "${peer_commit}^{commit}" 2>/dev/null \
  || die "$git_dir does not contain the pinned commit $peer_commit"

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
case "$dest/" in
  "$repo_root"/*) die "DEST $dest is inside this repository; the peer's code must stay out of it" ;;
esac

# 1. pnpm, pinned and checksummed.
pnpm_dir=$dest/pnpm
if [ ! -f "$pnpm_dir/.verified" ] || [ "$(cat "$pnpm_dir/.verified")" != "$pnpm_sha256" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent --ignore-scripts "$pnpm_spec" >/dev/null)
  tgz=$(ls "$tmp"/*.tgz)
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  [ "$got" = "$pnpm_sha256" ] || die "checksum mismatch for $pnpm_spec: expected $pnpm_sha256, got $got"
  rm -rf "$pnpm_dir"; mkdir -p "$pnpm_dir"
  tar -xzf "$tgz" -C "$pnpm_dir" --strip-components=1
  echo "$pnpm_sha256" > "$pnpm_dir/.verified"
  rm -rf "$tmp"; trap - EXIT
  echo "peer setup: $pnpm_spec -> $pnpm_dir"
fi
# The peer's own scripts call `pnpm`, so it goes on PATH as a small wrapper.
mkdir -p "$dest/bin"
printf '#!/bin/sh\nexec node "%s/bin/pnpm.cjs" "$@"\n' "$pnpm_dir" > "$dest/bin/pnpm"
chmod +x "$dest/bin/pnpm"
export PATH="$dest/bin:$PATH" npm_config_update_notifier=false npm_config_store_dir="$dest/store"
[ "$(pnpm --version)" = "${pnpm_spec#pnpm@}" ] || die "unexpected pnpm version $(pnpm --version)"

# 2. The peer's source at the pinned commit (a fresh export each time, so nothing stale survives).
src=$dest/src
rm -rf "$src"; mkdir -p "$src"
git --git-dir="$git_dir" archive --format=tar "$peer_commit" | tar -x -C "$src"
echo "$peer_commit" > "$src/.peer-commit"
echo "peer setup: exported $peer_commit -> $src"

# 3. Dependencies exactly as locked, then the build the peer's CI runs (tsc for core, backend and
#    cli; esbuild for the distributed single-file CLI).
# (pnpm warns that it cannot link the CLI's bin before the build; that is harmless.)
(cd "$src" && CI=true pnpm install --frozen-lockfile --reporter=append-only)
(cd "$src" && pnpm build)

cli=$src/packages/attractor-pi/dist/attractor.mjs
[ -f "$cli" ] || die "build did not produce $cli"
node "$cli" --help >/dev/null || die "$cli --help failed"
echo "peer setup: done; run pipelines with: node $cli run FILE.dot --simulate --logs-dir DIR"
