#!/usr/bin/env python3
"""Makes browser modules of the pinned CodeMirror packages for the web page's editor.

For every package of .ci/npm-pins.txt unpacked under third_party/codemirror/<flat-name> (.ci/deps.sh),
reads its ES module entry (package.json exports["."].import, else "module", else dist/index.js),
rewrites each import/export specifier naming one of these packages to "./<flat-name>.js", and writes
OUT_DIR/<flat-name>.js; the server serves it as /vendor/<flat-name>.js. A specifier naming anything
else (an unpinned package, a relative file) is an error: exit 1 naming the file and the specifier.
Also writes OUT_DIR/web_vendor.inc, one `ATTRACTOR_WEB_VENDOR(c_name, "<flat-name>.js", "<path>")`
line per module, sorted. Files whose content is unchanged are not rewritten.

Usage: tools/web_vendor.py OUT_DIR
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# `from "x"`, `import "x"`, `import("x")`: group 1 what precedes the quote, 2 the quote, 3 the specifier.
SPECIFIER = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"\n]+)\2""")


def flat_name(package):
    return package.replace("@", "").replace("/", "-")


def entry_of(folder):
    if not os.path.isfile(os.path.join(folder, "package.json")):
        sys.exit(f"web_vendor: {folder} is missing: run .ci/deps.sh")
    meta = json.load(open(os.path.join(folder, "package.json"), encoding="utf-8"))
    exports = meta.get("exports")
    if isinstance(exports, dict) and "." in exports:
        exports = exports["."]
    if isinstance(exports, dict):
        exports = exports.get("import") or exports.get("default")
    for candidate in (exports if isinstance(exports, str) else None, meta.get("module"), "dist/index.js"):
        if candidate and os.path.isfile(os.path.join(folder, candidate)):
            return meta["name"], os.path.normpath(os.path.join(folder, candidate))
    sys.exit(f"web_vendor: {folder}: no ES module entry (exports, module or dist/index.js)")


def write_if_changed(path, text):
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    out_dir = os.path.abspath(sys.argv[1])
    pins = [line.split() for line in open(os.path.join(ROOT, ".ci", "npm-pins.txt"), encoding="utf-8")]
    folders = [os.path.join(ROOT, "third_party", f[2]) for f in pins
               if len(f) == 3 and not f[0].startswith("#") and f[2].startswith("codemirror/")]
    packages = dict(entry_of(folder) for folder in folders)
    if sorted(flat_name(p) for p in packages) != sorted(os.path.basename(f) for f in folders):
        sys.exit("web_vendor: each pinned folder must be codemirror/<flat name> (the package name without @, / as -)")
    os.makedirs(out_dir, exist_ok=True)
    lines = []
    for package in sorted(packages, key=flat_name):
        source = packages[package]
        text = open(source, encoding="utf-8").read()

        def rewrite(match):
            if match.group(3) not in packages:
                sys.stderr.write(f"web_vendor: {source}: imports '{match.group(3)}', which is not a pinned package\n")
                sys.exit(1)
            return f"{match.group(1)}{match.group(2)}./{flat_name(match.group(3))}.js{match.group(2)}"

        name = flat_name(package)
        path = os.path.join(out_dir, name + ".js")
        write_if_changed(path, SPECIFIER.sub(rewrite, text))
        quoted = path.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'ATTRACTOR_WEB_VENDOR({name.replace("-", "_")}, "{name}.js", "{quoted}")\n')
    write_if_changed(os.path.join(out_dir, "web_vendor.inc"), "".join(lines))


if __name__ == "__main__":
    main()
