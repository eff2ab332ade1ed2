#!/usr/bin/env bash
# bench/lsp/run.sh [BINARY] — how fast `attractor lsp` answers (docs/authoring.md section 6).
#
# Drives a real server over its pipes with the pinned LSP client (tests/lsp/lsp_client.mjs). For
# generated pipelines of SIZES nodes (default "1000 10000": a chain of LLM stages with prompts,
# edges with conditions, one misspelt shape so there is a diagnostic), it times R edits (default
# 30) from sending `didChange` (one character of one prompt) to receiving the
# `publishDiagnostics` of that version, and at 1,000 nodes R completion and hover requests at a
# node in the middle. Prints the median and the 90th percentile of each in milliseconds, and as the
# baseline of the same run the whole-process time of `attractor validate` on the same file.
# Example: R=30 bench/lsp/run.sh build/attractor
set -euo pipefail
cd "$(dirname "$0")/../.."
binary=${1:-build/attractor}
[ -x "$binary" ] || { echo "run.sh: $binary: no such binary (build it: cmake --build build --target attractor)" >&2; exit 2; }
[ -d third_party/lsp/node_modules/vscode-languageserver-protocol ] || { echo "run.sh: run make deps first" >&2; exit 3; }
exec node bench/lsp/lsp_latency.mjs "$(realpath "$binary")" "${SIZES:-1000 10000}" "${R:-30}"
