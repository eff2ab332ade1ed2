#!/usr/bin/env python3
"""Checks that the Markdown documentation cites only things that exist.

Reads README.md, CONTRIBUTING.md, docs/*.md and every README.md / RESULTS.md under src/, tests/
(without tests/data), bench/, checkpoints/ and tools/ (without the folders git ignores), and checks
each reference it finds:

- repository paths (`src/...`, `tests/...`, `docs/...`, `tools/...`, `bench/...`, `graphs/...`,
  `cmake/...`, `.ci/...`, `checkpoints/...`) in code spans, code blocks and links exist; `<name>`,
  `{name}` and the upper-case words of usage lines (NAME, DIR, FILE, ...) are wildcards, `{a,b}`
  names each alternative;
- relative links point at files, and `#anchors` at headings of the linked file;
- `build/NAME`, `--target NAME`, `ninja ... NAME` and every `*_tests` / `*_bench` name are targets
  of the build tree (`ninja -t targets all`); `make NAME` is a Makefile target; `ctest -L NAME`
  is a label of tests/CMakeLists.txt;
- `--gtest_filter=` patterns and `SomethingTest` / `SomethingTest.Name` match tests in the sources
  of the binary named with them (the folder tests/CMakeLists.txt builds it from);
- `attractor COMMAND ...` names a command of `attractor help` and only flags its `--help` lists,
  and a code span holding a lone flag names a flag of some attractor command, of a script in this
  repository, or of the build tools listed in OTHER_FLAGS;
- every ```dot block that holds a digraph, and every graphs/*.dot, passes `attractor validate`;
- and the other way round, docs/cli.md has a section for every command of `attractor help` that
  names every flag of its `--help`, or links to a page of docs/ that does.

Git-ignored paths (.gitignore: what scripts create) need not exist, nor paths a page declares with
`<!-- check-docs: not-in-repo PATH... -->` (an example of a new file, a path in another repository). Every problem is printed as FILE:LINE: the reference and
why it is stale; the exit code is 1 when there is any.

Usage: tools/check_docs.py --root REPO --build BUILD_DIR --binary PATH/TO/attractor
"""
import argparse
import fnmatch
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOTED = ("src", "tests", "docs", "tools", "bench", "graphs", "cmake", ".ci", "checkpoints")
PATH_TOKEN = re.compile(r"(?<![\w./$-])(?:\./)?((?:%s)/(?:<[^>\n]*>|\{[^}\n]*\}|[^\s`'\"()\[\],;|<{])*)"
                        % "|".join(re.escape(r) for r in ROOTED))
BUILD_TOKEN = re.compile(r"(?<![\w./$-])(?:\./)?build/([A-Za-z0-9_.+-]+)(?![\w/.-])")
PLACEHOLDER_WORDS = {"NAME", "DIR", "FILE", "X", "N", "ID", "KEY", "TYPE", "LABEL", "AGENT", "GRAPH",
                     "RUN_DIR", "SRC_DIR", "BUILD_DIR", "OUT", "PATH", "COMMAND", "TARGET", "TOPIC"}
# Flags of tools that are not attractor and have no script in this repository.
OTHER_FLAGS = {"--gtest_filter", "--gtest_list_tests", "--output-on-failure", "--build", "--target",
               "--install", "--prefix", "--print-labels", "--show-only", "-L", "-R", "-j", "-C", "-t",
               "--ignore-scripts", "--silent", "-fsanitize", "-ftime-trace", "-O1", "-g1", "-G", "-S", "-B",
               "-D", "-I", "-p", "-N", "-s", "-sN", "-XPOST", "-d", "-o", "--no-as-needed",
               "--exclude-libs"}
FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
TEST_DEF = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\(\s*(\w+)\s*,\s*(\w+)", re.M)
SUITE_WORD = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9]*Test)(?:\.(\w+))?(?![\w(])")
NOT_SUITES = {"GoogleTest"}
TARGET_WORD = re.compile(r"(?<![\w./-])([a-z][a-z0-9_]*_(?:tests|bench))(?![\w/.-])")
# `attractor COMMAND` at the start of a command: of the code, or after &&, ||, ;, |, ( or $(, past
# environment assignments. Elsewhere "attractor" is a word of quoted output or prose.
INVOCATION = re.compile(r"(?:^|&&|\|\||;|\||\$?\()\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:\./)?(?:build/)?attractor"
                        r"(?=\s)\s+([a-z][a-z-]*)")
NOT_IN_REPO = re.compile(r"<!--\s*check-docs:\s*not-in-repo\s+(.*?)-->", re.S)
FENCE = re.compile(r"^ {0,3}(```+|~~~+)\s*([\w+-]*)")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")  # also across a line break
SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)


class Problems:
    def __init__(self, root):
        self.root, self.items, self.checked = root, [], 0

    def add(self, path, line, what, why, kind="stale reference"):
        self.items.append(f"{os.path.relpath(path, self.root)}:{line}: {kind} {what}: {why}")


def ignored_directories(root):
    """The plain paths the top-level .gitignore names (what scripts create, such as
    bench/retrieval/data), relative to root."""
    try:
        with open(os.path.join(root, ".gitignore"), encoding="utf-8") as f:
            lines = [line.strip() for line in f]
    except OSError:
        return set()
    return {line.strip("/") for line in lines
            if line and not line.startswith(("#", "!")) and not any(c in line for c in "*?[")}


def markdown_files(root):
    names = ["README.md", "CONTRIBUTING.md"] + sorted(glob.glob("docs/*.md", root_dir=root))
    skipped = ignored_directories(root) | {"tests/data"}
    for top in ("src", "tests", "bench", "checkpoints", "tools"):
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if os.path.relpath(os.path.join(dirpath, d), root) not in skipped)
            names += [os.path.relpath(os.path.join(dirpath, f), root) for f in sorted(files)
                      if f in ("README.md", "RESULTS.md")]
    return [os.path.join(root, n) for n in names if os.path.exists(os.path.join(root, n))]


def parse_markdown(text):
    """(line number, text, code language or None for prose, first line of the block) per line."""
    out, fence, lang, start = [], None, None, 0
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence, lang, start = m.group(1), m.group(2) or "plain", number
            continue
        if fence is not None and line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
            fence = None
            continue
        out.append((number, line, lang if fence else None, start))
    return out


def slug(heading):
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, result = {}, set()
        with open(path, encoding="utf-8") as f:
            for _, line, lang, _ in parse_markdown(f.read()):
                m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if lang is None and m:
                    base = slug(m.group(1))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    result.add(base if n == 0 else f"{base}-{n}")
        cache[path] = result
    return cache[path]


def expand(token):
    """The glob patterns a cited path stands for."""
    token = re.sub(r"<[^>]*>", "*", token)
    m = re.search(r"\{([^{}]*)\}", token)
    if m:
        if "," in m.group(1):
            return [p for alt in m.group(1).split(",") for p in expand(token[:m.start()] + alt + token[m.end():])]
        return expand(token[:m.start()] + "*" + token[m.end():])
    parts = []
    for part in token.split("/"):
        stem, dot, ext = part.partition(".")
        parts.append(("*" + dot + ext) if stem in PLACEHOLDER_WORDS else part)
    return ["/".join(parts)]


def clean_path(token):
    token = token.split("#")[0]
    token = re.sub(r":\d+(:\d+)?$", "", token)
    return token.rstrip(".,:;")


class Checker:
    def __init__(self, root, build, binary):
        self.root, self.build, self.binary = root, build, binary
        self.problems = Problems(root)
        self.targets = self._targets()
        self.make_targets = self._make_targets()
        self.labels, self.suites_of = self._tests()
        self.all_tests = sorted({t for tests in self.suites_of.values() for t in tests})
        self.commands, self.flags_of, self.topics = self._cli()
        self.all_flags = set().union(*self.flags_of.values())
        self.script_text = self._scripts()
        with open(os.path.join(root, ".gitignore"), encoding="utf-8") as f:
            self.gitignored = [l.strip().lstrip("/") for l in f if l.strip() and l[0] not in "#!*"]

    # --- what exists -------------------------------------------------------------------------
    def _targets(self):
        out = subprocess.run(["ninja", "-C", self.build, "-t", "targets", "all"], capture_output=True, text=True,
                             check=True).stdout
        return {line.rsplit(":", 1)[0].strip() for line in out.splitlines() if ":" in line}

    def _make_targets(self):
        with open(os.path.join(self.root, "Makefile"), encoding="utf-8") as f:
            text = f.read()
        return set(re.findall(r"^([\w.-]+):(?!=)", text, re.M))

    def _tests(self):
        with open(os.path.join(self.root, "tests", "CMakeLists.txt"), encoding="utf-8") as f:
            text = f.read()
        labels = set(re.findall(r"LABELS\s+([\w$]+)", text)) - {"${label}"}
        suites_of = {}
        for folder, label in re.findall(r"^attractor_test\((\S+)\s+(\w+)", text, re.M):
            labels.add(label)
            tests = set()
            for source in glob.glob(os.path.join(self.root, "tests", folder, "*.cc")):
                with open(source, encoding="utf-8") as f:
                    tests |= {f"{s}.{n}" for s, n in TEST_DEF.findall(f.read())}
            suites_of[f"{label}_tests"] = tests
        return labels, suites_of

    def _run(self, *args):
        return subprocess.run([self.binary, *args], capture_output=True, text=True, timeout=60)

    def _cli(self):
        listing = self._run("help").stdout
        commands = set(re.findall(r"^  ([a-z][a-z-]*)\s", listing, re.M))
        topics = set(re.findall(r"help (?:[a-z]+\|)*([a-z|]+)`", listing))
        topics = {t for group in topics for t in group.split("|")} | {"shapes", "attributes", "reference"}
        flags_of = {}
        for command in commands:
            text = self._run(command, "--help").stdout if command != "help" else ""
            flags_of[command] = set(FLAG.findall(text)) | {"--help", "-h", "--log-level"}
        flags_of["--version"] = set()
        return commands, flags_of, topics

    def _scripts(self):
        texts = []
        for pattern in ("tools/*", "bench/*/*.sh", "bench/*.sh", "bench/*/*.mjs", "bench/*/*.cc", ".ci/*", "tests/fuzz/*.sh",
                        "graphs/*.sh", "Makefile"):
            for path in glob.glob(os.path.join(self.root, pattern)):
                if os.path.isfile(path):
                    with open(path, encoding="utf-8", errors="replace") as f:
                        texts.append(f.read())
        return "\n".join(texts)

    # --- the checks --------------------------------------------------------------------------
    def check_file(self, path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new_files = {p for m in NOT_IN_REPO.finditer(text) for p in m.group(1).split()}
        lines = parse_markdown(text)
        prompted = {start for _, line, lang, start in lines if lang and line.strip().startswith("$ ")}
        previous_invocation = None
        paragraph = []
        for number, line, lang, start in lines + [(0, "", "end", 0)]:
            if lang is None and line.strip():
                paragraph.append((number, line))
                continue
            if paragraph:
                self.check_paragraph(path, paragraph, new_files)
                paragraph = []
            if lang is None or lang == "end":
                previous_invocation = None
                continue
            command_line = self.command_part(line, lang, start in prompted)
            if command_line is None:
                previous_invocation = None
            elif previous_invocation and re.match(r"^\s+[\[-]", line):
                self.check_flags(path, number, previous_invocation, command_line)
            else:
                previous_invocation = self.check_code(path, number, command_line, new_files, span=False)
        self.check_dot_blocks(path, lines)

    def check_paragraph(self, path, paragraph, new_files):
        """Links and code spans of consecutive prose lines; a span may continue on the next line."""
        first = paragraph[0][0]
        text = "\n".join(line for _, line in paragraph)
        for m in LINK.finditer(text):
            self.check_link(path, first + text[:m.start()].count("\n"), m.group(1))
        for m in SPAN.finditer(text):
            code = m.group(2).replace("\n", " ").strip()
            self.check_code(path, first + text[:m.start()].count("\n"), code, new_files, span=True)

    @staticmethod
    def command_part(line, lang, prompted):
        """The part of a code line that is a command, or None when the line is output or code.

        Untagged and shell blocks are commands, but in a block with `$ ` prompts only the prompted
        lines are; other blocks (text, json, cpp, ...) hold output or code, where only prompted
        lines and usage lines that start with attractor count."""
        stripped = line.strip()
        if stripped.startswith("$ "):
            return stripped[2:]
        if lang in ("plain", "sh", "bash", "shell", "console") and not prompted:
            return re.sub(r"(^|\s)#.*$", "", line)
        if lang not in ("plain", "sh", "bash", "shell", "console", "text"):
            return None
        if re.match(r"^\s*(?:\./)?(?:build/)?attractor\s", line) or re.match(r"^\s+[\[-]", line):
            return line
        return None

    def check_link(self, path, number, target):
        if re.match(r"^[a-z]+:", target):
            return
        file_part, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        self.problems.checked += 1
        if not os.path.exists(resolved):
            self.problems.add(path, number, f"'{target}'", "the link points at no file")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            self.problems.add(path, number, f"'{target}'",
                              f"no heading of {os.path.relpath(resolved, self.root)} has the anchor #{anchor}")

    def check_code(self, path, number, code, new_files, span):
        for m in PATH_TOKEN.finditer(code):
            self.check_path(path, number, clean_path(m.group(1)), new_files)
        for m in BUILD_TOKEN.finditer(code):
            if m.group(1) not in PLACEHOLDER_WORDS:
                self.check_target(path, number, m.group(1), f"'build/{m.group(1)}'")
        for m in re.finditer(r"--target[ =]([\w.-]+)", code):
            self.check_target(path, number, m.group(1), f"'--target {m.group(1)}'")
        for m in re.finditer(r"\bninja\s+(?:-C\s+\S+\s+)?([a-z][\w.-]*)(?=\s|$|&)", code):
            self.check_target(path, number, m.group(1), f"'ninja {m.group(1)}'")
        for m in TARGET_WORD.finditer(code):
            self.check_target(path, number, m.group(1), f"'{m.group(1)}'")
        for m in re.finditer(r"(?:^|(?<=[\s`(]))make\s+([a-z][\w-]*)", code):
            self.problems.checked += 1
            if m.group(1) not in self.make_targets:
                self.problems.add(path, number, f"'make {m.group(1)}'", "the Makefile has no such target")
        for m in re.finditer(r"\bctest\b[^`|;&]*?\s-L\s+'?\^?\(?([\w|]+)", code):
            for label in m.group(1).split("|"):
                self.problems.checked += 1
                if label not in self.labels:
                    self.problems.add(path, number, f"'ctest -L {label}'", "no test carries that label")
        self.check_tests(path, number, code)
        invocation = None
        for m in INVOCATION.finditer(code):
            invocation = self.check_invocation(path, number, m.group(1), code[m.end():])
        if span and invocation is None:
            words = code.split()
            if words and words[0] in self.commands and len(words) > 1 and words[1].startswith("-"):
                invocation = self.check_invocation(path, number, words[0], code[len(words[0]):])
            elif words and FLAG.fullmatch(words[0]) and words[0].startswith("--"):
                self.check_lone_flag(path, number, words[0].split("=")[0])
        return invocation

    def check_path(self, path, number, token, new_files):
        if not token or "..." in token or token in new_files or self.ignored(token):
            return
        self.problems.checked += 1
        for pattern in expand(token):
            if not glob.glob(os.path.join(self.root, pattern.rstrip("/")) or "."):
                self.problems.add(path, number, f"'{token}'", "no such file or directory in the repository")
                return

    def ignored(self, token):
        return any(token == p.rstrip("/") or token.startswith(p.rstrip("/") + "/") or fnmatch.fnmatchcase(token, p)
                   for p in self.gitignored)

    def check_target(self, path, number, name, what):
        self.problems.checked += 1
        if name not in self.targets:
            self.problems.add(path, number, what, f"no target {name} in the build tree (ninja -t targets all)")

    def check_tests(self, path, number, code):
        for m in re.finditer(r"--gtest_filter=['\"]?([^'\"\s`]+)", code):
            before = code[:m.start()]
            binary = re.findall(r"([a-z][\w]*_tests)\b", before)
            tests = self.suites_of.get(binary[-1], []) if binary else self.all_tests
            where = f"the tests of {binary[-1]}" if binary else "any test"
            for pattern in m.group(1).split("-")[0].split(":"):
                if not pattern:
                    continue
                self.problems.checked += 1
                core = re.sub(r"^\w+/", "", pattern)
                core = re.sub(r"/\*$|/\d+$", "", core)
                if not any(fnmatch.fnmatchcase(t, core) for t in tests):
                    self.problems.add(path, number, f"'--gtest_filter={m.group(1)}'", f"'{pattern}' matches no test in {where}")
        if "--gtest_filter" in code:
            return
        for m in SUITE_WORD.finditer(code):
            suite, name = m.group(1), m.group(2)
            if suite in NOT_SUITES:
                continue
            self.problems.checked += 1
            if name and f"{suite}.{name}" not in self.all_tests:
                self.problems.add(path, number, f"'{suite}.{name}'", "no such test in tests/")
            elif not any(t.startswith(suite + ".") for t in self.all_tests):
                self.problems.add(path, number, f"'{suite}'", "no test suite of that name in tests/")

    def check_invocation(self, path, number, command, rest):
        self.problems.checked += 1
        if command not in self.commands:
            self.problems.add(path, number, f"'attractor {command}'", "attractor help lists no such command")
            return None
        if command == "help":
            topic = rest.split()[0] if rest.split() else ""
            if re.fullmatch(r"[a-z][a-z-]*", topic) and topic not in self.commands | self.topics:
                self.problems.add(path, number, f"'attractor help {topic}'", "no such command or help topic")
            return command
        self.check_flags(path, number, command, rest)
        return command

    def check_flags(self, path, number, command, rest):
        rest = re.split(r"&&|\|\||;|\s#|(?<!\[)\s\|\s(?![^\[]*\])|\s>\s|\$\(", rest)[0]
        for flag in FLAG.findall(rest):
            if flag.startswith("--") or re.fullmatch(r"-[A-Za-z]", flag):
                self.problems.checked += 1
                if flag not in self.flags_of[command]:
                    self.problems.add(path, number, f"'attractor {command} {flag}'",
                                      f"attractor {command} --help lists no flag {flag}")

    def check_lone_flag(self, path, number, flag):
        self.problems.checked += 1
        if flag in self.all_flags or flag in OTHER_FLAGS:
            return
        if re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", self.script_text):
            return
        self.problems.add(path, number, f"'{flag}'",
                          "no attractor command, script of this repository or listed build tool has that flag")

    def check_dot_blocks(self, path, lines):
        blocks = {}
        for number, line, lang, start in lines:
            if lang == "dot":
                blocks.setdefault(start, []).append(line)
        for start, body in blocks.items():
            text = "\n".join(body) + "\n"
            if not re.search(r"^\s*digraph\b", text, re.M):
                continue
            with tempfile.NamedTemporaryFile("w", suffix=".dot", delete=False) as f:
                f.write(text)
            try:
                self.validate(path, start, f.name, "the ```dot pipeline of this block")
            finally:
                os.unlink(f.name)

    def validate(self, path, start, dot, what):
        """attractor validate DOT; a block's diagnostics are reported at their line of the page."""
        self.problems.checked += 1
        result = self._run("validate", dot)
        if result.returncode == 0:
            return
        output = (result.stderr + result.stdout).splitlines()
        first = next((l for l in output if ": error: " in l), output[0] if output else "")
        m = re.match(re.escape(dot) + r":(\d+):\d+: error: (.*)", first)
        if m and dot != path:
            self.problems.add(path, start + int(m.group(1)), what, f"attractor validate: error: {m.group(2)}")
        else:
            self.problems.add(path, start, what, f"attractor validate exits {result.returncode}: {first.strip()}")

    def check_cli_page(self):
        """docs/cli.md has a `## COMMAND` section per command naming each flag its --help lists, itself
        or in a page of docs/ it links to (resume may leave the flags it shares with run to run)."""
        path = os.path.join(self.root, "docs", "cli.md")
        with open(path, encoding="utf-8") as f:
            lines = parse_markdown(f.read())
        sections, current = {}, None
        for number, line, lang, _ in lines:
            m = re.match(r"^## (\S+)\s*$", line) if lang is None else None
            if m:
                current = m.group(1)
                sections[current] = [number, ""]
            elif current:
                sections[current][1] += line + "\n"
        for command in sorted(self.commands):
            self.problems.checked += 1
            if command not in sections:
                self.problems.add(path, 1, f"'attractor {command}'", f"docs/cli.md has no '## {command}' section",
                                  kind="undocumented")
                continue
            number, text = sections[command]
            if command == "resume" and "run" in sections:
                text += sections["run"][1]
            for target in sorted({m.group(1).split("#")[0] for m in LINK.finditer(text)}):
                linked = os.path.join(self.root, "docs", target)
                if target.endswith(".md") and "/" not in target and os.path.exists(linked):
                    with open(linked, encoding="utf-8") as f:
                        text += f.read()
            for flag in sorted(self.flags_of[command] - {"--help", "-h", "--log-level"}):
                if flag.startswith("--") and not re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", text):
                    self.problems.checked += 1
                    self.problems.add(path, number, f"'attractor {command} {flag}'",
                                      f"--help lists it, the '## {command}' section does not", kind="undocumented")

    def check_graphs(self):
        for dot in sorted(glob.glob(os.path.join(self.root, "graphs", "*.dot"))):
            self.validate(dot, 1, dot, f"'{os.path.relpath(dot, self.root)}'")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    for what, need in (("binary", args.binary), ("build tree", os.path.join(args.build, "build.ninja"))):
        if not os.path.exists(need):
            print(f"check_docs: the {what} {need} does not exist: configure with Ninja and build the attractor "
                  "target first (cmake --build BUILD_DIR --target attractor)")
            return 2
    checker = Checker(root, os.path.abspath(args.build), os.path.abspath(args.binary))
    files = markdown_files(root)
    for path in files:
        checker.check_file(path)
    checker.check_graphs()
    checker.check_cli_page()
    problems = checker.problems
    for item in problems.items:
        print(item)
    print(f"check_docs: {len(files)} Markdown files, {problems.checked} references, {len(problems.items)} problems")
    return 1 if problems.items else 0


if __name__ == "__main__":
    sys.exit(main())
