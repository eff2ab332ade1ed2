#!/usr/bin/env bash
# Prints a benchmark pipeline. Usage: gen_graph.sh linear N | gen_graph.sh parallel BLOCKS
# `parallel B` makes B blocks of 10 nodes: a parallel node, 8 branches and a fan-in node.
set -euo pipefail
kind=$1
n=$2
echo "digraph bench_${kind}_${n} {"
echo "  graph [goal=\"benchmark\", max_node_executions=1000000]"
echo "  start [shape=Mdiamond]"
echo "  done [shape=Msquare]"
if [ "$kind" = linear ]; then
  awk -v n="$n" 'BEGIN {
    prev = "start"
    for (i = 1; i <= n; i++) {
      printf "  n%d [prompt=\"Step %d of $goal\"]\n  %s -> n%d\n", i, i, prev, i
      prev = "n" i
    }
    printf "  %s -> done\n", prev
  }'
else
  awk -v n="$n" 'BEGIN {
    prev = "start"
    for (b = 1; b <= n; b++) {
      printf "  p%d [shape=component]\n  j%d [shape=tripleoctagon]\n  %s -> p%d\n", b, b, prev, b
      for (k = 1; k <= 8; k++) printf "  b%d_%d [prompt=\"Branch %d of block %d\"]\n  p%d -> b%d_%d\n  b%d_%d -> j%d\n", b, k, k, b, b, b, k, b, k, b
      prev = "j" b
    }
    printf "  %s -> done\n", prev
  }'
fi
echo "}"
