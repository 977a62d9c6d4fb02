#!/usr/bin/env python3
"""shuffle_trace.py IN.json OUT.json [--seed N]: an unsorted twin of a trace
written one event per line (strata-gen's output): its X, i and C event lines
shuffled among their places, B/E pairs and metadata left where they are (so
the trace means the same). Streaming mode's unsorted benchmark and tests
(web/guide/streaming.md, "Unsorted and protobuf traces")."""
import random
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 5
    with open(argv[1]) as f:
        lines = f.read().split("\n")
    movable = [i for i, l in enumerate(lines) if l.startswith(('{"ph":"X"', '{"ph":"i"', '{"ph":"C"'))]
    vals = [lines[i] for i in movable]
    random.Random(seed).shuffle(vals)
    for i, v in zip(movable, vals):
        lines[i] = v
    with open(argv[2], "w") as f:
        f.write("\n".join(lines))
    print("%s: %d of %d lines shuffled" % (argv[2], len(movable), len(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
