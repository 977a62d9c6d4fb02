#!/usr/bin/env bash
# collectives_tests.sh STRATA
# Collectives matched across ranks, clocks aligned by them, waits, the
# critical path and the what-if (issue 32; core/analysis/collectives.h), with
# `strata analyze --json` checked against truths planted by
# tools/gen/gen_collectives.py (its own schedule, not strata): 8 ranks x
# 12 steps, clock skews up to +-50 ms, a different slow rank per step, a
# data-parallel all-reduce over all ranks and tensor-parallel all-gathers
# within pairs, with and without Kineto's "Seq", plain and gzip'd:
# the number of collectives and their bytes (from the args), every clock
# offset within 5 us, every step's all-reduce blocker, every (step, rank)'s
# waited_us and caused_us exactly, every what-if within 2 % (or 1 us), and with
# --align collectives every rank's step starting at the same aligned time.
# Real Kineto traces (the corpus's HTA ones): every NCCL kernel found as a
# collective (a python count of the file's kernels), one file alone: no
# offsets to estimate. XLA: two hosts' all-reduce-start/-done pairs matched
# by name, spanning start to done, their offset and blockers. The text
# output states the summary line.
# Prints "N passed, N failed"; exits 1 on failure.
set -u
strata=${1:?usage: collectives_tests.sh STRATA}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export STRATA_BIN=$strata STRATA_ROOT=$root PYTHONPATH=$here
exec python3 - <<'PY'
import glob, gzip, json, os, shutil, subprocess, sys, tempfile

from view_check import finish, report

strata = os.path.abspath(os.environ["STRATA_BIN"])
root = os.environ["STRATA_ROOT"]
gen = os.path.join(root, "tools", "gen", "gen_collectives.py")
tmp = tempfile.mkdtemp(prefix="strata-coll-")
corpus = os.path.join(os.path.dirname(root), "shared", "corpus")
if not os.path.isdir(corpus):
    corpus = "/work/shared/corpus"
NS = 0.0005  # us: exact (below the 1 ns the output resolves)


def analyze(files, *extra):
    p = subprocess.run([strata, "analyze", *files, "--json", "--ops", "1", *extra],
                       capture_output=True, text=True)
    if p.returncode != 0:
        report(False, "analyze " + " ".join(extra), p.stderr)
        return None
    return json.loads(p.stdout)


def check(name, genargs, gz=False):
    d = os.path.join(tmp, name)
    subprocess.run([sys.executable, gen, d, "--ranks", "8", "--steps", "12", "--seed", "7"] +
                   genargs + (["--gz"] if gz else []), check=True)
    truth = json.load(open(os.path.join(d, "truth.json")))
    n = truth["ranks"]
    files = [os.path.join(d, "rank-%d.json%s" % (r, ".gz" if gz else "")) for r in range(n)]
    got = analyze(files)
    if got is None:
        return
    colls = got["collectives"]
    report(len(colls) == truth["collectives"], name + ": collectives matched",
           "%d vs %d" % (len(colls), truth["collectives"]))
    kinds = {}
    for c in colls:
        kinds.setdefault(c["kind"], set()).add(c["bytes"])
    report(kinds == {k: {v} for k, v in truth["bytes"].items()}, name + ": kinds and bytes from args",
           repr(kinds))
    report(all(len(c["ranks"]) == (n if c["kind"] == "all_reduce" else 2) for c in colls),
           name + ": members (all ranks, pairs)", "")
    if "--no-seq" not in genargs:
        report(all(c["seq"] is not None for c in colls), name + ": matched by Seq", "")
    off = {o["trace"]: o["offset_us"] for o in got["clock_offsets"]}
    bad = [r for r in range(n) if abs(off.get(r, 1e9) - truth["offsets_us"][r]) > 5]
    report(not bad, name + ": clock offsets within 5 us",
           repr([(r, off.get(r), truth["offsets_us"][r]) for r in bad][:4]))
    report(got["unaligned"] == [], name + ": every file aligned", repr(got["unaligned"]))
    ar = {c["step"]: c for c in colls if c["kind"] == "all_reduce"}
    bad = [s for s in truth["steps"] if ar.get(s["step"], {}).get("blocker") != s["blocker"]]
    report(not bad and len(set(s["blocker"] for s in truth["steps"])) > 1,
           name + ": every step's blocker (a different rank per step)", repr(bad[:2]))
    ps = {(r["trace"], r["step"]): r for r in got["per_step"]}
    bad = []
    for s in truth["steps"]:
        for r in range(n):
            row = ps.get((r, s["step"]))
            if (row is None or abs(row["waited_us"] - s["waited_us"][r]) > NS or
                    abs(row["caused_us"] - s["caused_us"][r]) > NS):
                bad.append((s["step"], r, row and row["waited_us"], s["waited_us"][r],
                            row and row["caused_us"], s["caused_us"][r]))
    report(not bad, name + ": waited_us and caused_us per step and rank", repr(bad[:3]))
    wi = {w["trace"]: w["step_us_saved"] for w in got["what_if"]}
    bad = [(r, wi.get(r), t) for r, t in enumerate(truth["what_if_us"])
           if r not in wi or abs(wi[r] - t) > max(0.02 * abs(t), 1.0)]
    report(not bad and max(truth["what_if_us"]) > 100, name + ": what-if within 2 %", repr(bad[:3]))
    cp = {p["step"]: p for p in got["critical_path"]}
    bad = [s["step"] for s in truth["steps"]
           if abs(cp.get(s["step"], {"total_us": -1})["total_us"] - s["step_us"]) > NS]
    report(not bad, name + ": critical path's total is the step", repr(bad[:3]))
    bad = []
    for p in got["critical_path"]:
        segs = p["segments"]
        tot = sum(x["end_us"] - x["start_us"] for x in segs)
        chained = all(abs(segs[i]["end_us"] - segs[i + 1]["start_us"]) <= NS
                      for i in range(len(segs) - 1))
        st = next(s for s in truth["steps"] if s["step"] == p["step"])
        through = any(x["kind"] == "collective" and x["name"] == "all_reduce" and
                      x["trace"] == st["blocker"] for x in segs)
        if abs(tot - p["total_us"]) > 4 * NS or not chained or not through:
            bad.append(p["step"])
    report(not bad, name + ": segments chain, sum to the total and pass the blocker", repr(bad[:3]))
    al = analyze(files, "--align", "collectives")
    if al is not None:
        starts = {}
        for st in al["steps"]:
            starts.setdefault(st["step"], []).append(st["start_us"])
        bad = [s for s, v in starts.items() if max(v) - min(v) > 5]
        report(not bad and len(starts) == 12, name + ": --align collectives: steps start together",
               repr(bad[:3]))
    p = subprocess.run([strata, "analyze", *files], capture_output=True, text=True)
    report(p.returncode == 0 and "arrived last at" in p.stdout and "critical path" in p.stdout,
           name + ": text states the summary", p.stdout[-600:])


check("seq", [])
check("noseq", ["--no-seq"])
check("gz", [], gz=True)

# ---- real Kineto traces: every NCCL kernel is a collective -------------------
for base in ("hta__control.json.gz", "hta__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz"):
    path = os.path.join(corpus, base)
    if not os.path.exists(path):
        report(True, "corpus " + base + " (absent: skipped)", "")
        continue
    ev = json.load(gzip.open(path))["traceEvents"]
    want = sum(1 for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel" and
               "nccl" in e.get("name", "").lower())
    got = analyze([path])
    if got is None:
        continue
    members = sum(len(c["ranks"]) for c in got["collectives"])
    report(members == want and want > 0, "corpus " + base + ": every NCCL kernel found",
           "%d vs %d" % (members, want))
    report(got["clock_offsets"][0]["offset_us"] == 0 if got["clock_offsets"] else True,
           "corpus " + base + ": one file, offset 0", repr(got["clock_offsets"]))

# ---- XLA collectives: -start/-done pairs on two hosts' "XLA Ops" lines -------
# host h's clock is 7 ms + 1.234 ms x h ahead; each iteration i: fusion, then
# all-reduce-start.1 at a per-host arrival, all-reduce-done.1 ending at the
# same true time on both; the second host arrives last at even iterations.
def xla_host(h):
    skew = 7000 + 1234 * h
    ev = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "/device:TPU:0"}},
          {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "XLA Ops"}}]
    for i in range(3):
        t = 1000 + 2000 * i
        arr = t + 300 + (200 if (h == 1) == (i % 2 == 0) else 0)
        ev.append({"ph": "X", "name": "fusion.2", "pid": 1, "tid": 2, "ts": t + skew, "dur": arr - t - 10})
        ev.append({"ph": "X", "name": "all-reduce-start.1", "pid": 1, "tid": 2, "ts": arr + skew, "dur": 5})
        ev.append({"ph": "X", "name": "all-reduce-done.1", "pid": 1, "tid": 2, "ts": t + 900 + skew, "dur": 100})
    path = os.path.join(tmp, "xla-host-%d.json" % h)
    json.dump({"traceEvents": ev}, open(path, "w"))
    return path

xf = [xla_host(0), xla_host(1)]
got = analyze(xf)
if got is not None:
    cs = got["collectives"]
    report(len(cs) == 3 and all(c["kind"] == "all_reduce" and c["group"] == "all-reduce.1" and
                                len(c["ranks"]) == 2 for c in cs),
           "XLA: -start/-done pairs matched by name", repr(cs)[:300])
    report(all(abs(r["end_us"] - r["start_us"] - (700 - (200 if (r["trace"] == 1) == (i % 2 == 0) else 0))) < 0.001
               for i, c in enumerate(sorted(cs, key=lambda c: c["ranks"][0]["start_us"])) for r in c["ranks"]),
           "XLA: an instance spans the start's start to the done's end", repr(cs)[:300])
    off = {o["trace"]: o["offset_us"] for o in got["clock_offsets"]}
    report(off.get(1) == -1234, "XLA: the second host's offset", repr(got["clock_offsets"]))
    report([c["blocker"] for c in sorted(cs, key=lambda c: c["ranks"][0]["start_us"])] == [1, 0, 1],
           "XLA: the host arriving last blocks", repr([c["blocker"] for c in cs]))

shutil.rmtree(tmp, ignore_errors=True)
finish()
PY
