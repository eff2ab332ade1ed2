#!/usr/bin/env bash
# Prints a benchmark pipeline. Usage: gen_graph.sh linear N | parallel BLOCKS | loop N | tool N | toolloop N
# `parallel B` makes B blocks of 10 nodes: a parallel node, 8 branches and a fan-in node.
# `loop N` is a review loop of N iterations: `work` then `review`, whose simulated outcome is
# `fail` N-1 times (back to work) and then `success` (to done): 2N stages on two nodes.
# `tool N` is a chain of N tool stages running `true`. `toolloop N` is a review loop whose `work`
# is a tool stage adding one to the number in the file `counter` of the working directory
# (missing = 0; shell built-ins only) and printing `more` until it reaches N, then `done`; `review` (a conditional)
# routes on that output: 2N stages, N of them commands.
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
elif [ "$kind" = loop ]; then
  awk -v n="$n" 'BEGIN {
    outcomes = ""
    for (i = 1; i < n; i++) outcomes = outcomes "fail,"
    printf "  graph [default_max_visits=%d]\n", n + 1
    printf "  work [prompt=\"Revise the $goal\"]\n"
    printf "  review [prompt=\"Review the $goal\", simulate.outcome=\"%ssuccess\"]\n", outcomes
    printf "  start -> work\n  work -> review\n"
    printf "  review -> work [condition=\"outcome=fail\"]\n  review -> done [condition=\"outcome=success\"]\n"
  }'
elif [ "$kind" = tool ]; then
  awk -v n="$n" 'BEGIN {
    prev = "start"
    for (i = 1; i <= n; i++) {
      printf "  n%d [shape=parallelogram, tool_command=\"true\"]\n  %s -> n%d\n", i, prev, i
      prev = "n" i
    }
    printf "  %s -> done\n", prev
  }'
elif [ "$kind" = toolloop ]; then
  printf '  graph [default_max_visits=%d]\n' $((n + 1))
  printf '  work [shape=parallelogram, tool_command="c=0; [ -f counter ] && read c < counter; c=$((c + 1)); '
  printf 'echo $c > counter; if [ $c -lt %d ]; then printf more; else printf done; fi"]\n' "$n"
  printf '  review [shape=diamond]\n  start -> work\n  work -> review\n'
  printf '  review -> work [condition="context.tool.output=more"]\n'
  printf '  review -> done [condition="context.tool.output=done"]\n'
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
