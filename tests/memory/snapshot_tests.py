#!/usr/bin/env python3
"""snapshot_tests.py STRATA TMPDIR: PyTorch memory snapshots through the CLI
(issue 34 item 3), called by tests/cli/memory_tests.sh. Snapshots written
by gen_snapshot.py with Python's pickle: `strata analyze SNAP --json`'s
"memory" equals the generator's truth (peak of the active bytes, its time,
blocks live at it by top frame, never freed, top frames by bytes);
`strata stats` names the format and counts the blocks and allocations;
every hostile pickle is refused with one line naming the byte offset (the
refused opcode's name where there is one) and nothing is executed; a
snapshot opened with the Kineto trace of the same run lines up by clock.
Prints FAIL lines and "N passed, N failed"."""
import json
import os
import subprocess
import sys

strata, tmp = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}"[:2000])


def run(*args):
    p = subprocess.run([strata] + list(args), capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


KEYS = ["peak_bytes", "peak_us", "live_at_peak", "unfreed_bytes", "still_live_at_end", "top_alloc_ops", "from"]
for name, flags in [("snap", []), ("snap_noframes", ["--no-frames", "--seed", "4"]), ("snap3", ["--devices", "3", "--seed", "8", "--entries", "5000"])]:
    snap, truth_p = os.path.join(tmp, name + ".pickle"), os.path.join(tmp, name + ".truth.json")
    subprocess.run([sys.executable, os.path.join(here, "gen_snapshot.py"), snap, truth_p] + flags, check=True)
    truth = json.load(open(truth_p))
    rc, out, err = run("analyze", snap, "--json")
    check(f"{name}: analyze exits 0", rc == 0, err)
    if rc != 0:
        continue
    got = json.loads(out)["memory"]
    check(f"{name}: devices", [m["device"] for m in got] == [t["device"] for t in truth], [m["device"] for m in got])
    for t in truth:
        m = next((m for m in got if m["device"] == t["device"]), None)
        for k in KEYS:
            check(f"{name} {t['device']}: {k}", m is not None and m[k] == t[k], f"{m and m[k]!r} vs {t[k]!r}")
    rc, out, err = run("stats", snap, "--json")
    st = json.loads(out) if rc == 0 else {}
    check(f"{name}: stats format", st.get("format") == "pytorch-memory-snapshot", st.get("format"))
    check(f"{name}: entries read", st.get("events") == sum(t["entries"] for t in truth), (st.get("events"), [t["entries"] for t in truth]))
    nblocks = sum(t["top_alloc_ops"] and sum(g["count"] for g in t["top_alloc_ops"]) or 0 for t in truth)
    check(f"{name}: a band per block", st.get("async_slices", 0) >= 1 and (len(truth[0]["top_alloc_ops"]) >= 20 or st.get("async_slices") == nblocks),
          (st.get("async_slices"), nblocks))

# hostile pickles: refused with the offset, nothing executed
hdir = os.path.join(tmp, "hostile")
subprocess.run([sys.executable, os.path.join(here, "gen_snapshot.py"), "--hostile", hdir], check=True)
cases = json.load(open(os.path.join(hdir, "hostile.json")))
for fname, want in sorted(cases.items()):
    path = os.path.join(hdir, fname)
    rc, out, err = run("stats", path)
    lines = [l for l in err.splitlines() if l.strip()]
    check(f"hostile {fname}: refused (exit 1)", rc == 1, (rc, err[-300:]))
    check(f"hostile {fname}: one line", len(lines) == 1, lines)
    if not lines:
        continue
    if want["offset"] is not None:
        check(f"hostile {fname}: names byte {want['offset']}", f"(at byte {want['offset']})" in lines[0], lines[0])
    else:
        check(f"hostile {fname}: names a byte offset", "(at byte " in lines[0], lines[0])
    w = want["why"]
    if w.isupper() or "_" in w and w.replace("_", "").isupper():
        check(f"hostile {fname}: names {w}", f"opcode {w} " in lines[0] and "refused" in lines[0] or "not supported" in lines[0], lines[0])
    check(f"hostile {fname}: nothing executed", "pwned" not in out + err, out)

# a snapshot with the Kineto trace of the same run: aligned by their clocks
snap = os.path.join(tmp, "snap.pickle")
kin, kt = os.path.join(tmp, "run.json"), os.path.join(tmp, "run.truth.json")
subprocess.run([sys.executable, os.path.join(here, "gen_kineto_memory.py"), kin, kt], check=True)
rc, out, err = run("stats", kin, snap, "--json")
check("trace + snapshot: both load", rc == 0, err[-500:])
if rc == 0:
    import pickle
    from decimal import Decimal
    st = json.loads(out)
    k0 = min(Decimal(str(e["ts"])) for e in json.load(open(kin), parse_float=Decimal)["traceEvents"] if e["ph"] != "M")
    s0 = min(d[0]["time_us"] for d in pickle.load(open(snap, "rb"))["device_traces"] if d)  # our own file
    tr = st["traces"]
    check("trace + snapshot: both on the epoch clock", [t["clock"] for t in tr] == ["epoch", "epoch"], [t["clock"] for t in tr])
    check("trace + snapshot: placed by their clocks", Decimal(str(tr[1]["offset_us"])) - Decimal(str(tr[0]["offset_us"])) == s0 - k0,
          (tr[0]["offset_us"], tr[1]["offset_us"], s0 - k0))
print(f"{passed} passed, {failed} failed")
