#!/usr/bin/env python3
"""Checks that the handlers write stage files only through the run disk (docs/run-directory.md).

A handler writes its stage's files with StageEnv::write_file, and what it hands a request to (an
LLM backend, a tool hook) with StageFiles: both go through the run's writer and its RunDisk, so a
failed write stops the run with exit 3 and the crash tests' disk sees every write. This script
finds direct file writes in src/handlers (and its subfolders) and prints each as FILE:LINE: the
call; it exits 1 when it found any that EXEMPT below does not explain.
Usage: tools/check_stage_writes.py [REPO_ROOT]
       tools/check_stage_writes.py --self-test   (plants a write in a scratch tree, expects FILE:LINE)
"""
import os
import re
import sys
import tempfile

# Calls that write a file without the run disk.
DIRECT_WRITE = re.compile(r"\bwrite_text_file\s*\(|\bstd::(?:basic_)?o?fstream\b|\bofstream\b|\bfopen\s*\(|"
                          r"\bfdopen\s*\(|(?<![\w.>])::open\s*\(|\bopenat\s*\(|\bcreat\s*\(")

# FILE (relative to the repository) -> (the call it may make, why that is not a stage-file write).
EXEMPT = {
    "src/handlers/services/subprocess.cc": (
        "::open(",
        "opens a child's standard input and output; the child writes its streams itself. In a stage "
        "folder the caller first writes a file there through the run disk (context.json, "
        "agent_prompt.md, hook-PHASE.json), so a failing disk stops the run before the child "
        "starts; the coding agent's shell tool uses temporary files"),
    "src/handlers/services/sandbox_host.cc": (
        "::open(",
        "opens the kept sandbox's namespace files under /proc/PID/ns read-only, to enter them; it "
        "writes nothing"),
    "src/handlers/services/pids_cgroup.cc": (
        "std::ofstream",
        "writes the control files of a cgroup under /sys/fs/cgroup (pids.max, cgroup.procs), which "
        "are kernel settings, not files of the run"),
    "src/handlers/agent/local_environment.cc": (
        "std::ofstream",
        "the coding agent's write_file tool writes into the project's working directory, which is "
        "not the run directory"),
}


def code_of(line):
    """The line without a trailing // comment (a line that is only a comment gives "")."""
    stripped = line.strip()
    if stripped.startswith(("//", "*", "/*")):
        return ""
    at = line.find("//")
    return line if at < 0 else line[:at]


def violations(root):
    found = []
    handlers = os.path.join(root, "src", "handlers")
    for folder, _, files in sorted(os.walk(handlers)):
        for name in sorted(files):
            if not name.endswith((".cc", ".h")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            allowed = EXEMPT.get(rel, (None, None))[0]
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    for match in DIRECT_WRITE.finditer(code_of(line)):
                        if allowed and match.group(0).startswith(allowed.rstrip("(")):
                            continue
                        found.append(f"{rel}:{number}: {match.group(0).strip()} writes a file outside the run "
                                     f"disk: use StageEnv::write_file or the request's StageFiles")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "handlers", "llm"))
        with open(os.path.join(root, "src", "handlers", "llm", "planted.cc"), "w", encoding="utf-8") as f:
            f.write('// write_text_file( in a comment is fine\n'
                    'void f() {\n  write_text_file(path, "x");  // the planted write\n'
                    '  std::ofstream out(path);\n  FILE* g = fopen(path, "w");\n  ::open(p, O_WRONLY);\n'
                    '  disk.open(path);\n}\n')
        got = [v.split(": ")[0] for v in violations(root)]
        want = [f"src/handlers/llm/planted.cc:{n}" for n in (3, 4, 5, 6)]
        if got != want:
            print(f"self-test failed: found {got}, expected {want}")
            return 1
        print("self-test passed: the planted writes were reported as", ", ".join(want))
        return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = violations(root)
    for v in found:
        print("error:", v)
    for rel, (call, why) in sorted(EXEMPT.items()):
        print(f"exempt: {rel}: {call} {why}")
    print(f"{len(found)} direct writes in src/handlers")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
