#!/usr/bin/env bash
# manifest_tests.sh STRATA STRATA_GEN
# A profile of 256 ranks as a cluster would make it: `strata-gen --rank R`
# writes 256 small Kineto-like rank files (two in a sub-folder, one
# gzip'd) and a broken one; `strata index` indexes them all in parallel
# (xargs -P2); `strata manifest DIR -o profile.json` lists them (from the
# indexes; the same as from the streaming pass before indexing; a stale
# index refused and the file read instead). The
# manifest is checked against an independent computation in python: 257
# entries sorted by path, ranks 0..255, bytes equal to the files' sizes,
# groups "rank R" and unique, each file's index named, events equal to
# `strata stats --json` and clocks equal to full loads' (`strata stats A B`;
# the manifest reads each file with the bounded streaming pass), the broken
# one with its one-line error (a byte offset), the clock and offsets from
# the generator's base time. Also: the
# output is deterministic, --json prints the same text, paths with quotes,
# backslashes, '#', '%' and non-ASCII round-trip, -o outside DIR is
# refused, the Slurm array script (run as plain bash with
# SLURM_ARRAY_TASK_ID) and the Kubernetes Indexed Job's command (parsed
# from the YAML, run with JOB_COMPLETION_INDEX) each run `strata index` on
# the right file. Prints "N passed, N failed"; exits 1 on failure.
set -u
strata=${1:?usage: manifest_tests.sh STRATA STRATA_GEN}
gen=${2:?usage: manifest_tests.sh STRATA STRATA_GEN}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export STRATA_BIN=$strata STRATA_GEN=$gen STRATA_ROOT=$root PYTHONPATH=$here
exec python3 - <<'PY'
import json, os, re, shutil, subprocess, sys, tempfile

from view_check import finish, report

strata = os.path.abspath(os.environ["STRATA_BIN"])
gen = os.path.abspath(os.environ["STRATA_GEN"])
root = os.environ["STRATA_ROOT"]
tmp = tempfile.mkdtemp(prefix="strata-manifest-")
N = 256
BASE_NS = 1700000000000000000  # strata-gen's default baseTimeNanoseconds


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


# ---- the profile: 256 ranks, two in a sub-folder, one gzip'd, one broken ----
prof = os.path.join(tmp, "profile")
os.makedirs(os.path.join(prof, "node-1"))
rel = {}
for r in range(N):
    name = "rank-%d.pt.trace.json" % r
    if r in (200, 201):
        name = "node-1/" + name
    if r == 7:
        name += ".gz"
    rel[r] = name
jobs = [[gen, "-n", "2000", "--rank", str(r), "--lean", "--start-us", str(1000 + r * 10), "-o",
         os.path.join(prof, rel[r])] + (["--gz"] if r == 7 else []) for r in range(N)]
# two at a time, as the machine has two cores
procs = []
for j in jobs:
    procs.append(subprocess.Popen(j, stdout=subprocess.DEVNULL))
    if len(procs) == 2:
        for p in procs:
            p.wait()
        procs = []
for p in procs:
    p.wait()
report(all(os.path.getsize(os.path.join(prof, rel[r])) > 1000 for r in range(N)), "generated")
with open(os.path.join(prof, "broken.pt.trace.json"), "w") as f:
    f.write('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1 "dur": 2}]}')  # no ',' at byte 50
with open(os.path.join(prof, "notes.txt"), "w") as f:
    f.write("not a trace\n")  # not a trace name: not listed

# ---- before indexing: every file read by the streaming pass ----
p = run([strata, "manifest", prof, "--json"])
report(p.returncode == 0, "manifest before indexing", p.stderr)
before = json.loads(p.stdout) if p.returncode == 0 else {"files": []}
report(all(f.get("index", None) is None for f in before["files"]), "no index before indexing")

# ---- every file indexed in parallel, as the job array does ----
listing = sorted(os.path.join(prof, rel[r]) for r in range(N))
p = subprocess.run("xargs -P2 -n1 %s index" % strata, shell=True, input="\n".join(listing) + "\n",
                   capture_output=True, text=True)
report(p.returncode == 0, "xargs -P2 -n1 strata index", p.stderr[-500:])
report(all(os.path.isfile(f + ".stx") for f in listing), "every file has its .stx")

# ---- the manifest ----
out = os.path.join(prof, "profile.json")
p = run([strata, "manifest", prof, "-o", out])
report(p.returncode == 0, "manifest exit 0", p.stderr)
report("broken.pt.trace.json" in p.stderr and "byte" in p.stderr, "the error on stderr", p.stderr)
report(re.search(r"257 files: 256 read, 1 not read", p.stdout) is not None, "summary line", p.stdout)
text = open(out).read()
report(re.match(r'\s*\{\s*"strata_manifest"\s*:', text) is not None, "strata_manifest is the first key")
m = json.loads(text)
report(m.get("strata_manifest") == 1, "version 1")
files = m["files"]
report(len(files) == N + 1, "257 entries", len(files))
paths = [f["path"] for f in files]
report(paths == sorted(paths, key=lambda s: s.encode()), "sorted by path (bytes)")
want_paths = sorted([rel[r] for r in range(N)] + ["broken.pt.trace.json"], key=lambda s: s.encode())
report(paths == want_paths, "the paths are the trace files, from the manifest's folder",
       set(paths) ^ set(want_paths))
ok = [f for f in files if "error" not in f]
bad = [f for f in files if "error" in f]
report(len(ok) == N and m.get("read") == N and m.get("errors") == 1, "256 read, 1 error")
report([f["path"] for f in bad] == ["broken.pt.trace.json"], "the broken file has the error")
report(bool(bad) and "(at byte 50, line 1, column 51)" in bad[0]["error"] and "\n" not in bad[0]["error"],
       "the error is one line with a byte offset", bad and bad[0]["error"])
cli = run([strata, "stats", os.path.join(prof, "broken.pt.trace.json")])
report(bool(bad) and bad[0]["error"] in cli.stderr, "the error is what strata stats prints",
       (bad and bad[0]["error"], cli.stderr))
report(bool(bad) and bad[0]["bytes"] == os.path.getsize(os.path.join(prof, "broken.pt.trace.json")),
       "the broken file's bytes")
report(sorted(f["rank"] for f in ok) == list(range(N)), "ranks 0..255")
report(all(f["bytes"] == os.stat(os.path.join(prof, f["path"])).st_size for f in files), "bytes = stat sizes")
groups = [f["group"] for f in ok]
report(len(set(groups)) == N, "groups unique")
report(all(f["group"] == "rank %d" % f["rank"] and f["group_source"] == "rank" for f in ok),
       "group = rank R (profile.h)")
report(all(f["host"] is None for f in ok), "no host in Kineto files")
report(all(f["index"] == f["path"] + ".stx" for f in ok), "each file's index named")
report(all(f["format"] == "chrome-json" for f in ok), "format")
# clocks: Kineto base + the first event's ts (--start-us 1000 + 10 R: rank R 10 us after R - 1)
report(all(f["clock"]["kind"] == "epoch" and f["clock"]["base_time_ns"] == BASE_NS for f in ok), "epoch clocks")
starts = {f["rank"]: f["clock"]["start_ns"] for f in ok}
report(all(starts[r] - starts[0] == r * 10000 for r in range(N)), "start_ns: 10 us per rank",
       [starts[r] - starts[0] for r in range(4)])
report(all(f["offset_us"] == f["rank"] * 10 for f in ok), "offset_us from the clocks",
       [f["offset_us"] for f in ok[:4]])
# events against strata stats --json of a few files (one of each kind)
for f in [x for x in ok if x["rank"] in (0, 7, 200, 255)]:
    s = json.loads(run([strata, "stats", os.path.join(prof, f["path"]), "--json"]).stdout)
    report(f["events"] == s["events"], "events of %s" % f["path"], (f["events"], s["events"]))

# the same files as `strata stats A B ...` (full loads) names and places them:
# the manifest's streaming pass gives the same events, clocks and offsets
some = [f for f in ok if f["rank"] in (0, 1, 7, 200, 201, 255)]
many = json.loads(run([strata, "stats", "--json"] + [os.path.join(prof, f["path"]) for f in some]).stdout)
report([t["group"] for t in many["traces"]] == [f["group"] for f in some], "groups as strata stats A B ...")
report([(t["events"], t["clock"], t["start_ns"]) for t in many["traces"]]
       == [(f["events"], f["clock"]["kind"], f["clock"]["start_ns"]) for f in some],
       "events and clocks as full loads", (many["traces"][0]["start_ns"], some[0]["clock"]))
report([t["offset_us"] - many["traces"][0]["offset_us"] for t in many["traces"]]
       == [f["offset_us"] - some[0]["offset_us"] for f in some], "offsets as full loads (apart)")

# from the indexes (no pass): the same manifest as from the passes, but for "index"
def no_index(lst):
    return [{k: v for k, v in f.items() if k != "index"} for f in lst]


report(no_index(files) == no_index(before["files"]), "read from the indexes = read by the passes",
       [(a, b) for a, b in zip(no_index(files), no_index(before["files"])) if a != b][:2])

# deterministic; --json prints the same text; a rerun does not list the manifest itself
p2 = run([strata, "manifest", prof, "-o", out, "--json"])
report(p2.returncode == 0 and p2.stdout == text and open(out).read() == text, "deterministic, --json = the file")
p3 = run([strata, "manifest", prof, "--json"])
report(p3.returncode == 0 and p3.stdout == text, "no -o: paths from DIR, same text")
# the manifest in a folder above DIR: paths through the sub-folder
p4 = run([strata, "manifest", os.path.join(prof, "node-1"), "-o", os.path.join(tmp, "above.json")])
am = json.load(open(os.path.join(tmp, "above.json"))) if p4.returncode == 0 else {"files": []}
report([f["path"] for f in am["files"]] == ["profile/node-1/rank-200.pt.trace.json",
                                           "profile/node-1/rank-201.pt.trace.json"],
       "paths from a folder above DIR", p4.stderr)
report(am["files"] and all(f["index"] == f["path"] + ".stx" for f in am["files"]), "indexes from above")
# refused: -o outside DIR and above it, DIR not a folder, no DIR
other = os.path.join(tmp, "other")
os.makedirs(other)
p = run([strata, "manifest", prof, "-o", os.path.join(other, "p.json")])
report(p.returncode == 1 and p.stderr.count("\n") == 1 and "folder above" in p.stderr
       and not os.path.exists(os.path.join(other, "p.json")), "-o outside DIR refused", p.stderr)
p = run([strata, "manifest", os.path.join(prof, "notes.txt")])
report(p.returncode == 1 and "not a folder" in p.stderr, "not a folder", p.stderr)
report(run([strata, "manifest"]).returncode == 2, "no DIR: usage")
p = run([strata, "manifest", "--help"])
report(p.returncode == 0 and "sub-folders" in p.stdout, "--help says it walks sub-folders")

# ---- untrusted paths: escaped, and naming the files ----
odd = os.path.join(tmp, "odd")
os.makedirs(os.path.join(odd, "d i r"))
small = os.path.join(prof, rel[0])
with open(os.path.join(odd, "damaged.json"), "w") as f:  # read part-way: kept, with a warning
    f.write('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1},\n  {"ph": "X", "name"')
names = ['q"uote.json', "back\\slash.json", "hash #1 %20.json", "d i r/\u00e9t\u00e9 \u2603.json",
         "ctl\x01.json", ".hidden.json"]
for n in names:
    shutil.copyfile(small, os.path.join(odd, n))
os.makedirs(os.path.join(odd, ".git"))
shutil.copyfile(small, os.path.join(odd, ".git", "x.json"))
p = run([strata, "manifest", odd, "--json"])
try:
    om = json.loads(p.stdout)
    got = [f["path"] for f in om["files"]]
except Exception as e:
    om, got = None, str(e)
want = sorted([n for n in names if not n.startswith(".")] + ["damaged.json"], key=lambda s: s.encode())
report(got == want, "odd paths round-trip (hidden ones skipped)", got)
report(om is not None and all(os.path.isfile(os.path.join(odd, f["path"])) for f in om["files"]),
       "each odd path names its file")
report("\x01" not in p.stdout and "\\u0001" in p.stdout, "control characters escaped")
dm = [f for f in om["files"] if f["path"] == "damaged.json"] if om else []
report(len(dm) == 1 and "error" not in dm[0] and dm[0]["events"] == 1 and "at byte" in dm[0].get("warning", ""),
       "a file damaged part-way is kept with its warning", dm)
# same stem twice: unique groups as the page makes them
report(om is not None and len({f["group"] for f in om["files"]}) == len(want), "odd groups unique")

# ---- the Slurm array script, as plain bash ----
stub = os.path.join(tmp, "bin")
os.makedirs(stub)
log = os.path.join(tmp, "calls.log")
with open(os.path.join(stub, "strata"), "w") as f:
    f.write('#!/bin/sh\nprintf "%s\\n" "$PWD" "$@" "--" >> "' + log + '"\n')
os.chmod(os.path.join(stub, "strata"), 0o755)
lst = os.path.join(tmp, "files.txt")
with open(lst, "w") as f:
    f.write("\n".join(listing) + "\n")
slurm = os.path.join(root, "tools", "cluster", "strata_index.slurm")
src = open(slurm).read()
report(src.startswith("#!/usr/bin/env bash") and re.search(r"^#SBATCH --array=", src, re.M) is not None,
       "a bash script with #SBATCH --array")
report("sbatch --parsable --array=0-$((N-1))%64" in src and "find " in src and "strata manifest" in src,
       "usage documented: find, sbatch --array=0-$((N-1))%64, strata manifest")


def calls():
    if not os.path.exists(log):
        return []
    parts, cur = [], []
    for line in open(log).read().split("\n")[:-1]:
        if line == "--":
            parts.append(cur)
            cur = []
        else:
            cur.append(line)
    os.remove(log)
    return parts


for k in (0, 1, 128, 255):
    env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(k), PATH=stub + ":" + os.environ["PATH"])
    p = run(["bash", slurm, lst], env=env)
    c = calls()
    report(p.returncode == 0 and len(c) == 1 and c[0][1:] == ["index", listing[k], "-o", listing[k] + ".stx"],
           "slurm task %d indexes line %d" % (k, k + 1), (p.stderr, c))
# with the real strata: task 3 writes the index
if os.path.exists(listing[3] + ".stx"):
    os.remove(listing[3] + ".stx")
p = run(["bash", slurm, lst], env=dict(os.environ, SLURM_ARRAY_TASK_ID="3", STRATA=strata))
report(p.returncode == 0 and os.path.isfile(listing[3] + ".stx"), "slurm task 3 with strata", p.stderr)
for bad_env, name in (({"SLURM_ARRAY_TASK_ID": "256"}, "past the list"), ({}, "no task id"),
                      ({"SLURM_ARRAY_TASK_ID": "x"}, "not a number")):
    env = {k: v for k, v in os.environ.items() if k != "SLURM_ARRAY_TASK_ID"}
    env.update(bad_env, PATH=stub + ":" + os.environ["PATH"])
    p = run(["bash", slurm, lst], env=env)
    report(p.returncode != 0 and not calls() and p.stderr.count("\n") == 1, "slurm refuses: " + name, p.stderr)

# ---- the Kubernetes Indexed Job ----
ypath = os.path.join(root, "tools", "cluster", "strata-index-job.yaml")
ytext = open(ypath).read()
try:
    import yaml
    docs = [d for d in yaml.safe_load_all(ytext) if d]
except ImportError:  # a structural check: the two Jobs' fields by indentation
    docs = None
if docs is not None:
    jobs = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Job" and d.get("apiVersion") == "batch/v1"}
    idx = jobs.get("strata-index", {})
    spec = idx.get("spec", {})
    report(spec.get("completionMode") == "Indexed" and isinstance(spec.get("completions"), int)
           and isinstance(spec.get("parallelism"), int), "an Indexed Job with completions and parallelism")
    pod = spec.get("template", {}).get("spec", {})
    c0 = (pod.get("containers") or [{}])[0]
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {v["name"]: v["mountPath"] for v in c0.get("volumeMounts", [])}
    envs = {e["name"]: e.get("value") for e in c0.get("env", [])}
    report(pod.get("restartPolicy") == "Never" and "profile" in vols and "persistentVolumeClaim" in vols["profile"]
           and mounts.get("profile") == envs.get("PROFILE_DIR"), "a volume for the profile, mounted at PROFILE_DIR")
    cmd = c0.get("command", [])
    mcmd = (jobs.get("strata-manifest", {}).get("spec", {}).get("template", {}).get("spec", {})
            .get("containers") or [{}])[0].get("command", [])
    labels = [d["metadata"]["labels"].get("app.kubernetes.io/component") for d in docs]
    report(labels == ["index", "manifest"], "components labelled for kubectl apply -l", labels)
else:
    report("completionMode: Indexed" in ytext and "JOB_COMPLETION_INDEX" in ytext and "claimName:" in ytext,
           "structure (no yaml module)")
    block = re.search(r"command:\n\s+- /bin/sh\n\s+- -c\n\s+- \|\n((?:\s{14}.*\n)+)", ytext)
    cmd = ["/bin/sh", "-c", re.sub(r"^ {14}", "", block.group(1), flags=re.M)] if block else []
    envs = {"PROFILE_DIR": "/profile", "FILE_LIST": "files.txt"}
    mline = re.search(r'- (exec strata manifest .*)', ytext)
    mcmd = ["/bin/sh", "-c", mline.group(1)] if mline else []
report(cmd[:2] == ["/bin/sh", "-c"] and 'strata index "$file" -o "$file.stx"' in cmd[2],
       "the pod runs strata index FILE -o FILE.stx, as the Slurm task does", cmd)
# run the pod's command here: the profile folder as PROFILE_DIR, a list of relative paths
rel_list = sorted(rel[r] for r in range(N))
with open(os.path.join(prof, "files.txt"), "w") as f:
    f.write("\n".join(rel_list) + "\n")
for k in (0, 200, 255):
    env = dict(os.environ, PROFILE_DIR=prof, FILE_LIST="files.txt", JOB_COMPLETION_INDEX=str(k),
               PATH=stub + ":" + os.environ["PATH"])
    p = run(cmd, env=env)
    c = calls()
    report(p.returncode == 0 and len(c) == 1 and c[0] == [prof, "index", rel_list[k], "-o", rel_list[k] + ".stx"],
           "k8s index %d indexes line %d" % (k, k + 1), (p.stderr, c))
p = run(cmd, env=dict(os.environ, PROFILE_DIR=prof, FILE_LIST="files.txt", JOB_COMPLETION_INDEX="256",
                      PATH=stub + ":" + os.environ["PATH"]))
report(p.returncode != 0 and not calls(), "k8s index past the list fails", p.stderr)
# the manifest Job's command, with the real strata: the same manifest as above
sdir = os.path.join(tmp, "sbin")
os.makedirs(sdir)
os.symlink(strata, os.path.join(sdir, "strata"))
p = run(mcmd, env=dict(os.environ, PROFILE_DIR=prof, PATH=sdir + ":" + os.environ["PATH"]))
report(p.returncode == 0 and open(out).read() == text, "the manifest Job writes the same manifest", (mcmd, p.stderr))

# ---- a stale index (the file written again after it): refused, the file read instead ----
stale = os.path.join(prof, rel[9])
subprocess.run([gen, "-n", "2100", "--rank", "9", "--lean", "-o", stale], stdout=subprocess.DEVNULL)
p = run([strata, "manifest", prof, "--json"])
f9 = [f for f in json.loads(p.stdout)["files"] if f.get("rank") == 9] if p.returncode == 0 else []
s9 = json.loads(run([strata, "stats", stale, "--json"]).stdout)
report(len(f9) == 1 and f9[0]["index"] is None and f9[0]["events"] == s9["events"]
       and f9[0]["bytes"] == os.path.getsize(stale), "a stale index: listed as none, the file read", f9)
report(re.search(r"rank-9\.pt\.trace\.json\.stx: index does not match .*rank-9\.pt\.trace\.json", p.stderr)
       is not None, "the stale index said on stderr", p.stderr)

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(finish())
PY
