#!/usr/bin/env python3
"""idle_split_tests.py STRATA: `strata analyze`'s idle split (web/guide/figures.md,
"idle split"; HTA's idle-time breakdown: host wait / kernel wait / other)
on a generated Kineto trace with gaps of each kind planted, against a
computation apart from strata.

The trace: 6 ProfilerSteps of 2000 us with 100 us between them; kernels on
two streams of GPU 0 (stream 9's sometimes overlap stream 7's, or fill part
of a gap), each launched by a cudaLaunchKernel with an ac2g flow (a few
without one). Between two kernels the generator plants one of: a kernel
wait (1-29 ns, or exactly 30 ns: not one), a host wait (the launch at or
after the previous kernel's end), an "other" wait (launched while the
previous kernel ran, 1-40 us of idle) or a kernel without a launch.

The truth, computed here from the generated kernels alone: the device's
busy intervals = the union of both streams' kernels; each idle stretch
between two of them (or before the first, after the last) is cut to the
steps' windows; as a whole it is kernel wait when it lies between two
kernels less than 30 ns apart, else host wait when the kernel starting the
next busy interval (the earliest) was launched at or after the stretch's
first part began, else other. The three sum to the device's idle time.
And each idle cause's gaps (--cause-gaps "gap_list", what a click on a
cause in the Overview shades): the gaps it has a part of.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
from decimal import Decimal as D

strata = sys.argv[1]
failures = 0


def report(ok, name, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures += 1


def us(ns):
    return D(ns) / 1000


def generate(seed):
    """-> (events, kernels [(start_ns, end_ns, launch_ns or None)], steps [(t0, t1)], planted kinds)"""
    rnd = random.Random(seed)
    ev = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
          {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
          {"ph": "M", "name": "thread_name", "pid": 0, "tid": 9, "args": {"name": "stream 9"}},
          {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python"}}]
    kernels, steps, planted = [], [], set()
    flow = 1
    t = 1_000_000  # ns
    last_launch = 0
    for step in range(1, 7):
        s0, s1 = t, t + 2_000_000
        steps.append((s0, s1))
        ev.append({"ph": "X", "name": f"ProfilerStep#{step}", "cat": "user_annotation", "pid": 100,
                   "tid": 1, "ts": str(us(s0)), "dur": str(us(s1 - s0))})
        launch = s0 + 1000 + rnd.randrange(0, 3000)  # the first kernel: launched in the step
        start = launch + 4000
        prev_end = None
        while True:
            dur = rnd.randrange(20_000, 60_000)
            if start + dur + 200_000 > s1:
                break
            kind = None
            if prev_end is not None:
                kind = rnd.choice(["kernel", "kernel30", "host", "other", "nolaunch"])
                early = max(last_launch + 2500, prev_end - 15_000)
                if kind != "nolaunch" and early >= prev_end - 500:
                    kind = "host"  # the host cannot have launched it before the gap
                planted.add(kind)
                if kind in ("kernel", "kernel30"):
                    start = prev_end + (rnd.randrange(1, 30) if kind == "kernel" else 30)
                    launch = early
                elif kind == "host":
                    launch = prev_end + rnd.choice([0, 0, 1500, 7000])
                    start = launch + 4000 + rnd.randrange(0, 3000)
                else:
                    launch = early
                    start = prev_end + rnd.randrange(1000, 40_000)
            has_launch = kind != "nolaunch"
            name = f"k{len(kernels) % 7}"
            ev.append({"ph": "X", "name": name, "cat": "kernel", "pid": 0, "tid": 7, "ts": str(us(start)),
                       "dur": str(us(dur)), "args": {"correlation": flow}})
            if has_launch:
                assert launch >= last_launch + 2000 and launch < start, (kind, launch, last_launch, start, prev_end)
                ev.append({"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 100, "tid": 1,
                           "ts": str(us(launch)), "dur": "2", "args": {"correlation": flow}})
                ev.append({"ph": "s", "id": flow, "pid": 100, "tid": 1, "ts": str(us(launch)), "cat": "ac2g",
                           "name": "ac2g"})
                ev.append({"ph": "f", "id": flow, "pid": 0, "tid": 7, "ts": str(us(start)), "cat": "ac2g",
                           "name": "ac2g", "bp": "e"})
                last_launch = launch
            kernels.append((start, start + dur, launch if has_launch else None))
            flow += 1
            # stream 9: now and then a kernel overlapping this one's end (no launch
            # known: its busy interval starts earlier), or one in the gap after it
            r = rnd.random()
            if r < 0.15:
                s9 = start + dur // 2
                d9 = dur  # ends after this kernel: the union grows
                ev.append({"ph": "X", "name": "k9", "cat": "kernel", "pid": 0, "tid": 9, "ts": str(us(s9)),
                           "dur": str(us(d9))})
                kernels.append((s9, s9 + d9, None))
                prev_end = s9 + d9
            else:
                prev_end = start + dur
            if r > 0.9 and prev_end + 60_000 < s1 - 200_000:  # a stream 9 kernel in the next gap,
                s9 = prev_end + 10_000  # launched after the previous end: host wait
                l9 = max(last_launch + 2500, prev_end + 500)
                if l9 < s9:
                    ev.append({"ph": "X", "name": "k9", "cat": "kernel", "pid": 0, "tid": 9, "ts": str(us(s9)),
                               "dur": "5", "args": {"correlation": flow}})
                    ev.append({"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": 100,
                               "tid": 1, "ts": str(us(l9)), "dur": "2", "args": {"correlation": flow}})
                    ev.append({"ph": "s", "id": flow, "pid": 100, "tid": 1, "ts": str(us(l9)), "cat": "ac2g",
                               "name": "ac2g"})
                    ev.append({"ph": "f", "id": flow, "pid": 0, "tid": 9, "ts": str(us(s9)), "cat": "ac2g",
                               "name": "ac2g", "bp": "e"})
                    kernels.append((s9, s9 + 5000, l9))
                    last_launch = l9
                    flow += 1
                    prev_end = s9 + 5000
                    planted.add("stream9-gap")
        t = s1 + 100_000
    return ev, kernels, steps, planted


def truth(kernels, steps):
    ks = sorted(kernels)
    busy = []  # [start, end, launch of the earliest kernel]
    for s, e, l in ks:
        if busy and s <= busy[-1][1]:
            busy[-1][1] = max(busy[-1][1], e)
        else:
            busy.append([s, e, l])
    split = {"host_wait_us": 0, "kernel_wait_us": 0, "other_us": 0}
    idle = 0
    pieces = []
    bounds = [(None, busy[0][0], busy[0][2])]
    bounds += [(busy[i - 1][1], busy[i][0], busy[i][2]) for i in range(1, len(busy))]
    bounds.append((busy[-1][1], None, None))
    for x, y, launch in bounds:
        parts = []
        for s0, s1 in steps:
            lo = s0 if x is None else max(x, s0)
            hi = s1 if y is None else min(y, s1)
            if hi > lo:
                parts.append((lo, hi))
        if not parts:
            continue
        if y is None:
            cls = "other_us"
        elif x is not None and y - x < 30:
            cls = "kernel_wait_us"
        elif launch is not None and launch >= parts[0][0]:
            cls = "host_wait_us"
        else:
            cls = "other_us"
        for lo, hi in parts:
            split[cls] += hi - lo
            idle += hi - lo
            pieces.append((lo, hi))
    return {k: us(v) for k, v in split.items()}, us(idle), sorted(pieces)


def cause_gaps(ev, pieces):
    """The gaps (pieces in steps) each idle cause has a part of: the host's
    only slices besides the steps (wrappers) are the 2 us launches, so a gap
    is cudaLaunchKernel's where a launch overlaps it, "nothing recorded"'s
    where the launches leave part of it uncovered."""
    launches = [(int(D(e["ts"]) * 1000), int(D(e["ts"]) * 1000) + 2000) for e in ev
                if e.get("name") == "cudaLaunchKernel"]
    named, nothing = [], []
    for lo, hi in pieces:
        cover = sum(max(0, min(hi, b) - max(lo, a)) for a, b in launches)
        if cover > 0:
            named.append([us(lo), us(hi)])
        if cover < hi - lo:
            nothing.append([us(lo), us(hi)])
    return {"cudaLaunchKernel": named, "nothing recorded": nothing}


with tempfile.TemporaryDirectory() as tmp:
    for seed in (1, 2, 3):
        ev, kernels, steps, planted = generate(seed)
        path = os.path.join(tmp, f"split-{seed}.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": ev}, f)
        want, idle, pieces = truth(kernels, steps)
        p = subprocess.run([strata, "analyze", path, "--json", "--cause-gaps"], capture_output=True, text=True)
        if p.returncode != 0:
            report(False, f"seed {seed}: strata analyze", p.stderr)
            continue
        got = json.loads(p.stdout, parse_float=D)
        dev = got["devices"]
        ok = len(dev) == 1 and dev[0]["idle_split"] == want and dev[0]["idle_us"] == idle
        report(ok, f"seed {seed}: idle split = the independent computation "
               f"(host {want['host_wait_us']}, kernel {want['kernel_wait_us']}, other {want['other_us']} us)",
               f"got {dev[0]['idle_split'] if dev else None} idle {dev[0]['idle_us'] if dev else None}; "
               f"want {want} idle {idle}")
        report(dev and sum(dev[0]["idle_split"].values()) == dev[0]["idle_us"]
               and all(v > 0 for v in want.values())
               and planted >= {"kernel", "kernel30", "host", "other", "nolaunch"},
               f"seed {seed}: the split sums to idle_us; every kind planted and found",
               repr((planted, want)))
        # each idle cause's gaps (--cause-gaps: what a click on it in the Overview shades)
        origin = min(int(D(e["ts"]) * 1000) for e in ev if "ts" in e)
        want_gaps = {k: [[x - us(origin) for x in g] for g in v]
                     for k, v in cause_gaps(ev, pieces).items()}
        got_gaps = {c["what"]: c["gap_list"] for c in dev[0]["idle_causes"]} if dev else {}
        report(got_gaps == want_gaps and all(len(c["gap_list"]) == c["gaps"] for c in dev[0]["idle_causes"])
               and 0 < len(want_gaps["cudaLaunchKernel"]) < len(pieces),
               f"seed {seed}: each cause's gap_list = the gaps it has a part of "
               f"({len(want_gaps['cudaLaunchKernel'])} and {len(want_gaps['nothing recorded'])} of {len(pieces)})",
               repr({k: (len(got_gaps.get(k, [])), len(v), got_gaps.get(k, [])[:2], v[:2]) for k, v in want_gaps.items()}))
        t = subprocess.run([strata, "analyze", path], capture_output=True, text=True)
        line = [x for x in t.stdout.splitlines() if "idle split (HTA)" in x]
        pct = lambda k: float(want[k] / idle * 100)
        report(t.returncode == 0 and len(line) == 1
               and f"host wait {pct('host_wait_us'):.1f}%" in line[0]
               and f"kernel wait {pct('kernel_wait_us'):.1f}%" in line[0],
               f"seed {seed}: the text's idle split line", repr(line))

sys.exit(1 if failures else 0)
