#!/usr/bin/env python3
"""efficiency_tests.py STRATA [CORPUS]: `strata analyze --json`'s efficiency
(issue 33) against independent truths:

1. a generated Kineto trace with known shapes and dtypes: every op's FLOPs,
   bytes, kernel time, TFLOP/s, % of peak and bound, each step's MFU, the
   share of device time without a FLOP count are the generator's own
   figures (formulas written here, from the shapes it planted);
2. the corpus's Kineto traces that recorded shapes: their mm / addmm / bmm
   FLOPs from the args, computed here from the JSON;
3. a generated XSpace: per-op FLOPs and bytes equal its stats; the device's
   peak is the plane's own peak_teraflops_per_second / HBM bandwidth;
4. --peak-tflops / --peak-gbps override the peaks.
"""
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile

STRATA = sys.argv[1]
CORPUS = sys.argv[2] if len(sys.argv) > 2 and STRATA != "--gen" else "/work/shared/corpus"
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-30)


def analyze(path, *extra):
    out = subprocess.run([STRATA, "analyze", path, "--json", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"strata analyze {path} failed: {out.stderr}")
    return json.loads(out.stdout)["efficiency"]


# ---- 1. a generated Kineto trace --------------------------------------------
ES = {"float": 4, "c10::BFloat16": 2, "c10::Half": 2}
H100_BF16, H100_FP16, H100_FP32, H100_GBPS = 989.5, 989.5, 67.0, 3350.0  # NVIDIA datasheet, dense


def numel(d):
    n = 1
    for x in d:
        n *= x
    return n


def truth_of(name, dims, types, conc):
    """FLOPs and bytes of one op, from the shapes (the generator's own formulas)."""
    es = ES[types[0]]
    if name == "aten::mm":
        (m, k), (_, n) = dims
        return 2 * m * k * n, (m * k + k * n + m * n) * es
    if name == "aten::addmm":
        bias, (m, k), (_, n) = dims[0], dims[1], dims[2]
        return 2 * m * k * n, (numel(bias) + m * k + k * n + m * n) * es
    if name == "aten::bmm":
        (b, m, k), (_, _, n) = dims
        return 2 * b * m * k * n, b * (m * k + k * n + m * n) * es
    if name == "aten::baddbmm":
        inp, (b, m, k), (_, _, n) = dims[0], dims[1], dims[2]
        return 2 * b * m * k * n, (numel(inp) + b * (m * k + k * n + m * n)) * es
    if name == "aten::matmul":  # [B, M, K] x [K, N]
        (b, m, k), (_, n) = dims
        return 2 * b * m * k * n, (b * m * k + k * n + b * m * n) * es
    if name == "aten::linear":  # x [B, T, in], w [out, in], bias [out]
        (b, t, i), (o, _), bias = dims
        return 2 * b * t * i * o, (b * t * i + o * i + o + b * t * o) * es
    if name == "aten::conv2d":  # stride, padding, dilation, groups from Concrete Inputs
        (n, c, h, w), (co, cg, kh, kw) = dims[0], dims[1]
        s, p, d, g = int(conc[3].strip("[]").split(",")[0]), int(conc[4].strip("[]").split(",")[0]), 1, int(conc[6])
        oh = (h + 2 * p - d * (kh - 1) - 1) // s + 1
        ow = (w + 2 * p - d * (kw - 1) - 1) // s + 1
        flops = 2 * n * co * oh * ow * (c // g) * kh * kw
        return flops, (n * c * h * w + numel(dims[1]) + numel(dims[2]) + n * co * oh * ow) * es
    if name == "aten::scaled_dot_product_attention":  # [B, H, L, E], causal from Concrete Inputs
        (b, h, l, e), (_, _, s, _), (_, _, _, ev) = dims[0], dims[1], dims[2]
        causal = conc[5] == "True"
        pairs = l * (l + 1) // 2 + l * (s - l) if causal else l * s
        flops = 2 * b * h * pairs * (e + ev)
        return flops, (numel(dims[0]) + numel(dims[1]) + numel(dims[2]) + b * h * l * ev) * es
    if name == "aten::_scaled_dot_product_flash_attention":  # [B, H, L, E], is_causal at 4
        (b, h, l, e), (_, _, s, _), (_, _, _, ev) = dims[0], dims[1], dims[2]
        pairs = l * (l + 1) // 2 + l * (s - l) if conc and conc[4] == "True" else l * s
        return 2 * b * h * pairs * (e + ev), (numel(dims[0]) + numel(dims[1]) + numel(dims[2]) + b * h * l * ev) * es
    if name == "aten::_flash_attention_forward":  # [B, L, H, E], is_causal at 8; S < L here
        (b, l, h, e), (_, s, _, _), (_, _, _, ev) = dims[0], dims[1], dims[2]
        causal = conc[8] == "True"
        pairs = (l * (l + 1) // 2 + l * (s - l) if s >= l else s * (s + 1) // 2) if causal else l * s
        return 2 * b * h * pairs * (e + ev), (numel(dims[0]) + numel(dims[1]) + numel(dims[2]) + b * h * l * ev) * es
    if name == "aten::convolution":  # transposed: x [N, Cin, L], W [Cin, Cout/g, k]
        (n, c, ln), (_, cog, k) = dims[0], dims[1]
        s, p, d = int(conc[3].strip("[]")), int(conc[4].strip("[]")), int(conc[5].strip("[]"))
        op, g = int(conc[7].strip("[]")), int(conc[8])
        assert conc[6] == "True"
        out = (ln - 1) * s - 2 * p + d * (k - 1) + op + 1
        flops = 2 * n * c * ln * cog * k
        return flops, (numel(dims[0]) + numel(dims[1]) + n * cog * g * out) * es
    raise ValueError(name)


def gen_kineto(path):
    """Two steps; each op (shapes, dtype) launches kernels through
    cudaLaunchKernel with an ac2g flow; aten::linear holds aten::addmm (the
    innermost op with a cost owns the kernel); one mm launches two kernels
    (3:1); aten::add_ has no FLOP formula."""
    ev = []
    pid, tid, gpid, stream = 100, 1, 0, 7
    ev.append({"ph": "M", "name": "process_name", "pid": gpid, "tid": 0, "args": {"name": "GPU 0"}})
    ev.append({"ph": "M", "name": "thread_name", "pid": gpid, "tid": stream, "args": {"name": f"stream {stream}"}})
    ops = [
        ("aten::mm", [[4096, 2048], [2048, 1024]], ["c10::BFloat16"] * 2, None, [30, 10]),
        ("aten::addmm", [[1024], [512, 2048], [2048, 1024], [], []], ["c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar"], None, [25]),
        ("aten::bmm", [[16, 256, 64], [16, 64, 256]], ["c10::BFloat16"] * 2, None, [12]),
        ("aten::baddbmm", [[16, 256, 256], [16, 256, 64], [16, 64, 256], [], []], ["float", "float", "float", "Scalar", "Scalar"], None, [40]),
        ("aten::matmul", [[8, 128, 512], [512, 256]], ["c10::BFloat16"] * 2, None, [9]),
        ("aten::conv2d", [[8, 64, 56, 56], [128, 32, 3, 3], [128], [], [], [], []], ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
         ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "2"], [50]),
        ("aten::scaled_dot_product_attention", [[4, 16, 1024, 64], [4, 16, 1024, 64], [4, 16, 1024, 64], [], [], [], []], ["c10::BFloat16"] * 3 + ["", "Scalar", "Scalar", ""],
         ["", "", "", "", "0.", "True", ""], [70]),
        ("aten::add_", [[4096, 1024], [4096, 1024], []], ["c10::BFloat16", "c10::BFloat16", "Scalar"], None, [20]),
        ("aten::linear", [[2, 64, 512], [256, 512], [256]], ["c10::Half"] * 3, None, [7]),
        ("aten::_scaled_dot_product_flash_attention", [[2, 8, 512, 64], [2, 8, 256, 64], [2, 8, 256, 32], [], [], [], []], ["c10::BFloat16"] * 3 + ["Scalar", "Scalar", "Scalar", ""],
         ["", "", "", "0.", "False", "False", ""], [33]),
        ("aten::_flash_attention_forward", [[2, 512, 8, 64], [2, 256, 8, 64], [2, 256, 8, 64]] + [[]] * 6, ["c10::Half"] * 3 + [""] * 6,
         ["", "", "", "", "", "512", "256", "0.", "True"], [21]),
        ("aten::convolution", [[4, 32, 100], [32, 8, 5], [], [], [], [], [], [], []], ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"],
         ["", "", "", "[2]", "[1]", "[1]", "True", "[1]", "2"], [17]),
    ]
    linear = ("aten::linear", [[2, 64, 2048], [1024, 2048], [1024]], ["c10::BFloat16"] * 3, None)
    truth = {}
    kernel_ns_total, kernel_ns_flops = 0, 0
    flow = 1
    t = 1000
    step_flops = {}
    for step in (1, 2):
        t0 = t
        ev_step = []
        for (name, dims, types, conc, kdurs) in ops + [("linear",) + tuple(linear[1:]) + ([15],)]:
            outer = None
            if name == "linear":
                outer = linear
                name, dims, types = "aten::addmm", [[1024], [128, 2048], [2048, 1024], [], []], ["c10::BFloat16"] * 3 + ["Scalar", "Scalar"]
            args = {"Input Dims": dims, "Input type": types}
            if conc:
                args["Concrete Inputs"] = conc
            dur = 20 + 10 * len(kdurs)
            if outer:
                ev_step.append({"ph": "X", "name": outer[0], "cat": "cpu_op", "pid": pid, "tid": tid, "ts": t - 2, "dur": dur + 4,
                                "args": {"Input Dims": outer[1], "Input type": outer[2]}})
            ev_step.append({"ph": "X", "name": name, "cat": "cpu_op", "pid": pid, "tid": tid, "ts": t, "dur": dur, "args": args})
            kt = t + 5
            gpu_t = t + 40
            for kd in kdurs:
                ev_step.append({"ph": "X", "name": "cudaLaunchKernel", "cat": "cuda_runtime", "pid": pid, "tid": tid, "ts": kt, "dur": 5,
                                "args": {"correlation": flow}})
                ev_step.append({"ph": "s", "id": flow, "pid": pid, "tid": tid, "ts": kt, "cat": "ac2g", "name": "ac2g"})
                kname = f"kernel_{name.split('::')[1]}_{kd}" + (f"_s{step}" if name == "aten::conv2d" else "")
                ev_step.append({"ph": "X", "name": kname, "cat": "kernel", "pid": gpid, "tid": stream, "ts": gpu_t, "dur": kd,
                                "args": {"correlation": flow, "device": 0, "stream": stream}})
                ev_step.append({"ph": "f", "id": flow, "pid": gpid, "tid": stream, "ts": gpu_t, "cat": "ac2g", "name": "ac2g", "bp": "e"})
                flow += 1
                kt += 10
                gpu_t += kd + 1
                kernel_ns_total += kd * 1000
            if name != "aten::add_":
                f, b = truth_of(name, dims, types, conc)
                r = truth.setdefault(name, {"count": 0, "flops": 0, "bytes": 0, "time_us": 0, "dtype": types[0]})
                r["count"] += 1
                r["flops"] += f
                r["bytes"] += b
                r["time_us"] += sum(kdurs)
                step_flops[step] = step_flops.get(step, 0) + f
                kernel_ns_flops += sum(kdurs) * 1000
            t = max(t + dur + 10, gpu_t + 5)
        ev.append({"ph": "X", "name": f"ProfilerStep#{step}", "cat": "user_annotation", "pid": pid, "tid": tid, "ts": t0 - 5, "dur": t - t0 + 10})
        ev.extend(ev_step)
        t += 20
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85031714816}],
           "traceEvents": ev}
    with open(path, "w") as f:
        json.dump(doc, f)
    steps = {}
    for e in ev:
        if e["name"].startswith("ProfilerStep#"):
            steps[int(e["name"][13:])] = e["dur"]
    return truth, steps, step_flops, kernel_ns_total, kernel_ns_flops


def peak_of(dtype):
    return {"c10::BFloat16": H100_BF16, "c10::Half": H100_FP16, "float": H100_FP32}[dtype]


if STRATA == "--gen":  # efficiency_tests.py --gen OUT.json: the Kineto trace and its truth (OUT.truth.json)
    truth, steps, step_flops, k_all, k_flops = gen_kineto(sys.argv[2])
    with open(sys.argv[2][:-5] + ".truth.json", "w") as f:
        json.dump({"ops": truth, "no_flops_pct": 100 * (k_all - k_flops) / k_all}, f)
    sys.exit(0)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "flops.json")
    truth, steps, step_flops, k_all, k_flops = gen_kineto(path)
    eff = analyze(path)
    dp = eff["device_peaks"]
    check(len(dp) == 1 and dp[0]["name"] == "NVIDIA H100 80GB HBM3", f"device peak name {dp}")
    check(dp and close(dp[0]["tflops_by_dtype"].get("bf16"), H100_BF16) and close(dp[0]["gbps"], H100_GBPS), f"H100 peaks {dp}")
    check(dp and "nvidia" in dp[0]["source"], f"source given {dp}")
    check(eff["headline_dtype"] == "bf16", f"headline {eff['headline_dtype']}")
    ops = {o["name"]: o for o in eff["ops"] if o["kind"] == "op"}
    check(ops.get("aten::linear", {}).get("count") == 2, "aten::linear: only its own kernels (the nested one's belong to the addmm inside it)")
    check("aten::add_" not in ops, "aten::add_ has no FLOP count")
    for name, r in truth.items():
        o = ops.get(name)
        check(o is not None, f"{name} in ops")
        if not o:
            continue
        check(o["count"] == r["count"], f"{name} count {o['count']} != {r['count']}")
        check(close(o["flops"], r["flops"]), f"{name} flops {o['flops']} != {r['flops']}")
        check(close(o["bytes"], r["bytes"]), f"{name} bytes {o['bytes']} != {r['bytes']}")
        check(close(o["time_us"], r["time_us"]), f"{name} time {o['time_us']} != {r['time_us']}")
        tf = r["flops"] / (r["time_us"] * 1e-6) / 1e12
        check(close(o["tflops"], tf, 1e-5), f"{name} tflops {o['tflops']} != {tf}")
        gb = r["bytes"] / (r["time_us"] * 1e-6) / 1e9
        check(close(o["gbps"], gb, 1e-5), f"{name} gbps {o['gbps']} != {gb}")
        pk = peak_of(r["dtype"])
        check(close(o["pct_of_peak"], 100 * tf / pk, 1e-3), f"{name} % of peak {o['pct_of_peak']} != {100 * tf / pk}")
        inten = r["flops"] / r["bytes"]
        check(close(o["intensity"], inten, 1e-5), f"{name} intensity")
        ridge = pk * 1e12 / (H100_GBPS * 1e9)
        check(o["bound"] == ("compute" if inten >= ridge else "memory"), f"{name} bound {o['bound']} (I {inten}, ridge {ridge})")
    # the mm's two kernels share its FLOPs 3:1 by duration
    kern = {o["name"]: o for o in eff["ops"] if o["kind"] == "kernel"}
    mm = truth["aten::mm"]["flops"] / truth["aten::mm"]["count"]
    check(close(kern.get("kernel_mm_30", {}).get("flops"), 2 * mm * 0.75), f"kernel_mm_30 flops {kern.get('kernel_mm_30')}")
    check(close(kern.get("kernel_mm_10", {}).get("flops"), 2 * mm * 0.25), "kernel_mm_10 flops")
    nf = 100 * (k_all - k_flops) / k_all
    check(close(eff["no_flops_pct"], nf, 1e-3), f"no_flops_pct {eff['no_flops_pct']} != {nf}")
    for s in eff["steps"]:
        wall = steps[s["step"]] * 1e-6
        f = step_flops[s["step"]]
        check(close(s["flops"], f), f"step {s['step']} flops {s['flops']} != {f}")
        mfu = 100 * f / (wall * H100_BF16 * 1e12)
        check(close(s["mfu_pct"], mfu, 1e-3), f"step {s['step']} mfu {s['mfu_pct']} != {mfu}")
    check(len(eff["steps"]) == 2, "two steps")
    # 4. overrides
    eff2 = analyze(path, "--peak-tflops", "100", "--peak-gbps", "1000")
    check(eff2["device_peaks"][0]["tflops"] == 100 and eff2["device_peaks"][0]["gbps"] == 1000 and eff2["device_peaks"][0]["source"] == "option", "overrides")
    o = {o["name"]: o for o in eff2["ops"]}["aten::mm"]
    check(close(o["pct_of_peak"], o["tflops"], 1e-3), "% of peak against the override")
    print("kineto: ok" if not failures else "kineto: failures")


# ---- 2. the corpus's Kineto traces with shapes -----------------------------
def corpus_truth(path):
    with gzip.open(path, "rt") as f:
        d = json.load(f)
    out = {}
    for e in d["traceEvents"]:
        a = e.get("args") or {}
        n = e.get("name")
        if n not in ("aten::mm", "aten::addmm", "aten::bmm") or "Input Dims" not in a:
            continue
        dims = a["Input Dims"]
        if n == "aten::mm":
            (m, k), (_, nn) = dims[0], dims[1]
            f = 2 * m * k * nn
        elif n == "aten::addmm":
            (m, k), (_, nn) = dims[1], dims[2]
            f = 2 * m * k * nn
        else:
            (b, m, k), (_, _, nn) = dims[0], dims[1]
            f = 2 * b * m * k * nn
        r = out.setdefault(n, [0, 0])
        r[0] += 1
        r[1] += f
    return out


for name in ("hta__control.json.gz", "hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz"):
    p = os.path.join(CORPUS, name)
    if not os.path.exists(p):
        print("skip (corpus file missing):", name)
        continue
    want = corpus_truth(p)
    got = {o["name"]: o for o in analyze(p, "--ops", "0")["ops"] if o["kind"] == "op"}
    for n, (cnt, fl) in want.items():
        o = got.get(n)
        check(o is not None and o["count"] == cnt and close(o["flops"], fl), f"{name} {n}: {o and (o['count'], o['flops'])} != {(cnt, fl)}")
    print(f"corpus {name}: {len(want)} ops checked")


# ---- 3. a generated XSpace ------------------------------------------------------
def varint(v):
    out = b""
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def fv(num, v):
    return varint(num << 3) + varint(v)


def fl(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data


def fd(num, x):
    return varint(num << 3 | 1) + struct.pack("<d", x)


STATS = {1: "flops", 2: "bytes_accessed", 3: "model_flops", 4: "peak_teraflops_per_second", 5: "peak_hbm_bw_gigabytes_per_second",
         6: "device_type_string"}


def stat_u(mid, v):
    return fl(4, fv(1, mid) + fv(3, v))  # XEvent.stats / XEventMetadata.stats (field 4 / 5 below)


def gen_xspace(path, device_type=None):
    """One TPU plane: its own peak stats, or (device_type) only its type."""
    xla_ops = [  # name, flops, bytes, model_flops (None: not stated), dur_ps, stats on the metadata?
        ("fusion.1", 2_000_000_000, 50_000_000, 1_800_000_000, 4_000_000, True),
        ("convolution.2", 8_000_000_000, 120_000_000, None, 10_000_000, False),
        ("copy.3", 0, 64_000_000, None, 2_000_000, True),
    ]
    plane = fv(1, 0) + fl(2, b"/device:TPU:0")
    for mid, name in STATS.items():
        plane += fl(5, fv(1, mid) + fl(2, fv(1, mid) + fl(2, name.encode())))
    if device_type:
        plane += fl(6, fv(1, 6) + fl(5, device_type.encode()))
    else:
        plane += fl(6, fv(1, 4) + fd(2, 275.0)) + fl(6, fv(1, 5) + fd(2, 1200.0))
    for i, (name, f, b, mf, dur, on_meta) in enumerate(xla_ops):
        stats = fl(5, fv(1, 1) + fv(3, f)) + fl(5, fv(1, 2) + fv(3, b))
        if mf is not None:
            stats += fl(5, fv(1, 3) + fv(3, mf))
        meta = fv(1, i + 1) + fl(2, name.encode()) + (stats if on_meta else b"")
        plane += fl(4, fv(1, i + 1) + fl(2, meta))
    plane += fl(4, fv(1, 100) + fl(2, fv(1, 100) + fl(2, b"1")))
    plane += fl(4, fv(1, 101) + fl(2, fv(1, 101) + fl(2, b"2")))
    events, t, truth, steps = b"", 0, {}, []
    for step in (100, 101):
        t0 = t
        for i, (name, f, b, mf, dur, on_meta) in enumerate(xla_ops):
            st = b""
            if not on_meta:
                st = fl(4, fv(1, 1) + fv(3, f)) + fl(4, fv(1, 2) + fv(3, b))
                if mf is not None:
                    st += fl(4, fv(1, 3) + fv(3, mf))
            events += fl(4, fv(1, i + 1) + fv(2, t) + fv(3, dur) + st)
            r = truth.setdefault(name, {"count": 0, "flops": 0, "bytes": 0, "model_flops": 0, "time_ps": 0})
            r["count"] += 1
            r["flops"] += f
            r["bytes"] += b
            r["model_flops"] += mf if mf is not None else f
            r["time_ps"] += dur
            t += dur + 1_000_000
        steps.append((step - 99, t0, t))
    line = fv(1, 1) + fl(2, b"XLA Ops") + fv(3, 1000) + events
    sline = b""
    for (n, a, z) in steps:
        sline += fl(4, fv(1, 99 + n) + fv(2, a) + fv(3, z - a))
    steps_line = fv(1, 2) + fl(2, b"Steps") + fv(3, 1000) + sline
    plane = plane[:0] + plane + fl(3, steps_line) + fl(3, line)
    with open(path, "wb") as f:
        f.write(fl(1, plane))
    return truth, steps


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "tpu.xplane.pb")
    truth, steps = gen_xspace(path)
    eff = analyze(path)
    dp = eff["device_peaks"]
    check(len(dp) == 1 and dp[0]["tflops"] == 275 and dp[0]["gbps"] == 1200 and dp[0]["source"] == "file", f"xplane peaks {dp}")
    ops = {o["name"]: o for o in eff["ops"]}
    for name, r in truth.items():
        o = ops.get(name)
        check(o is not None and o["kind"] == "xla", f"{name} in ops as xla: {o}")
        if not o:
            continue
        check(o["count"] == r["count"], f"{name} count")
        check(close(o["flops"], r["flops"]) and close(o["bytes"], r["bytes"]), f"{name} flops/bytes {o['flops']}/{o['bytes']} != {r['flops']}/{r['bytes']}")
        check(close(o["model_flops"], r["model_flops"]), f"{name} model_flops")
        check(close(o["time_us"], r["time_ps"] / 1e6), f"{name} time {o['time_us']} != {r['time_ps'] / 1e6}")
        if r["flops"]:
            tf = r["flops"] / (r["time_ps"] * 1e-12) / 1e12
            check(close(o["pct_of_peak"], 100 * tf / 275, 1e-3), f"{name} % of peak")
    check(eff["no_flops_pct"] == 0, f"every XLA op has a count: {eff['no_flops_pct']}")
    check(len(eff["steps"]) == 2, f"xplane steps {eff['steps']}")
    for s in eff["steps"]:
        n, a, z = steps[s["step"] - 1]
        mf = sum(x[3] if x[3] is not None else x[1] for x in [("f", 2_000_000_000, 0, 1_800_000_000), ("c", 8_000_000_000, 0, None), ("k", 0, 0, None)])
        hf = 10_000_000_000
        wall = (z - a) * 1e-12
        check(close(s["mfu_pct"], 100 * mf / (wall * 275e12), 1e-3), f"xplane step mfu {s}")
        check(close(s["hfu_pct"], 100 * hf / (wall * 275e12), 1e-3), f"xplane step hfu {s}")
    # a plane stating only its type: the table's peaks (TPU v5e: 197 TFLOP/s bf16, 819 GB/s)
    path = os.path.join(tmp, "v5e.xplane.pb")
    gen_xspace(path, "TPU v5 lite")
    eff = analyze(path)
    dp = eff["device_peaks"]
    check(len(dp) == 1 and dp[0]["name"] == "TPU v5 lite" and dp[0]["tflops"] == 197 and dp[0]["gbps"] == 819
          and "cloud.google.com/tpu/docs/v5e" in dp[0]["source"], f"v5e peaks from the table {dp}")
    o = {o["name"]: o for o in eff["ops"]}["fusion.1"]
    check(close(o["pct_of_peak"], 100 * o["tflops"] / 197, 1e-3), "fusion.1 % of the v5e peak")
    print("xplane: ok" if not failures else "xplane: failures")

print("efficiency tests:", "FAILED" if failures else "passed")
sys.exit(1 if failures else 0)
