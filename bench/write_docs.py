#!/usr/bin/env python3
"""Puts one bench/run.sh run into docs/performance.md: every block the run
printed between "<!-- bench:KEY -->" and "<!-- /bench:KEY -->" replaces
the doc's block of the same KEY (the markers stay, the hand-written text
around them is untouched).  A KEY the run did not print (--no-compile
leaves out "compile") keeps the doc's old block, and the script says so.

usage: write_docs.py DOC.md RUN_OUTPUT"""
import re
import sys

BLOCK = re.compile(r"<!-- bench:([a-z-]+) -->\n(.*?)<!-- /bench:\1 -->\n", re.S)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    doc = open(argv[1]).read()
    run = {m.group(1): m.group(2) for m in BLOCK.finditer(open(argv[2]).read())}
    seen = set()

    def put(m):
        key = m.group(1)
        seen.add(key)
        if key not in run:
            print(f"write_docs: the run has no '{key}' block; the doc keeps its old one", file=sys.stderr)
            return m.group(0)
        return f"<!-- bench:{key} -->\n{run[key]}<!-- /bench:{key} -->\n"

    doc = BLOCK.sub(put, doc)
    for key in sorted(set(run) - seen):
        print(f"write_docs: the doc has no '{key}' block; not written", file=sys.stderr)
    open(argv[1], "w").write(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
