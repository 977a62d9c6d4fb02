/* analyze.h: answers, not only pictures (issue 18): the steps of each
 * trace, its devices, per step and per device the wall, busy, idle,
 * compute, communication and memcpy time and their overlap, the host's
 * time per step, the largest idle gaps with what the host did meanwhile,
 * and the stragglers of a profile of many files. An index over the
 * models: one sweep over the device and host rows, nothing copied per
 * event (`strata analyze`, and the page's analyze() next).
 *
 * Input: n traces (the files of a profile, each its own model: a set's
 * unmerged files, or the parts of a merged view, st_trace_parts). Times
 * are each trace's own ns (a merged view's parts: scene time).
 *
 * Steps (per trace, the first rule that finds any):
 *   1. opts.step_name: every slice named exactly so; occurrences that
 *      overlap are one step; numbered 1, 2, ... in time order;
 *   2. Kineto's `ProfilerStep#N` slices: step N spans every slice of that
 *      name (the earliest start to the latest end);
 *   3. XProf's Steps lines (tracks named "Steps"): an event named "N" or
 *      "... N" is step N (else its position, from 1); the trace's step N
 *      spans all Steps lines' events of that number, and a device whose
 *      own process has a Steps line uses its own event for its window.
 * Steps are ordered by start (ties by number).
 *
 * Devices: per process of a trace, its device rows are the rows of its
 * tracks named "Stream #..." (XProf GPU streams) or "stream ..." (Kineto);
 * a process without streams whose tracks include "XLA Ops" (a TPU core)
 * uses that line. The device is named after its process ("/device:GPU:0";
 * Kineto's GPU processes, named after the program, are "GPU <pid>").
 * Each event on a device row is one of:
 *   skip    its category is gpu_user_annotation, cuda_sync,
 *           cuda_profiler_range or user_annotation (annotations, not work);
 *   memcpy  its category is gpu_memcpy / gpu_memset / memcpy / memset, or
 *           its name contains "memcpy" or "memset" (any case);
 *   comm    its name contains "nccl" or "rccl" (any case), or is an XLA
 *           collective: starts with all-reduce, all-gather,
 *           reduce-scatter, all-to-all, collective-permute, collective-
 *           broadcast, send or recv followed by nothing, '.', '-' or a
 *           digit ("all-reduce.3", "all-gather-start", "send-done.1");
 *   compute any other.
 * Over a window W: busy = |union of the device's events in W| (all
 * streams), comm / memcpy / compute = |union of that class in W|,
 * overlap = |comm ∩ compute| (comm + compute - |comm ∪ compute|), idle =
 * |W| - busy. A device's range is the union of its steps' windows (the
 * span from its first event's start to its last event's end when the
 * trace has no steps); its totals are over the range, step_ns is the mean
 * of its step windows (the range without steps).
 *
 * Host: the slice rows of the tracks that are not device rows, in
 * processes that are not named "/device:..." (threads of the program);
 * the step markers themselves and the wrappers (a slice holding a whole
 * step: the profiler's range, a loop iteration) are left out. host_ns of
 * a step = |union of those host slices in the step's window|.
 *
 * Idle gaps: maximal intervals of a device's range with no busy event;
 * the `max_gaps` longest over all devices (ties: earlier first), each with
 * up to ST_ANALYZE_GAP_HOST host slices overlapping it (the largest
 * overlap first, deeper slices first on ties), leaf frames only: a slice
 * with a child over the part of the gap it covers is left out.
 *
 * Stragglers (several traces): a trace's value is the median over its
 * steps of the mean per-step compute of its devices (its devices' mean
 * compute over their ranges without steps). With m >= 3 traces having a
 * value: med = median, MAD = median |v - med|, scale = max(1.4826 MAD,
 * 0.02 med, 1 us) (the floor: identical ranks, MAD 0, never trip), score =
 * (v - med) / scale; a straggler has score > 3.5 (slower only).
 *
 *   st_analyze_opts o = {0};
 *   st_analysis *an = st_analyze(&alloc, traces, n, &o, &err);
 *   uint32_t nd; const st_an_device *d = st_analysis_devices(an, &nd);
 *   st_analysis_json(an, &(st_analysis_json_opts){.files = files, .groups = groups}, buf, cap);
 *   st_analysis_destroy(an);
 * The traces must outlive the analysis.
 */
#ifndef STRATA_ANALYZE_H
#define STRATA_ANALYZE_H

#include "opstats.h"

#define ST_ANALYZE_GAP_HOST 3
#define ST_ANALYZE_CAUSES 5 /* idle causes named per device (the rest: "other") */
#define ST_ANALYZE_STRAGGLER_SCORE 3.5
#define ST_ANALYZE_NAME_CAP 96

/* Zero means default. */
typedef struct st_analyze_opts {
  const char *step_name; /* NULL: automatic steps (rules 2 and 3) */
  size_t step_name_len;
  uint32_t max_gaps; /* 0: 10 */
  uint32_t top_ops;  /* ops kept by self time; 0: 20 */
  /* op statistics over: everything (default), [ops_t0_ns, ops_t1_ns) of
   * each trace, or step ops_step of each (a trace without it: none) */
  int ops_range;
  int64_t ops_t0_ns, ops_t1_ns;
  int ops_has_step;
  int64_t ops_step;
  int no_ops; /* 1: no op statistics (st_analysis_ops is NULL) */
  /* idle split: a gap between two kernels shorter than this is kernel wait;
   * 0: ST_ANALYZE_KERNEL_WAIT_NS (HTA's consecutive_kernel_delay) */
  int64_t kernel_wait_ns;
} st_analyze_opts;

#define ST_ANALYZE_KERNEL_WAIT_NS 30

typedef enum st_step_source {
  ST_STEPS_NONE = 0,
  ST_STEPS_NAMED = 1,         /* opts.step_name */
  ST_STEPS_PROFILER_STEP = 2, /* ProfilerStep#N */
  ST_STEPS_STEPS_LINE = 3     /* XProf Steps lines */
} st_step_source;

typedef struct st_an_step {
  uint32_t trace;
  int64_t number;
  int64_t t0_ns, t1_ns; /* the trace's own ns */
  int64_t host_ns;      /* union of host slices in the window */
} st_an_step;

typedef struct st_an_times {
  int64_t wall_ns, busy_ns, compute_ns, comm_ns, memcpy_ns, overlap_ns;
} st_an_times;

typedef struct st_an_device {
  uint32_t trace;
  uint32_t process; /* index into the trace's processes */
  char name[ST_ANALYZE_NAME_CAP];
  uint32_t rows;                    /* device rows (streams x depths) */
  uint32_t first_step, step_count;  /* its trace's steps; its cells */
  uint32_t first_cell;              /* per step: st_analysis_cells()[first_cell + j] */
  st_an_times total;                /* over its range: wall = |range| */
  int64_t step_ns;                  /* mean step window (|range| without steps) */
  int64_t step_p50_ns, step_p90_ns; /* nearest rank over its step windows */
  uint32_t first_cause, causes;     /* st_analysis_causes()[first_cause, + causes) */
  uint32_t steps_with_work;         /* its steps with any busy time */
  /* The idle split (HTA's idle-time breakdown; they sum to its idle time):
   * each gap, as a whole, is kernel wait when it lies between two of the
   * device's kernels less than kernel_wait_ns apart; else host wait when
   * the kernel ending it was launched (the start of the flow's source into
   * it: Kineto's cudaLaunchKernel) at or after the gap began (the previous
   * kernel's end; its range's start before the first); else other (no
   * launch known, launched before the gap: a wait on another stream or an
   * event, the gap after the last kernel). */
  int64_t host_wait_ns, kernel_wait_ns, other_wait_ns;
} st_an_device;

/* Why a device is idle (idle causes): each instant of its idle time goes
 * to the innermost host slice over it (the deepest of every host thread's
 * slices there, wrappers left out; the lower row on ties), summed by name
 * over its gaps; the ST_ANALYZE_CAUSES largest named, the rest "other",
 * the instants no host slice covers "nothing recorded". They sum to its
 * idle time. */
typedef enum st_cause_what {
  ST_CAUSE_SLICE = 0,  /* slices of one name: ref is one of them */
  ST_CAUSE_OTHER = 1,  /* every other name */
  ST_CAUSE_NOTHING = 2 /* no host slice */
} st_cause_what;

typedef struct st_an_cause {
  uint32_t device;
  uint8_t what;        /* st_cause_what */
  uint8_t has_parent;  /* ref's enclosing slice (not a wrapper) */
  st_event_ref ref;    /* ST_CAUSE_SLICE: the slice with the largest part */
  st_event_ref parent; /* its parent */
  int64_t ns;          /* idle time attributed */
  uint32_t gaps;       /* gaps it has a part of: st_analysis_cause_gaps()[first_gap, + gaps) */
  uint32_t first_gap;
  int64_t gap_t0_ns, gap_t1_ns; /* the gap holding its largest part */
} st_an_cause;

/* Per op row (st_opstats_rows of st_analysis_ops): its launcher (kernels:
 * the name most of its instances give: the host op of the flow into it
 * (a runtime call: its innermost enclosing host op), else the XLA op over
 * its start on its device's "XLA Ops" line) and, runtime calls, the idle
 * time attributed to it (idle causes, summed over devices). */
typedef struct st_an_op_extra {
  const char *launched_by; /* NULL: none found */
  size_t launched_by_len;
  int64_t blocked_ns;
  uint32_t devices; /* devices of the traces it is in */
} st_an_op_extra;

typedef struct st_an_cell {
  int64_t t0_ns, t1_ns; /* the device's window of that step */
  st_an_times t;
} st_an_cell;

typedef struct st_an_host_slice {
  st_event_ref ref; /* in its trace */
  int64_t overlap_ns;
} st_an_host_slice;

typedef struct st_an_gap {
  uint32_t device;
  int64_t t0_ns, t1_ns;
  uint32_t host_count;
  st_an_host_slice host[ST_ANALYZE_GAP_HOST];
} st_an_gap;

typedef struct st_an_rank {
  uint32_t trace;
  int has_value;
  double value_ns; /* median per-step compute (definition above) */
  double score;    /* 0 without enough traces */
  int straggler;
} st_an_rank;

typedef struct st_analysis st_analysis;

/* NULL + err: ST_ERR_ARG (no traces, a NULL trace), ST_ERR_NOMEM. */
st_analysis *st_analyze(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                        const st_analyze_opts *opts, st_error *err);
void st_analysis_destroy(st_analysis *an);

uint32_t st_analysis_traces(const st_analysis *an);
const st_trace *st_analysis_trace(const st_analysis *an, uint32_t k);
st_step_source st_analysis_step_source(const st_analysis *an, uint32_t trace);
/* All traces' steps, trace by trace, each trace's in time order. */
const st_an_step *st_analysis_steps(const st_analysis *an, uint32_t *count);
const st_an_device *st_analysis_devices(const st_analysis *an, uint32_t *count);
const st_an_cell *st_analysis_cells(const st_analysis *an, uint32_t *count);
const st_an_gap *st_analysis_gaps(const st_analysis *an, uint32_t *count); /* longest first */
/* One per trace; scale (the robust spread used) and median in *median_ns. */
const st_an_rank *st_analysis_ranks(const st_analysis *an, double *median_ns, double *scale_ns);
const st_opstats *st_analysis_ops(const st_analysis *an);
/* Parallel to st_opstats_rows(st_analysis_ops(an)). */
const st_an_op_extra *st_analysis_op_extra(const st_analysis *an);
const st_an_cause *st_analysis_causes(const st_analysis *an, uint32_t *count);
/* The devices' memory (memory.h; never NULL for an analysis). */
const struct st_memory *st_analysis_memory(const st_analysis *an);
/* The gaps of the causes (each cause's in time order, whole gaps). */
typedef struct st_an_span {
  int64_t t0_ns, t1_ns;
} st_an_span;
const st_an_span *st_analysis_cause_gaps(const st_analysis *an, uint32_t *count);

/* The trace's step with that number: its index in st_analysis_steps, or
 * UINT32_MAX. */
uint32_t st_analysis_find_step(const st_analysis *an, uint32_t trace, int64_t number);

/* Device d's rows in its trace (its streams' rows, or its "XLA Ops" line)
 * into a new array *rows of *n (st_free it with alloc; NULL when none):
 * ST_OK, ST_ERR_ARG (bad d), ST_ERR_NOMEM. */
st_code st_analysis_device_rows(const st_analysis *an, const st_alloc *alloc, uint32_t d,
                                uint32_t **rows, uint32_t *n);

/* ---- JSON ----------------------------------------------------------------
 * {"traces":[{"file","group","steps_from":"profiler_step"|"steps_line"|
 *   "named"|"none","steps":N,"devices":N}],
 *  "steps":[{"trace","step","start_us","end_us","wall_us","host_us"}],
 *  "devices":[{"trace","name","steps","range_us","step_us","step_p50_us",
 *   "step_p90_us","busy_us","idle_us","idle_pct","utilization_pct",
 *   "compute_us","comm_us","memcpy_us","overlap_pct"}],
 *  "per_step":[{"trace","device","step","start_us","wall_us","busy_us",
 *   "idle_us","idle_pct","compute_us","comm_us","memcpy_us","overlap_pct"}],
 *  "idle_gaps":[{"trace","device","start_us","end_us","dur_us",
 *   "host":[{"name","start_us","dur_us","overlap_us"}]}],
 *  "ranks":[{"trace","value_us","score","straggler"}] (only with >= 3),
 *  "stragglers":[{"trace","metric":"compute_us_per_step","value","median",
 *   "score"}],
 *  "memory":[...] (memory.h st_memory_json: per device, from the models'
 *   memory events: peak, live at it, unfreed, top allocating ops),
 *  "memory_counters":[{"trace","process","name","peak"}] (counter series
 *   whose name contains "mem", any case: their largest sample; until
 *   issue 34 this list was "memory"),
 *  "ops":[{"name","count","total_us","self_us","mean_us","min_us","p50_us",
 *   "p90_us","p99_us","max_us"}], "op_names":N}
 * Times are exact decimal microseconds of the traces' own ns (means and
 * medians with 3 decimals); percentages of the wall with 2 decimals
 * (overlap_pct: of comm time; null without comm). Like snprintf: writes
 * at most cap - 1 bytes plus a NUL, returns the full length.
 * shift_ns: per trace, subtracted from every time written (not from
 * durations): the parts of a merged view, whose times were moved by
 * st_trace_shift_ns, written in their files' own time. */
typedef struct st_analysis_json_opts {
  const char *const *files;  /* per trace, may be NULL ("") */
  const char *const *groups; /* per trace, may be NULL ("") */
  const int64_t *shift_ns;   /* per trace, may be NULL (all 0) */
  /* collectives.h: per_step rows gain "waited_us" and "caused_us" (their
   * trace's, 0 without collectives in the step); NULL: not written */
  const struct st_collectives *coll;
  int cause_gaps; /* 1: each idle cause gains "gap_list": [[start_us, end_us], ...] */
} st_analysis_json_opts;
size_t st_analysis_json(const st_analysis *an, const st_analysis_json_opts *o, char *buf,
                        size_t cap);

#endif
