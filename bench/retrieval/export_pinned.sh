# shellcheck shell=bash
# Sourced by the benches of this folder: exports a pinned commit of a local mirror once.
#
# export_pinned DEST GIT_DIR COMMIT [PATH...]
#   Writes PATHs (default: the whole tree) of COMMIT in GIT_DIR to DEST with export_tree.py, unless
#   DEST/.commit already names COMMIT; prints export_tree.py's one-line summary to stderr.
export_pinned() {
  local dest="$1" git_dir="$2" commit="$3"
  local paths=("${@:4}")
  [[ ${#paths[@]} -gt 0 ]] || paths=(.)
  if [[ -f "$dest/.commit" && "$(cat "$dest/.commit")" == "$commit" ]]; then return 0; fi
  [[ -d "$git_dir" ]] || { echo "missing mirror $git_dir (fetch it first)" >&2; return 1; }
  rm -rf "$dest" && mkdir -p "$dest"
  python3 "$(dirname "${BASH_SOURCE[0]}")/export_tree.py" "$git_dir" "$commit" "$dest" "${paths[@]}" >&2
  echo "$commit" > "$dest/.commit"
}
