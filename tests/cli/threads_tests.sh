#!/usr/bin/env bash
# threads_tests.sh STRATA [STRATA_GEN] [PTHREAD_SHIM.so]
# `--threads N` (tools/cli/cli_feed.c, issue 21): a file read on several
# threads must give the model, stats, warnings and errors of a one-thread
# read. For every input, `strata stats FILE --json --digest --load-info
# --threads 1` is the reference; runs with --threads 2/3/4 and small
# --task-bytes (many cut points: inside strings, events, numbers; every
# byte for the smallest files) must print the same JSON apart from load_ms,
# heap_bytes and --load-info's figures (same model_sha256: st_trace_digest
# of the model), the same stderr (error and warning lines: byte offset, line,
# column) and exit the same. Inputs: every file of ../shared/corpus (the
# compressed and protobuf ones take the streamed path and must say so:
# load_tasks 0), decompressed copies of its gzip'd JSON, tests/fixtures,
# strata-gen traces (plain, --flows, --lean, --steps; --gz and --perfetto
# streamed), and traces made here: the events of the fixtures and the
# corpus interleaved (V8 samples, async, flows v1/v2, counters, B/E pairs,
# metadata moved after the events it names, top-level stackFrames/samples
# after the event list), names that look like event boundaries
# (`},{"ph":"X"`), compact, pretty-printed, CRLF and array forms, and
# damaged copies (cut mid-event, a syntax error on a later line, garbage
# after the list). Also several files as one set (`stats A B C`), the
# commands that read through cli_load_stream (search, args) and sets
# (flame, analyze), and `strata view`'s first frame (draw list and PNG,
# offscreen; skipped where it cannot draw). With PTHREAD_SHIM.so
# (tests/cli/pthread_create_fails.c, LD_PRELOAD) pthread_create fails after
# 0, 1 or 2 threads: the file is read on the threads that started (none: on
# one thread), same output. The comparer checks itself: two different
# traces must compare different. The split must be real: a big file's
# events come mostly from the threads' results (load_split_bytes).
# Prints "N passed, N failed"; exits 1 on failure.
set -u
strata=${1:?usage: threads_tests.sh STRATA [STRATA_GEN] [PTHREAD_SHIM.so]}
shift
gen="" shim=""
for a in "$@"; do
  case "$a" in
    *.so) shim=$a ;;
    ?*) gen=$a ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export STRATA_BIN=$strata STRATA_GEN=$gen STRATA_ROOT=$root STRATA_SHIM=$shim PYTHONPATH=$here
exec python3 - <<'PY'
import gzip, json, os, random, re, shutil, subprocess, sys, tempfile, zlib

from view_check import finish, own_leaks, report

strata, root = os.environ["STRATA_BIN"], os.environ["STRATA_ROOT"]
gen, shim = os.environ.get("STRATA_GEN", ""), os.environ.get("STRATA_SHIM", "")
fix = os.path.join(root, "tests", "fixtures")
corpus = os.path.normpath(os.path.join(root, "..", "shared", "corpus"))
tmp = tempfile.mkdtemp(prefix="strata-threads-")


VOLATILE = re.compile(r',"(load_ms|heap_bytes|load_threads|load_tasks|load_split_bytes|load_cpu_ms|'
                      r'load_main_cpu_ms|wall_ms|names_ms|args_ms|analyze_ms|analyze_cpu_ms)":[0-9.]+')
# how far a file damaged part-way was read: a matter of read sizes (1 MiB
# chunks on one thread, tasks on several), as web/guide/cli.md says
READ_SO_FAR = re.compile(r'"(bytes_in|bytes_decoded)":[0-9]+')


def run(args, env=None):
    p = subprocess.run([strata] + args, capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def stats(path, threads, task_bytes=None, extra=()):
    args = ["stats", path, "--json", "--digest", "--load-info", "--threads", str(threads)] + list(extra)
    if task_bytes:
        args += ["--task-bytes", str(task_bytes)]
    return run(args)


def used(out):
    m = re.search(r'"load_threads":(\d+),"load_tasks":(\d+)', out)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def split_bytes(out):
    m = re.search(r'"load_split_bytes":(\d+)', out)
    return int(m.group(1)) if m else None


def differences(a, b):
    """What differs between two runs (rc, stdout, stderr), volatile figures aside."""
    why = []
    if a[0] != b[0]:
        why.append("exit %d vs %d" % (a[0], b[0]))
    sa, sb = VOLATILE.sub("", a[1]), VOLATILE.sub("", b[1])
    if "kept what was read before it" in a[2]:
        sa, sb = READ_SO_FAR.sub("", sa), READ_SO_FAR.sub("", sb)
    if sa != sb:
        i = next((k for k in range(min(len(sa), len(sb))) if sa[k] != sb[k]), min(len(sa), len(sb)))
        why.append("stdout differs at char %d: %r vs %r" % (i, sa[max(0, i - 60):i + 60],
                                                           sb[max(0, i - 60):i + 60]))
    if a[2] != b[2]:
        why.append("stderr %r vs %r" % (a[2][:300], b[2][:300]))
    return why


def variants(size):
    """(threads, task bytes) runs to compare with --threads 1 for a file of `size` bytes."""
    v = [(3, 65536), (4, 1000003), (2, None)]
    if size <= 8 << 20:
        v.insert(0, (2, 4096))
    if size <= 64 << 10:
        v.append((2, 97))
    if size <= 4096:
        v.append((3, 1))  # a task at every byte
    return v


def json_head(head):
    return head.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] in (b"{", b"[")


def kind(path):
    """'json' (split in place), 'gz-json' (gzip/zlib with JSON inside: a thread
    inflates, the decoded bytes are split) or 'other' (streamed)."""
    with open(path, "rb") as f:
        raw = f.read(1 << 16)
    gz = raw[:2] == b"\x1f\x8b"
    zl = len(raw) >= 2 and raw[0] & 0x0F == 8 and raw[0] >> 4 <= 7 and not raw[1] & 0x20 \
        and (raw[0] * 256 + raw[1]) % 31 == 0
    if gz or zl:
        try:
            head = zlib.decompressobj(47).decompress(raw, 64)
        except zlib.error:
            head = b""
        return "gz-json" if json_head(head) else "other"
    return "json" if json_head(raw[:64]) else "other"


def check_file(name, path, must_split=False):
    size = os.path.getsize(path)
    base = stats(path, 1)
    t, k = used(base[1])
    if base[0] == 0:
        report(t == 0 and k == 0, name + ": --threads 1 streams", "load_threads %r, tasks %r" % (t, k))
        report('"model_sha256":"' in base[1], name + ": --digest prints model_sha256", base[1][-200:])
    for threads, tb in variants(size):
        got = stats(path, threads, tb)
        label = "%s: --threads %d --task-bytes %s" % (name, threads, tb)
        report(not differences(base, got), label, "; ".join(differences(base, got)))
        t, k = used(got[1])
        if got[0] != 0:
            continue
        if tb and must_split:
            want = (size - 1) // tb + 1
            report(k == want and 1 <= (t or 0) <= threads, label + ": split into tasks",
                   "load_threads %r, load_tasks %r (want %d tasks)" % (t, k, want))
            # the threads did the work: most bytes came from their results
            if tb >= 65536 and size >= 4 * tb and not got[2]:
                sb = split_bytes(got[1])
                report(sb is not None and sb >= size // 2, label + ": parsed by the threads",
                       "load_split_bytes %r of %d" % (sb, size))
        elif kind(path) == "gz-json" and tb:
            report(k >= 1 and 1 <= (t or 0) <= threads, label + ": inflated by a thread, split",
                   "load_threads %r, load_tasks %r" % (t, k))
        elif kind(path) == "other":
            report(k == 0, label + ": not split (not JSON)", "load_tasks %r" % k)


# ---- 0. the comparer can fail; option errors ----------------------------------------
a = stats(os.path.join(fix, "begin_end.json"), 1)
b = stats(os.path.join(fix, "flows.json"), 1)
report(bool(differences(a, b)), "the comparer tells two traces apart")
da = re.search(r'"model_sha256":"([0-9a-f]{64})"', a[1])
db = re.search(r'"model_sha256":"([0-9a-f]{64})"', b[1])
report(da and db and da.group(1) != db.group(1), "two models, two digests", "%r %r" % (da, db))
for bad in (["--threads", "0"], ["--threads", "65"], ["--threads", "x"], ["--task-bytes", "0"],
            ["--threads"]):
    rc, out, err = run(["stats", os.path.join(fix, "flows.json")] + bad)
    report(rc == 2 and err.count("\n") == 1 and err.startswith("strata: stats: --"),
           "stats %s: one line, exit 2" % " ".join(bad), "rc %d: %r" % (rc, err))
rc, out, err = run(["stats", os.path.join(fix, "flows.json"), "--threads", "2", "--task-bytes",
                    "50", "--digest"])
report(rc == 0 and re.search(r"model sha256: +[0-9a-f]{64}\n", out) and
       re.search(r"load: .*, \d threads \(\d+ tasks, [0-9.]+% of the bytes parsed by them\)\n", out),
       "stats text: digest and threads", out)

rc, out, err = run(["stats", os.path.join(fix, "flows.json"), "--json", "--threads", "2",
                    "--task-bytes", "50"])
report(rc == 0 and '"load_' not in out.replace('"load_ms"', ""),
       "stats --json without --load-info: the page's stats() keys only", out)

# ---- 1. the corpus, decompressed copies, the fixtures ----------------------------------
for f in sorted(os.listdir(corpus)):
    if f == "README.md":
        continue
    path = os.path.join(corpus, f)
    check_file("corpus/" + f, path)
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    if gz:
        plain = os.path.join(tmp, f.replace(".gz", "") + ".plain.json")
        try:
            with gzip.open(path) as src, open(plain, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except (OSError, EOFError, zlib.error):
            print("note: %s does not inflate whole: no decompressed copy" % f)
            continue
        check_file("corpus/" + f + " (decompressed)", plain, must_split=kind(plain) == "json")
for f in sorted(os.listdir(fix)):
    path = os.path.join(fix, f)
    if os.path.isfile(path):
        check_file("fixtures/" + f, path)

# ---- 2. strata-gen traces -------------------------------------------------------------
if gen:
    for label, args in (("plain", ["-n", "30000"]), ("flows", ["-n", "30000", "--flows"]),
                        ("lean", ["-n", "60000", "--lean", "--flows"]),
                        ("steps", ["-n", "20000", "--steps", "7", "--seed", "5"]),
                        ("gz", ["-n", "20000", "--gz"]), ("perfetto", ["-n", "20000", "--perfetto"])):
        path = os.path.join(tmp, "gen-%s.trace" % label)
        p = subprocess.run([gen, "-o", path] + args, capture_output=True)
        if p.returncode != 0:
            report(False, "strata-gen " + label, p.stderr.decode())
            continue
        check_file("strata-gen " + label, path, must_split=label not in ("gz", "perfetto"))
else:
    print("note: no strata-gen given: generated traces skipped")

# ---- 3. traces made here: everything interleaved, in several forms ------------------------
def events_of(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as fh:
            doc = json.loads(fh.read().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, OSError, EOFError, zlib.error):
        return None, None
    if isinstance(doc, list):
        return doc, None
    if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
        return doc["traceEvents"], doc
    return None, None


sources, extra_top = [], {}
for d in (fix, corpus):
    for f in sorted(os.listdir(d)):
        path = os.path.join(d, f)
        if not os.path.isfile(path) or os.path.getsize(path) > 700 << 10:
            continue
        evs, doc = events_of(path)
        if not evs:
            continue
        if doc and "stackFrames" in doc and "samples" in doc and not extra_top:
            extra_top = {"stackFrames": doc["stackFrames"], "samples": doc["samples"]}
        sources.append(evs)

rnd = random.Random(21)
WEIRD = ['},{"ph":"X","name":"fake"', '"}, {"', '}\n,\n{', '\\"},{\\"', 'a\\\\', 'caf\u00e9 \U0001F600',
         '{[}]', ', {', '}},{{', '] }', '"traceEvents":[']
streams = []
for n, evs in enumerate(sources):
    out, meta = [], []
    for e in evs:
        if not isinstance(e, dict):
            out.append(e)  # non-object elements: warnings, kept in place
            continue
        e = dict(e)
        if isinstance(e.get("pid"), int):
            e["pid"] = e["pid"] + 1000 * (n + 1)
        if n % 2 and e.get("ph") == "M":
            meta.append(e)  # metadata after the events it names
        else:
            out.append(e)
    streams.append(out + meta)
for k in range(3000):  # names and args that look like event boundaries
    w = rnd.choice(WEIRD)
    streams.append([{"name": w + str(k), "cat": w, "ph": "X", "ts": k * 10, "dur": 5, "pid": 7,
                     "tid": k % 3, "args": {"s": w, "nested": {"a": [w, {"b": w}], "n": k}}},
                    {"name": "B" + w, "ph": "B", "ts": k * 10 + 1, "pid": 7, "tid": 9},
                    {"name": "B" + w, "ph": "E", "ts": k * 10 + 6, "pid": 7, "tid": 9}])
merged, pos = [], [0] * len(streams)
while True:  # blocks of each source in turn: every source keeps its own order
    live = [i for i in range(len(streams)) if pos[i] < len(streams[i])]
    if not live:
        break
    i = rnd.choice(live)
    step = rnd.randint(1, 40)
    merged.extend(streams[i][pos[i]:pos[i] + step])
    pos[i] += step
# a B far from its E: spans every cut
merged.insert(0, {"name": "whole", "ph": "B", "ts": 0, "pid": 8, "tid": 1})
merged.append({"name": "whole", "ph": "E", "ts": 10 ** 7, "pid": 8, "tid": 1})


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "wb") as fh:
        fh.write(text.encode("utf-8"))
    return path


lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in merged]
tail = "".join(',"%s":%s' % (k, json.dumps(v)) for k, v in extra_top.items())
compact = '{"displayTimeUnit":"ns","traceEvents":[\n' + ",\n".join(lines) + "\n]" + tail + "}\n"
made = {
    "mix-compact.json": compact,
    "mix-pretty.json": json.dumps(dict({"metadata": {"x": "},{"}, "traceEvents": merged}, **extra_top),
                                  indent=1, ensure_ascii=True),
    "mix-crlf.json": '{"traceEvents": [\r\n  ' + " ,\r\n  ".join(lines) + "\r\n]}\r\n",
    "mix-array.json": "[" + ",".join(lines),  # an array without its ']': allowed
}
pretty = made["mix-pretty.json"]
cut = [int(len(compact) * f) for f in (0.37, 0.61, 0.93)]
for j, c in enumerate(cut):
    made["mix-cut-%d.json" % j] = compact[:c]
mid = compact.index('":', len(compact) // 2)
made["mix-syntax.json"] = compact[:mid] + '";' + compact[mid + 2:]
pmid = pretty.index('":', len(pretty) * 7 // 10)
made["mix-pretty-syntax.json"] = pretty[:pmid] + '" ' + pretty[pmid + 2:]
made["mix-garbage.json"] = compact.replace("\n]", "\n] x", 1)
made["mix-missing-comma.json"] = compact.replace("},\n{", "}\n{", 5)
paths = {}
for name, text in made.items():
    paths[name] = write(name, text)
    check_file("made/" + name, paths[name], must_split=True)
# the same compressed: one thread inflates, the decoded bytes are split; a gzip error
# (cut, corrupt) or a JSON one inside must read as on one thread
gzc = gzip.compress(compact.encode(), 6)
half = len(gzc) // 2
for name, data in (("mix-compact.json.gz", gzc), ("mix-cut.json.gz", gzc[:len(gzc) * 2 // 3]),
                   ("mix-corrupt.json.gz", gzc[:half] + bytes([gzc[half] ^ 0x55]) + gzc[half + 1:]),
                   ("mix-syntax.json.gz", gzip.compress(made["mix-syntax.json"].encode(), 6)),
                   ("mix-trailing.json.gz", gzc + b"garbage after"),
                   ("mix-zlib.json.z", zlib.compress(compact.encode(), 6))):
    gp = os.path.join(tmp, name)
    with open(gp, "wb") as fh:
        fh.write(data)
    check_file("made/" + name, gp)
print("note: made traces from %d sources, %d events, %d bytes compact" %
      (len(sources), len(merged), len(compact.encode())))

# ---- 4. several files as one set; the other commands ------------------------------------------
group = [paths["mix-compact.json"], paths["mix-cut-1.json"], os.path.join(fix, "flows.json")]
for cmd, extra in ((["stats"] + group + ["--json", "--digest"], []),
                   (["flame"] + group[:2] + ["--json"], []),
                   (["analyze", paths["mix-compact.json"], "--json"], []),
                   (["search", paths["mix-compact.json"], "fake", "--json", "--limit", "0"], []),
                   (["search", paths["mix-pretty.json"], "caf", "--args", "--json"], []),
                   (["args", paths["mix-compact.json"], "--limit", "40"], []),
                   (["args", paths["mix-pretty.json"], "--name", "B", "--limit", "40"], [])):
    base = run(cmd + ["--threads", "1"])
    report(base[0] == 0, " ".join(cmd[:1]) + ": --threads 1 runs", base[2])
    for threads, tb in ((2, 4096), (4, 77777)):
        got = run(cmd + ["--threads", str(threads), "--task-bytes", str(tb)])
        why = differences(base, got)
        report(not why, "%s --threads %d --task-bytes %d" % (" ".join(cmd[:1]), threads, tb),
               "; ".join(why))

# ---- 4b. the native window: the same first frame (draw list and pixels) -----------------------
view_out = []
for threads, tb in ((1, None), (2, 4096), (3, 65536)):
    png, fj = os.path.join(tmp, "v%d.png" % threads), os.path.join(tmp, "v%d.json" % threads)
    args = ["view", paths["mix-compact.json"], "--screenshot", png, "--frame-json", fj,
            "--threads", str(threads)] + (["--task-bytes", str(tb)] if tb else [])
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}  # SDL's offscreen EGL driver
    # under ASan: what the GL driver keeps at exit is reported, not fatal; strata's own leaks fail
    env["LSAN_OPTIONS"] = env.get("LSAN_OPTIONS", "") + ":exitcode=0"
    rc, out, err = run(args, env)
    leaks = own_leaks(err, root, strata)
    report(not leaks, "view --threads %d: no leak of strata's own" % threads, "; ".join(leaks))
    if rc != 0:
        print("note: strata view cannot draw here (exit %d: %s): window not compared" %
              (rc, err.strip()[:200]))
        break
    view_out.append((open(fj, "rb").read(), open(png, "rb").read()))
for k, v in enumerate(view_out[1:]):
    report(v[0] == view_out[0][0] and v[1] == view_out[0][1],
           "view --threads %d: the first frame's draw list and pixels as on one thread" % (k + 2))

# ---- 5. threads that cannot be started ---------------------------------------------------------
if shim:
    path = paths["mix-compact.json"]
    base = stats(path, 1)
    for allow in (0, 1, 2):
        env = dict(os.environ, LD_PRELOAD=shim, STRATA_TEST_THREADS=str(allow))
        # a sanitizer build's runtime need not come first for this shim
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
        got = run(["stats", path, "--json", "--digest", "--load-info", "--threads", "4",
                   "--task-bytes", "65536"], env)
        label = "--threads 4 with pthread_create failing after %d" % allow
        report(not differences(base, got), label, "; ".join(differences(base, got)))
        t, k = used(got[1])
        want_k = (os.path.getsize(path) - 1) // 65536 + 1 if allow else 0
        # N threads: N - 1 workers and the main thread (which applies and helps)
        report(t == (allow + 1 if allow else 0) and k == want_k, label + ": read on the threads it got",
               "load_threads %r, load_tasks %r" % (t, k))
else:
    print("note: no pthread shim given: thread start failures not tested")

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(finish())
PY
