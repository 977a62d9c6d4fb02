#!/usr/bin/env bash
# run_cli_tests.sh STRATA [STRATA_GEN]
# Drives the `strata` binary as a user would: `strata stats FILE --json` on
# the fixtures, on gzip'd copies made here with python3 (one and several
# members), on every file of ../shared/corpus and, if strata-gen is given,
# on generated traces. Checks exact numbers: hand-derived ones for the
# fixtures, and for real traces an independent count done by python's json
# module (events, phases, exact ts_min_us/ts_max_us with decimal
# arithmetic). Refused files must exit 1 with one stderr line naming the
# file and the byte offset. Prints "N passed, N failed"; exits 1 on failure.
set -u
strata=${1:?usage: run_cli_tests.sh STRATA [STRATA_GEN]}
gen=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export STRATA_BIN=$strata STRATA_GEN=$gen STRATA_ROOT=$root
exec python3 - <<'PY'
import collections, decimal, gzip, json, os, re, subprocess, sys, tempfile

D = decimal.Decimal
strata = os.environ["STRATA_BIN"]
gen = os.environ.get("STRATA_GEN", "")
root = os.environ["STRATA_ROOT"]
fix = os.path.join(root, "tests", "fixtures")
corpus = os.path.normpath(os.path.join(root, "..", "shared", "corpus"))
tmp = tempfile.mkdtemp(prefix="strata-cli-")
passed = failed = 0


def report(ok, name, why=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def run(path):
    p = subprocess.run([strata, "stats", path, "--json"], capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def stats_of(name, path, expect_rc=0):
    rc, out, err = run(path)
    if rc != expect_rc:
        report(False, name, "exit %d (want %d): %s" % (rc, expect_rc, err.strip()))
        return None, err
    if rc != 0:
        return None, err
    try:
        return json.loads(out, parse_float=D), err
    except ValueError as e:
        report(False, name, "stdout is not JSON: %s" % e)
        return None, err


def check_subset(name, got, want):
    bad = []
    for k, v in want.items():
        g = got.get(k)
        if isinstance(v, float):
            v = D(repr(v))
        if g != v:
            bad.append("%s: got %r want %r" % (k, g, v))
    report(not bad, name, "; ".join(bad))


def warnings_of(s):
    return {w["kind"]: w["count"] for w in s["warnings"]}


# ---- 0. usage -------------------------------------------------------------------
p = subprocess.run([strata, "--help"], capture_output=True, text=True)
report(p.returncode == 0 and all(("strata %s FILE" % c) in p.stdout
                                 for c in ("stats", "bench", "args", "search", "export", "flame")),
       "strata --help lists every command", "rc %d: %r" % (p.returncode, p.stdout))
p = subprocess.run([strata], capture_output=True, text=True)
report(p.returncode == 2 and p.stderr.startswith("usage: strata"), "strata alone: usage, exit 2",
       "rc %d: %r" % (p.returncode, p.stderr))
p = subprocess.run([strata, "frobnicate", "x.json"], capture_output=True, text=True)
report(p.returncode == 2 and "usage:" in p.stderr, "an unknown command: usage, exit 2",
       "rc %d: %r" % (p.returncode, p.stderr))

# ---- 1. fixtures, exact hand-derived numbers ------------------------------------
FIXTURES = {
    "array_basic.json": dict(events=8, slices=2, instants=1, counter_samples=1, processes=1,
                             threads=1, ts_min_us=100, ts_max_us=150,
                             phases={"B": 1, "C": 1, "E": 1, "M": 2, "X": 1, "i": 1, "": 1}),
    "object_keys_any_order.json": dict(events=1, slices=1, ts_min_us=1, ts_max_us=3, samples=1,
                                       stack_frames=1),
    # CPU samples (hand-derived in tests/unit/test_flame.c)
    "samples_v8.json": dict(events=11, slices=7, samples=7, stack_frames=6, threads=2,
                            ts_min_us=1000, ts_max_us=2600, phases={"M": 1, "P": 3, "X": 7}),
    "samples_stackframes.json": dict(events=4, slices=1, samples=6, stack_frames=6, threads=2,
                                     ts_min_us=0, ts_max_us=100),
    "samples_truncated.json": dict(events=1, slices=1, samples=0),
    "truncated_mid_event.json": dict(events=2, slices=2),
    "truncated_trailing_comma.json": dict(events=2, slices=2),
    "trailing_comma_closed.json": dict(events=2, slices=2),
    "object_truncated.json": dict(events=2, slices=2),
    "syntax_error.json": dict(events=1, slices=1),
    "strings_escapes.json": dict(events=7, slices=7),
    "invalid_utf8.json": dict(events=1, slices=1),
    "string_pid_tid.json": dict(events=4, slices=3, processes=2, threads=2),
    "timestamps.json": dict(events=7, slices=5, threads=6, ts_min_us=10,
                            ts_max_us=D("1735632360000000.125")),
    "begin_end.json": dict(events=8, slices=4, threads=3, ts_min_us=1, ts_max_us=9),
    "begin_end_args.json": dict(events=5, slices=3, threads=1, ts_min_us=10, ts_max_us=20,
                                phases={"B": 2, "E": 2, "X": 1}),
    "async_nestable.json": dict(events=10, async_slices=4, instants=1, processes=2),
    "async_legacy.json": dict(events=6, async_slices=5),
    "counters.json": dict(events=6, counter_samples=11, processes=2, threads=0, ts_max_us=8),
    "flows.json": dict(events=7, flows=2, slices=3),
    "instants.json": dict(events=5, instants=5, processes=2),
    "phases_misc.json": dict(events=14, slices=1, samples=1),
    "bom.json": dict(events=1, slices=1),
    "empty_array.json": dict(events=0, ts_min_us=None, ts_max_us=None),
    "empty_object.json": dict(events=0),
    "trailing_garbage.json": dict(events=1),
    "object_cut_in_metadata.json": dict(events=1),
}
WARNINGS = {
    "begin_end.json": {"end_name_mismatch": 1, "unmatched_end": 1, "unclosed_begin": 1,
                       "negative_duration": 1},
    "truncated_mid_event.json": {"truncated": 1},
    "phases_misc.json": {"skipped_phase": 8, "unknown_phase": 1, "missing_ph": 2,
                         "non_object_event": 1},
    "object_keys_any_order.json": {"system_trace_events_ignored": 1, "stack_frames_skipped": None,
                                   "samples_skipped": None},
    "samples_v8.json": {"sample_unknown_node": 1, "skipped_phase": None},
    "samples_stackframes.json": {"sample_unknown_frame": 1, "stack_frame_unknown_parent": 1},
    "samples_truncated.json": {"truncated": 1},
}
# partial traces: exit 0, stats, and one warning line on stderr
PARTIAL = {"truncated_mid_event.json", "truncated_trailing_comma.json", "object_truncated.json",
           "samples_truncated.json",
           "syntax_error.json", "object_cut_in_metadata.json"}
REFUSED = {  # file -> (byte offset, message part)
    "empty_file.json": (0, "empty input"),
    "whitespace_only.json": (6, "only whitespace"),
    "not_trace.html": (0, "expected '{' or '[' (found 0x3C)"),
    "not_trace.png": (0, "expected '{' or '[' (found 0x89)"),
    "not_trace_cpuprofile.json": (0, "no traceEvents"),
}

for name, want in sorted(FIXTURES.items()):
    path = os.path.join(fix, name)
    s, err = stats_of(name, path)
    if s is None:
        continue
    check_subset(name, s, want)
    if name in WARNINGS:
        w = warnings_of(s)
        bad = {k: (w.get(k), v) for k, v in WARNINGS[name].items() if w.get(k) != v}
        report(not bad, name + " warnings", repr(bad))
    lines = [l for l in err.splitlines() if l.strip()]
    if name in PARTIAL:
        report(len(lines) == 1 and "warning" in lines[0] and name in lines[0],
               name + " stderr", repr(err))
    else:
        report(len(lines) == 0, name + " stderr", repr(err))
    # the same bytes gzip'd (one member, and split in two members) give the same numbers
    data = open(path, "rb").read()
    one = os.path.join(tmp, name + ".gz")
    with open(one, "wb") as f:
        f.write(gzip.compress(data))
    two = os.path.join(tmp, name + ".2.gz")
    with open(two, "wb") as f:
        f.write(gzip.compress(data[: len(data) // 2]) + gzip.compress(data[len(data) // 2:]))
    for gz in (one, two):
        g, _ = stats_of(os.path.basename(gz), gz)
        if g is None:
            continue
        same = {k: s[k] for k in s if k not in ("compressed", "bytes_in", "load_ms", "heap_bytes")}
        check_subset(os.path.basename(gz), g, dict(same, compressed=True))

for name, (offset, part) in sorted(REFUSED.items()):
    rc, out, err = run(os.path.join(fix, name))
    lines = err.strip().splitlines()
    ok = (rc == 1 and out == "" and len(lines) == 1 and lines[0].startswith("strata: ")
          and name in lines[0] and part in lines[0] and ("(at byte %d" % offset) in lines[0])
    report(ok, name + " refused", "rc=%d err=%r" % (rc, err))

# ---- 1b. B/E slices: the args of B and E merged (E wins), found by an E-only arg --
def args_lines(path, *extra):
    p = subprocess.run([strata, "args", path] + list(extra), capture_output=True)
    out = p.stdout.decode("utf-8", "replace")
    rows = []
    for line in out.splitlines():
        src, name, text = line.split("\t", 2)
        try:
            val = json.loads(text)
        except ValueError:
            val = text
        rows.append((int(src), name, val))
    return p.returncode, rows


be = os.path.join(fix, "begin_end_args.json")
be_data = open(be, "rb").read()
be_gz = os.path.join(tmp, "begin_end_args.json.gz")
with open(be_gz, "wb") as f:
    f.write(gzip.compress(be_data))
STEP = be_data.index(b'{"name":"step"')
INNER = be_data.index(b'{"name":"inner"')
OP = be_data.index(b'{"name":"op"')
STEP_ARGS = {"step": 1, "phase": "begin", "shared": "from E", "result": {"loss": 0.5}}
for path in (be, be_gz):
    tag = os.path.basename(path)
    rc, rows = args_lines(path)
    want = [(STEP, "step", STEP_ARGS), (INNER, "inner", {"only_on_end": "Quokkafinch"}),
            (OP, "op", {"x": 1})]
    report(rc == 0 and rows == want, tag + " args (B and E merged)", "rc=%d %r" % (rc, rows))
    rc, rows = args_lines(path, "--at", str(STEP), "--at", str(INNER))
    report(rc == 0 and rows == want[:2], tag + " args --at (B and E merged)", "rc=%d %r" % (rc, rows))
    if rows:  # E wins on a duplicate key, and keeps each key once
        p = subprocess.run([strata, "args", path, "--at", str(STEP)], capture_output=True)
        report(p.stdout.count(b'"shared"') == 1, tag + " args: one 'shared' key", repr(p.stdout))
    for needle, want_src in (("quokkafinch", INNER), ("LOSS", STEP), ("from b", None)):
        p = subprocess.run([strata, "search", path, needle, "--args", "--json"], capture_output=True)
        try:
            r = json.loads(p.stdout)
            got = [m["src"] for m in r["first"]]
        except (ValueError, KeyError, TypeError):
            r, got = {}, None
        # "from b" is only in the step's B args, which the E overrides: still found (the
        # search looks at both events' args, not at the merged view)
        want_srcs = [want_src] if want_src is not None else [STEP]
        report(p.returncode == 0 and r.get("matches") == 1 and got == want_srcs,
               "%s search --args %s" % (tag, needle), "rc=%d %r" % (p.returncode, p.stdout))

# ---- 1c. strata flame: call trees of samples and of nested slices, exact ---------------
def flame(path, *extra):
    p = subprocess.run([strata, "flame", path, "--json"] + list(extra), capture_output=True)
    if p.returncode != 0:
        return p.returncode, None
    doc = json.loads(p.stdout)
    return 0, doc


def tree(doc):
    return [(n["name"], n["depth"], n["x"], n["total"], n["self"]) for n in doc["nodes"]]


v8 = os.path.join(fix, "samples_v8.json")
rc, doc = flame(v8)
want = [("all", 0, 0, 7, 0), ("(root)", 1, 0, 7, 0), ("main", 2, 0, 6, 1), ("work", 3, 0, 4, 3),
        ("leaf", 4, 0, 1, 1), ("(anonymous)", 3, 4, 1, 1), ("(idle)", 2, 6, 1, 1)]
report(rc == 0 and doc["source"] == "samples" and doc["events"] == 7 and tree(doc) == want
       and doc["nodes"][2]["total_ns"] == 600000, "flame: the V8 profile's sample tree",
       repr(doc))
rc, doc = flame(v8, "--from", "1150", "--to", "1550", "--tid", "10")
report(rc == 0 and doc["events"] == 4 and tree(doc)[2:4] == [("main", 2, 0, 3, 1),
                                                              ("work", 3, 0, 2, 1)],
       "flame --from --to --tid: the samples of a range", repr(doc))
rc, doc = flame(v8, "--slices")
want = [("all", 0, 0, 1500000, 0), ("step", 1, 0, 1500000, 700000),
        ("bwd", 2, 0, 400000, 200000), ("mm", 3, 0, 200000, 200000),
        ("fwd", 2, 400000, 400000, 300000), ("mm", 3, 400000, 100000, 100000)]
report(rc == 0 and doc["source"] == "slices" and doc["unit"] == "ns" and tree(doc) == want,
       "flame --slices: the nesting of slices", repr(doc))
rc, doc = flame(v8, "--slices", "--from", "1100", "--to", "1300")
report(rc == 0 and tree(doc) == [("all", 0, 0, 200000, 0), ("step", 1, 0, 200000, 0),
                                 ("fwd", 2, 0, 200000, 100000), ("mm", 3, 0, 100000, 100000)],
       "flame --slices --from --to: clipped to the range", repr(doc))
rc, doc = flame(v8, "--min-share", "0.5")
report(rc == 0 and [n["name"] for n in doc["nodes"]] == ["all", "(root)", "main", "work"]
       and doc["omitted"] == 3, "flame --min-share leaves out narrow subtrees", repr(doc))
rc, doc = flame(os.path.join(corpus, "speedscope__multi-thread-with-samples.json"), "--tid", "2")
if os.path.isdir(corpus):
    report(rc == 0 and tree(doc) == [("all", 0, 0, 5, 0), ("[root thread 2]", 1, 0, 5, 3),
                                     ("function3", 2, 0, 1, 1), ("function4", 2, 1, 1, 1)]
           and doc["nodes"][1]["total_ns"] == 50000000,
           "flame: the Hermes export's thread 2 (stackFrames, 10 ms interval)", repr(doc))
p = subprocess.run([strata, "flame", v8, "--tid", "99"], capture_output=True, text=True)
report(p.returncode == 2 and "no thread with tid 99" in p.stderr, "flame --tid of no thread: exit 2",
       "rc=%d %r" % (p.returncode, p.stderr))
p = subprocess.run([strata, "flame", v8], capture_output=True, text=True)
lines = p.stdout.splitlines()
report(p.returncode == 0 and lines[0] == "sample flame: 7 samples, 7 nodes"
       and lines[3].split("\t") == ["6", "1", "600 us", "100 us", "    main"],
       "flame (text): one node per line", repr(p.stdout))

# strata flame A B: the files merged on one timeline (as the page opens them), each
# sample's stack from its own file's frames, stacks merged by name (the tree
# hand-derived in tests/unit/test_flame.c test_merged_samples)
sf = os.path.join(fix, "samples_stackframes.json")
def flame_many(paths, *extra):
    p = subprocess.run([strata, "flame"] + paths + ["--json"] + list(extra), capture_output=True)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else p.stderr.decode())


rc, doc = flame_many([v8, sf])
want = [("all", 0, 0, 13, 0), ("(root)", 1, 0, 7, 0), ("main", 2, 0, 6, 1), ("work", 3, 0, 4, 3),
        ("leaf", 4, 0, 1, 1), ("(anonymous)", 3, 4, 1, 1), ("(idle)", 2, 6, 1, 1),
        ("main", 1, 7, 4, 0), ("compute", 2, 7, 2, 2), ("io", 2, 9, 2, 2), ("loopB", 1, 11, 1, 0),
        ("loopA", 2, 11, 1, 1), ("tick", 1, 12, 1, 1)]
report(rc == 0 and doc["events"] == 13 and tree(doc) == want and doc["nodes"][0]["total_ns"] == 760000,
       "flame A B: both files' samples in one tree", repr(doc))
rc, doc = flame_many([v8, v8])
report(rc == 0 and [(n[0], n[3], n[4]) for n in tree(doc)] ==
       [("all", 14, 0), ("(root)", 14, 0), ("main", 12, 2), ("work", 8, 6), ("leaf", 2, 2),
        ("(anonymous)", 2, 2), ("(idle)", 2, 2)],
       "flame A A: the same file twice doubles every node", repr(doc))
rc, doc = flame_many([v8, sf], "--tid", "1", "--file", "2")
report(rc == 0 and tree(doc) == [("all", 0, 0, 4, 0), ("main", 1, 0, 3, 0), ("compute", 2, 0, 2, 2),
                                 ("io", 2, 2, 1, 1), ("loopB", 1, 3, 1, 0), ("loopA", 2, 3, 1, 1)],
       "flame A B --tid 1 --file 2: one thread of the second file", repr(doc))
rc, doc = flame_many([v8, sf], "--from", "1000", "--to", "1500")
report(rc == 0 and doc["events"] == 10, "flame A B --from --to: the first file's clock (4 + 6 samples)",
       repr(doc))
rc, err = flame_many([v8, sf], "--tid", "10", "--file", "2")
report(rc == 2 and "samples_stackframes.json: no thread with tid 10" in err,
       "flame A B --tid --file: a thread the file does not have, exit 2", repr(err))
rc, err = flame_many([v8, sf], "--file", "2")
report(rc == 2 and "usage" in err, "flame --file without --tid: usage, exit 2", repr(err))
rc, err = flame_many([v8, os.path.join(tmp, "missing.json")])
report(rc == 1 and "missing.json" in err and err.count("\n") == 1, "flame A B: a missing file, exit 1",
       repr(err))
p = subprocess.run([strata, "flame", v8, sf], capture_output=True, text=True)
report(p.returncode == 0 and p.stdout.splitlines()[0] == "sample flame of 2 files: 13 samples, 13 nodes",
       "flame A B (text)", repr(p.stdout))

# ---- 2. the corpus, checked against python's own reading -------------------------
def us_to_ns(v):
    """microseconds (number or numeric string) -> int ns, rounded half away from 0"""
    d = D(str(v)) * 1000
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def independent(events):
    phases = collections.Counter()
    lo = hi = None
    for e in events:
        if not isinstance(e, dict):
            continue
        ph = e.get("ph", "")
        phases[ph if isinstance(ph, str) else ""] += 1
        if ph == "M" or "ts" not in e:
            continue
        try:
            ts = us_to_ns(e["ts"])
        except (decimal.InvalidOperation, ValueError):
            continue
        end = ts
        if ph == "X" and "dur" in e:
            try:
                end = ts + max(0, us_to_ns(e["dur"]))
            except (decimal.InvalidOperation, ValueError):
                pass
        lo = ts if lo is None else min(lo, ts)
        hi = end if hi is None else max(hi, end)
    n = sum(1 for e in events if isinstance(e, dict))
    fmt = lambda ns: None if ns is None else D(ns) / 1000
    return n, dict(phases), fmt(lo), fmt(hi)


def independent_samples(doc):
    """CPU samples as chrome://tracing / DevTools place them: (count, [times in ns])"""
    times = []
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    frames = doc.get("stackFrames", {}) if isinstance(doc, dict) else {}
    frame_ids = {str(k) for k in frames}
    profiles = {}  # (pid, id) -> [t, known node ids]
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "P":
            continue
        key = (str(e.get("pid")), str(e.get("id")))
        if e.get("name") == "Profile":
            start = e.get("args", {}).get("data", {}).get("startTime", e.get("ts"))
            profiles.setdefault(key, [us_to_ns(start), set()])
        elif e.get("name") == "ProfileChunk":
            prof = profiles.setdefault(key, [us_to_ns(e["ts"]), set()])
            data = e.get("args", {}).get("data", {})
            cpu = data.get("cpuProfile", {})
            prof[1].update(n["id"] for n in cpu.get("nodes", []))
            for node, delta in zip(cpu.get("samples", []), data.get("timeDeltas", [])):
                prof[0] += us_to_ns(delta)
                if node in prof[1]:
                    times.append(prof[0])
        elif "sf" not in e or str(e["sf"]) in frame_ids:
            times.append(us_to_ns(e["ts"]))
    if isinstance(doc, dict):
        for smp in doc.get("samples", []):
            if "sf" not in smp or str(smp["sf"]) in frame_ids:
                times.append(us_to_ns(smp["ts"]))
    return len(times), times


CORPUS_REFUSED = {
    "xprof-head__tpu_inference_2.xplane.pb": "(corrupt file?)",
    "speedscope__example.cpuprofile": "not a trace",
}
README_EVENTS = {}
readme = os.path.join(corpus, "README.md")
if os.path.exists(readme):
    for line in open(readme, encoding="utf-8"):
        cols = [c.strip() for c in line.split("|")]
        if len(cols) > 9 and cols[1].startswith("`") and cols[8].isdigit():
            README_EVENTS[cols[1].strip("`")] = int(cols[8])

for name in sorted(os.listdir(corpus)) if os.path.isdir(corpus) else []:
    path = os.path.join(corpus, name)
    if name == "README.md" or not os.path.isfile(path):
        continue
    if name in CORPUS_REFUSED:
        rc, out, err = run(path)
        lines = err.strip().splitlines()
        report(rc == 1 and len(lines) == 1 and name in lines[0] and CORPUS_REFUSED[name] in lines[0]
               and "(at byte " in lines[0], name + " refused", "rc=%d err=%r" % (rc, err))
        continue
    s, err = stats_of(name, path)
    if s is None:
        continue
    raw = open(path, "rb").read()
    compressed = raw[:2] == b"\x1f\x8b"
    text = gzip.decompress(raw) if compressed else raw
    try:
        doc = json.loads(text.decode("utf-8", "replace"), parse_float=D)
    except ValueError:
        doc = None  # truncated files: python cannot read them; README counts only
    proto = {".perfetto-trace": "perfetto-proto", ".xplane.pb": "xplane"}
    fmt = next((f for suffix, f in proto.items() if name.endswith(suffix)), "chrome-json")
    want = dict(bytes_in=len(raw), bytes_decoded=len(text), compressed=compressed, format=fmt)
    if name in README_EVENTS:
        want["events"] = README_EVENTS[name]
    if doc is not None:
        events = doc["traceEvents"] if isinstance(doc, dict) else doc
        n, phases, lo, hi = independent(events)
        ns, times = independent_samples(doc)
        if times:  # samples are events of the model: they widen the time range
            lo = min([lo * 1000] + times) / 1000 if lo is not None else min(times) / D(1000)
            hi = max([hi * 1000] + times) / 1000 if hi is not None else max(times) / D(1000)
        want.update(events=n, phases=phases, ts_min_us=lo, ts_max_us=hi, samples=ns)
    check_subset(name, s, want)

# ---- 3. generated traces -----------------------------------------------------------
if gen and os.path.exists(gen):
    for n, gz in ((20000, False), (50000, True)):
        out = os.path.join(tmp, "gen-%d.json%s" % (n, ".gz" if gz else ""))
        r = subprocess.run([gen, "-n", str(n), "-o", out, "--seed", "7"] + (["--gz"] if gz else []),
                           capture_output=True)
        if r.returncode != 0:
            report(False, "strata-gen -n %d" % n, r.stderr.decode())
            continue
        s, err = stats_of(os.path.basename(out), out)
        if s is None:
            continue
        text = gzip.open(out).read() if gz else open(out, "rb").read()
        doc = json.loads(text, parse_float=D)
        events = doc["traceEvents"] if isinstance(doc, dict) else doc
        cnt, phases, lo, hi = independent(events)
        check_subset(os.path.basename(out), s, dict(events=cnt, phases=phases, ts_min_us=lo,
                                                    ts_max_us=hi, compressed=gz))
    # --steps: exactly that many training steps (one "train_step N" per step
    # and GPU), the ops per step grown to reach the target; 0 is refused
    for n, steps in ((20000, 7), (200000, 3)):
        out = os.path.join(tmp, "gen-steps-%d.json" % n)
        r = subprocess.run([gen, "-n", str(n), "--steps", str(steps), "-o", out], capture_output=True)
        if r.returncode != 0:
            report(False, "strata-gen --steps %d" % steps, r.stderr.decode())
            continue
        evs = json.load(open(out))["traceEvents"]
        names = sorted({e["name"] for e in evs if e.get("name", "").startswith("train_step ")})
        total = sum(1 for e in evs if e.get("ph") not in (None, "M"))
        report(names == ["train_step %d" % (i + 1) for i in range(steps)] and 0.8 * n <= total <= 1.2 * n,
               "strata-gen -n %d --steps %d" % (n, steps), "steps %r, %d events" % (names, total))
    # --flows: launch arrows (v1 s -> f, each inside its slice): every one is
    # bound, none unmatched; --lean keeps them and drops slice args
    out = os.path.join(tmp, "gen-flows.json")
    r = subprocess.run([gen, "-n", "30000", "--lean", "--flows", "-o", out], capture_output=True)
    if r.returncode != 0:
        report(False, "strata-gen --flows", r.stderr.decode())
    else:
        evs = json.load(open(out))["traceEvents"]
        arrows = sum(1 for e in evs if e.get("ph") == "s")
        ends = sum(1 for e in evs if e.get("ph") == "f")
        s, err = stats_of("gen-flows.json", out)
        if s is not None:
            report(arrows == ends and arrows > 0.15 * len(evs) and s["flows"] == arrows
                   and s["events"] == len(evs) and not s.get("warnings")
                   and not any("args" in e for e in evs if e.get("ph") == "X"),
                   "strata-gen --lean --flows", "%d s, %d f of %d events; stats flows %s, warnings %r"
                   % (arrows, ends, len(evs), s.get("flows"), s.get("warnings")))
    r = subprocess.run([gen, "-n", "100", "--steps", "0", "-o", os.path.join(tmp, "x.json")],
                       capture_output=True)
    report(r.returncode == 2, "strata-gen --steps 0 is refused", "exit %d" % r.returncode)

    # --perfetto: a Perfetto system trace; its counts checked against an
    # independent walk of the protobuf (packets, FtraceEvents, compact_sched
    # columns): a CPU slice per switch to a real thread, a slice per atrace B
    def pb_fields(b):
        i = 0
        while i < len(b):
            tag, i = varint(b, i)
            num, wire = tag >> 3, tag & 7
            if wire == 0:
                v, i = varint(b, i)
                yield num, v
            elif wire == 2:
                n, i = varint(b, i)
                yield num, b[i:i + n]
                i += n
            elif wire == 1:
                yield num, b[i:i + 8]
                i += 8
            else:
                yield num, b[i:i + 4]
                i += 4

    def varint(b, i):
        v = shift = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7F) << shift
            shift += 7
            if c < 0x80:
                return v, i

    def packed(b):
        i, out = 0, []
        while i < len(b):
            v, i = varint(b, i)
            out.append(v)
        return out

    out = os.path.join(tmp, "gen-sys.pftrace")
    r = subprocess.run([gen, "-n", "3000", "--perfetto", "--cpus", "4", "-o", out], capture_output=True)
    if r.returncode != 0:
        report(False, "strata-gen --perfetto", r.stderr.decode())
    else:
        packets = ftrace = switches = real = begins = logs = 0
        for _, pk in pb_fields(open(out, "rb").read()):
            packets += 1
            for num, v in pb_fields(pk):
                if num == 39:
                    logs += 1
                if num != 1:
                    continue
                for bn, bv in pb_fields(v):
                    if bn == 2:
                        ftrace += 1
                        for en, ev in pb_fields(bv):
                            if en == 3 and dict(pb_fields(ev)).get(2, b"").startswith(b"B|"):
                                begins += 1
                    elif bn == 4:
                        cols = {}
                        for cn, cv in pb_fields(bv):
                            if cn != 5:
                                cols[cn] = packed(cv)
                        pids = cols.get(3, [])
                        switches += len(pids)
                        real += sum(1 for p in pids if p)
                        ftrace += len(pids) + len(cols.get(8, []))
        s, err = stats_of("gen-sys.pftrace", out)
        if s is not None:
            nshown = [w["count"] for w in s["warnings"] if w["kind"] == "perfetto_packets_not_shown"]
            report(s["format"] == "perfetto-proto" and s["events"] == packets + ftrace
                   and s["slices"] == real + begins and s["phases"].get("B") == begins
                   and nshown == [logs] and switches == 3000 and s["processes"] == 8,
                   "strata-gen --perfetto: stats match the protobuf",
                   "stats %r; packets %d ftrace %d switches %d real %d B %d logs %d"
                   % (s, packets, ftrace, switches, real, begins, logs))

    # --perfetto-android: an Android battery-like trace; `strata stats` against
    # an independent walk of the protobuf: what is not shown (android_log
    # only, under 10 % of packets), instants (atrace N, statsd atoms, network
    # packets), async slices (atrace G, suspend_resume, aggregated network
    # bundles) and counter samples (battery, power rails, residency)
    out = os.path.join(tmp, "gen-android.pftrace")
    r = subprocess.run([gen, "--perfetto-android", "-o", out], capture_output=True)
    if r.returncode != 0:
        report(False, "strata-gen --perfetto-android", r.stderr.decode())
    else:
        packets = logs = inst = asyn = counters = 0
        rails, states = set(), set()
        for _, pk in pb_fields(open(out, "rb").read()):
            packets += 1
            for num, v in pb_fields(pk):
                if num == 39:
                    logs += 1
                elif num == 1:
                    for bn, bv in pb_fields(v):
                        if bn != 2:
                            continue
                        for en, ev in pb_fields(bv):
                            body = dict(pb_fields(ev)) if en in (3, 113) else {}
                            if en == 3:
                                f = body.get(2, b"").decode().strip().split("|")
                                if f[0] == "N":
                                    inst += 1
                                elif f[0] == "C":
                                    counters += 1
                                elif f[0] == "G" and len(f) == 5 and f[4].lstrip("-").isdigit():
                                    asyn += 1
                            elif en == 113 and body.get(3):
                                asyn += 1
                elif num == 38:
                    b = dict(pb_fields(v))
                    counters += sum(1 for k in (2, 3, 4, 7) if k in b)
                    counters += (1 in b or (6 in b and 7 in b)) + (3 in b and 7 in b)
                elif num == 40:
                    for rn, rv in pb_fields(v):
                        e = dict(pb_fields(rv))
                        if rn == 1:
                            rails.add(e.get(1, 0))
                        elif e.get(1, 0) in rails:
                            counters += 1
                elif num == 91:
                    for rn, rv in pb_fields(v):
                        e = dict(pb_fields(rv))
                        key = (e.get(1, 0), e.get(2, 0))
                        if rn == 1:
                            states.add(key)
                        elif key in states:
                            counters += 1
                elif num == 84:
                    inst += sum(1 for an, _ in pb_fields(v) if an == 1)
                elif num == 88:
                    inst += 1
                elif num == 92:
                    b = dict(pb_fields(v))
                    if 7 in b:
                        asyn += 1
                    else:
                        inst += len(packed(b.get(3, b"")))
        s, err = stats_of("gen-android.pftrace", out)
        if s is not None:
            nshown = [w["count"] for w in s["warnings"] if w["kind"] == "perfetto_packets_not_shown"]
            report(s["format"] == "perfetto-proto" and nshown == [logs] and logs * 10 < packets
                   and s["instants"] == inst and s["async_slices"] == asyn
                   and s["counter_samples"] == counters,
                   "strata-gen --perfetto-android: Android data shown, < 10 % not shown",
                   "stats %r; packets %d logs %d instants %d async %d counters %d"
                   % (s, packets, logs, inst, asyn, counters))

# ---- 4. profiles: strata stats A B ..., strata diff A B -----------------------------
# Fixtures tests/fixtures/profile: run_a/run_b (two ProfilerSteps; B with
# aten::mm and gemm_kernel twice as long, aten::copy_ replaced by
# aten::relu), rank0/rank1 (Kineto: distributedInfo.rank,
# baseTimeNanoseconds; rank 1 starts 250 us after rank 0). The expected
# diff rows are computed here from the JSON, independently: nesting per
# thread by a stack, self = duration - direct children, events counted
# when they intersect the range.
prof = os.path.join(fix, "profile")


def cli(*args):
    p = subprocess.run([strata] + list(args), capture_output=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def cli_json(name, *args):
    rc, out, err = cli(*args)
    if rc != 0:
        report(False, name, "exit %d: %s" % (rc, err.strip()))
        return None
    try:
        return json.loads(out, parse_float=D)
    except ValueError as e:
        report(False, name, "stdout is not JSON: %s" % e)
        return None


def x_events(path):
    doc = json.load(open(path), parse_float=D)
    evs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    origin = min(D(e["ts"]) for e in evs)
    out = []
    for e in evs:
        out.append(dict(name=e["name"], cat=e.get("cat", ""), th=(e["pid"], e["tid"]),
                        ts=D(e["ts"]) - origin, dur=D(e["dur"])))
    # self: duration minus direct children (a stack per thread)
    by_th = collections.defaultdict(list)
    for e in out:
        by_th[e["th"]].append(e)
    for evs_th in by_th.values():
        evs_th.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs_th:
            e["self"] = e["dur"]
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            if stack:
                stack[-1]["self"] -= e["dur"]
            stack.append(e)
    return out


def agg(evs, by, rng):
    rows = {}
    for e in evs:
        if rng and not (e["ts"] + e["dur"] > rng[0] and e["ts"] < rng[1]):
            continue
        r = rows.setdefault(e[by], [0, D(0), D(0)])
        r[0] += 1
        r[1] += e["dur"]
        r[2] += e["self"]
    return rows


def fixed6(total_us, count):
    """the writer's average: (total_ns / count) / 1000 printed with %.6f, zeros dropped"""
    if not count:
        return 0
    t = ("%.6f" % (float(total_us * 1000) / count / 1000.0)).rstrip("0").rstrip(".")
    return D(t)


def sig6(a, b):
    """the writer's ratio b / a: 6 significant digits, 1 when both are 0, null when only b"""
    if a == 0:
        return 1 if b == 0 else None
    return D("%.6g" % (float(b) / float(a)))


def expected_diff(a, b, by="name", ra=None, rb=None):
    A, B = agg(x_events(a), by, ra), agg(x_events(b), by, rb)
    rows = []
    for k in set(A) | set(B):
        ca, ta, sa = A.get(k, [0, D(0), D(0)])
        cb, tb, sb = B.get(k, [0, D(0), D(0)])
        rows.append(dict(name=k, count_a=ca, count_b=cb, total_us_a=ta, total_us_b=tb,
                         self_us_a=sa, self_us_b=sb, avg_us_a=fixed6(ta, ca),
                         avg_us_b=fixed6(tb, cb), d_total_us=tb - ta, d_self_us=sb - sa,
                         ratio_total=sig6(ta, tb),
                         only_a=k not in B, only_b=k not in A))
    rows.sort(key=lambda r: (-r["d_total_us"], r["name"].encode()))
    return rows


def check_diff(name, got, want):
    if got is None:
        return
    keys = list(want[0].keys()) if want else []
    rows = [{k: r.get(k) for k in keys} for r in got["rows"]]
    bad = []
    if len(rows) != len(want):
        bad.append("%d rows, want %d" % (len(rows), len(want)))
    for g, w in zip(rows, want):
        if g != w:
            bad.append("got %r want %r" % (g, w))
    oa, ob = sum(1 for w in want if w["only_a"]), sum(1 for w in want if w["only_b"])
    if got.get("only_a") != oa or got.get("only_b") != ob:
        bad.append("only_a/only_b %r/%r want %d/%d" % (got.get("only_a"), got.get("only_b"), oa, ob))
    report(not bad, name, "; ".join(bad[:3]))


ra, rb = os.path.join(prof, "run_a.json"), os.path.join(prof, "run_b.json")
r0, r1 = os.path.join(prof, "rank0.pt.trace.json"), os.path.join(prof, "rank1.pt.trace.json")
p = subprocess.run([strata, "--help"], capture_output=True, text=True)
report("strata diff A B" in p.stdout and "strata stats A B" in p.stdout,
       "strata --help lists diff and stats A B", p.stdout)

got = cli_json("diff run_a run_b", "diff", ra, rb, "--json")
check_diff("diff run_a run_b --json: rows", got, expected_diff(ra, rb))
if got:
    flags = {r["name"]: (r["regression"], r["improvement"], r["verdict"]) for r in got["rows"]}
    report(got["rows"][0]["name"] == "gemm_kernel" and got["rows"][0]["ratio_total"] == 2
           and flags["aten::mm"] == (False, False, "too_few")
           and flags["aten::relu"] == (False, False, "only_b")
           and flags["aten::copy_"] == (False, False, "only_a")
           and got["regressions"] == 0 and got["improvements"] == 0 and got["not_enough_data"] == 6
           and got["by"] == "name"
           and all((r["p_value"] is None) == (r["only_a"] or r["only_b"]) for r in got["rows"]),
           "diff run_a run_b: the slower op first; two instances a side: no verdict",
           repr(got["rows"][:2]))
# exactly this JSON, first row and tail (hand-derived; p of {40,40} vs {80,80}: 0.1939)
rc, out, err = cli("diff", ra, rb, "--json")
report(out.startswith('{"schema":"strata.diff/1","by":"name","rows":[{"name":"gemm_kernel","count_a":2,"count_b":2,'
                      '"total_us_a":80,"total_us_b":160,"self_us_a":80,"self_us_b":160,'
                      '"avg_us_a":40,"avg_us_b":80,"d_count":0,"d_total_us":80,"d_self_us":80,'
                      '"d_avg_us":40,"ratio_total":2,"ratio_self":2,"ratio_avg":2,"only_a":false,'
                      '"only_b":false,"regression":false,"improvement":false,"p_value":0.1939,'
                      '"verdict":"too_few","test":"mann_whitney"},')
       and '"only_a":1,"only_b":1,"regressions":0,"improvements":0,'
           '"events_a":12,"events_b":12,"busy_us_a":290,"busy_us_b":370,'
           '"range_a":[0,300],"range_b":[0,300],"not_enough_data":6,"alpha":0.01,' in out
       and out.rstrip().endswith('"headline":{"steps_a":2,"steps_b":2,"step_us_a":100,'
                                 '"step_us_b":100,"d_step_us":0,"d_step_ci_us":[0,0],'
                                 '"busy_us_a":45,"busy_us_b":85,"d_busy_us":40,'
                                 '"d_busy_ci_us":[40,40]},'
                                 '"alignment":{"kind":"profiler_step","step":1,"offset_us":0}}'),
       "diff run_a run_b --json: exact text", out[:300])

got = cli_json("diff run_a run_a", "diff", ra, ra, "--json")
if got:
    report(len(got["rows"]) == 7 and got["only_a"] == 0 and got["only_b"] == 0 and all(
        r["d_count"] == 0 and r["d_total_us"] == 0 and r["d_self_us"] == 0 and r["d_avg_us"] == 0
        and r["ratio_total"] == 1 and r["ratio_self"] == 1 and r["ratio_avg"] == 1
        and not r["regression"] and not r["improvement"] for r in got["rows"]),
        "diff of a trace with itself: every difference 0", repr(got)[:300])
check_diff("diff --by cat", cli_json("diff --by cat", "diff", ra, rb, "--by", "cat", "--json"),
           expected_diff(ra, rb, "cat"))
step = cli_json("diff --step 2", "diff", ra, rb, "--step", "2", "--json")
check_diff("diff --step 2 (ProfilerStep#2 in each)", step,
           expected_diff(ra, rb, ra=(D(200), D(300)), rb=(D(200), D(300))))
rc, out_step, _ = cli("diff", ra, rb, "--step", "2", "--json")
rc, out_rng, _ = cli("diff", ra, rb, "--range-a", "200,300", "--range-b", "200.0,300", "--json")
report(out_step == out_rng and '"range_a":[200,300]' in out_rng, "--step 2 == --range-a/-b 200,300",
       out_rng[-120:])
check_diff("diff --range-a 0,100 --range-b 200,300",
           cli_json("ranges", "diff", ra, rb, "--range-a", "0,100", "--range-b", "200,300", "--json"),
           expected_diff(ra, rb, ra=(D(0), D(100)), rb=(D(200), D(300))))
got = cli_json("diff --sort ratio_total", "diff", ra, rb, "--sort", "ratio_total", "--json")
if got:
    report([r["name"] for r in got["rows"][:3]] == ["aten::relu", "aten::mm", "gemm_kernel"]
           and got["rows"][-1]["name"] == "aten::copy_", "diff --sort ratio_total: new rows first",
           repr([r["name"] for r in got["rows"]]))
got = cli_json("diff --sort name --asc", "diff", ra, rb, "--sort", "name", "--asc", "--json")
if got:
    names = [r["name"] for r in got["rows"]]
    report(names == sorted(names), "diff --sort name --asc", repr(names))
rc, out, err = cli("diff", ra, rb)
lines = out.splitlines()
# issue 29: the headline before the rows, a verdict word in every row
first_row = next((i for i, l in enumerate(lines) if "gemm_kernel" in l), 0)
report(rc == 0 and lines[0].startswith("A: ") and lines[1].startswith("B: ")
       and lines[3].startswith("step time: A 0.100 ms") and first_row == 6
       and " too few " in lines[first_row] and lines[first_row].rstrip().endswith("n/a mann-whitney")
       and " only B " in out and " only A " in out
       and "+B   aten::relu" in out and "-A   aten::copy_" in out and "0 regressions (!!)" in out
       and "6 with too few instances" in out
       and "device busy per step: A 0.045 ms, B 0.085 ms, B - A +0.040 ms" in out, "diff table", out)
rc, out, err = cli("diff", ra, rb, "--fail-on-regression")
report(rc == 0, "diff --fail-on-regression without a regression: exit 0", "rc %d" % rc)
# errors
rc, out, err = cli("diff", ra, os.path.join(tmp, "missing.json"))
report(rc == 1 and len(err.strip().splitlines()) == 1 and "missing.json" in err, "diff: missing file",
       "rc %d %r" % (rc, err))
rc, out, err = cli("diff", ra, rb, "--step", "9")
report(rc == 1 and "no step 9" in err and "run_a.json" in err, "diff --step 9: no such step",
       "rc %d %r" % (rc, err))
for bad in (["diff", ra], ["diff", ra, rb, "--by", "thread"], ["diff", ra, rb, "--range-a", "5"],
            ["diff", ra, rb, "--range-a", "9,5"], ["diff", ra, rb, "--sort", "nope"],
            ["diff", ra, rb, "--step", "1", "--range-a", "0,1"]):
    rc, out, err = cli(*bad)
    report(rc == 2 and out == "", "usage error: %s" % " ".join(bad[3:] or bad[:1]), "rc %d %r" % (rc, err))

# the default compare alignment: the first ProfilerStep both have (#5; rank 1
# also has #4), and on generated traces the first common step of the Steps
# lines ("train_step N"), checked against the files' own timestamps
got = cli_json("diff rank0 rank1", "diff", r0, r1, "--json")
if got:
    report(got.get("alignment") == {"kind": "profiler_step", "step": 5, "offset_us": -50},
           "diff rank0 rank1: aligned on ProfilerStep#5", repr(got.get("alignment")))
rc, out, err = cli("diff", r0, r1)
report("B aligned on A: ProfilerStep#5 (B shifted by -50.000 us)" in out, "diff table: alignment line", out)
if gen and os.path.exists(gen):
    pa, pb2 = os.path.join(tmp, "steps-a.json"), os.path.join(tmp, "steps-b.json")
    subprocess.run([gen, "-n", "5000", "--steps", "6", "-o", pa], check=True)
    subprocess.run([gen, "-n", "5000", "--steps", "6", "--first-step", "4", "--seed", "9", "-o", pb2], check=True)

    def rel_step(path, n):
        evs = json.load(open(path), parse_float=D)["traceEvents"]
        origin = min(D(e["ts"]) for e in evs if "ts" in e)
        return min(D(e["ts"]) for e in evs if e.get("name") == "train_step %d" % n) - origin

    got = cli_json("diff of Steps lines", "diff", pa, pb2, "--json")
    if got:
        want = {"kind": "steps_line", "step": 4, "offset_us": rel_step(pa, 4) - rel_step(pb2, 4)}
        report(got.get("alignment") == want, "diff: aligned on the first common Steps-line step",
               "%r want %r" % (got.get("alignment"), want))

# strata stats A B: each file's own stats, totals their sums, groups and offsets
many = cli_json("stats r0 r1 run_a", "stats", r0, r1, ra, "--json")
singles = [cli_json("stats " + f, "stats", f, "--json") for f in (r0, r1, ra)]
if many and all(singles):
    drop = lambda s: {k: v for k, v in s.items() if k not in ("load_ms",)}
    own = [{k: v for k, v in t.items() if k not in ("file", "group", "group_source", "clock",
                                                     "start_ns", "offset_us")} for t in many["traces"]]
    report([drop(t) for t in own] == [drop(s) for s in singles], "stats A B C: traces[] = single-file stats",
           "%r\nvs %r" % (own, singles))
    sums = {k: sum(s[k] for s in singles) for k in ("bytes_in", "bytes_decoded", "events", "slices",
                                                     "instants", "counter_samples", "async_slices",
                                                     "flows", "processes", "threads")}
    phases = collections.Counter()
    for s in singles:
        phases.update(s["phases"])
    check_subset("stats A B C: totals are sums", many,
                 dict(sums, phases=dict(phases), files=3, format="chrome-json", compressed=False,
                      ts_min_us=D(500), ts_max_us=D(1300)))
    report([(t["group"], t["group_source"], t["clock"], t["offset_us"]) for t in many["traces"]] ==
           [("rank 0", "rank", "epoch", 0), ("rank 1", "rank", "epoch", 250), ("run_a", "file", "none", 0)]
           and many["traces"][1]["start_ns"] == 1700000000000750000 and many["traces"][2]["start_ns"] is None,
           "stats A B C: groups, clocks, offsets",
           repr([(t["group"], t["clock"], t["offset_us"]) for t in many["traces"]]))
    report(abs(many["load_ms"] - sum(t["load_ms"] for t in many["traces"])) < D("0.01")
           and many["heap_bytes"] >= max(t["heap_bytes"] for t in many["traces"]),
           "stats A B C: load_ms summed, heap the joint peak", repr(many)[:200])
rc, out, err = cli("stats", r0, os.path.join(tmp, "missing.json"), "--json")
report(rc == 1 and out == "" and "missing.json" in err, "stats A B: a missing file", "rc %d %r" % (rc, err))
rc, out, err = cli("stats", r0, r1)
report(rc == 0 and out.startswith("rank 0 ") and "\nrank 1 " in out and "total: 2 files" in out,
       "stats A B: text", out)

# generated ranks and a run B
if gen and os.path.exists(gen):
    paths = []
    for r, start in ((0, 1000), (1, 1250)):
        path = os.path.join(tmp, "rank-%d.pt.trace.json" % r)
        g = subprocess.run([gen, "-n", "20000", "--rank", str(r), "--start-us", str(start),
                            "--first-step", "550", "-o", path], capture_output=True)
        report(g.returncode == 0, "strata-gen --rank %d" % r, g.stderr.decode())
        paths.append(path)
    doc = json.load(open(paths[1]))
    steps = [e for e in doc["traceEvents"] if e.get("name", "").startswith("ProfilerStep#")]
    report(doc.get("distributedInfo") == {"rank": 1} and doc.get("baseTimeNanoseconds") == 1700000000000000000
           and steps and steps[0]["name"] == "ProfilerStep#550",
           "strata-gen --rank: Kineto metadata and ProfilerStep#N", repr({k: doc[k] for k in doc if k != "traceEvents"}))
    many = cli_json("stats of generated ranks", "stats", paths[0], paths[1], "--json")
    if many:
        report([(t["group"], t["offset_us"]) for t in many["traces"]] == [("rank 0", 0), ("rank 1", 250)],
               "generated ranks: groups and offsets", repr(many["traces"])[:300])
    pb = os.path.join(tmp, "rank-0-b.pt.trace.json")
    g = subprocess.run([gen, "-n", "20000", "--rank", "0", "--start-us", "1000", "--first-step", "550",
                        "--slow-op", "convolution", "-o", pb], capture_output=True)
    got = cli_json("diff of a run B", "diff", paths[0], pb, "--json")
    if got:
        conv = [r for r in got["rows"] if r["name"].startswith("convolution.")]
        fus = [r for r in got["rows"] if r["name"].startswith("fusion.")]
        report(conv and fus and all(r["ratio_total"] == 2 for r in conv)
               and all(r["ratio_total"] == 1 and r["d_total_us"] == 0 for r in fus)
               and got["only_a"] == 0 and got["only_b"] == 0
               and any(r["regression"] and r["name"].startswith("sm80_xmma_fprop") for r in got["rows"]),
               "diff of a run B with --slow-op convolution: those ops 2x, the others unchanged",
               repr(got["rows"][:3]))

# ---- 4b. strata analyze, and diff verdicts that are right (issue 18) ---------------------
def analyze(name, *args):
    return cli_json(name, "analyze", *args, "--json")


def sane(name, got):
    """every device and step cell: busy <= wall, each class <= busy <= their sum,
    overlap <= comm; ops' percentiles in order"""
    bad = []
    cells = [("device", d, d["range_us"]) for d in got["devices"]]
    cells += [("step", c, c["wall_us"]) for c in got["per_step"]]
    for kind, c, wall in cells:
        classes = [c["compute_us"], c["comm_us"], c["memcpy_us"]]
        if not (0 <= c["busy_us"] <= wall and max(classes) <= c["busy_us"] <= sum(classes)
                and c["idle_us"] == wall - c["busy_us"]
                and (c["overlap_pct"] is None or 0 <= c["overlap_pct"] <= 100)):
            bad.append("%s %r" % (kind, c))
    for o in got["ops"]:
        if not (o["min_us"] <= o["p50_us"] <= o["p90_us"] <= o["p99_us"] <= o["max_us"]
                and o["self_us"] <= o["total_us"]):
            bad.append("op %r" % o)
    report(not bad and set(got) >= {"traces", "steps", "devices", "per_step", "stragglers", "ops"},
           name + ": sane figures", "; ".join(bad[:3]))


# the fixture, exact (hand-derived: kernels 12..52 and 93..98 us of each 100 us step)
got = analyze("analyze run_a", ra)
if got:
    report(got["traces"] == [{"file": ra, "group": "run_a", "steps_from": "profiler_step",
                              "steps": 2, "devices": 1}]
           and [(x["step"], x["start_us"], x["wall_us"], x["host_us"]) for x in got["steps"]]
           == [(1, 0, 100, 53), (2, 200, 100, 53)]
           and [{k: v for k, v in x.items() if k not in ("idle_causes", "steps_with_work", "idle_split")}
                for x in got["devices"]] == [{"trace": 0, "name": "GPU 1", "steps": 2, "range_us": 200,
                                   "step_us": 100, "step_p50_us": 100, "step_p90_us": 100,
                                   "utilization_pct": 45, "busy_us": 90, "idle_us": 110,
                                   "idle_pct": 55, "compute_us": 90, "comm_us": 0,
                                   "memcpy_us": 0, "overlap_pct": None}]
           and [(g["start_us"], g["dur_us"]) for g in got["idle_gaps"][:2]] == [(52, 41), (252, 41)]
           and got["idle_gaps"][0]["host"][0] == {"name": "aten::add", "start_us": 75,
                                                  "dur_us": 20, "overlap_us": 18}
           and got["stragglers"] == [] and got["ops"][0]["name"] == "gemm_kernel"
           and got["ops"][0]["p50_us"] == 40, "analyze run_a: exact", repr(got)[:400])
    # issue 29, by hand: per step the gaps [0, 12), [52, 93), [98, 100) under
    # aten::mm [10, 40), aten::add [75, 95), aten::copy_ [96, 99): add 18,
    # mm 2, copy_ 1, nothing 34, twice; the kinds' tables
    report([(c["what"], c["us"], c["gaps"]) for c in got["devices"][0]["idle_causes"]]
           == [("aten::add", 36, 2), ("aten::mm", 4, 2), ("aten::copy_", 2, 2),
               ("nothing recorded", 68, 6)]
           and sum(c["us"] for c in got["devices"][0]["idle_causes"]) == got["devices"][0]["idle_us"]
           and got["devices"][0]["steps_with_work"] == 2
           # no launches recorded (no flows): every gap is "other" in the idle split
           and got["devices"][0]["idle_split"] == {"host_wait_us": 0, "kernel_wait_us": 0, "other_us": 110}
           and [o["name"] for o in got["kernels"]] == ["gemm_kernel", "add_kernel"]
           and [o["name"] for o in got["host_ops"]] == ["aten::mm", "aten::add", "aten::copy_"]
           and got["runtime"] == []
           and {o["name"]: o["kind"] for o in got["ops"]}["ProfilerStep#1"] == "wrapper",
           "analyze run_a: idle causes and the kinds' tables, exact",
           repr((got["devices"][0]["idle_causes"], got["kernels"]))[:400])
    sane("analyze run_a", got)
rc, out, err = cli("analyze", ra)
report(rc == 0 and "GPU 1" in out and "kernel (by self time)" in out and "host op (by self time)" in out
       and "GPU 1: idle 55.0%: 33% of it while the host ran aten::add" in out
       and "longest idle gaps" in out,
       "analyze run_a: text", out[:300])
rc, out, err = cli("analyze", ra, "--hist", "aten::mm", "--json")
h = json.loads(out, parse_float=D).get("histogram") if rc == 0 else None
report(h == {"name": "aten::mm", "bins": [{"lo_us": D("25.119"), "hi_us": D("39.811"), "count": 2}]},
       "analyze --hist: 2 x 30 us in [25.119, 39.811)", repr(h))
rc, out, err = cli("analyze", ra, "--step", "2", "--ops", "1", "--json")
o = json.loads(out, parse_float=D)["ops"] if rc == 0 else None
report(o and len(o) == 1 and o[0]["name"] == "ProfilerStep#2" and o[0]["self_us"] == 47,
       "analyze --step 2 --ops 1: one step's ops (its marker has the most self time)", repr(o))
for bad in (["analyze"], ["analyze", ra, "--from", "5"], ["analyze", ra, "--ops", "x"],
            ["analyze", ra, "--from", "0", "--to", "1", "--step", "1"]):
    rc, out, err = cli(*bad)
    report(rc == 2 and out == "", "usage error: %s" % " ".join(bad), "rc %d %r" % (rc, err))
rc, out, err = cli("analyze", ra, os.path.join(tmp, "missing.json"))
report(rc == 1 and "missing.json" in err, "analyze: a missing file", "rc %d %r" % (rc, err))

# the corpus: Kineto (HTA) and XProf traces analysed, sane; several files at once
kin = os.path.join(corpus, "hta__control.json.gz")
xp = os.path.join(corpus, "xprof__34.83.195.179_6003.xplane.pb")
amd = os.path.join(corpus, "hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz")
if os.path.exists(kin) and os.path.exists(xp) and os.path.exists(amd):
    got = analyze("analyze hta control", kin)
    if got:
        d = got["devices"]
        report(got["traces"][0]["steps_from"] == "profiler_step" and got["traces"][0]["steps"] == 6
               and [x["name"] for x in d] == ["GPU 3"] and d[0]["comm_us"] > 0
               and d[0]["compute_us"] > 0 and d[0]["memcpy_us"] > 0 and len(got["per_step"]) == 6
               and all(x["host_us"] > 0 for x in got["steps"]),
               "analyze Kineto (HTA control): 6 ProfilerSteps, GPU 3 with NCCL comm", repr(d))
        sane("analyze hta control", got)
    got = analyze("analyze xprof", xp)
    if got:
        report(got["traces"][0]["steps_from"] == "steps_line"
               and all(x["name"].startswith("/device:GPU:") for x in got["devices"])
               and len(got["devices"]) == 3 and got["ops"], "analyze XProf: Steps line, GPU planes",
               repr(got["devices"])[:300])
        sane("analyze xprof", got)
    got = analyze("analyze three corpus files", kin, xp, amd)
    if got:
        report([t["steps_from"] for t in got["traces"]] == ["profiler_step", "steps_line", "profiler_step"]
               and sorted({x["trace"] for x in got["devices"]}) == [0, 1, 2]
               and got["stragglers"] == [], "analyze of three files: each its steps and devices",
               repr(got["traces"]))
        sane("analyze three corpus files", got)

if gen and os.path.exists(gen):
    def g(path, *args):
        p = subprocess.run([gen] + list(args) + ["-o", path], capture_output=True)
        report(p.returncode == 0, "strata-gen " + " ".join(args), p.stderr.decode())
        return path

    # planted idle gaps: 5000 us in steps 1, 11, 21 on both GPUs, exactly
    pg = g(os.path.join(tmp, "gaps.json"), "-n", "30000", "--steps", "30", "--idle-gap", "5000",
           "--idle-every", "10")
    got = analyze("analyze planted gaps", pg, "--gaps", "8")
    if got:
        durs = [x["dur_us"] for x in got["idle_gaps"]]
        report(durs[:6] == [5000] * 6 and durs[6] < 50
               and sorted(got["devices"][x["device"]]["name"] for x in got["idle_gaps"][:6])
               == ["/device:GPU:0"] * 3 + ["/device:GPU:1"] * 3
               and all(x["host"] for x in got["idle_gaps"][:6]),
               "analyze: the 6 planted 5000 us idle gaps, exactly, the largest", repr(durs))
        sane("analyze planted gaps", got)
    # a slow rank among four, and four ranks of noise only
    slow, noise = [], []
    for r in range(4):
        extra = ["--slow-factor", "1.3"] if r == 2 else []
        slow.append(g(os.path.join(tmp, "s-rank-%d.json" % r), "-n", "20000", "--steps", "10",
                      "--rank", str(r), "--noise-seed", str(r + 1), *extra))
        noise.append(g(os.path.join(tmp, "n-rank-%d.json" % r), "-n", "20000", "--steps", "10",
                       "--rank", str(r), "--noise-seed", str(r + 1)))
    got = analyze("analyze a slow rank", *slow)
    if got:
        st = got["stragglers"]
        report(len(st) == 1 and st[0]["trace"] == 2 and st[0]["metric"] == "compute_us_per_step"
               and st[0]["score"] > 3.5 and st[0]["value"] > D("1.2") * st[0]["median"]
               and [t["group"] for t in got["traces"]] == ["rank 0", "rank 1", "rank 2", "rank 3"]
               and len(got["ranks"]) == 4,
               "analyze: the slow rank (compute x1.3) is the one straggler", repr(st))
        sane("analyze a slow rank", got)
    got = analyze("analyze noise-only ranks", *noise)
    if got:
        report(got["stragglers"] == [] and all(abs(x["score"]) < 3.5 for x in got["ranks"]),
               "analyze: noise-only ranks have no straggler", repr(got["ranks"]))
    # exact nearest-rank percentiles of X-only op names, against python
    got = analyze("analyze all ops", noise[0], "--ops", "0")
    if got:
        durs = collections.defaultdict(list)
        for e in json.load(open(noise[0]), parse_float=D)["traceEvents"]:
            if e.get("ph") == "X" and e["name"].startswith(("fusion.", "convolution.", "loop_fusion")):
                durs[e["name"]].append(D(e["dur"]))
        bad = []
        for o in got["ops"]:
            v = sorted(durs.get(o["name"], []))
            if not v:
                continue
            nr = lambda p: v[max(1, -(-p * len(v) // 100)) - 1]
            if (o["count"], o["p50_us"], o["p90_us"], o["p99_us"], o["max_us"]) != (
                    len(v), nr(50), nr(90), nr(99), v[-1]):
                bad.append(o["name"])
        report(not bad and len(durs) > 50, "analyze --ops 0: exact nearest-rank p50/p90/p99",
               repr(bad[:5]))
    # issue 18's case: a copy whose 200 fusion ops each take twice as long
    pa = g(os.path.join(tmp, "fa.json"), "-n", "40080", "--steps", "20", "--noise-seed", "1")
    pn = g(os.path.join(tmp, "fn.json"), "-n", "40080", "--steps", "20", "--noise-seed", "2")
    ps = g(os.path.join(tmp, "fs.json"), "-n", "40080", "--steps", "20", "--noise-seed", "2",
           "--slow-op", "fusion", "--slow-factor", "2")
    got = cli_json("diff doubled fusions", "diff", pa, ps, "--json")
    if got:
        fus = [r for r in got["rows"] if r["name"].startswith("fusion.")]
        kinds = {k["kind"]: k for k in got["rollup"]}
        report(len(fus) == 200 and all(r["regression"] and r["verdict"] == "regression"
                                       and r["p_value"] < D("0.01") for r in fus)
               and kinds["fusion"]["regressions"] == 200 and kinds["fusion"]["d_total_us"] > 0
               and got["headline"]["d_busy_ci_us"][0] > 0 and got["headline"]["d_step_ci_us"][0] > 0,
               "diff: 200 doubled fusion ops are all regressions; fusion rolls up; busy up with its interval",
               "%d fusion rows, %d regressions" % (len(fus), sum(r["regression"] for r in fus)))
    got = cli_json("diff noise only", "diff", pa, pn, "--json")
    if got:
        report(got["regressions"] == 0 and got["improvements"] == 0
               and got["headline"]["d_step_ci_us"][0] <= 0 <= got["headline"]["d_step_ci_us"][1],
               "diff: two noise-only runs of one program: no verdicts, step time interval holds 0",
               repr([(r["name"], r["p_value"]) for r in got["rows"] if r["regression"]][:5]))
    rc, out, err = cli("diff", pa, ps, "--fail-on-regression")
    report(rc == 3 and "regressions (!!)" in out and "; fusion +" in out and "(200 of 200 rows regressed" in out,
           "diff --fail-on-regression: exit 3 on a regression", "rc %d %s" % (rc, out[-400:]))
    rc, out, err = cli("diff", pa, pn, "--fail-on-regression", "--json")
    report(rc == 0 and json.loads(out)["regressions"] == 0, "diff --fail-on-regression: exit 0 on noise",
           "rc %d" % rc)

# ---- 4c. issue 29: answers an engineer can act on ----------------------------------------
# kinds: the generator's truth ("strataGenKinds") for every name, Kineto-like and XLA-like
if gen and os.path.exists(gen):
    for mode in ([], ["--rank", "0"]):
        pk = g(os.path.join(tmp, "kinds%s.json" % len(mode)), "-n", "20000", "--steps", "6", "--kinds", *mode)
        truth = json.load(open(pk))["strataGenKinds"]
        got = analyze("analyze --kinds " + " ".join(mode), pk, "--ops", "0")
        if got:
            bad = [(o["name"], o["kind"], truth.get(o["name"])) for o in got["ops"]
                   if truth.get(o["name"]) != o["kind"]]
            report(not bad and len(got["ops"]) == len(truth)
                   and {o["kind"] for o in got["ops"]} == {"kernel", "host", "runtime", "annotation", "wrapper"},
                   "analyze: every name's kind is the generator's (%s)" % (" ".join(mode) or "XLA-like"),
                   repr(bad[:5]))
            tables = got["kernels"] + got["host_ops"] + got["runtime"]
            report(all(truth[o["name"]] == k for k, t in (("kernel", got["kernels"]), ("host", got["host_ops"]),
                                                          ("runtime", got["runtime"])) for o in t)
                   and not any(truth[o["name"]] in ("wrapper", "annotation") for o in tables)
                   and got["runtime"][0]["name"] == "cudaStreamSynchronize"
                   and got["runtime"][0]["blocked_us"] > 0,
                   "analyze: kernels / host_ops / runtime hold their kind only, no wrapper or annotation",
                   repr([o["name"] for o in tables][:8]))
            gaps = analyze("analyze --kinds --gaps 1000", pk, "--gaps", "1000")["idle_gaps"]
            pairs = ({"data_loader.__next__", "numpy.stack"}, {"block_until_ready", "cudaStreamSynchronize"})
            chains = [[h["name"] for h in gp["host"]] for gp in gaps
                      if any(pair <= {h["name"] for h in gp["host"]} for pair in pairs)]
            report(not chains and any(h["name"] in ("numpy.stack", "cudaStreamSynchronize") for gp in gaps for h in gp["host"]),
                   "analyze: a gap's host slices are leaf frames (numpy.stack or cudaStreamSynchronize, not also their parent)",
                   repr(chains[:2]))
            for dv in got["devices"]:
                report(sum(c["us"] for c in dv["idle_causes"]) == dv["idle_us"],
                       "analyze --kinds: %s's idle causes sum to its idle time" % dv["name"],
                       repr(dv["idle_causes"]))

# the corpus's real Kineto traces: the top kernels by self time over the
# stream threads (tests/cli/kineto_kernels.py, apart from strata), each with
# its launcher through the correlation ids; every top table free of
# wrappers, step markers, modules and annotations; idle causes summing to
# the idle time (XProf too)
script = os.path.join(root, "tests", "cli", "kineto_kernels.py")
for name in ("hta__control.json.gz", "hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
             "hta__overlaid_critical_path_trace.json.gz",
             "hta__benchmark_result_924719_1679055439_trace.json.gz",
             "xprof__34.83.195.179_6003.xplane.pb"):
    path = os.path.join(corpus, name)
    if not os.path.exists(path):
        continue
    got = analyze("analyze " + name, path)
    if not got:
        continue
    if not name.endswith(".pb"):
        p = subprocess.run([sys.executable, script, path], capture_output=True, text=True)
        want = json.loads(p.stdout, parse_float=D) if p.returncode == 0 else None
        mine = [{"name": o["name"], "count": o["count"], "total_us": o["total_us"], "self_us": o["self_us"],
                 "launched_by": o["launched_by"]} for o in got["kernels"]]
        want = [dict(w, total_us=D(str(w["total_us"])), self_us=D(str(w["self_us"]))) for w in want or []]
        report(p.returncode == 0 and mine == want,
               "analyze %s: the top kernels and their launchers = kineto_kernels.py's" % name,
               "%s\n%r\nvs %r" % (p.stderr[-300:], mine[:3], want[:3]))
        doc = json.load(gzip.open(path, "rt"))
        doc = doc["traceEvents"] if isinstance(doc, dict) else doc
        not_top = {e["name"] for e in doc if e.get("cat") in ("user_annotation", "gpu_user_annotation", "Trace")}
    else:
        not_top = set()
    tables = got["kernels"] + got["host_ops"] + got["runtime"]
    bad = [o["name"] for o in tables if o["name"] in not_top or re.match(r"(ProfilerStep#\d+|PyTorch Profiler|jit_|## .* ##$|\d+$)", o["name"])]
    report(not bad and (got["kernels"] or not got["devices"]),
           "analyze %s: no wrapper, step marker, module or annotation in the top tables" % name, repr(bad[:5]))
    bad = [(dv["name"], dv["idle_us"], sum(c["us"] for c in dv["idle_causes"])) for dv in got["devices"]
           if sum(c["us"] for c in dv["idle_causes"]) != dv["idle_us"]]
    report(not bad, "analyze %s: every device's idle causes sum to its idle time" % name, repr(bad[:3]))

# the diff's paired test (Wilcoxon signed-rank of log B/A): ops whose
# instances vary 50x (log-uniform), the same noise in A and B
if gen and os.path.exists(gen):
    common = ["-n", "40080", "--steps", "20", "--spread", "50"]
    sa = g(os.path.join(tmp, "sa.json"), *common, "--noise-seed", "1")
    sb = g(os.path.join(tmp, "sb.json"), *common, "--noise-seed", "1", "--slow-op", "fusion", "--slow-factor", "2")
    sn = g(os.path.join(tmp, "sn.json"), *common, "--noise-seed", "2")
    got = cli_json("diff doubled, spread", "diff", sa, sb, "--json")
    if got:
        fus = [r for r in got["rows"] if r["name"].startswith("fusion.")]
        kinds = {k["kind"]: k for k in got["rollup"]}
        report(len(fus) == 200 and sum(r["verdict"] == "regression" for r in fus) >= 190
               and all(r["test"] == "wilcoxon" for r in fus)
               and kinds["fusion"]["verdict"] == "regression" and kinds["fusion"]["p_value"] < D("0.01")
               and all(r["verdict"] in ("regression", "improvement", "no_change", "too_few", "only_a", "only_b")
                       for r in got["rows"]),
               "diff: 200 doubled ops of 50x spread: >= 95 % called regressions (paired), the rollup too",
               "%d of %d; rollup %r" % (sum(r["verdict"] == "regression" for r in fus), len(fus), kinds.get("fusion")))
    got = cli_json("diff noise, spread", "diff", sa, sn, "--json")
    if got:
        flagged = [r["name"] for r in got["rows"] if r["verdict"] in ("regression", "improvement")]
        report(len(flagged) <= 0.05 * len(got["rows"])
               and not [k["kind"] for k in got["rollup"] if k["verdict"] in ("regression", "improvement")],
               "diff: a noise-only pair: at most 5 %% of rows flagged, no rollup verdict",
               "%d of %d: %r" % (len(flagged), len(got["rows"]), flagged[:5]))
    ea = g(os.path.join(tmp, "ea.json"), "-n", "20000", "--steps", "15", "--spread", "50", "--noise-seed", "1")
    eb = g(os.path.join(tmp, "eb.json"), "-n", "20000", "--steps", "15", "--spread", "50", "--noise-seed", "1",
           "--slow-op", "dot.40", "--slow-factor", "1.1")
    got = cli_json("diff one op 1.1x", "diff", ea, eb, "--json")
    if got:
        row = [r for r in got["rows"] if r["name"] == "dot.40"]
        report(row and row[0]["count_a"] == 30 and row[0]["verdict"] == "regression" and row[0]["test"] == "wilcoxon"
               and [r["name"] for r in got["rows"] if r["verdict"] == "regression"] == ["dot.40"],
               "diff: one op 1.1x slower over 30 instances, found by the paired test (alone)", repr(row))
    rc, out, err = cli("diff", ea, eb)
    lines = out.splitlines()
    report(rc == 0 and lines[0] == "A: " + ea and lines[1] == "B: " + eb and lines[3].startswith("step time: A ")
           and "95% CI" in lines[3] and any("dot.40" in l and " slower " in l and "paired" in l for l in lines),
           "diff table: A and B named, the headline before the rows, the verdict in words", out[:600])
    # names cut in the middle keep the part that differs; --wide prints them whole
    rc, out, err = cli("analyze", sa)
    rc2, wide, err2 = cli("analyze", sa, "--wide")
    long_name = "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8"
    report(rc == 0 and rc2 == 0 and long_name not in out and long_name in wide
           and "sm80_xmma_fprop_...warpsize2x2x1_g1_tensor16x8x8 " in out,
           "analyze: a long kernel name cut in the middle (its end kept), whole with --wide",
           [l for l in out.splitlines() if "sm80" in l][:1])

# ---- 5. strata export: the report builder (core/report) on a small site ------------
import base64, hashlib
site = os.path.join(tmp, "site")
os.makedirs(site)
for name, text in {
        "index.html": "<!doctype html>\n<html><head><title>t</title></head>\n<body>\n<p id=\"x\">x</p>\n"
                      "<script type=\"module\" src=\"app.js\"></script>\n</body>\n</html>\n",
        "style.css": "p{color:red}",
        "strata.js": "var createStrataModule = 1; // </script> inside",
        "app.js": "import { a } from './a.js';\nrun(a);\n",
        "a.js": "export const a = '<!--';\n"}.items():
    with open(os.path.join(site, name), "w") as f:
        f.write(text)
with open(os.path.join(site, "strata.wasm"), "wb") as f:
    f.write(b"\0asm\1\0\0\0")


def export(*args):
    return subprocess.run([strata, "export", *args, "--dist", site], capture_output=True, text=True)


def element(html, open_tag):
    m = re.search(re.escape(open_tag) + r"(.*?)</(script|style)>", html, re.S)
    return m.group(1) if m else None


def csp_ok(html):
    h = lambda t: "'sha256-%s'" % base64.b64encode(hashlib.sha256(t.encode()).digest()).decode()
    js1, js2 = element(html, '<script id="strata-js">'), element(html, '<script type="module" id="strata-app">')
    css = element(html, '<style id="strata-css">')
    want = ("default-src 'none'; script-src %s %s 'wasm-unsafe-eval'; style-src %s; img-src data:; "
            "base-uri 'none'; form-action 'none'" % (h(js1), h(js2), h(css)))
    return ('<meta http-equiv="Content-Security-Policy" content="%s">' % want) in html


src = os.path.join(fix, "array_basic.json")
out = os.path.join(tmp, "report.html")
p = export(src, "-o", out)
html = open(out, encoding="utf-8").read() if p.returncode == 0 else ""
tr = re.search(r'<script type="application/octet-stream" id="strata-trace" class="strata-trace" '
               r'data-name="array_basic.json">([^<]*)</script>', html)
report(p.returncode == 0 and p.stdout.startswith("wrote " + out) and csp_ok(html)
       and "<title>array_basic.json \u2013 strata</title>" in html
       and '<body>\n<p id="x">x</p>\n<script type="application/octet-stream" id="strata-wasm">AGFzbQEAAAA=</script>' in html
       and tr and gzip.decompress(base64.b64decode(tr.group(1))) == open(src, "rb").read()
       and "// <\\/script> inside" in html
       and element(html, '<script type="module" id="strata-app">') ==
       "const { a } = (() => {\nconst a = '<\\!--';\n\nreturn { a };\n})();\nrun(a);\n",
       "strata export: the layout, the CSP hashes, the gzip'd trace, modules inlined",
       p.stderr + html[:600])
p = export("--viewer-only", "-o", out)
html = open(out, encoding="utf-8").read() if p.returncode == 0 else ""
report(p.returncode == 0 and "no trace" in p.stdout and csp_ok(html) and "strata-trace" not in html
       and "<title>strata</title>" in html and 'id="strata-app"' in html,
       "strata export --viewer-only: the viewer alone", p.stderr + html[:300])
# --note: the notes go into the file's view state (the link hash "#notes=...", the
# text percent-encoded as encodeURIComponent does: decoded here with urllib's unquote)
import json, urllib.parse
p = export(src, "-o", out, "--note", "100=first", "--note", "150:120=a </script> \"q\" 'x' & <!-- \u00e9;,:")
html = open(out, encoding="utf-8").read() if p.returncode == 0 else ""
st = element(html, '<script type="application/json" id="strata-state">')
hash_ = json.loads(st)["hash"] if st else ""
items = [(i.split(":", 1)[0], urllib.parse.unquote(i.split(":", 1)[1]))
         for i in hash_[len("#notes="):].split(";")] if hash_.startswith("#notes=") else []
report(p.returncode == 0 and csp_ok(html) and st is not None and not re.search(r"[<>&]", st)
       and items == [("100", "first"), ("120,150", "a </script> \"q\" 'x' & <!-- \u00e9;,:")]
       and html.count("</script>") == html.count("<script"),
       "strata export --note: the notes in the view state, escaped (no <, >, & in it), the CSP unchanged",
       p.stderr + repr(st))
for bad in ("x=1", "1", "1:y=t", "1=" + "a" * 201):
    p = export(src, "-o", out, "--note", bad)
    report(p.returncode == 2 and "--note" in p.stderr, "export --note %r refused" % bad[:12],
           "rc %d %r" % (p.returncode, p.stderr))
for args in (["--viewer-only", src, "-o", out], ["-o", out], ["--viewer-only", "--name", "x", "-o", out]):
    p = export(*args)
    report(p.returncode == 2 and p.stderr.startswith("usage: strata export"), "export usage: %s" % args,
           "rc %d %r" % (p.returncode, p.stderr))
with open(os.path.join(site, "a.js"), "w") as f:
    f.write("import { b } from './gone.js';\n")
os.remove(out)
p = export(src, "-o", out)
report(p.returncode == 1 and "gone.js" in p.stderr and len(p.stderr.strip().split("\n")) == 1
       and not os.path.exists(out), "strata export: a module app.js needs is missing: one line, no file",
       "rc %d %r" % (p.returncode, p.stderr))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
