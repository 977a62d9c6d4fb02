#!/usr/bin/env python3
"""gen_snapshot.py OUT.pickle TRUTH.json [--seed N] [--entries N] [--devices N]
[--no-frames] [--big BYTES]
gen_snapshot.py --hostile DIR

Writes a PyTorch CUDA memory snapshot the way
torch.cuda.memory._dump_snapshot does: pickle.dump (protocol 4: FRAME,
MEMOIZE, BINUNICODE, BININT/LONG1, BINFLOAT, tuples, True/False/None) of
plain dicts and lists, no torch needed:

  {"segments": [{"device", "address", "total_size", "allocated_size",
     "active_size", "requested_size", "stream", "segment_type",
     "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
     "blocks": [{"address", "size", "requested_size", "state", "frames"}]}],
   "device_traces": [[{"action": "segment_alloc" | "alloc" |
     "free_requested" | "free_completed" | "segment_free", "addr", "size",
     "stream", "time_us", "frames": [{"filename", "line", "name"}],
     "compile_context", "user_metadata"}], ...],
   "allocator_settings": {...}, "external_annotations": []}

Frames are innermost first, as PyTorch records them. Some blocks were
allocated before the history began (freed in it without an alloc, or
listed active in the segments at the end). TRUTH.json is the generator's
own bookkeeping: per device the peak of the active bytes, its time (us
from the snapshot's first entry of any device), the blocks live then
grouped by their top frame ("name (file:line)", file's base name), the
bytes never freed, and every block's bytes by top frame. --big plants on
each device one block of BYTES allocated a quarter of the way through its
entries and freed at three quarters, its only frame
"big_block (big.py:<device + 1>)"; "bands" in the truth gives per device
the address space the active-memory timeline stacks blocks in (the
segments and the blocks outside them, sorted by address, merged where they
overlap or touch, laid end to end without the gaps): "span" its bytes and,
for the big block, "big": its offset "y" there, "size", "addr", its alloc
and free times (us from the first entry of any device) and its stack.

--hostile DIR writes pickles strata must refuse (name -> what) and
DIR/hostile.json listing them with the byte offset of the refusal.
"""
import argparse
import io
import json
import os
import pickle
import random
import struct
from collections import defaultdict

ap = argparse.ArgumentParser()
ap.add_argument("out", nargs="?")
ap.add_argument("truth", nargs="?")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--entries", type=int, default=3000)
ap.add_argument("--devices", type=int, default=2)
ap.add_argument("--no-frames", action="store_true")
ap.add_argument("--big", type=int, default=0)
ap.add_argument("--hostile")
a = ap.parse_args()


def hostile(d):
    os.makedirs(d, exist_ok=True)
    good = pickle.dumps({"device_traces": [[{"action": "alloc", "addr": 1, "size": 2, "time_us": 3, "frames": []}]], "segments": []}, protocol=2)
    out = {}

    def w(name, data, offset, why):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        out[name] = {"offset": offset, "why": why}

    # every refused opcode, after a valid protocol header and a value
    for nm, op in [("GLOBAL", b"c"), ("STACK_GLOBAL", b"\x93"), ("REDUCE", b"R"), ("BUILD", b"b"), ("INST", b"i"),
                   ("OBJ", b"o"), ("NEWOBJ", b"\x81"), ("NEWOBJ_EX", b"\x92"), ("EXT1", b"\x82"), ("EXT2", b"\x83"),
                   ("EXT4", b"\x84"), ("PERSID", b"P"), ("BINPERSID", b"Q")]:
        w(f"refused_{nm}.pickle", b"\x80\x02}q\x00" + op + b"os\nsystem\n.", 5, nm)
    # the classic exploit, as pickle writes it
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    ev = pickle.dumps(Evil(), protocol=4)
    first = next(i for i, b in enumerate(ev) if b in (0x63, 0x93))
    w("exploit_os_system.pickle", ev, first, "STACK_GLOBAL" if ev[first] == 0x93 else "GLOBAL")
    w("set.pickle", pickle.dumps({1, 2}, protocol=4), pickle.dumps({1, 2}, protocol=4).index(b"\x8f"), "EMPTY_SET")
    w("unknown_opcode.pickle", b"\x80\x04\xff.", 2, "unknown opcode 0xff")
    w("truncated.pickle", good[: len(good) // 2], None, "truncated")
    w("no_stop.pickle", good[:-1], None, "no STOP")
    w("huge_unicode8.pickle", b"\x80\x04\x8d" + struct.pack("<Q", 1 << 62) + b"abc.", 2, "truncated")
    w("huge_binunicode.pickle", b"\x80\x04X" + struct.pack("<I", 0xFFFFFFF0) + b"abc.", 2, "truncated")
    w("huge_long4.pickle", b"\x80\x04\x8b" + struct.pack("<i", 0x7FFFFFF0) + b"\x01.", 2, "truncated")
    w("huge_frame.pickle", b"\x80\x04\x95" + struct.pack("<Q", 1 << 60) + b"N.", 2, "truncated")
    w("deep_marks.pickle", b"\x80\x02" + b"(" * 100000 + b".", 2 + 1024, "nesting")
    # deep nesting through the memo: a list inside a list ... 200000 deep (no marks)
    deep = io.BytesIO()
    deep.write(b"\x80\x02]q\x00")
    for i in range(1, 200001):
        # push list i, memoize, append to list i-1 (fetched from the memo), pop
        deep.write(b"h" if i - 1 < 256 else b"j")
        deep.write(bytes([i - 1]) if i - 1 < 256 else struct.pack("<I", i - 1))
        deep.write(b"]r" + struct.pack("<I", i) + b"a0")
    deep.write(b"h\x00.")
    out["deep_lists.pickle"] = {"offset": None, "why": "accepted: not a snapshot"}
    with open(os.path.join(d, "deep_lists.pickle"), "wb") as f:
        f.write(deep.getvalue())
    # a list that contains itself
    w("self_list.pickle", b"\x80\x02]q\x00h\x00a.", None, "accepted: not a snapshot")
    w("memo_missing.pickle", b"\x80\x02h\x07.", 2, "memo")
    w("stack_underflow.pickle", b"\x80\x02a.", 2, "underflow")
    w("proto9.pickle", b"\x80\x09N.", 0, "protocol")
    w("not_snapshot.pickle", pickle.dumps([1, 2.5, "x", b"y", None, True], protocol=5), None, "not a snapshot")
    json.dump(out, open(os.path.join(d, "hostile.json"), "w"), indent=1)


if a.hostile:
    hostile(a.hostile)
    raise SystemExit(0)

rnd = random.Random(a.seed)
files = ["/opt/conda/lib/python3.11/site-packages/torch/nn/modules/linear.py",
         "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/conv.py",
         "/home/user/train.py", "/home/user/model/attention.py"]
names = ["forward", "_conv_forward", "train_step", "scaled_dot_product", "backward", "step"]


def frames():
    if a.no_frames:
        return []
    k = rnd.randrange(1, 6)
    return [{"filename": rnd.choice(files), "line": rnd.randrange(1, 400), "name": rnd.choice(names)} for _ in range(k)]


def top(fr):
    if not fr:
        return ""
    f = fr[0]
    return f"{f['name']} ({f['filename'].rsplit('/', 1)[-1]}:{f['line']})"


T0 = 1700000000000000 + rnd.randrange(0, 10**6)
traces, segments, truth = [], [], []
t_first = []
for dev in range(a.devices):
    t = T0 + dev * 37
    entries = []
    live = {}  # addr -> (size, frames)
    live_keys = []  # its keys, in allocation order (a free picks one)
    nxt = 0x7F0000000000 + (dev << 36)
    pre_free = []  # blocks from before the history, freed in it
    for _ in range(rnd.randrange(2, 5)):
        pre_free.append((nxt, rnd.choice([512, 1 << 20]), frames()))
        nxt += 1 << 21
    pre_live = []  # from before, still active at the end
    for _ in range(rnd.randrange(1, 4)):
        pre_live.append((nxt, rnd.choice([4096, 2 << 20]), frames()))
        nxt += 1 << 21
    seg_base = 20 << 20
    entries.append({"action": "segment_alloc", "addr": nxt, "size": 64 << 20, "stream": 0, "time_us": t, "frames": frames(),
                    "compile_context": "N/A", "user_metadata": ""})
    blocks_alloc = []  # (addr, size, frames, i_alloc, i_free or None)
    big = None  # the planted block: its index in blocks_alloc
    for i in range(a.entries):
        t += rnd.randrange(1, 50)
        r = rnd.random()
        if a.big and i == a.entries // 4:
            fr = [{"filename": "/home/user/big.py", "line": dev + 1, "name": "big_block"}]
            entries.append({"action": "alloc", "addr": nxt, "size": a.big, "stream": 0, "time_us": t, "frames": fr,
                            "compile_context": "N/A", "user_metadata": ""})
            blocks_alloc.append((nxt, a.big, fr, len(entries) - 1, None))
            big = len(blocks_alloc) - 1
            nxt += (a.big + (1 << 22) - 1) // (1 << 22) * (1 << 22)
        elif big is not None and i == 3 * a.entries // 4:
            addr, size, fr, i0, _ = blocks_alloc[big]
            entries.append({"action": "free_requested", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": fr})
            t += 1
            entries.append({"action": "free_completed", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": fr})
            blocks_alloc[big] = (addr, size, fr, i0, len(entries) - 1)
        elif pre_free and r < 0.05:
            addr, size, fr = pre_free.pop()
            entries.append({"action": "free_requested", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": fr})
            t += 1
            entries.append({"action": "free_completed", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": fr})
            blocks_alloc.append((addr, size, fr, "pre", len(entries) - 1))
        elif live and r < 0.45:
            addr = live_keys.pop(rnd.randrange(len(live_keys))) if len(live_keys) < 4096 else live_keys.pop(rnd.randrange(len(live_keys) - 64, len(live_keys)))
            size, fr, k = live.pop(addr)
            entries.append({"action": "free_requested", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": fr})
            t += rnd.randrange(1, 5)
            entries.append({"action": "free_completed", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": fr})
            blocks_alloc[k] = blocks_alloc[k][:4] + (len(entries) - 1,)
        else:
            size = rnd.choice([512, 1024, 8192, 1 << 20, 3 << 20]) + 512 * rnd.randrange(0, 4)
            addr = nxt
            nxt += 1 << 22
            fr = frames()
            entries.append({"action": "alloc", "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": fr,
                            "compile_context": "N/A", "user_metadata": ""})
            blocks_alloc.append((addr, size, fr, len(entries) - 1, None))
            live[addr] = (size, fr, len(blocks_alloc) - 1)
            live_keys.append(addr)
    traces.append(entries)
    t_first.append(entries[0]["time_us"])
    # segments at the end: the live blocks (the ones from before too)
    blks = [{"address": ad, "size": s, "requested_size": s, "state": "active_allocated", "frames": fr} for ad, (s, fr, _) in live.items()]
    blks += [{"address": ad, "size": s, "requested_size": s, "state": "active_allocated", "frames": fr} for ad, s, fr in pre_live]
    blks.append({"address": nxt, "size": 1 << 20, "requested_size": 0, "state": "inactive", "frames": []})
    segments.append({"device": dev, "address": 0x7E0000000000 + (dev << 36), "total_size": seg_base + (64 << 20), "allocated_size": 0,
                     "active_size": 0, "requested_size": 0, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
                     "is_expandable": False, "frames": [], "blocks": blks})
    # truth: the timeline in entry order, blocks from before active from the first entry
    pre = [(ad, s, fr) for ad, s, fr, i0, i1 in blocks_alloc if i0 == "pre"] + pre_live
    active = sum(s for _, s, _ in pre)
    timeline = []  # (entry index, time_us, active) at each alloc / free_completed
    alloc_at = {}
    for i, e in enumerate(entries):
        if e["action"] == "alloc":
            active += e["size"]
        elif e["action"] == "free_completed":
            active -= e["size"]
        else:
            continue
        timeline.append((i, e["time_us"], active))
    pi, pt, pv = max(timeline, key=lambda x: (x[2], -x[0]))
    live_g, unfreed_g, top_g = (defaultdict(lambda: [0, 0]) for _ in range(3))
    everyone = [(s, fr, -1, i1) for ad, s, fr, i0, i1 in blocks_alloc if i0 == "pre"]
    everyone += [(s, fr, -1, None) for ad, s, fr in pre_live]
    everyone += [(s, fr, i0, i1) for ad, s, fr, i0, i1 in blocks_alloc if i0 != "pre"]
    stacks = {}
    for s, fr, i0, i1 in everyone:
        g = top(fr)
        stacks.setdefault(g, []).append(" \u2190 ".join(f"{f['name']} ({f['filename']}:{f['line']})" for f in fr[:64]))
        if i0 <= pi and (i1 is None or i1 > pi):
            live_g[g][0] += s
            live_g[g][1] += 1
        if i1 is None:
            unfreed_g[g][0] += s
            unfreed_g[g][1] += 1
        top_g[g][0] += s
        top_g[g][1] += 1
    srt = lambda g: [{"op": k, "bytes": v[0], "count": v[1]} for k, v in sorted(g.items(), key=lambda kv: (-kv[1][0], kv[0]))]
    # the address space the blocks are stacked in
    ranges = [(segments[-1]["address"], segments[-1]["total_size"])]
    ranges += [(e["addr"], e["size"]) for e in entries if e["action"] == "segment_alloc"]
    ranges += [(ad, s) for ad, s, _, _, _ in blocks_alloc] + [(ad, s) for ad, s, _ in pre_live]
    merged = []  # [lo, hi)
    for lo, n in sorted(ranges):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], lo + n)
        else:
            merged.append([lo, lo + n])
    offs, off = [], 0
    for lo, hi in merged:
        offs.append(off)
        off += hi - lo

    def y_of(addr):
        k = max(i for i, (lo, _) in enumerate(merged) if lo <= addr)
        return offs[k] + addr - merged[k][0]
    bands = {"span": off}
    if big is not None:
        ad, s, fr, i0, i1 = blocks_alloc[big]
        bands["big"] = {"y": y_of(ad), "size": s, "addr": hex(ad), "alloc_time_us": entries[i0]["time_us"],
                        "free_time_us": entries[i1]["time_us"], "top": top(fr),
                        "stack": " \u2190 ".join(f"{f['name']} ({f['filename']}:{f['line']})" for f in fr)}
    truth.append({"device": f"GPU {dev}", "peak_bytes": pv, "bands": bands, "peak_time_us": pt, "live_at_peak": srt(live_g),
                  "unfreed_bytes": sum(v[0] for v in unfreed_g.values()), "still_live_at_end": srt(unfreed_g),
                  "top_alloc_ops": srt(top_g)[:20], "entries": len(entries), "from": "bytes_sum",
                  # the stack of each block whose top frame no other block has (the details pane's)
                  "single_stacks": {k: v[0] for k, v in stacks.items() if len(v) == 1 and k}})
origin = min(t_first)
for t in truth:
    t["peak_us"] = t.pop("peak_time_us") - origin
    if "big" in t["bands"]:
        for k in ("alloc_time_us", "free_time_us"):
            t["bands"]["big"][k] -= origin
snap = {"segments": segments, "device_traces": traces,
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": None, "max_split_size": -1, "garbage_collection_threshold": 0.0,
                               "expandable_segments": False, "last_allocator_settings": "", "roundup_power2_divisions": {}},
        "external_annotations": []}
with open(a.out, "wb") as f:
    pickle.dump(snap, f, protocol=4)
json.dump(truth, open(a.truth, "w"), indent=1)
