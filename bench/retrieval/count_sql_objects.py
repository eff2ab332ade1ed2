#!/usr/bin/env python3
"""Independent ground count of the SQL objects a tree defines, for bench/retrieval/real_repos.sh.

Deliberately shares no code with the indexer: comments and string literals are removed with
regular expressions, then `CREATE [OR ALTER] <kind> <name>` headers (and `ALTER` of views,
procedures, functions and triggers) are counted, one per distinct lowercase `schema.name`.
Usage: count_sql_objects.py DIR  -> JSON {"kind": count, ...} and, with --names, the names.
"""
import json
import os
import re
import sys

COMMENTS_AND_STRINGS = re.compile(r"--[^\n]*|/\*.*?\*/|N?'(?:[^']|'')*'", re.S)
PART = r'(?:\[(?:[^\]]|\]\])+\]|"[^"]+"|[A-Za-z_][\w$@]*)'
NAME = PART + r"(?:\s*\.\s*" + PART + r"){0,3}"
HEADER = re.compile(
    r"\b(CREATE(?:\s+OR\s+ALTER)?|ALTER)\s+(TABLE|VIEW|PROCEDURE|PROC|FUNCTION|TRIGGER|TYPE|SEQUENCE|SYNONYM)\s+("
    + NAME + r")", re.I)
KINDS = {"proc": "procedure"}


def normalize(name):
    parts = [p.strip() for p in re.findall(PART, name)]
    parts = [p[1:-1] if p[:1] in "[\"" else p for p in parts]
    if len(parts) == 1:
        parts = ["dbo"] + parts
    return (parts[-2] + "." + parts[-1]).lower()


def objects(root):
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            if not f.lower().endswith(".sql"):
                continue
            with open(os.path.join(dirpath, f), encoding="utf-8-sig", errors="replace") as fh:
                text = COMMENTS_AND_STRINGS.sub(" ", fh.read())
            for verb, kind, name in HEADER.findall(text):
                kind = KINDS.get(kind.lower(), kind.lower())
                if verb.lower() == "alter" and kind in ("table", "type", "sequence", "synonym"):
                    continue
                if name.lstrip("[\"").startswith("#"):
                    continue
                found.setdefault(kind, set()).add(normalize(name))
    return found


def main():
    found = objects(sys.argv[1])
    if "--names" in sys.argv:
        print(json.dumps({k: sorted(v) for k, v in sorted(found.items())}, indent=1))
    else:
        print(json.dumps({k: len(v) for k, v in sorted(found.items())}))


if __name__ == "__main__":
    main()
