#!/usr/bin/env python3
"""gen_kineto_memory.py OUT.json TRUTH.json [--seed N] [--no-totals] [--shuffle]
[--allocs N]

Writes a PyTorch profile (Kineto JSON) recorded with profile_memory=True:
host threads running nested cpu_op slices, two GPU processes (pid = device
id, as Kineto writes them), and `[memory]` instant events exactly as
Kineto writes them:

  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
   "pid": P, "tid": T, "ts": US, "args": {"Total Reserved": N,
   "Total Allocated": N, "Bytes": N, "Addr": N, "Device Type": T,
   "Device Id": D}}

(Device Type 0 = CPU with Device Id -1, 1 = CUDA.) Each allocation is made
inside a known op on its thread (or outside any op), some are freed later
(the same Addr, Bytes negative), some never; some frees are of memory
allocated before the profile; addresses are reused after a free. TRUTH.json
is the generator's own bookkeeping, never strata's: per device the peak of
the allocated bytes (Total Allocated, which starts at a base the profile
did not see, or with --no-totals the running sum of Bytes), the first time
it is reached, the allocations live then grouped by op, the bytes never
freed, and every allocation's bytes by op.
"""
import argparse
import json
import random
import re
from decimal import Decimal
from collections import defaultdict

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("truth")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--no-totals", action="store_true")
ap.add_argument("--shuffle", action="store_true")
ap.add_argument("--allocs", type=int, default=400)
a = ap.parse_args()
rnd = random.Random(a.seed)

PID = 31337
T0 = 1700000000000000  # us, Unix epoch like Kineto's
threads = [PID, PID + 7]
ops = ["aten::empty", "aten::add", "aten::mm", "aten::conv2d", "aten::cat", "Optimizer.step"]
devices = [(0, -1), (1, 0), (1, 1)]  # (Device Type, Device Id)
events = [
    {"name": "process_name", "ph": "M", "ts": T0, "pid": PID, "tid": 0, "args": {"name": "python3"}},
    {"name": "process_labels", "ph": "M", "ts": T0, "pid": PID, "tid": 0, "args": {"labels": "CPU"}},
]
for d in (0, 1):
    events.append({"name": "process_name", "ph": "M", "ts": T0, "pid": d, "tid": 0, "args": {"name": "python3"}})
    events.append({"name": "process_labels", "ph": "M", "ts": T0, "pid": d, "tid": 0, "args": {"labels": f"GPU {d}"}})
    events.append({"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": d, "tid": 7,
                   "ts": T0 + 50, "dur": 30, "args": {"device": d, "stream": 7}})

# each thread: a sequence of top-level ops 100 us apart, each 80 us long with
# a nested child [20, 60); allocations at chosen instants inside them.
slots = []  # (ts_ns, tid, op or "")
for tid in threads:
    for k in range(a.allocs // 2 + 10):
        base = T0 + 1000 + k * 100 + (3 if tid != PID else 0)
        parent, child = rnd.choice(ops), rnd.choice(ops)
        events.append({"ph": "X", "cat": "cpu_op", "name": parent, "pid": PID, "tid": tid, "ts": base, "dur": 80})
        events.append({"ph": "X", "cat": "cpu_op", "name": child, "pid": PID, "tid": tid, "ts": base + 20, "dur": 40})
        slots.append((base * 1000 + 10_500, tid, parent))  # in parent only (10.5 us in)
        slots.append((base * 1000 + 30_250, tid, child))   # in the child
        slots.append((base * 1000 + 90_000, tid, ""))      # between ops
rnd.shuffle(slots)
slots = sorted(slots[: a.allocs * 2])  # time order: the allocator's order

base_alloc = {d: rnd.randrange(0, 1 << 20) for d in devices}  # before the profile
if a.no_totals:
    base_alloc = {d: 0 for d in devices}
pre_addrs = {d: [0x7F0000000000 + (i << 12) + (d[1] + 1 << 32) for i in range(5)] for d in devices}
live = {d: {} for d in devices}  # addr -> (bytes, op)
free_addrs = {d: [] for d in devices}
total = dict(base_alloc)
reserved = {d: 0 for d in devices}
next_addr = {d: 0x10000000 * (d[1] + 2) for d in devices}
allocs = []  # (dev, addr, bytes, op, pos)
frees = {}  # alloc index -> pos
timeline = {d: [] for d in devices}  # (ts_ns, value) per event
mem_events = []
for pos, (ts_ns, tid, op) in enumerate(slots):
    d = rnd.choice(devices)
    r = rnd.random()
    if live[d] and r < 0.42:
        addr = rnd.choice(sorted(live[d]))
        nbytes, _ = live[d].pop(addr)
        free_addrs[d].append(addr)
        delta = -nbytes
        for i in range(len(allocs) - 1, -1, -1):
            if allocs[i][0] == d and allocs[i][1] == addr and i not in frees:
                frees[i] = (d, len(timeline[d]))
                break
    elif pre_addrs[d] and r < 0.47 and not a.no_totals:
        addr = pre_addrs[d].pop()  # memory from before the profile
        delta = -rnd.choice([512, 4096])
        base_alloc[d] += delta  # the base shrinks: it was counted there
    else:
        nbytes = rnd.choice([512, 1024, 4096, 65536, 1 << 20, 3 << 20]) + rnd.randrange(0, 8) * 512
        if free_addrs[d] and rnd.random() < 0.5:
            addr = free_addrs[d].pop(0)  # reuse
        else:
            addr = next_addr[d]
            next_addr[d] += 1 << 22
        live[d][addr] = (nbytes, op)
        allocs.append((d, addr, nbytes, op, len(timeline[d])))
        delta = nbytes
    total[d] += delta
    reserved[d] = max(reserved[d], (total[d] + (2 << 20) - 1) // (2 << 20) * (2 << 20))
    timeline[d].append((ts_ns, total[d]))
    us = ts_ns // 1000
    frac = ts_ns % 1000
    args = {}
    if not a.no_totals:
        args["Total Reserved"] = reserved[d]
        args["Total Allocated"] = total[d]
    args.update({"Bytes": delta, "Addr": addr, "Device Type": d[0], "Device Id": d[1]})
    mem_events.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                       "pid": PID, "tid": tid, "ts": f"{us}.{frac:03d}" if frac else us, "args": args})

events += mem_events
if a.shuffle:
    rnd.shuffle(events)
with open(a.out, "w") as f:
    # Kineto writes ts as a bare number: keep the decimals exact
    txt = json.dumps({"schemaVersion": 1, "deviceProperties": [], "traceEvents": events}, indent=1)
    txt = txt.replace('"ts": "', '"ts": ').replace('", "pid"', ', "pid"')
    txt = re.sub(r'"ts": (\d+\.\d+)",', r'"ts": \1,', txt)
    f.write(txt)

# the trace's time 0: its first timestamp (metadata events carry none)
def ev_ns(e):
    return int(Decimal(str(e["ts"])) * 1000)
origin_ns = min(ev_ns(e) for e in events if e["ph"] != "M")
truth = []
for d in devices:
    tl = timeline[d]
    if not tl:
        continue
    peak_i = max(range(len(tl)), key=lambda i: (tl[i][1], -i))
    live_g = defaultdict(lambda: [0, 0])
    unfreed_g = defaultdict(lambda: [0, 0])
    top_g = defaultdict(lambda: [0, 0])
    for i, (dd, addr, nbytes, op, pos) in enumerate(allocs):
        if dd != d:
            continue
        fp = frees.get(i, (None, None))[1]
        if pos <= peak_i and (fp is None or fp > peak_i):
            live_g[op][0] += nbytes
            live_g[op][1] += 1
        if fp is None:
            unfreed_g[op][0] += nbytes
            unfreed_g[op][1] += 1
        top_g[op][0] += nbytes
        top_g[op][1] += 1
    srt = lambda g: [{"op": k, "bytes": v[0], "count": v[1]} for k, v in sorted(g.items(), key=lambda kv: (-kv[1][0], kv[0]))]
    name = "CPU" if d[0] == 0 else f"GPU {d[1]}"
    peak_ns = tl[peak_i][0] - origin_ns
    truth.append({"device": name, "peak_bytes": tl[peak_i][1], "peak_us": f"{peak_ns // 1000}.{peak_ns % 1000:03d}",
                  "events": len(tl), "live_at_peak": srt(live_g), "unfreed_bytes": sum(v[0] for v in unfreed_g.values()),
                  "still_live_at_end": srt(unfreed_g), "top_alloc_ops": srt(top_g)[:20],
                  "from": "bytes_sum" if a.no_totals else "total_allocated",
                  "reserved_peak_bytes": None if a.no_totals else reserved[d],
                  "final_allocated": tl[-1][1]})
json.dump(truth, open(a.truth, "w"), indent=1)
