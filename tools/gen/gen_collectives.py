#!/usr/bin/env python3
"""gen_collectives.py: a profile of many Kineto-like ranks whose collectives
carry planted truths (issue 32).

    tools/gen/gen_collectives.py OUT_DIR [--ranks 8] [--steps 12] [--seed 1]
                                  [--no-seq] [--gz]

Writes OUT_DIR/rank-R.json (one file per rank, as Kineto writes a rank:
distributedInfo, a host thread with ProfilerStep#N, record_param_comms ops
with the args Kineto gives them, their cudaLaunchKernel and the ac2g flow
to the NCCL kernel on "stream 7" of the GPU process) and OUT_DIR/truth.json.

The schedule, on a true clock (integer microseconds), per step s:
  every rank starts at T_s (its ProfilerStep#s starts there);
  compute A_r (kernel "gemm_a"), then a tensor-parallel all-gather within
  the pair {2p, 2p+1} (process group "tp<p>"): each rank's NCCL kernel starts
  at its arrival T_s + A_r, and ends for both at max(arrivals) + D_ag;
  compute B_r ("gemm_b") from there, then the data-parallel all-reduce over
  every rank (group "0"): arrival end_ag + B_r, end for all at max + D_ar;
  compute C_r ("adam") after it; the rank's step ends at end_ar + C_r;
  T_{s+1} = max over ranks of their step ends + 40.
One rank per step (a different one each step: (3 s + 1) mod ranks) has a
B slowed down by 800-1500 us, so it arrives last at that step's all-reduce.
Each rank's file is on its own clock: true time + skew_r, skew_r uniform
in [-50 ms, +50 ms] (integer us; rank 0's is not 0).

truth.json holds, independently of strata:
  offsets_us[r]: the offset that puts rank r on rank 0's clock
                 (-(skew_r - skew_0));
  steps[s]: {"step", "blocker" (the all-reduce's last arrival),
             "waited_us"[r], "caused_us"[r] (over the step's two
             collectives: web/guide/collectives.md definitions),
             "step_us" (max step end - T_s)};
  what_if_us[r]: the mean over steps of the step time saved if rank r's
             compute segments (A, B, C) took the median rank's, replayed
             through the same schedule;
  collectives: the number of collective instances (pairs' all-gathers +
             all-reduces), and their bytes per kind.
"""
import argparse
import gzip
import json
import os
import random
import statistics

DTYPES = {"Float": 4, "BFloat16": 2}


def simulate(A, B, C, T, d_ag, d_ar, n):
    """One step's schedule from its compute segments: per rank the
    all-gather arrival and end, the all-reduce arrival, the common
    all-reduce end and each rank's step end."""
    ag_arr = [T + A[r] for r in range(n)]
    ag_end = [0] * n
    for p in range(0, n, 2):
        e = max(ag_arr[p], ag_arr[p + 1]) + d_ag
        ag_end[p] = ag_end[p + 1] = e
    ar_arr = [ag_end[r] + B[r] for r in range(n)]
    ar_end = max(ar_arr) + d_ar
    ends = [ar_end + C[r] for r in range(n)]
    return ag_arr, ag_end, ar_arr, ar_end, ends


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-seq", action="store_true")
    ap.add_argument("--gz", action="store_true")
    a = ap.parse_args()
    n, S = a.ranks, a.steps
    if n < 2 or n % 2:
        raise SystemExit("--ranks must be even and >= 2")
    rnd = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    skew = [rnd.randint(-50000, 50000) for _ in range(n)]
    base = 1700000000000000
    ag_elems, ar_elems = 4 << 20, 16 << 20
    events = [[] for _ in range(n)]
    truth_steps = []
    saved_sum = [0.0] * n
    corr = [1000] * n
    seq = {}  # (rank, group) -> next sequence number
    T = 1000
    for s in range(1, S + 1):
        # distinct values so arrivals never tie
        A = [rnd.randint(300, 700) * 2 + r % 2 for r in range(n)]
        B = [rnd.randint(200, 300) * 4 + (r % 4) for r in range(n)]
        C = [rnd.randint(100, 200) for r in range(n)]
        slow = (3 * s + 1) % n
        B[slow] += rnd.randint(800, 1500)
        d_ag, d_ar = rnd.randint(80, 120), rnd.randint(300, 500)
        ag_arr, ag_end, ar_arr, ar_end, ends = simulate(A, B, C, T, d_ag, d_ar, n)
        step_us = max(ends) - T
        waited = [0] * n
        caused = [0] * n
        for p in range(0, n, 2):
            last = max(ag_arr[p], ag_arr[p + 1])
            b = p if ag_arr[p] == last else p + 1
            for r in (p, p + 1):
                waited[r] += last - ag_arr[r]
                caused[b] += last - ag_arr[r]
        last = max(ar_arr)
        blocker = ar_arr.index(last)
        for r in range(n):
            waited[r] += last - ar_arr[r]
            caused[blocker] += last - ar_arr[r]
        mA, mB, mC = (statistics.median(v) for v in (A, B, C))
        for r in range(n):
            A2, B2, C2 = list(A), list(B), list(C)
            A2[r], B2[r], C2[r] = mA, mB, mC
            e2 = simulate(A2, B2, C2, T, d_ag, d_ar, n)[4]
            saved_sum[r] += step_us - (max(e2) - T)
        truth_steps.append({"step": s, "blocker": blocker, "waited_us": waited,
                            "caused_us": caused, "step_us": step_us})
        for r in range(n):
            ev = events[r]
            k = skew[r] + base
            host = (r + 1) * 100

            def x(name, cat, pid, tid, ts, dur, args=None):
                e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                     "ts": ts + k, "dur": dur}
                if args is not None:
                    e["args"] = args
                ev.append(e)

            x("ProfilerStep#%d" % s, "user_annotation", host, host, T, ends[r] - T)
            x("gemm_a", "kernel", 0, 7, T, A[r])
            x("gemm_b", "kernel", 0, 7, ag_end[r], B[r])
            x("adam", "kernel", 0, 7, ar_end, C[r])
            pair = r // 2
            colls = [("allgather", "tp%d" % pair, [2 * pair, 2 * pair + 1], ag_elems,
                      2 * ag_elems, "BFloat16", ag_arr[r], ag_end[r],
                      "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"),
                     ("allreduce", "0", list(range(n)), ar_elems, ar_elems, "Float", ar_arr[r],
                      ar_end, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)")]
            for (cname, pg, ranks, inn, outn, dt, arr, end, kname) in colls:
                args = {"External id": corr[r], "Record function id": 0,
                        "Collective name": cname, "dtype": dt,
                        "In msg nelems": inn, "Out msg nelems": outn,
                        "In split size": "[]", "Out split size": "[]",
                        "Global rank start": 0, "Global rank stride": 1,
                        "Group size": len(ranks), "Process Group Name": pg,
                        "Process Group Description": "default_pg" if pg == "0" else "tp",
                        "Process Group Ranks": "[" + ", ".join(map(str, ranks)) + "]",
                        "Rank": r}
                if not a.no_seq:
                    q = seq.get((r, pg), 0) + 1
                    seq[(r, pg)] = q
                    args["Seq"] = q
                hs = arr - 60
                x("record_param_comms", "cpu_op", host, host, hs, 20, args)
                x("cudaLaunchKernel", "cuda_runtime", host, host, hs + 5, 10,
                  {"External id": corr[r], "correlation": corr[r]})
                ev.append({"ph": "s", "id": corr[r], "pid": host, "tid": host, "ts": hs + 5 + k,
                           "cat": "ac2g", "name": "ac2g"})
                ev.append({"ph": "f", "id": corr[r], "pid": 0, "tid": 7, "ts": arr + k,
                           "cat": "ac2g", "name": "ac2g", "bp": "e"})
                kargs = {"External id": corr[r], "correlation": corr[r], "device": 0,
                         "stream": 7}
                x(kname, "kernel", 0, 7, arr, end - arr, kargs)
                corr[r] += 1
        T = max(ends) + 40
    for r in range(n):
        host = (r + 1) * 100
        meta = [
            {"name": "process_name", "ph": "M", "pid": host, "tid": 0, "args": {"name": "python3"}},
            {"name": "thread_name", "ph": "M", "pid": host, "tid": host,
             "args": {"name": "thread %d (python3)" % host}},
            {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "python3"}},
            {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
            {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
        ]
        doc = {"schemaVersion": 1,
               "distributedInfo": {"backend": "nccl", "rank": r, "world_size": n},
               "traceEvents": meta + events[r]}
        path = os.path.join(a.out, "rank-%d.json" % r + (".gz" if a.gz else ""))
        data = json.dumps(doc, separators=(",", ":")).encode()
        if a.gz:
            with gzip.open(path, "wb") as f:
                f.write(data)
        else:
            with open(path, "wb") as f:
                f.write(data)
    truth = {"ranks": n, "steps": truth_steps,
             "offsets_us": [-(skew[r] - skew[0]) for r in range(n)],
             "what_if_us": [v / S for v in saved_sum],
             "collectives": S * (n // 2 + 1),
             "bytes": {"all_gather": 2 * ag_elems * DTYPES["BFloat16"],
                       "all_reduce": ar_elems * DTYPES["Float"]}}
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump(truth, f)


if __name__ == "__main__":
    main()
