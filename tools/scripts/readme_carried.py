#!/usr/bin/env python3
"""readme_carried.py [REV]: every non-empty line of README.md as it was at REV
(default: the commit before the README became a front door, issue 31) is
found in README.md, web/guide/*.md or tools/benchmarks/*.md today.

A line counts as carried when, after normalising (heading marks and list
indents dropped, links' targets dropped: `[text](target)` -> `[text]`,
spaces collapsed), it is a line of a new file or a substring of a new file's
normalised text (a line re-wrapped inside a paragraph). Prints the lines not
carried and a count; exit 1 when any is missing. Run from the repository."""
import glob
import os
import re
import subprocess
import sys

REV = sys.argv[1] if len(sys.argv) > 1 else "e3c98fe"


def norm(s):
    s = re.sub(r"^\s*#+\s+", "", s)          # heading level
    s = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", s)  # list marks and indents
    s = re.sub(r"\]\([^)]*\)", "]", s)         # link targets (rewritten when files moved)
    s = re.sub(r"\[([^\]]*)\]", r"\1", s)      # link brackets (a reference may have become a link)
    return " ".join(s.split())


def main():
    old = subprocess.run(["git", "show", f"{REV}:README.md"], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    files = ["README.md"] + sorted(glob.glob("web/guide/*.md")) + sorted(glob.glob("tools/benchmarks/*.md"))
    lines, blob = set(), []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for ln in fh.read().split("\n"):
                n = norm(ln)
                lines.add(n)
                blob.append(n)
    text = " ".join(blob)
    missing = []
    for i, ln in enumerate(old, 1):
        n = norm(ln)
        if not n or n in lines or n in text:
            continue
        missing.append((i, ln))
    for i, ln in missing:
        print(f"README.md@{REV}:{i}: {ln}")
    nonempty = sum(1 for ln in old if ln.strip())
    print(f"{len(missing)} of {nonempty} non-empty lines not carried over")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
