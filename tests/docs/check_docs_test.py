#!/usr/bin/env python3
"""Self-test of tools/check_docs.py: in a copy of the repository whose README.md cites stale things
(a moved test file, a test binary that does not exist, a filter that matches no test, an unknown
flag and command, a missing anchor, a Makefile target, a pipeline that does not validate) and
whose docs/cli.md spells the --allow-special of tokens --allow-specials (a flag that does not
exist, and one that is then not documented), the check must fail and name each one with its file
and line. (The ctest `docs` checks that the repository itself passes.)

The copy is a temporary folder holding symbolic links to every top-level entry of the repository
but README.md and docs/cli.md, which are real copies with the stale text planted.
Usage: tests/docs/check_docs_test.py --root REPO --build BUILD_DIR --binary PATH/TO/attractor
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

PLANTED = [
    ("tests/cli/code_rag_test.cc", "The demo's test is `tests/cli/code_rag_test.cc`."),
    ("build/attractor_tests", "Run `build/attractor_tests` for the lint tests."),
    ("NoSuchSuiteAnywhere*", "`build/rag_tests --gtest_filter='NoSuchSuiteAnywhere*'`"),
    ("--no-such-flag", "`attractor run graphs/simple.dot --no-such-flag`"),
    ("attractor frobnicate", "`attractor frobnicate graphs/simple.dot`"),
    ("#no-such-section", "See [the options](docs/cli.md#no-such-section)."),
    ("make no-such-target", "Then `make no-such-target`."),
]
# Its one error, condition_syntax, is on the block's fourth line.
BROKEN_DOT = ["```dot", "digraph Broken {", "  start [shape=Mdiamond]", "  exit  [shape=Msquare]",
              "  start -> exit [condition=\"outcome=\"]", "}", "```"]


def main():
    parser = argparse.ArgumentParser()
    for name in ("--root", "--build", "--binary"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    checker = os.path.join(root, "tools", "check_docs.py")
    with tempfile.TemporaryDirectory(prefix="check_docs_test.") as copy:
        for entry in os.listdir(root):
            if entry not in ("README.md", "docs"):
                os.symlink(os.path.join(root, entry), os.path.join(copy, entry))
        os.mkdir(os.path.join(copy, "docs"))
        for entry in os.listdir(os.path.join(root, "docs")):
            if entry != "cli.md":
                os.symlink(os.path.join(root, "docs", entry), os.path.join(copy, "docs", entry))
        with open(os.path.join(root, "docs", "cli.md"), encoding="utf-8") as f:
            cli = f.read().split("\n")
        tokens_heading = cli.index("## tokens") + 1
        renamed = [n for n, l in enumerate(cli, 1) if "--allow-special" in l]
        with open(os.path.join(copy, "docs", "cli.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(l.replace("--allow-special", "--allow-specials") for l in cli))
        with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
            lines = f.read().rstrip("\n").split("\n")
        expected = []
        for needle, text in PLANTED:
            lines += ["", text]
            expected.append((len(lines), needle))
        lines.append("")
        dot_line = len(lines) + 1
        lines += BROKEN_DOT
        with open(os.path.join(copy, "README.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

        planted = subprocess.run([sys.executable, checker, "--root", copy, "--build", args.build,
                                  "--binary", args.binary], capture_output=True, text=True)
    failures = []
    if planted.returncode != 1:
        failures.append(f"the check exits {planted.returncode} on the planted copy, expected 1")
    report = planted.stdout.splitlines()
    for number, needle in expected:
        if not any(l.startswith(f"README.md:{number}: ") and needle in l for l in report):
            failures.append(f"no report of README.md:{number} naming {needle!r}")
    if not any(l.startswith(f"README.md:{dot_line + 4}: ") and "validate" in l for l in report):
        failures.append(f"no report of the broken ```dot block at README.md:{dot_line + 4}")
    if not any(l.startswith(f"docs/cli.md:{tokens_heading}: ") and "--allow-special" in l for l in report):
        failures.append(f"no report that docs/cli.md:{tokens_heading} (## tokens) lacks --allow-special")
    for number in renamed:
        if not any(l.startswith(f"docs/cli.md:{number}: ") and "--allow-specials" in l for l in report):
            failures.append(f"no report of the unknown flag --allow-specials at docs/cli.md:{number}")
    reported = [f"README.md:{n}: " for n in [e[0] for e in expected] + [dot_line + 4]]
    reported += [f"docs/cli.md:{n}: " for n in renamed + [tokens_heading]]
    stray = [l for l in report if re.match(r"^\S+:\d+: ", l) and not l.startswith(tuple(reported))]
    if stray:
        failures.append("reports for lines nothing was planted on:\n" + "\n".join(stray))
    if failures:
        print("\n".join(failures))
        print("---- the check's output on the planted copy ----")
        print(planted.stdout + planted.stderr)
        return 1
    print(planted.stdout, end="")
    print(f"check_docs_test: {len(expected) + 1 + len(renamed) + 1} planted stale references, each reported with "
          "its file and line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
