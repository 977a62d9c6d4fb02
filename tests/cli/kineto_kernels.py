#!/usr/bin/env python3
"""kineto_kernels.py TRACE [N]: the top N (default 20) kernels of a Kineto
trace by self time, computed apart from strata (issue 29's test of
`strata analyze`'s "kernels" table), as JSON: [{"name", "count",
"total_us", "self_us", "launched_by"}].

A kernel is a complete event ("X") on a GPU stream thread (a thread named
"stream N") that is not an annotation (categories gpu_user_annotation,
user_annotation, cuda_sync, cuda_profiler_range) nor a step marker
(ProfilerStep#N). Its self time is its duration minus the time its
children on the same thread cover (events nested inside it, one level
down). launched_by: the CPU op enclosing the runtime call whose
"correlation" arg is the kernel's (the innermost enclosing event on that
thread not in category cuda_runtime / cuda_driver / user_annotation /
Trace), the name most of its instances give (ties: the first in bytes). Times are exact
decimals of the file's microseconds.
"""
import collections
import gzip
import json
import re
import sys
from decimal import Decimal as D

SKIP_CATS = {"gpu_user_annotation", "user_annotation", "cuda_sync", "cuda_profiler_range"}


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        doc = json.load(f, parse_float=D)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def self_times(events):
    """{id(e): self} for events of one thread: duration minus its children's
    (events inside it, one level down; one overlapping its end is not a child)."""
    evs = sorted(events, key=lambda e: (D(e["ts"]), -D(e.get("dur", 0))))
    out, stack = {}, []
    for e in evs:
        s, d = D(e["ts"]), D(e.get("dur", 0))
        while stack and D(stack[-1]["ts"]) + D(stack[-1].get("dur", 0)) < s + d:
            stack.pop()
        out[id(e)] = d
        if stack:
            out[id(stack[-1])] -= d
        stack.append(e)
    return out


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    ev = load(path)
    streams = {(e["pid"], e["tid"]) for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"
               and str(e.get("args", {}).get("name", "")).strip().startswith("stream ")}
    by_thread = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X":
            by_thread[(e.get("pid"), e.get("tid"))].append(e)
    # the runtime calls by correlation, and each CPU thread's events for nesting
    runtime = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") \
                and "correlation" in e.get("args", {}):
            runtime[e["args"]["correlation"]] = e

    # each CPU event's parent (the innermost event enclosing it on its thread)
    parent = {}
    for key, evs in by_thread.items():
        if key in streams:
            continue
        stack = []
        for e in sorted(evs, key=lambda e: (D(e["ts"]), -D(e.get("dur", 0)))):
            s, d = D(e["ts"]), D(e.get("dur", 0))
            while stack and D(stack[-1]["ts"]) + D(stack[-1].get("dur", 0)) < s + d:
                stack.pop()
            parent[id(e)] = stack[-1] if stack else None
            stack.append(e)

    def enclosing_op(call):
        p = parent.get(id(call))
        while p is not None and p.get("cat") in ("cuda_runtime", "cuda_driver", "user_annotation", "Trace"):
            p = parent.get(id(p))
        return p["name"] if p is not None else call["name"]

    rows = {}
    for key in streams:
        st = self_times(by_thread[key])
        for e in by_thread[key]:
            if e.get("cat") in SKIP_CATS or re.fullmatch(r"ProfilerStep#\d+", e["name"]):
                continue
            r = rows.setdefault(e["name"], {"name": e["name"], "count": 0, "total_us": D(0),
                                            "self_us": D(0), "_by": collections.Counter()})
            r["count"] += 1
            r["total_us"] += D(e.get("dur", 0))
            r["self_us"] += st[id(e)]
            c = e.get("args", {}).get("correlation")
            if c in runtime:
                r["_by"][enclosing_op(runtime[c])] += 1
    out = sorted(rows.values(), key=lambda r: (-r["self_us"], r["name"].encode()))[:top]
    for r in out:
        by = r.pop("_by")
        r["launched_by"] = min(by, key=lambda n: (-by[n], n.encode())) if by else None
    json.dump(out, sys.stdout, default=str)


if __name__ == "__main__":
    main()
