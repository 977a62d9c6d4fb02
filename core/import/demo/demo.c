/* demo.c: the generated demo trace (see demo.h): a JAX-like GPU training run
 * written as Chrome Trace Event JSON in the shape the XLA/TSL writer uses
 * (object form, displayTimeUnit "ns", M events first, args as strings, a
 * trailing {} sentinel), plus what other tools add: B/E pairs on the Python
 * thread, instants and counters.
 *
 * Contents
 *   1. PRNG (splitmix64; state lives in the generator, no globals)
 *   2. buffered writer (64 KiB chunks to the callback)
 *   3. the "program": one XLA module's op sequence, fixed per seed
 *   4. one training step: host slices, per-GPU Steps / Modules / Ops /
 *      streams, counters, instants
 *   5. st_demo_write: sizing and the top-level object
 *
 * With st_demo_desc.flows, launch arrows are written as Chrome v1 flow
 * events: an "s" inside the launching slice and an "f" with "bp":"e"
 * inside the launched one (both bind to their enclosing slice).
 *
 * Sizing: a step emits about HOST_EVENTS + gpus * (2 * ops + 10) events; the
 * op count per step is chosen so that even small targets get several steps,
 * and steps are emitted until the next one would overshoot the target by
 * more than it undershoots.
 */
#include "demo.h"

#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

/* ==== 1. PRNG ============================================================ */

typedef struct rng {
  uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* uniform in [lo, hi] */
static int64_t rng_range(rng *r, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* ==== 2. writer ========================================================== */

#define BUF_SIZE (64u * 1024u)

typedef struct writer {
  st_write_fn fn;
  void *ud;
  int failed;
  size_t len;
  uint64_t events; /* event objects written (M events and the sentinel included) */
  int lean;        /* st_demo_desc.lean: slice args are not written */
  int mute;        /* inside args that lean mode leaves out */
  char buf[BUF_SIZE];
} writer;

static void w_flush(writer *w) {
  if (w->len && !w->failed && w->fn(w->ud, w->buf, w->len) != 0) w->failed = 1;
  w->len = 0;
}

static void w_bytes(writer *w, const char *s, size_t n) {
  if (w->mute) return;
  while (n) {
    if (w->len == BUF_SIZE) w_flush(w);
    size_t k = BUF_SIZE - w->len;
    if (k > n) k = n;
    memcpy(w->buf + w->len, s, k);
    w->len += k;
    s += k;
    n -= k;
  }
}
static void w_str(writer *w, const char *s) { w_bytes(w, s, strlen(s)); }

/* A slice's args object: `,"args":{...}}` closes the event too. Lean mode
 * writes only the closing brace of the event. */
static void w_args_open(writer *w) {
  if (w->lean)
    w->mute = 1;
  else
    w_str(w, ",\"args\":");
}
static void w_args_close(writer *w) {
  w->mute = 0;
  w_str(w, w->lean ? "}" : "}}");
}

static void w_u64(writer *w, uint64_t v) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[sizeof tmp - 1 - n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  w_bytes(w, tmp + sizeof tmp - n, n);
}
static void w_i64(writer *w, int64_t v) {
  if (v < 0) {
    w_bytes(w, "-", 1);
    w_u64(w, (uint64_t)0 - (uint64_t)v);
  } else {
    w_u64(w, (uint64_t)v);
  }
}
/* ns as decimal microseconds with three decimals: 1234567 -> 1234.567 */
static void w_us(writer *w, int64_t ns) {
  if (ns < 0) {
    w_bytes(w, "-", 1);
    ns = -ns;
  }
  w_u64(w, (uint64_t)ns / 1000);
  char f[4] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10), (char)('0' + ns % 10)};
  w_bytes(w, f, 4);
}
/* Only for strings we generate: no quotes, backslashes or controls. */
static void w_qstr(writer *w, const char *s) {
  w_bytes(w, "\"", 1);
  w_str(w, s);
  w_bytes(w, "\"", 1);
}

/* Starts an event object: {"ph":"X","pid":P,"tid":T,"ts":..., "name":"..." */
static void w_begin(writer *w, char ph, int64_t pid, int64_t tid, int64_t ts, const char *name) {
  w_str(w, w->events ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
  w_bytes(w, &ph, 1);
  w_str(w, "\",\"pid\":");
  w_i64(w, pid);
  w_str(w, ",\"tid\":");
  w_i64(w, tid);
  if (ph != 'M') {
    w_str(w, ",\"ts\":");
    w_us(w, ts);
  }
  w_str(w, ",\"name\":");
  w_qstr(w, name);
  w->events++;
}
static void w_dur(writer *w, int64_t dur) {
  w_str(w, ",\"dur\":");
  w_us(w, dur);
}
static void w_cat(writer *w, const char *cat) {
  w_str(w, ",\"cat\":");
  w_qstr(w, cat);
}
static void w_end(writer *w) { w_str(w, "}"); }

static void w_meta(writer *w, int64_t pid, int64_t tid, const char *what, const char *name,
                   int64_t sort) {
  w_begin(w, 'M', pid, tid, 0, what);
  if (name) {
    w_str(w, ",\"args\":{\"name\":");
    w_qstr(w, name);
    w_str(w, "}}");
  } else {
    w_str(w, ",\"args\":{\"sort_index\":");
    w_i64(w, sort);
    w_str(w, "}}");
  }
}

/* ==== 3. the program ===================================================== */

#define MAX_OPS 200           /* ops per step when the step count is chosen here */
#define MAX_OPS_FIXED 4000000 /* ops per step when the caller fixes the steps */
#define MIN_OPS 8
#define HOST_PID 701
#define TID_PY 701
#define TID_PJRT 1245
#define TID_CPU0 1301
#define CPU_THREADS 4
#define TID_STEPS 1
#define TID_MODULES 2
#define TID_OPS 3
#define TID_COMPUTE 7
#define TID_H2D 13
#define TID_D2H 14
#define HOST_EVENTS 18 /* per step, see emit_step */
#define GPU_EXTRA 10   /* per step and GPU besides ops and kernels */

typedef enum op_kind {
  OP_FUSION,
  OP_CONV,
  OP_DOT,
  OP_CUSTOM,
  OP_ALLREDUCE,
  OP_COPY_START,
  OP_COPY_DONE,
  OP_REDUCE,
  OP_TRANSPOSE,
  OP_BROADCAST,
  OP_SELECT_SCATTER,
  OP_DUS,
  OP_KINDS
} op_kind;

static const char *const op_hlo[OP_KINDS] = {"fusion",
                                             "convolution",
                                             "dot",
                                             "custom-call",
                                             "all-reduce",
                                             "copy-start",
                                             "copy-done",
                                             "reduce",
                                             "transpose",
                                             "broadcast",
                                             "select-and-scatter",
                                             "dynamic-update-slice"};
/* cumulative weights out of 100 */
static const int op_weight[OP_KINDS] = {45, 55, 65, 72, 77, 80, 83, 88, 93, 96, 98, 100};
/* base duration range, ns */
static const int64_t op_dur[OP_KINDS][2] = {{2000, 60000},   {50000, 400000}, {20000, 300000},
                                            {10000, 200000}, {30000, 200000}, {1000, 5000},
                                            {1000, 20000},   {3000, 40000},   {2000, 30000},
                                            {1000, 8000},    {10000, 80000},  {2000, 20000}};
static const char *const kernel_name[OP_KINDS] = {
    "loop_fusion",
    ("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
     "stage4_warpsize2x2x1_g1_tensor16x8x8"),
    "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4",
    "cublasLt::gemm_bf16_splitK",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
    "MemcpyD2H",
    "MemcpyD2H",
    "input_reduce_fusion",
    "transpose_kernel_tiled",
    "broadcast_in_dim_kernel",
    "select_and_scatter_kernel",
    "dynamic_update_slice_in_place"};
static const char *const sources[] = {"train.py",
                                      "model.py",
                                      "flax/linen/linear.py",
                                      "flax/linen/normalization.py",
                                      "optax/_src/transform.py",
                                      "jax/_src/nn/functions.py"};
static const char *const fusion_kinds[] = {"kLoop", "kInput", "kOutput", "kCustom"};
static const char *const dtypes[] = {"f32", "bf16", "f16", "s32"};

typedef struct op {
  uint8_t kind;
  char name[40];
  char long_name[200];
  char tf_op[80];
  char source[48];
  int64_t dur_lo, dur_hi;
  uint64_t flops, bytes;
} op;

typedef struct gen {
  writer w;
  rng r;
  int flows;        /* st_demo_desc.flows */
  uint64_t flow_id; /* the last flow id written */
  uint32_t gpus, nops;
  int kineto;
  const char *slow_op; /* NULL: none */
  double slow_factor;
  int slow_compute;
  int64_t idle_gap;    /* planted in this step: 0 none */
  int64_t idle_gap_ns; /* st_demo_desc's */
  uint32_t idle_every;
  double spread;
  int kinds;
  op *ops;                /* the program: nops ops */
  int64_t *starts, *ends; /* one GPU's op times in the current step */
} gen;

static void make_program(gen *g) {
  uint32_t serial = 1;
  for (uint32_t i = 0; i < g->nops; i++) {
    op *o = &g->ops[i];
    int pick = (int)rng_range(&g->r, 0, 99), k = 0;
    while (pick >= op_weight[k]) k++;
    /* copy-done follows copy-start */
    if (i > 0 && g->ops[i - 1].kind == OP_COPY_START) k = OP_COPY_DONE;
    if (k == OP_COPY_DONE && (i == 0 || g->ops[i - 1].kind != OP_COPY_START)) k = OP_COPY_START;
    o->kind = (uint8_t)k;
    serial += (uint32_t)rng_range(&g->r, 1, 7);
    char nm[40]; /* a local copy: snprintf into o->long_name must not read from *o */
    snprintf(nm, sizeof nm, "%s.%u", op_hlo[k], serial);
    memcpy(o->name, nm, sizeof nm);
    const char *dt = dtypes[rng_range(&g->r, 0, 3)];
    int64_t d0 = 1 << rng_range(&g->r, 5, 11), d1 = 1 << rng_range(&g->r, 6, 12);
    uint32_t p0 = (uint32_t)rng_range(&g->r, 0, 40), p1 = (uint32_t)rng_range(&g->r, 1, 300);
    if (k == OP_FUSION)
      snprintf(o->long_name, sizeof o->long_name,
               "%%%s = %s[%d,%d]{1,0} fusion(%s[%d,%d]{1,0} %%param.%u, %s[%d]{0} "
               "%%get-tuple-element.%u), kind=%s, calls=%%fused_computation.%u",
               nm, dt, (int)d0, (int)d1, dt, (int)d0, (int)d1, p0, dt, (int)d1, p1,
               fusion_kinds[rng_range(&g->r, 0, 3)], serial);
    else if (k == OP_CUSTOM)
      snprintf(o->long_name, sizeof o->long_name,
               "%%%s = (%s[%d,%d]{1,0}, s8[4194304]{0}) custom-call(%s[%d,%d]{1,0} %%p.%u), "
               "custom_call_target=\"__cublas$lt$matmul\"",
               nm, dt, (int)d0, (int)d1, dt, (int)d1, (int)d0, p0);
    else
      snprintf(o->long_name, sizeof o->long_name,
               "%%%s = %s[%d,%d]{1,0} %s(%s[%d,%d]{1,0} %%p.%u, %s[%d,%d]{1,0} %%p.%u)", nm, dt,
               (int)d0, (int)d1, op_hlo[k], dt, (int)d0, (int)d1, p0, dt, (int)d1, (int)d0, p1);
    /* the custom-call long_name carries quotes; keep the generated JSON simple */
    for (char *c = o->long_name; *c; c++)
      if (*c == '"') *c = '\'';
    static const char *const prim[] = {
        "dot_general",      "add",      "mul", "reduce_sum", "conv_general_dilated", "transpose",
        "broadcast_in_dim", "select_n", "exp", "rsqrt"};
    snprintf(o->tf_op, sizeof o->tf_op, "jit(train_step)/jit(main)/%s/%s",
             rng_range(&g->r, 0, 1) ? "transpose(jvp(Model))" : "jvp(Model)",
             prim[rng_range(&g->r, 0, 9)]);
    snprintf(o->source, sizeof o->source, "%s:%d", sources[rng_range(&g->r, 0, 5)],
             (int)rng_range(&g->r, 12, 480));
    int64_t lo = op_dur[k][0], hi = op_dur[k][1];
    o->dur_lo = rng_range(&g->r, lo, (lo + hi) / 2);
    o->dur_hi = o->dur_lo + (o->dur_lo / 5) + 1;
    o->bytes = (uint64_t)(d0 * d1 * 4) * (uint64_t)rng_range(&g->r, 1, 3);
    o->flops = k == OP_CONV || k == OP_DOT || k == OP_CUSTOM
                   ? (uint64_t)(d0 * d1) * 2 * (uint64_t)d0
               : (k == OP_FUSION || k == OP_REDUCE)
                   ? (uint64_t)(d0 * d1) * (uint64_t)rng_range(&g->r, 1, 6)
                   : 0;
  }
}

/* ==== 4. one step ======================================================== */

static void w_arg_str(writer *w, int first, const char *key, const char *val) {
  w_str(w, first ? "{\"" : ",\"");
  w_str(w, key);
  w_str(w, "\":");
  w_qstr(w, val);
}
static void w_arg_u64(writer *w, int first, const char *key, uint64_t v) {
  w_str(w, first ? "{\"" : ",\"");
  w_str(w, key);
  w_str(w, "\":\""); /* XLA writes every arg value as a string */
  w_u64(w, v);
  w_str(w, "\"");
}

static void x_event(writer *w, int64_t pid, int64_t tid, int64_t ts, int64_t dur, const char *name,
                    const char *cat) {
  w_begin(w, 'X', pid, tid, ts, name);
  w_dur(w, dur);
  if (cat) w_cat(w, cat);
}

/* One launch arrow: an "s" at ts0 on (pid0, tid0) to an "f" at ts1 on
 * (pid1, tid1); each binds to the slice enclosing it. */
static void flow_arrow(gen *g, int64_t pid0, int64_t tid0, int64_t ts0, int64_t pid1, int64_t tid1,
                       int64_t ts1) {
  writer *w = &g->w;
  uint64_t id = ++g->flow_id;
  w_begin(w, 's', pid0, tid0, ts0, "launch");
  w_cat(w, "flow");
  w_str(w, ",\"id\":");
  w_u64(w, id);
  w_end(w);
  w_begin(w, 'f', pid1, tid1, ts1, "launch");
  w_cat(w, "flow");
  w_str(w, ",\"bp\":\"e\",\"id\":");
  w_u64(w, id);
  w_end(w);
}

/* One GPU's share of a step starting at t; returns the end time. */
static int64_t emit_gpu(gen *g, uint32_t gpu, uint32_t step, int64_t t, int64_t launch_ts,
                        double *mem) {
  writer *w = &g->w;
  int64_t pid = 1 + gpu;
  char buf[64];
  int64_t h2d = rng_range(&g->r, 40000, 90000);
  x_event(w, pid, TID_H2D, t, h2d, "MemcpyH2D", "memcpy");
  w_args_open(w);
  w_arg_u64(w, 1, "bytes", (uint64_t)h2d * 12000);
  w_args_close(w);
  int64_t m0 = t + h2d + rng_range(&g->r, 3000, 9000), cur = m0;
  int64_t step_t0 = t;
  w_begin(w, 'C', pid, 0, t, "Memory usage (GB)");
  *mem += (double)rng_range(&g->r, -50, 50) / 100.0;
  if (*mem < 4) *mem = 4;
  if (*mem > 30) *mem = 30;
  snprintf(buf, sizeof buf, ",\"args\":{\"used\":%.3f}}", *mem);
  w_str(w, buf);
  /* ops and their kernels, written after the module so the module (which
   * starts earlier) comes first in file order, as XProf sorts it */
  int64_t *ends = g->ends, *starts = g->starts;
  for (uint32_t i = 0; i < g->nops; i++) {
    const op *o = &g->ops[i];
    cur += rng_range(&g->r, 500, 4000);
    starts[i] = cur;
    int64_t d = rng_range(&g->r, o->dur_lo, o->dur_hi);
    if (g->spread > 1) /* log-uniform: spread^u, u uniform in [0, 1] */
      d = (int64_t)((double)d * pow(g->spread, (double)rng_range(&g->r, 0, 1000000) / 1e6));
    if (g->slow_op && (!strcmp(g->slow_op, op_hlo[o->kind]) || !strcmp(g->slow_op, o->name)))
      d = (int64_t)((double)d * g->slow_factor);
    else if (g->slow_compute && o->kind != OP_ALLREDUCE && o->kind != OP_COPY_START &&
             o->kind != OP_COPY_DONE)
      d = (int64_t)((double)d * g->slow_factor);
    /* the planted idle gap: this op's kernel (500 ns after its start, see
     * below) starts exactly idle_gap after the previous kernel's end (its
     * op's end - 100 ns) */
    if (g->idle_gap && i == g->nops / 2 && i > 0) {
      cur = ends[i - 1] - 100 + g->idle_gap - 500;
      starts[i] = cur;
    }
    cur += d;
    ends[i] = cur;
  }
  int64_t m1 = cur + rng_range(&g->r, 1000, 3000);
  snprintf(buf, sizeof buf, "train_step %u", step);
  int64_t d2h = rng_range(&g->r, 5000, 20000);
  int64_t step_end = m1 + d2h + 2000;
  x_event(w, pid, TID_STEPS, step_t0, step_end - step_t0, buf, NULL);
  w_args_open(w);
  w_arg_u64(w, 1, "step_num", step);
  w_args_close(w);
  x_event(w, pid, TID_MODULES, m0, m1 - m0, "jit_train_step(8415209361)", NULL);
  w_args_open(w);
  w_arg_str(w, 1, "long_name", "jit_train_step(8415209361)");
  w_arg_u64(w, 0, "run_id", 4000 + step);
  w_args_close(w);
  if (g->flows) flow_arrow(g, HOST_PID, TID_PJRT, launch_ts, pid, TID_MODULES, m0);
  for (uint32_t i = 0; i < g->nops; i++) {
    const op *o = &g->ops[i];
    x_event(w, pid, TID_OPS, starts[i], ends[i] - starts[i], o->name, NULL);
    w_args_open(w);
    w_arg_str(w, 1, "long_name", o->long_name);
    w_arg_str(w, 0, "hlo_op", o->name);
    w_arg_str(w, 0, "hlo_module", "jit_train_step");
    w_arg_str(w, 0, "tf_op", o->tf_op);
    w_arg_str(w, 0, "source", o->source);
    w_arg_u64(w, 0, "flops", o->flops);
    w_arg_u64(w, 0, "bytes_accessed", o->bytes);
    w_args_close(w);
    /* the kernel(s): memcpy ops go to the D2H stream */
    int64_t ks = starts[i] + rng_range(&g->r, 200, 800), kd = ends[i] - ks - 100;
    if (g->idle_gap && i == g->nops / 2 && i > 0) {
      ks = starts[i] + 500;
      kd = ends[i] - ks - 100;
    }
    if (kd < 100) kd = 100;
    int64_t stream = o->kind == OP_COPY_START || o->kind == OP_COPY_DONE ? TID_D2H : TID_COMPUTE;
    x_event(w, pid, stream, ks, kd, kernel_name[o->kind], "kernel");
    w_args_open(w);
    w_arg_u64(w, 1, "correlation_id", (uint64_t)step * (g->nops < 1000 ? 1000 : 10000000) + i);
    w_arg_str(w, 0, "hlo_op", o->name);
    if (stream == TID_COMPUTE) {
      w_arg_str(w, 0, "grid", "120,1,1");
      w_arg_str(w, 0, "block", "256,1,1");
    }
    w_args_close(w);
    if (g->flows && i % 5 < 3) flow_arrow(g, pid, TID_OPS, starts[i], pid, stream, ks);
  }
  x_event(w, pid, TID_D2H, m1, d2h, "MemcpyD2H", "memcpy");
  w_args_open(w);
  w_arg_u64(w, 1, "bytes", (uint64_t)d2h * 4000);
  w_args_close(w);
  /* memory peaks mid-step, falls back at the end */
  double peak = *mem + (double)rng_range(&g->r, 200, 600) / 100.0;
  w_begin(w, 'C', pid, 0, (m0 + m1) / 2, "Memory usage (GB)");
  snprintf(buf, sizeof buf, ",\"args\":{\"used\":%.3f}}", peak);
  w_str(w, buf);
  w_begin(w, 'C', pid, 0, m1, "Memory usage (GB)");
  snprintf(buf, sizeof buf, ",\"args\":{\"used\":%.3f}}", *mem);
  w_str(w, buf);
  w_begin(w, 'i', pid, TID_STEPS, step_end, "StepEnd");
  w_str(w, ",\"s\":\"t\"}");
  return step_end;
}

/* One training step starting at t; returns its end. Host events: B/E (2),
 * 6 nested X on the Python thread, 1 instant, 1 CPU counter, gpus pjrt X,
 * 4 CPU client X, 1 X per GPU barrier wait (~= HOST_EVENTS). */
static int64_t emit_step(gen *g, uint32_t step, int64_t t, double *mem) {
  writer *w = &g->w;
  char buf[96];
  snprintf(buf, sizeof buf, g->kineto ? "ProfilerStep#%u" : "train_loop iteration %u", step);
  w_begin(w, 'B', HOST_PID, TID_PY, t, buf);
  w_cat(w, "python");
  w_end(w);
  int64_t dl = rng_range(&g->r, 100000, 600000);
  x_event(w, HOST_PID, TID_PY, t + 5000, dl, "data_loader.__next__", "python");
  w_end(w);
  x_event(w, HOST_PID, TID_PY, t + 8000, dl / 3, "numpy.stack", "python");
  w_end(w);
  int64_t p0 = t + 5000 + dl + 20000;
  int64_t disp = rng_range(&g->r, 150000, 300000);
  if (g->kinds) { /* an annotation around the dispatch */
    x_event(w, HOST_PID, TID_PY, p0 - 1000, disp + 2000, "## forward ##", "user_annotation");
    w_end(w);
  }
  x_event(w, HOST_PID, TID_PY, p0, disp, "PjitFunction(train_step)", "python");
  w_args_open(w);
  w_arg_str(w, 1, "source", "train.py:214");
  w_args_close(w);
  x_event(w, HOST_PID, TID_PY, p0 + 10000, disp - 30000,
          "jax._src.interpreters.pxla.ExecuteReplicated", "python");
  w_end(w);
  x_event(w, HOST_PID, TID_PY, p0 + 20000, disp - 60000,
          "PjRtStreamExecutorLoadedExecutable::Execute", "runtime");
  w_end(w);
  w_begin(w, 'i', HOST_PID, TID_PY, p0, "dispatch");
  w_str(w, ",\"s\":\"t\"}");
  int64_t dev0 = p0 + 40000, end = dev0;
  for (uint32_t k = 0; k < g->gpus; k++) {
    x_event(w, HOST_PID, TID_PJRT, dev0 - 15000 + (int64_t)k * 6000, 5000,
            "PjRtStreamExecutorClient::ExecuteHelper", "runtime");
    w_args_open(w);
    w_arg_u64(w, 1, "device", k);
    w_args_close(w);
    if (g->kinds) {
      x_event(w, HOST_PID, TID_PJRT, dev0 - 15000 + (int64_t)k * 6000 + 1000, 2000,
              "cudaLaunchKernel", "cuda_runtime");
      w_end(w);
    }
  }
  for (uint32_t k = 0; k < CPU_THREADS; k++) {
    int64_t s = dev0 + rng_range(&g->r, 0, 100000);
    x_event(w, HOST_PID, TID_CPU0 + k, s, rng_range(&g->r, 2000, 30000),
            "TfrtCpuExecutable::ExecuteHelper", "runtime");
    w_end(w);
  }
  for (uint32_t k = 0; k < g->gpus; k++) {
    int64_t launch = dev0 - 15000 + (int64_t)k * 6000 + 2000; /* inside its ExecuteHelper */
    int64_t e =
        emit_gpu(g, k, step, dev0 + (int64_t)k * rng_range(&g->r, 1000, 8000), launch, &mem[k]);
    if (e > end) end = e;
  }
  int64_t bw = p0 + disp + 5000;
  if (end > bw) {
    x_event(w, HOST_PID, TID_PY, bw, end - bw, "block_until_ready", "python");
    w_end(w);
    if (g->kinds && end - bw > 2000) { /* the host waits for the device */
      x_event(w, HOST_PID, TID_PY, bw + 500, end - bw - 1000, "cudaStreamSynchronize",
              "cuda_runtime");
      w_end(w);
    }
  } else {
    end = bw + 1000;
  }
  w_begin(w, 'C', HOST_PID, 0, t, "CPU utilization (%)");
  snprintf(buf, sizeof buf, ",\"args\":{\"value\":%d}}", (int)rng_range(&g->r, 20, 95));
  w_str(w, buf);
  int64_t e = end + rng_range(&g->r, 10000, 40000);
  snprintf(buf, sizeof buf, g->kineto ? "ProfilerStep#%u" : "train_loop iteration %u", step);
  w_begin(w, 'E', HOST_PID, TID_PY, e, buf);
  w_end(w);
  return e;
}

/* The generator's truth of `strata analyze`'s kinds: "strataGenKinds":
 * {name: kind} for every slice name written. */
static void write_kinds(gen *g, uint32_t first_step, uint32_t nsteps) {
  writer *w = &g->w;
  char buf[96];
  static const char *const host[] = {"data_loader.__next__",
                                     "numpy.stack",
                                     "PjitFunction(train_step)",
                                     "jax._src.interpreters.pxla.ExecuteReplicated",
                                     "PjRtStreamExecutorLoadedExecutable::Execute",
                                     "PjRtStreamExecutorClient::ExecuteHelper",
                                     "TfrtCpuExecutable::ExecuteHelper",
                                     "block_until_ready"};
  static const char *const fixed[][2] = {{"cudaLaunchKernel", "runtime"},
                                         {"cudaStreamSynchronize", "runtime"},
                                         {"## forward ##", "annotation"},
                                         {"PyTorch Profiler (0)", "wrapper"},
                                         {"jit_train_step(8415209361)", "wrapper"},
                                         {"MemcpyH2D", "kernel"},
                                         {"MemcpyD2H", "kernel"}};
  w_str(w, ",\"strataGenKinds\":{");
  int first = 1;
#define KIND(name, kind)                                                                           \
  do {                                                                                             \
    w_str(w, first ? "" : ",");                                                                    \
    first = 0;                                                                                     \
    w_qstr(w, name);                                                                               \
    w_str(w, ":\"" kind "\"");                                                                     \
  } while (0)
  for (size_t i = 0; i < sizeof host / sizeof host[0]; i++) KIND(host[i], "host");
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    w_str(w, ",");
    w_qstr(w, fixed[i][0]);
    w_str(w, ":");
    w_qstr(w, fixed[i][1]);
  }
  for (int i = 0; i < OP_KINDS; i++) KIND(kernel_name[i], "kernel");
  for (uint32_t i = 0; i < g->nops; i++) KIND(g->ops[i].name, "kernel");
  for (uint32_t k = 0; k < nsteps; k++) {
    snprintf(buf, sizeof buf, g->kineto ? "ProfilerStep#%u" : "train_loop iteration %u",
             first_step + k);
    KIND(buf, "wrapper");
    snprintf(buf, sizeof buf, "train_step %u", first_step + k);
    KIND(buf, "wrapper");
  }
#undef KIND
  w_str(w, "}");
}

/* ==== 5. entry point ===================================================== */

st_code st_demo_write(const st_demo_desc *d, st_write_fn write, void *ud) {
  if (!write) return ST_ERR_ARG;
  st_demo_desc dd = d ? *d : (st_demo_desc){0};
  if (!dd.seed) dd.seed = 1;
  if (!dd.target_events) dd.target_events = ST_DEMO_EVENTS;
  if (!dd.gpus) dd.gpus = 2;
  if (dd.gpus > 64) return ST_ERR_ARG;

  /* the generator is big (64 KiB buffer + program): the caller's stack can
   * take it natively, but wasm stacks are small, so it lives in a struct we
   * allocate. */
  st_alloc a = {0};
  gen *g = st_calloc(&a, 1, sizeof *g);
  if (!g) return ST_ERR_NOMEM;
  g->w.fn = write;
  g->w.ud = ud;
  g->w.lean = dd.lean != 0;
  g->flows = dd.flows != 0;
  g->r.s = dd.seed * 0x2545f4914f6cdd1dull;
  g->gpus = dd.gpus;
  g->kineto = dd.kineto != 0;
  g->slow_op = dd.slow_op && *dd.slow_op ? dd.slow_op : NULL;
  g->slow_factor = dd.slow_factor > 0 ? dd.slow_factor : 2.0;
  if (!dd.first_step) dd.first_step = 1;
  /* ops per step: aim for >= ~50 steps, within [MIN_OPS, MAX_OPS]; with
   * a fixed step count, as many as reach the target */
  uint64_t per = dd.steps ? dd.target_events / dd.steps : dd.target_events / 50;
  uint64_t nops = per > HOST_EVENTS ? ((per - HOST_EVENTS) / dd.gpus) / 2 : 0;
  nops = nops > GPU_EXTRA / 2 ? nops - GPU_EXTRA / 2 : 0;
  if (nops < MIN_OPS) nops = MIN_OPS;
  if (nops > (dd.steps ? MAX_OPS_FIXED : MAX_OPS)) nops = dd.steps ? MAX_OPS_FIXED : MAX_OPS;
  g->nops = (uint32_t)nops;
  g->ops = st_calloc(&a, nops, sizeof *g->ops);
  g->starts = st_calloc(&a, nops, sizeof *g->starts);
  g->ends = st_calloc(&a, nops, sizeof *g->ends);
  if (!g->ops || !g->starts || !g->ends) {
    st_free(&a, g->ops);
    st_free(&a, g->starts);
    st_free(&a, g->ends);
    st_free(&a, g);
    return ST_ERR_NOMEM;
  }
  g->slow_compute = dd.slow_compute != 0;
  g->idle_gap_ns = dd.idle_gap_ns > 0 ? dd.idle_gap_ns : 0;
  g->idle_every = dd.idle_every ? dd.idle_every : 1;
  g->spread = dd.spread;
  g->kinds = dd.kinds != 0;
  if (g->idle_gap_ns && g->idle_gap_ns < 1000) g->idle_gap_ns = 1000; /* room for the 500 ns */
  make_program(g);
  if (dd.noise_seed) g->r.s = dd.noise_seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
  uint64_t per_step = HOST_EVENTS + (uint64_t)dd.gpus * (2 * nops + GPU_EXTRA);

  writer *w = &g->w;
  w_str(w, "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},");
  if (g->kineto) {
    char head[96];
    snprintf(head, sizeof head, "\"schemaVersion\":1,\"distributedInfo\":{\"rank\":%u},", dd.rank);
    w_str(w, head);
  }
  w_str(w, "\"traceEvents\":[");
  w_meta(w, HOST_PID, 0, "process_name", "/host:CPU", 0);
  w_meta(w, HOST_PID, 0, "process_sort_index", NULL, HOST_PID);
  w_meta(w, HOST_PID, TID_PY, "thread_name", "python3", 0);
  w_meta(w, HOST_PID, TID_PY, "thread_sort_index", NULL, 1);
  w_meta(w, HOST_PID, TID_PJRT, "thread_name", "tf_pjrt_thread", 0);
  w_meta(w, HOST_PID, TID_PJRT, "thread_sort_index", NULL, 2);
  for (int k = 0; k < CPU_THREADS; k++) {
    w_meta(w, HOST_PID, TID_CPU0 + k, "thread_name", "tf_XLATfrtCpuClient", 0);
    w_meta(w, HOST_PID, TID_CPU0 + k, "thread_sort_index", NULL, 3 + k);
  }
  static const struct {
    int tid;
    const char *name;
  } lines[] = {{TID_STEPS, "Steps"},
               {TID_MODULES, "XLA Modules"},
               {TID_OPS, "XLA Ops"},
               {TID_COMPUTE, "Stream #7(Compute)"},
               {TID_H2D, "Stream #13(MemcpyH2D)"},
               {TID_D2H, "Stream #14(MemcpyD2H)"}};
  for (uint32_t k = 0; k < dd.gpus; k++) {
    char name[32];
    snprintf(name, sizeof name, "/device:GPU:%u", k);
    w_meta(w, 1 + k, 0, "process_name", name, 0);
    w_meta(w, 1 + k, 0, "process_sort_index", NULL, 1 + k);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
      w_meta(w, 1 + k, lines[i].tid, "thread_name", lines[i].name, 0);
      w_meta(w, 1 + k, lines[i].tid, "thread_sort_index", NULL, lines[i].tid);
    }
  }
  double mem[64];
  for (uint32_t k = 0; k < dd.gpus; k++) mem[k] = 8.0 + k;
  /* ns: the session's first event is 1 ms in, unless the caller says */
  int64_t t = dd.start_ns > 0 ? dd.start_ns : 1000000, t_first = t, t_last = t;
  uint32_t nsteps = 0;
  for (uint32_t k = 1; !w->failed; k++) {
    uint64_t have = w->events + 1; /* + the sentinel */
    /* stop when another step would overshoot more than stopping undershoots */
    if (dd.steps ? k > dd.steps : k > 1 && have + per_step / 2 >= dd.target_events) break;
    uint32_t step = dd.first_step + (k - 1);
    g->idle_gap = g->idle_gap_ns > 0 && (k - 1) % g->idle_every == 0 ? g->idle_gap_ns : 0;
    t_last = emit_step(g, step, t, mem);
    t = t_last + rng_range(&g->r, 20000, 80000);
    nsteps = k;
    if (k == UINT32_MAX || step == UINT32_MAX) break;
  }
  if (g->kinds) { /* the profiler's span over every step */
    x_event(w, HOST_PID, TID_PY, t_first - 500, t_last - t_first + 1000, "PyTorch Profiler (0)",
            "Trace");
    w_end(w);
  }
  w_str(w, ",\n{}]");
  if (g->kinds) write_kinds(g, dd.first_step, nsteps);
  if (g->kineto) {
    char tail[64];
    snprintf(tail, sizeof tail, ",\"baseTimeNanoseconds\":%lld", (long long)dd.base_time_ns);
    w_str(w, tail);
  }
  w_str(w, "}\n");
  w->events++;
  w_flush(w);
  st_code rc = w->failed ? ST_ERR_ARG : ST_OK;
  st_free(&a, g->ops);
  st_free(&a, g->starts);
  st_free(&a, g->ends);
  st_free(&a, g);
  return rc;
}
