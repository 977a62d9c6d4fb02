#!/usr/bin/env bash
# memory_tests.sh STRATA
# Memory on the time axis (issue 34), driven through the CLI and checked
# against independent truths:
#   - Kineto traces with `[memory]` events written by
#     tests/memory/gen_kineto_memory.py, whose planted truth (its own
#     bookkeeping) gives per device the peak, its time, the allocations
#     live at it by op, the unfreed bytes and the top allocating ops:
#     `strata analyze --json`'s "memory" must equal it, with "Total
#     Allocated" and without it (the running sum of Bytes), sorted and
#     shuffled, one file and two; the devices' counter tracks
#     ("Memory allocated (GPU 0)", ...) must peak at the same bytes.
#   - PyTorch memory snapshots (torch.cuda.memory._dump_snapshot's pickle)
#     written by tests/memory/gen_snapshot.py with Python's pickle:
#     `strata memory SNAP --json` must give the generator's truth, and
#     every hostile pickle (each refused opcode, truncated, deep nesting,
#     huge lengths) must be refused with one line naming the byte offset.
# Prints "N passed, N failed"; exits 1 on failure.
set -u
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
export STRATA_BIN=$strata MEMDIR=$here/../memory
exec python3 - <<'PY'
import json, os, subprocess, sys, tempfile
from decimal import Decimal

strata, memdir = os.environ["STRATA_BIN"], os.environ["MEMDIR"]
tmp = tempfile.mkdtemp(prefix="strata-mem-")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}"[:2000])


def run(*args):
    p = subprocess.run([strata] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def gen(name, *flags):
    out, truth = os.path.join(tmp, name + ".json"), os.path.join(tmp, name + ".truth.json")
    subprocess.run([sys.executable, os.path.join(memdir, "gen_kineto_memory.py"), out, truth] + list(flags), check=True)
    return out, json.load(open(truth))


KEYS = ["peak_bytes", "events", "live_at_peak", "unfreed_bytes", "still_live_at_end", "top_alloc_ops", "from",
        "reserved_peak_bytes"]


def compare(label, got, truth, trace=0):
    mine = [m for m in got["memory"] if m["trace"] == trace]
    check(f"{label}: devices", sorted(m["device"] for m in mine) == sorted(t["device"] for t in truth),
          f"{[m['device'] for m in mine]} vs {[t['device'] for t in truth]}")
    for t in truth:
        m = next((m for m in mine if m["device"] == t["device"]), None)
        if m is None:
            continue
        for k in KEYS:
            check(f"{label} {t['device']}: {k}", m[k] == t[k], f"{m[k]!r} vs {t[k]!r}")
        check(f"{label} {t['device']}: peak_us", Decimal(str(m["peak_us"])) == Decimal(t["peak_us"]),
              f"{m['peak_us']} vs {t['peak_us']}")
        check(f"{label} {t['device']}: live_bytes = sum of live_at_peak",
              m["live_bytes"] == sum(g["bytes"] for g in t["live_at_peak"]))
        # the counter track of the device peaks at the same bytes
        series = f"Memory allocated ({t['device']})"
        c = [x for x in got["memory_counters"] if x["trace"] == trace and x["name"] == series]
        check(f"{label} {t['device']}: counter track {series}", len(c) == 1 and c[0]["peak"] == t["peak_bytes"], c)
        if t["reserved_peak_bytes"] is not None:
            series = f"Memory reserved ({t['device']})"
            c = [x for x in got["memory_counters"] if x["trace"] == trace and x["name"] == series]
            check(f"{label} {t['device']}: {series}", len(c) == 1 and c[0]["peak"] == t["reserved_peak_bytes"], c)


cases = [("totals", []), ("totals_shuffled", ["--shuffle", "--seed", "5"]), ("bytes_sum", ["--no-totals", "--seed", "3"]),
         ("bytes_sum_shuffled", ["--no-totals", "--shuffle", "--seed", "9", "--allocs", "900"])]
files = []
for name, flags in cases:
    path, truth = gen(name, *flags)
    files.append((path, truth))
    rc, out, err = run("analyze", path, "--json")
    check(f"{name}: analyze exits 0", rc == 0, err)
    if rc == 0:
        compare(name, json.loads(out), truth)
# two files in one analysis: each its own trace index
rc, out, err = run("analyze", files[0][0], files[2][0], "--json")
check("two files: analyze exits 0", rc == 0, err)
if rc == 0:
    got = json.loads(out)
    compare("two files [0]", got, files[0][1], 0)
    compare("two files [1]", got, files[2][1], 1)
# no memory events: an empty list, the counters list renamed
rc, out, err = run("analyze", os.path.join(memdir, "..", "fixtures", "counters.json"), "--json")
got = json.loads(out) if rc == 0 else {}
check("no memory events: memory is []", got.get("memory") == [], got.get("memory"))
check("memory counters listed as memory_counters", isinstance(got.get("memory_counters"), list), list(got))
# the text output names the peak
rc, out, err = run("analyze", files[0][0])
t0 = files[0][1][0]
check("text: a memory line per device", all(f"memory {t['device']}" in out for t in files[0][1]), out[-1500:])

snap_tests = os.path.join(memdir, "snapshot_tests.py")
if os.path.exists(snap_tests):
    p = subprocess.run([sys.executable, snap_tests, strata, tmp], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("FAIL"):
            print(line)
    try:
        sp, sf = (int(x) for x in p.stdout.strip().splitlines()[-1].split()[0:3:2])
    except (ValueError, IndexError):
        sp, sf = 0, 1
        print("FAIL snapshot tests:", p.stdout[-500:], p.stderr[-1500:])
    passed += sp
    failed += sf
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
