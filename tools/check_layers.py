#!/usr/bin/env python3
"""Checks the folder-level include graph of src/ against the documented layer order.

Every source folder is a layer; an `#include "a/b/c.h"` in folder X is an edge X -> the folder of
c.h. The graph must be acyclic and every edge must point to a layer that X may use (ALLOWED below,
the picture in README.md "Architecture"). Prints the edges found and exits 1 on any violation.
Usage: tools/check_layers.py [REPO_ROOT]
"""
import os
import re
import sys

# Each layer and the layers it may include directly (transitive use goes through these).
ALLOWED = {
    "external": [],
    "attractor/base": [],
    "attractor/model": ["attractor/base"],
    "parser": ["attractor/model", "attractor/base"],
    "attractor/tokens": ["attractor/model", "attractor/base"],
    "attractor/check": ["parser", "attractor/model", "attractor/base"],
    "attractor/run": ["attractor/model", "attractor/base"],
    "attractor/engine": ["attractor/check", "attractor/run", "attractor/tokens", "parser", "attractor/model",
                         "attractor/base"],
    "retrieval": ["attractor/base"],
    "retrieval/local": ["retrieval", "attractor/base"],
    "retrieval/module": ["retrieval/local", "retrieval"],
    "http": ["attractor/base"],
    "http/httplib": ["http"],
    "http/module": ["http/httplib", "http"],
    "handlers/services": ["attractor/engine", "attractor/run", "attractor/check", "parser", "attractor/model",
                          "attractor/base"],
    "handlers/llm": ["handlers/services", "http", "attractor/engine", "attractor/run", "attractor/check",
                     "attractor/tokens", "attractor/model", "attractor/base"],
    "handlers/rag": ["retrieval", "attractor/engine", "attractor/run", "attractor/check", "attractor/tokens",
                     "parser", "attractor/model", "attractor/base"],
    "handlers/agent": ["handlers/llm", "handlers/services", "attractor/engine", "attractor/model",
                       "attractor/base"],
    "handlers": ["handlers/rag", "handlers/llm", "handlers/services", "retrieval", "attractor/engine",
                 "attractor/run", "attractor/check", "attractor/tokens", "parser", "attractor/model",
                 "attractor/base"],
    "attractor/launch": ["handlers", "handlers/agent", "handlers/rag", "handlers/llm", "handlers/services", "attractor/engine",
                         "attractor/run", "attractor/check", "attractor/tokens", "parser", "attractor/model",
                         "attractor/base"],
    "attractor/server": ["attractor/launch", "handlers", "handlers/services", "http", "attractor/engine",
                         "attractor/run", "attractor/check", "attractor/model", "attractor/base"],
    "attractor/cli": ["attractor/server", "attractor/launch", "handlers", "handlers/rag", "handlers/llm", "handlers/services", "retrieval",
                      "attractor/engine", "attractor/run", "attractor/check", "attractor/tokens", "parser",
                      "attractor/model", "attractor/base"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_edges(src):
    edges = {}
    for layer in ALLOWED:
        path = os.path.join(src, layer)
        for name in sorted(os.listdir(path)):
            if not name.endswith((".h", ".cc")):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for target in INCLUDE.findall(f.read()):
                    to = os.path.dirname(target)
                    if to != layer:
                        edges.setdefault((layer, to), []).append(f"{layer}/{name} -> {target}")
    return edges


def find_cycle(nodes, edges):
    graph = {n: sorted({b for (a, b) in edges if a == n}) for n in nodes}
    state = {}

    def visit(n, stack):
        state[n] = 1
        for m in graph.get(n, []):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m] if m in stack else [n, m]
            if m not in state:
                found = visit(m, stack + [m])
                if found:
                    return found
        state[n] = 2
        return None

    for n in nodes:
        if n not in state:
            found = visit(n, [n])
            if found:
                return found
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    src = os.path.join(root, "src")
    unknown = sorted(d for d in (os.path.relpath(dp, src) for dp, _, files in os.walk(src)
                                 if any(f.endswith(".cc") for f in files)) if d not in ALLOWED)
    edges = folder_edges(src)
    problems = [f"folder {d} is not a layer of tools/check_layers.py" for d in unknown]
    for (a, b), where in sorted(edges.items()):
        if b not in ALLOWED:
            problems.append(f"{where[0]}: includes a folder that is not a layer")
        elif b not in ALLOWED[a]:
            problems.append(f"{where[0]}: {a} may not include {b} (layer order in README.md)")
    cycle = find_cycle(list(ALLOWED), edges)
    if cycle:
        problems.append("include cycle between folders: " + " -> ".join(cycle))
    for (a, b) in sorted(edges):
        print(f"{a} -> {b} ({len(edges[(a, b)])} includes)")
    for p in problems:
        print("error:", p)
    print(f"{len(edges)} folder edges, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
