#!/usr/bin/env bash
# Installs what attractor needs on a Debian 12 machine, skipping whatever is already there.
# apt packages (the list below), then pinned npm tarballs (sha256-verified) unpacked into third_party/.
set -euo pipefail
cd "$(dirname "$0")/.."

# wordnet-base: the WordNet 3.0 database (/usr/share/wordnet) of bm25's synonym expansion.
apt_packages=(g++ cmake ninja-build pkg-config libboost-dev libboost-graph-dev nlohmann-json3-dev
  libspdlog-dev libfmt-dev libgtest-dev libgmock-dev libcli11-dev libcpp-httplib-dev libsqlite3-dev libssl-dev
  libfaiss-dev libopenblas0-openmp libpcre2-dev zlib1g-dev libjemalloc-dev graphviz time jq sqlite3 chromium ccache
  bubblewrap libseccomp-dev libgit2-dev git make curl wget wordnet-base)
# `deps.sh --fuzz` (make fuzz) also needs clang and its libFuzzer/sanitizer runtime; `deps.sh --lint`
# (make lint, make format) clang-format and clang-tidy.
case "${1:-}" in
  --fuzz) apt_packages+=(clang-14 libclang-rt-14-dev) ;;
  --lint) apt_packages+=(clang-format-14 clang-tidy-14) ;;
esac
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# Pinned npm packages: name@version sha256-of-tarball destination-folder
fetch_npm() {
  local spec=$1 sum=$2 dest=$3
  if [ -f "third_party/$dest/.verified" ] && [ "$(cat "third_party/$dest/.verified")" = "$sum" ]; then
    return 0
  fi
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent --ignore-scripts "$spec" >/dev/null)
  local tgz; tgz=$(ls "$tmp"/*.tgz)
  local got; got=$(sha256sum "$tgz" | cut -d' ' -f1)
  if [ "$got" != "$sum" ]; then
    echo "deps: checksum mismatch for $spec: expected $sum, got $got" >&2
    rm -rf "$tmp"; exit 1
  fi
  rm -rf "third_party/$dest"; mkdir -p "third_party/$dest"
  tar -xzf "$tgz" -C "third_party/$dest" --strip-components=1
  echo "$sum" > "third_party/$dest/.verified"
  rm -rf "$tmp"
  echo "deps: $spec -> third_party/$dest"
}

mkdir -p third_party
while read -r spec sum dest; do
  [ -z "${spec:-}" ] || [ "${spec:0:1}" = "#" ] && continue
  fetch_npm "$spec" "$sum" "$dest"
done < .ci/npm-pins.txt
