#!/usr/bin/env python3
"""Carry the labelled ids of question files over an id change of the indexer.

When the indexer names a node differently (issue 37: a generic type's id gained its parameter
list), labels written against the old ids no longer name a node. This maps every id of OLD_DB to
the id of the node at the same path, kind and line range in NEW_DB, and rewrites the labels of the
given JSON files that OLD_DB has but NEW_DB does not. The labelled nodes are the same; only their
names change, so this is not a tuning decision.

Usage: rename_labels.py OLD_INDEX.sqlite NEW_INDEX.sqlite QUESTIONS.json...
"""
import json
import sqlite3
import sys


def ids_by_place(db):
    rows = sqlite3.connect(db).execute("SELECT id, path, kind, start_line, end_line FROM nodes")
    by_place, ids = {}, set()
    for node_id, *place in rows:
        by_place.setdefault(tuple(place), []).append(node_id)
        ids.add(node_id)
    return by_place, ids


def main():
    old_db, new_db, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    old_places, old_ids = ids_by_place(old_db)
    new_places, new_ids = ids_by_place(new_db)
    renamed = {}
    for place, olds in old_places.items():
        news = new_places.get(place, [])
        if len(olds) == 1 and len(news) == 1 and olds[0] != news[0] and olds[0] not in new_ids:
            renamed[olds[0]] = news[0]
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        changed = 0
        for old, new in renamed.items():
            quoted_old, quoted_new = json.dumps(old), json.dumps(new)
            if quoted_old in text:
                changed += text.count(quoted_old)
                text = text.replace(quoted_old, quoted_new)
        if changed:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        print(f"{path}: {changed} labels renamed")


if __name__ == "__main__":
    main()
