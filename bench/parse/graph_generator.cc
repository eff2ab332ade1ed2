#include "graph_generator.h"

namespace attractor::bench {

std::string generate_pipeline(std::size_t nodes) {
  std::string out;
  out.reserve(nodes * 260);
  out += "digraph Generated {\n  graph [goal=\"Benchmark pipeline\", rankdir=LR, default_max_retries=1]\n";
  out += "  node [shape=box, timeout=\"900s\"]\n  edge [weight=0]\n";
  out += "  start [shape=Mdiamond, label=\"Start\"]\n  exit [shape=Msquare, label=\"Exit\"]\n";
  std::size_t stages = nodes - 2;
  for (std::size_t i = 0; i < stages; ++i) {
    if (i % 100 == 0) {
      if (i > 0) out += "  }\n";
      out += "  subgraph cluster_" + std::to_string(i / 100) + " {\n    label=\"Block " + std::to_string(i / 100) +
             "\"\n";
    }
    std::string id = "n" + std::to_string(i);
    out += "    " + id + " [label=\"Stage " + std::to_string(i) + "\", prompt=\"Do step " + std::to_string(i) +
           " of the plan for $goal\\nthen report\", max_retries=2, class=\"work\"]\n";
  }
  if (stages > 0) out += "  }\n";
  out += "  start -> n0 [label=\"begin\"]\n";
  for (std::size_t i = 0; i + 1 < stages; ++i) {
    std::string a = "n" + std::to_string(i), b = "n" + std::to_string(i + 1);
    out += "  " + a + " -> " + b + " [label=\"next\", condition=\"outcome=success\", weight=2]\n";
    if (i + 2 < stages) {
      out += "  " + a + " -> n" + std::to_string(i + 2) +
             " [label=\"skip\", condition=\"outcome!=success && context.mode=fast\"]\n";
    }
  }
  out += "  n" + std::to_string(stages - 1) + " -> exit [label=\"done\"]\n";
  out += "  n" + std::to_string(stages > 1 ? stages - 2 : 0) + " -> exit [label=\"early\", weight=1]\n";
  out += "}\n";
  return out;
}

}  // namespace attractor::bench
