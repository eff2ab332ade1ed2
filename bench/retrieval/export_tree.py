#!/usr/bin/env python3
"""Writes the files of COMMIT under PATHS from a git directory into DEST, skipping blobs the
directory does not hold (the fetch tool's mirrors may leave out their largest files); prints how
many files it wrote and which it skipped. Usage: export_tree.py GIT_DIR COMMIT DEST PATH..."""
import os
import subprocess
import sys


def main():
    git_dir, commit, dest, paths = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit, "--", *paths],
                             check=True, capture_output=True).stdout
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, path = record.split(b"\t", 1)
        mode, kind, sha = meta.split(b" ")
        if kind == b"blob" and mode != b"120000":
            entries.append((sha.decode(), path.decode("utf-8", "surrogateescape")))
    batch = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    written, skipped = 0, []
    for sha, path in entries:
        batch.stdin.write((sha + "\n").encode())
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            skipped.append(path)
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(data)
        written += 1
    batch.stdin.close()
    batch.wait()
    print(f"exported {written} files, skipped {len(skipped)} the mirror does not hold"
          + (": " + ", ".join(skipped[:5]) + (" ..." if len(skipped) > 5 else "") if skipped else ""))


if __name__ == "__main__":
    main()
