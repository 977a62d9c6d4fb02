/* efficiency.h: how well the hardware is used (issue 33): FLOPs and bytes
 * per op, achieved TFLOP/s and GB/s, % of peak, arithmetic intensity,
 * compute- or memory-bound by the ridge point, per-step MFU and HFU, and
 * the table of accelerators' peaks. README "How well the hardware is used"
 * has every formula and figure.
 *
 * Args are not resident (core/import/args), so the front end reads the
 * args of the events st_eff_wanted() names, turns each into a cost with
 * st_op_cost_from_args() and hands them to st_efficiency_build() with the
 * analysis (analyze.h) they belong to:
 *
 *   st_eff_want *w; uint32_t nw;
 *   st_eff_wanted(&alloc, an, &w, &nw);           // events whose args may give a cost
 *   for each: args = read(src); costs[i] = st_op_cost_from_args(name, args)
 *   st_efficiency *e = st_efficiency_build(&alloc, an, w, costs, nw, metadata, &opts, &err);
 *   st_efficiency_json(e, &jout);
 *
 * Costs, per event:
 *   - PyTorch (Kineto `Input Dims` / `Input type`, `Concrete Inputs` for
 *     stride, padding, dilation, groups, is_causal): mm, addmm, bmm,
 *     baddbmm, matmul, linear, conv1d/2d/3d, convolution, _convolution,
 *     scaled_dot_product_attention and the flash / memory-efficient /
 *     cuDNN attention ops (forward and the flash / efficient backward);
 *   - XLA (XSpace stats as args): `flops`, `model_flops`, `bytes_accessed`.
 * A kernel gets the cost of the op that launched it: the event at the
 * other end of the flow into it, or the innermost enclosing slice of that
 * event that has a cost; else the XLA op over its start on its process's
 * "XLA Ops" line; a device event with a cost of its own (a TPU's XLA op)
 * is its own. An op's FLOPs and bytes are split over its kernels in
 * proportion to their durations.
 */
#ifndef STRATA_EFFICIENCY_H
#define STRATA_EFFICIENCY_H

#include "analyze.h"
#include "json_out.h"

typedef enum st_dtype {
  ST_DT_UNKNOWN = 0,
  ST_DT_FP32 = 1,
  ST_DT_TF32 = 2,
  ST_DT_BF16 = 3,
  ST_DT_FP16 = 4,
  ST_DT_FP8 = 5,
  ST_DT_INT8 = 6,
  ST_DT_FP64 = 7,
  ST_DT_COUNT = 8
} st_dtype;
const char *st_dtype_name(st_dtype d); /* "fp32", "bf16", ... ("" unknown) */

typedef enum st_cost_source {
  ST_COST_NONE = 0,
  ST_COST_SHAPES = 1, /* from Input Dims / Input type */
  ST_COST_XLA = 2     /* XLA's own stats */
} st_cost_source;

typedef struct st_op_cost {
  double flops;       /* floating-point operations, 2 per multiply-add */
  double model_flops; /* XLA's model_flops; from shapes = flops */
  double bytes;       /* bytes of the inputs read and the output written */
  uint8_t dtype;      /* st_dtype of the compute */
  uint8_t source;     /* st_cost_source; ST_COST_NONE: no cost */
  uint8_t estimate;   /* 1: a parameter was not recorded and a default was assumed */
} st_op_cost;

/* 1 if an event of that name may get a cost from shapes. */
int st_op_cost_named(const char *name, size_t n);
/* The cost of one event from its name and args (a JSON object text, as
 * st_args_query gives it). 1 and *out filled, or 0 (no cost: *out zeroed). */
int st_op_cost_from_args(const char *name, size_t n, const char *args, size_t alen,
                         st_op_cost *out);

/* ---- peaks ---------------------------------------------------------------- */
typedef struct st_peak_entry {
  const char *name;           /* "NVIDIA H100 SXM" */
  const char *match;          /* lower-case substrings, '|' separated, any of which names it */
  double tflops[ST_DT_COUNT]; /* dense TFLOP/s per dtype; 0: not stated */
  double gbps;                /* HBM GB/s */
  const char *source;         /* the vendor's page or datasheet */
} st_peak_entry;
/* The table (README "Peaks"), *count entries. */
const st_peak_entry *st_peak_table(uint32_t *count);
/* The entry a device name (Kineto deviceProperties name, XSpace device
 * type) matches, or NULL. Longer match strings are tried first. */
const st_peak_entry *st_peak_lookup(const char *name, size_t n);

/* ---- the build ------------------------------------------------------------ */
typedef struct st_eff_want {
  uint32_t trace, row, index;
  uint64_t src; /* the event's src (rows' src) */
} st_eff_want;

/* The events whose args the front end should read, in (trace, src) order:
 * host slices named as st_op_cost_named says, and the events of device
 * processes' "XLA Ops" lines. *w (st_free with alloc) may be NULL when
 * none. ST_OK, ST_ERR_NOMEM. */
st_code st_eff_wanted(const st_alloc *alloc, const st_analysis *an, st_eff_want **w, uint32_t *n);

typedef struct st_eff_opts {
  double peak_tflops; /* > 0: every device's peak, every dtype (--peak-tflops) */
  double peak_gbps;   /* > 0: every device's bandwidth (--peak-gbps) */
  uint32_t top;       /* op rows kept by time (0: 50) */
} st_eff_opts;

typedef struct st_eff_peak {
  uint32_t device;                /* st_analysis_devices index */
  char name[ST_ANALYZE_NAME_CAP]; /* the accelerator ("" unknown) */
  double tflops[ST_DT_COUNT];     /* 0: unknown */
  double gbps;                    /* 0: unknown */
  const char *source;             /* "table: <url>", "file", "option", "" */
  double headline_tflops;         /* at the headline dtype (below) */
} st_eff_peak;

typedef struct st_eff_op {
  const char *name;
  size_t name_len;
  uint8_t kind; /* st_op_kind: ST_KIND_HOST (a PyTorch op), ST_KIND_KERNEL */
  uint8_t xla;  /* an XLA op */
  uint8_t dtype;
  uint8_t estimate;
  uint32_t device; /* where its kernels ran (the first seen) */
  uint64_t count;  /* instances with a cost whose kernels were found */
  double flops, model_flops, bytes;
  int64_t time_ns; /* device time of its kernels */
} st_eff_op;

typedef struct st_eff_step {
  uint32_t trace;
  int64_t step;
  int64_t wall_ns;
  uint32_t devices;
  double flops, model_flops;
  double peak_tflops; /* sum over its trace's devices at the headline dtype */
} st_eff_step;

typedef struct st_efficiency st_efficiency;

/* metadata: per trace its metadata JSON (traceset.h; NULL: "{}"), where
 * Kineto's deviceProperties and XSpace's device_planes are read. costs[i]
 * is the cost of w[i]. NULL + err: ST_ERR_NOMEM, ST_ERR_ARG. */
st_efficiency *st_efficiency_build(const st_alloc *alloc, const st_analysis *an,
                                   const st_eff_want *w, const st_op_cost *costs, uint32_t n,
                                   const char *const *metadata, const st_eff_opts *o,
                                   st_error *err);
void st_efficiency_destroy(st_efficiency *e);

const st_eff_peak *st_efficiency_peaks(const st_efficiency *e, uint32_t *count);
/* Host ops and XLA ops, then kernels, each by time, largest first. */
const st_eff_op *st_efficiency_ops(const st_efficiency *e, uint32_t *count);
const st_eff_step *st_efficiency_steps(const st_efficiency *e, uint32_t *count);
/* The dtype MFU is measured at: the one holding most FLOPs (bf16 if none). */
st_dtype st_efficiency_headline(const st_efficiency *e);
/* Device time (sum of durations of device events that are not
 * annotations) and the part of it with no FLOP count. */
void st_efficiency_coverage(const st_efficiency *e, int64_t *device_ns, int64_t *no_flops_ns);

/* Achieved figures of one op (README): */
double st_eff_op_peak_tflops(const st_efficiency *e, const st_eff_op *op);
double st_eff_op_peak_gbps(const st_efficiency *e, const st_eff_op *op);

/* {"headline_dtype", "device_ns", "no_flops_pct", "device_peaks":[{"device",
 *  "name","tflops","gbps","source","tflops_by_dtype":{..}}], "ops":[{"name",
 *  "kind","dtype","count","flops","model_flops","bytes","time_us","tflops",
 *  "gbps","pct_of_peak","intensity","ridge","bound","estimate"}],
 *  "steps":[{"trace","step","wall_us","flops","model_flops","mfu_pct",
 *  "hfu_pct"}]} (figures unknown are null) */
void st_efficiency_json(const st_efficiency *e, st_jout *o);

#endif
