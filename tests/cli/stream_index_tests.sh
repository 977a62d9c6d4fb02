#!/usr/bin/env bash
# stream_index_tests.sh STRATA STRATA_GEN
# Streaming mode's index file from the command line (issue 20 part 2):
# `strata index FILE` then `strata window FILE --index FILE.stx --events`
# must list the events `strata window FILE --events` (the pass, no index)
# lists, and both must equal an INDEPENDENT computation in Python of the
# events meeting the window from the JSON text (X events, B/E pairs matched
# per thread, instants; ts/dur in us -> ns as exact decimals), compared as
# (name, start_ns, dur_ns) multisets, for windows across a strata-gen
# --lean trace (small blocks: --block-bytes, so a window reads part of the
# file) and its gzip'd twin (read through the gzip restart points; a trace
# over 4 MiB decoded, so there are several). A stale index (of another
# file; of the file before it changed: a byte in its first 64 KiB, or
# bytes appended) and a damaged one (cut, a byte flipped) are refused with
# one line on stderr and the pass runs instead (same events). The
# re-ordered copy: the trace with its X/i/C events shuffled, and a Perfetto
# protobuf trace (strata-gen --perfetto), read from their copies: the
# events equal `strata window --resident` (a whole-file load) and, for the
# JSON, the python computation; a narrow window reads a few partitions of
# the copy; --no-copy reads the file's blocks. Errors: a
# missing file, a file that is not a trace (one line, byte offset, exit 1),
# usage (exit 2). Prints "N passed, N failed"; exits 1 on failure.
set -u
strata=${1:?usage: stream_index_tests.sh STRATA STRATA_GEN}
gen=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$gen" ] || [ ! -x "$gen" ]; then
  echo "stream_index_tests.sh: no strata-gen: skipped"
  exit 0
fi
export STRATA_BIN=$strata STRATA_GEN=$gen PYTHONPATH=$here
exec python3 - <<'PY'
import collections, gzip, json, os, random, shutil, subprocess, tempfile
from decimal import Decimal

from view_check import finish, report

strata, gen = os.environ["STRATA_BIN"], os.environ["STRATA_GEN"]
tmp = tempfile.mkdtemp(prefix="strata-stx-")
BLOCK = "65536"


def run(*args):
    p = subprocess.run([strata] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def ns(v):
    return int(Decimal(str(v)) * 1000)


def expected(path, a0, a1):
    """The (name, start, dur) multiset of the events meeting [a0, a1] (ns),
    computed from the JSON alone."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    out, stacks, end = [], collections.defaultdict(list), 0
    for e in evs:
        ph = e.get("ph")
        if "ts" in e:
            end = max(end, ns(e["ts"]) + (ns(e["dur"]) if ph == "X" and "dur" in e else 0))
        if ph == "X":
            out.append((e["name"], ns(e["ts"]), ns(e["dur"])))
        elif ph == "B":
            stacks[(e["pid"], e["tid"])].append(e)
        elif ph == "E":
            b = stacks[(e["pid"], e["tid"])].pop()
            out.append((b["name"], ns(b["ts"]), ns(e["ts"]) - ns(b["ts"])))
        elif ph in ("i", "I"):
            out.append((e["name"], ns(e["ts"]), 0))
    for st in stacks.values():  # unclosed: to the trace's end
        for b in st:
            out.append((b["name"], ns(b["ts"]), end - ns(b["ts"])))
    return collections.Counter(x for x in out if x[1] <= a1 and x[1] + x[2] >= a0)


def listed(stdout):
    """(summary line, multiset of (name, start, dur), the event lines)"""
    lines = stdout.splitlines()
    evs = collections.Counter()
    for l in lines[1:]:
        pid, key, kind, start, dur, name, src = l.split("\t")
        evs[(name, int(start), int(dur))] += 1
    return (lines[0] if lines else ""), evs, lines[1:]


def span_of(path):
    rc, out, _ = run("stats", path, "--json")
    s = json.loads(out)
    return float(s["ts_min_us"]), float(s["ts_max_us"])


def random_windows(path, n, wide):
    """The trace's whole span, then n windows at random places (rnd):
    narrow (0.2 % of the span) and wide (`wide` of it) in turn."""
    t0, t1 = span_of(path)
    wins = [(t0, t1)]
    for i in range(n):
        w = (t1 - t0) * (0.002 if i % 2 else wide)
        f = t0 + rnd.random() * (t1 - t0 - w)
        wins.append((f, f + w))
    return wins


def check_windows(name, path, stx, size, windows):
    narrow_small = False
    for (f, t) in windows:
        fr, to = "%.3f" % f, "%.3f" % t
        a0, a1 = ns(fr), ns(to)
        rc1, o1, e1 = run("window", path, "--index", stx, "--from", fr, "--to", to, "--events")
        rc2, o2, e2 = run("window", path, "--from", fr, "--to", to, "--events",
                          "--block-bytes", BLOCK)
        what = "%s window [%s, %s]" % (name, fr, to)
        report(rc1 == 0 and rc2 == 0 and e1 == "" and e2 == "", what + ": exit and stderr",
               "%d %d %r %r" % (rc1, rc2, e1, e2))
        h1, ev1, l1 = listed(o1)
        h2, ev2, l2 = listed(o2)
        report("(index " in h1 and "(pass " in h2, what + ": index used", h1 + " / " + h2)
        report(l1 == l2, what + ": index and pass list the same events",
               "%d vs %d lines" % (len(l1), len(l2)))
        want = expected(path, a0, a1)
        report(ev1 == want, what + ": the events of the JSON (python)",
               "strata %d, python %d; only strata %s; only python %s" % (
                   sum(ev1.values()), sum(want.values()), list((ev1 - want).items())[:3],
                   list((want - ev1).items())[:3]))
        report(sum(want.values()) > 0 or (f, t) == windows[-1], what + ": not empty")
        rc, oj, _ = run("window", path, "--index", stx, "--from", fr, "--to", to, "--json",
                        "--events")
        j = json.loads(oj)
        report(j["index_used"] is True and j["events"] == len(l1) and len(j["list"]) == len(l1)
               and [x[3] for x in j["list"]] == [int(l.split("\t")[3]) for l in l1],
               what + ": --json", oj[:200])
        if t - f < 2000 and 0 < j["bytes_read"] < size / 2:
            narrow_small = True
    report(narrow_small, name + ": a narrow window reads less than half the file")


# ---- a plain trace -------------------------------------------------------------
a = os.path.join(tmp, "a.json")
subprocess.run([gen, "-n", "20000", "--lean", "-o", a], check=True, capture_output=True)
rc, out, err = run("index", a, "--block-bytes", BLOCK, "--json")
report(rc == 0 and err == "", "index a.json", err)
j = json.loads(out)
report(j["index"] == a + ".stx" and os.path.getsize(a + ".stx") == j["index_bytes"]
       and j["events"] == 20035 and j["blocks"] > 10 and j["format"] == "chrome-json"
       and j["compressed"] is False and j["summary_events"] > 0 and j["heap_bytes"] > 0,
       "index --json figures", out)
rc, out, err = run("index", a, "--block-bytes", BLOCK, "-o", os.path.join(tmp, "a2.stx"))
report(rc == 0 and out.startswith(os.path.join(tmp, "a2.stx") + ": 20035 events, ")
       and open(a + ".stx", "rb").read() == open(os.path.join(tmp, "a2.stx"), "rb").read(),
       "index -o: the same bytes, one line", out)
rnd = random.Random(7)
wins = random_windows(a, 6, 0.05)
t0, t1 = wins[0]
wins.append((t1 + 10, t1 + 20))  # after the trace: nothing
check_windows("plain", a, a + ".stx", os.path.getsize(a), wins)

# ---- stale and damaged indexes: refused, the pass runs ------------------------
mid = wins[2]
fr, to = "%.3f" % mid[0], "%.3f" % mid[1]
_, ref, _ = run("window", a, "--from", fr, "--to", to, "--events", "--block-bytes", BLOCK)
ref_events = listed(ref)[2]


def refused(name, path, stx, msg, same_events=True):
    rc, o, e = run("window", path, "--index", stx, "--from", fr, "--to", to, "--events",
                   "--block-bytes", BLOCK)
    lines = e.strip().splitlines()
    report(rc == 0 and len(lines) == 2 and lines[0].startswith("strata: %s: " % stx)
           and msg in lines[0] and lines[1] == "strata: %s: running the pass instead" % path
           and "(pass " in o, name + ": refused with one line, the pass ran", e + o[:100])
    if same_events:
        report(listed(o)[2] == ref_events, name + ": the pass's events")


c = os.path.join(tmp, "c.json")
subprocess.run([gen, "-n", "20000", "--lean", "--seed", "2", "-o", c], check=True,
               capture_output=True)
refused("foreign index", c, a + ".stx", "index does not match %s: " % c, same_events=False)
d = os.path.join(tmp, "d.json")
shutil.copy(a, d)
run("index", d, "--block-bytes", BLOCK)
data = bytearray(open(d, "rb").read())
k = data.index(b"train_loop iteration 1")
data[k + 6] = ord("X")  # the same size, a name changed in the first 64 KiB
open(d, "wb").write(data)
refused("file changed", d, d + ".stx",
        "index does not match %s: bytes 0..65536 differ (a stale or foreign index)" % d,
        same_events=False)
shutil.copy(a, d)
with open(d, "ab") as f:
    f.write(b"\n\n")
refused("file appended", d, d + ".stx", "index does not match %s: the file has" % d)
shutil.copy(a, d)
stx = open(a + ".stx", "rb").read()
cut = os.path.join(tmp, "cut.stx")
open(cut, "wb").write(stx[: len(stx) // 2])
refused("cut index", d, cut, "index: ")
flip = bytearray(stx)
flip[len(flip) // 3] ^= 4
open(cut, "wb").write(flip)
refused("flipped index", d, cut, "index: ")
open(cut, "wb").write(b"not an index at all, just text\n" * 4)
refused("not an index", d, cut, "index: not a strata index file")
refused("missing index", d, os.path.join(tmp, "none.stx"), "cannot open")

# ---- gzip: windows through the restart points ---------------------------------
b = os.path.join(tmp, "b.json.gz")
subprocess.run([gen, "-n", "60000", "--lean", "--gz", "-o", b], check=True, capture_output=True)
rc, out, err = run("index", b, "--block-bytes", BLOCK, "--json")
j = json.loads(out) if rc == 0 else {}
report(rc == 0 and j.get("compressed") is True and j.get("restart_points", 0) >= 2,
       "index b.json.gz: compressed, restart points", out + err)
wins = random_windows(b, 5, 0.03)
t0, t1 = wins[0]
wins.append((t1 - (t1 - t0) * 0.01, t1))  # the end: past the last restart point
check_windows("gzip", b, b + ".stx", os.path.getsize(b), wins)

# ---- the re-ordered copy: an unsorted trace and a Perfetto protobuf trace -------
# Their windows are read from a copy in a temporary file (a second pass):
# the events equal the JSON's (python) and a resident load's, and a narrow
# window reads a few partitions of the copy, not the file.
def check_copy(name, path, windows, python_ref):
    size = os.path.getsize(path)
    narrow = False
    for (f, t) in windows:
        fr, to = "%.3f" % f, "%.3f" % t
        what = "%s window [%s, %s]" % (name, fr, to)
        rc, oj, e = run("window", path, "--from", fr, "--to", to, "--json", "--events",
                        "--block-bytes", BLOCK)
        rr, orj, er = run("window", path, "--from", fr, "--to", to, "--json", "--events",
                          "--resident")
        report(rc == 0 and rr == 0 and e == "" and er == "", what + ": exit and stderr", e + er)
        if rc or rr:
            continue
        j, r = json.loads(oj), json.loads(orj)
        report(j["copy"] is True and j["copy_bytes"] > 0, what + ": read from the copy", oj[:200])
        report(j["list"] == r["list"] and j["events"] == r["events"],
               what + ": the events of a resident load", "%d vs %d" % (j["events"], r["events"]))
        if python_ref:
            got = collections.Counter((x[5], x[3], x[4]) for x in j["list"])
            want = expected(path, ns(fr), ns(to))
            report(got == want, what + ": the events of the JSON (python)",
                   "strata %d, python %d" % (sum(got.values()), sum(want.values())))
        report(j["events"] > 0 or (f, t) == windows[-1], what + ": not empty")
        if t - f < (windows[0][1] - windows[0][0]) * 0.01 and 0 < j["bytes_read"] < j["copy_bytes"] / 8:
            narrow = True
    report(narrow, name + ": a narrow window reads a few partitions of the copy")


# a.json's event lines (one per line) with its X, i and C events shuffled
# among their places: B/E pairs and metadata keep their order
shuf = os.path.join(tmp, "shuffled.json")
lines = open(a).read().split("\n")
body = [i for i, l in enumerate(lines) if l.startswith('{"ph":')]
evl = [lines[i] for i in body]  # each ends with "," (the list ends with {})
movable = [k for k, l in enumerate(evl) if l.startswith(('{"ph":"X"', '{"ph":"i"', '{"ph":"C"'))]
moved = [evl[k] for k in movable]
random.Random(3).shuffle(moved)
for k, l in zip(movable, moved):
    evl[k] = l
for n, i in enumerate(body):
    lines[i] = evl[n]
open(shuf, "w").write("\n".join(lines))
rc, out, _ = run("window", shuf, "--from", "0", "--to", "1", "--json", "--no-copy", "--block-bytes", BLOCK)
report(rc == 0 and json.loads(out)["copy"] is False, "--no-copy reads the file's blocks", out[:200])
check_copy("shuffled", shuf, random_windows(shuf, 4, 0.05), True)

pb = os.path.join(tmp, "system.pftrace")
subprocess.run([gen, "--perfetto", "-n", "60000", "--cpus", "4", "-o", pb], check=True,
               capture_output=True)
check_copy("perfetto", pb, random_windows(pb, 4, 0.05), False)

# ---- errors ---------------------------------------------------------------------
rc, o, e = run("window", os.path.join(tmp, "none.json"), "--from", "0", "--to", "1")
report(rc == 1 and e.count("\n") == 1 and "none.json: cannot open" in e, "missing file", e)
junk = os.path.join(tmp, "junk.json")
open(junk, "w").write('{"traceEvents":[{"ph":"X","ts":1,"dur":2,"name":"a"},\n{"ph":"X",,]}')
rc, o, e = run("index", junk)
report(rc in (0, 1) and "junk.json" in e and "at byte" in e and e.count("\n") == 1,
       "damaged trace: one line with the byte offset", e)
rc, o, e = run("index", os.path.join(tmp, "none.json"))
report(rc == 1 and "cannot open" in e, "index of a missing file", e)
rc, o, e = run("window", a, "--from", "5")
report(rc == 2 and "usage: strata window" in e, "window usage", e)
rc, o, e = run("index")
report(rc == 2 and "usage: strata index" in e, "index usage", e)

shutil.rmtree(tmp, ignore_errors=True)
raise SystemExit(finish())
PY
