#!/usr/bin/env bash
# `make run`: validates every example pipeline in graphs/ and renders each to SVG under
# build/graphs/, then runs graphs/engine_demo.dot end to end (simulated LLM, auto-approved human
# gate, real tool commands) and renders that run. Then the retrieval pipeline: indexes
# tests/data/csharp_sql_repo into build/code_rag/index, runs graphs/code_rag.dot offline (simulated
# LLM stages, real search / graph expansion / budgeting) and prints the evidence the answer stage
# received. Usage: graphs/demo.sh PATH/TO/attractor
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/attractor}
out=build/graphs
mkdir -p "$out"
for graph in graphs/*.dot; do
  name=$(basename "$graph" .dot)
  "$bin" validate "$graph"
  "$bin" render "$graph" -o "$out/$name.svg" 2>/dev/null
  echo "  rendered $out/$name.svg"
done
echo
run=build/runs/engine_demo
rm -rf "$run"
"$bin" run graphs/engine_demo.dot --simulate --auto-approve --logs-root "$run"
"$bin" render graphs/engine_demo.dot --run "$run" -o "$out/engine_demo-run.svg"
echo "  run directory: $run; its drawing: $out/engine_demo-run.svg"

echo
echo "== code_rag: index tests/data/csharp_sql_repo, retrieve, budget, answer (offline) =="
index=build/code_rag/index
rm -rf "$index"
"$bin" index tests/data/csharp_sql_repo --index "$index" --repository acme --branch main \
  --acl tests/data/csharp_sql_repo/acl.json
run=build/runs/code_rag
rm -rf "$run"
"$bin" run graphs/code_rag.dot --simulate --index "$index" --context graphs/code_rag.context.json \
  --logs-root "$run"
"$bin" render graphs/code_rag.dot --run "$run" -o "$out/code_rag-run.svg"
echo "  run directory: $run; its drawing: $out/code_rag-run.svg"
echo
echo "---- the answer stage's prompt ($run/answer/prompt.md): question + evidence ----"
cat "$run/answer/prompt.md"
echo
echo "---- end of prompt ----"
