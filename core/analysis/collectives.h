/* collectives.h: why a distributed step is slow (issue 32): each rank's
 * collectives found and matched across the files of a profile, the files'
 * clocks aligned by them, who waited for whom per step, the critical path
 * of a step across ranks and what each rank's slowness costs.
 *
 * Input: an analysis (analyze.h: its traces, steps and devices) and, per
 * trace, where its args can be read (st_coll_source; none: the collectives
 * are found from the kernels alone, without group or bytes).
 *
 * A collective instance on a rank is a communication kernel on one of its
 * devices (analyze.h "comm": an NCCL/RCCL kernel, or an XLA collective;
 * XLA's "X-start.N" ... "X-done.N" pairs on one device are one instance
 * from the start's start to the done's end). Its arrival is the kernel's
 * start, its end the kernel's end. Its description: the args of the host op
 * `record_param_comms` that launched it (the flow into the kernel, up its
 * source's enclosing slices; else the kernel's own args, where Kineto copies
 * them): "Collective name", "In msg nelems", "Out msg nelems", "dtype",
 * "Group size", "Process Group Name" (else "Process Group Description",
 * else "Process Group Ranks"), "Seq". Without args the kind comes from the
 * kernel's name (ncclKernel_AllReduce_..., all-gather-start.3), the group
 * is "" and bytes 0.
 *
 * Matching: instances with a sequence number by (group, seq); the others by
 * (group, kind, step, n) where n counts that rank's instances of (group,
 * kind) in the step in time order (XLA: by (name, step, n)). The step of an
 * instance is its trace's step whose window holds its arrival (none: step
 * 0).
 *
 * Clock offsets: a collective ends on all its ranks at nearly the same
 * time. Times are each file's absolute clock (origin + time); offset_k is
 * added to trace k's. Iterated: each collective's common end m_c = median
 * over its members of (end + offset); each trace's offset = median over
 * its collectives of (m_c - end); until nothing moves by 1 ns (at most 64
 * rounds); then every offset is moved so that the first trace with
 * collectives has 0. residual_k = median |m_c - end - offset_k|. Traces
 * without collectives keep offset 0 (their own clocks) and are listed.
 * Aligned times are ns from the first trace with collectives' time 0.
 *
 * Per collective: last = the latest arrival, wait_k = last - arrival_k,
 * blocker = the member arriving last (ties: the lower trace), skew = last -
 * the earliest arrival, dur = the median end - last (the transfer once all
 * arrived), algbw = bytes / dur, busbw = algbw x factor(kind, n) (nccl-tests:
 * all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
 * broadcast, reduce, send/recv 1). bytes: all-gather Out msg nelems, the
 * others In msg nelems, times the dtype's size.
 * Per step and trace: waited = the sum of its waits over the collectives of
 * the step, caused = the sum, over the collectives it blocked, of the other
 * members' waits.
 *
 * Replay of a step (critical path and what-if): each trace's collectives
 * of the step in order of arrival c_1..c_m; its compute segments g_1 =
 * arrival_1 - step start, g_i = arrival_i - end_{i-1}, g_{m+1} = step end -
 * end_m (its own step window). Replayed: arrival_i = end'_{i-1} + g_i;
 * end'_c = max of its members' arrivals + dur_c; the trace's step end =
 * end'_m + g_{m+1}; the step's time = the latest step end - the earliest
 * step start. The critical path walks back from the trace ending last:
 * its trailing compute, each collective (from its last arrival to its end,
 * on its blocker) and the blocker's compute before it, down to a step
 * start. what_if(trace r) = the mean over steps of (the replayed step time
 * - the same with r's segments g_i set to the median over the step's traces
 * of their g_i (the same i)).
 */
#ifndef STRATA_COLLECTIVES_H
#define STRATA_COLLECTIVES_H

#include "analyze.h"
#include "argsrc.h"

/* Where trace k's args are read: its args source and a reader of its
 * decoded input (the platform's: a file, a Blob). read returns 1 with
 * *data (valid until the next call) and *len (fewer than asked only at the
 * input's end), 0 on failure. */
typedef struct st_coll_source {
  const st_argsrc *args; /* NULL: no args */
  int (*read)(void *ud, uint64_t offset, uint64_t length, const uint8_t **data, size_t *len);
  void *ud;
} st_coll_source;

typedef struct st_coll_member {
  uint32_t trace;
  uint32_t device;     /* analysis device; UINT32_MAX: a "kernel" event off the device rows */
  st_event_ref kernel; /* the kernel (XLA pair: the start) in its trace */
  int64_t start_ns;    /* arrival, aligned */
  int64_t end_ns;      /* aligned */
  int64_t wait_ns;
} st_coll_member;

typedef struct st_coll {
  const char *group, *kind; /* kind: all_reduce, all_gather, reduce_scatter, all_to_all,
                               broadcast, reduce, send_recv, barrier, ... */
  size_t group_len, kind_len;
  int64_t seq;  /* -1: none */
  int64_t step; /* 0: outside every step */
  uint64_t bytes;
  uint32_t first_member, members;
  uint32_t blocker;                         /* trace */
  int64_t skew_ns, dur_ns, last_ns, end_ns; /* end: the median end */
  double algbw_gbps, busbw_gbps;            /* 0 without bytes or duration */
} st_coll;

typedef struct st_coll_offset {
  uint32_t trace;
  int has;           /* 0: no collectives, its own clock */
  int64_t offset_ns; /* added to its absolute clock */
  int64_t residual_ns;
  uint32_t collectives;
} st_coll_offset;

typedef struct st_coll_step_rank {
  uint32_t trace;
  int64_t step;
  int64_t waited_ns, caused_ns;
  uint32_t blocked; /* collectives it arrived last at */
  uint32_t collectives;
} st_coll_step_rank;

typedef struct st_coll_segment {
  uint32_t trace;
  int collective; /* 0: compute (the rank's device work and waits before), 1: a collective */
  uint32_t coll;  /* collective: index into st_colls */
  int64_t start_ns, end_ns; /* aligned */
} st_coll_segment;

typedef struct st_coll_path {
  int64_t step;
  int64_t total_ns;
  uint32_t first_segment, segments; /* in time order */
} st_coll_path;

typedef struct st_collectives st_collectives;

/* sources: per trace of the analysis, may be NULL (no args anywhere).
 * NULL + err: ST_ERR_NOMEM. */
st_collectives *st_collectives_build(const st_alloc *alloc, const st_analysis *an,
                                     const st_coll_source *sources, st_error *err);
void st_collectives_destroy(st_collectives *c);
/* The same in steps, for a front end that reads one file at a time (the
 * page): begin (NULL: out of memory), add each trace once (a trace never
 * added has no collectives; source may be NULL; its bytes are read during
 * the call only), finish (ST_OK, ST_ERR_NOMEM, ST_ERR_ARG: twice / a bad
 * trace / after finish); the accessors below need a finished one. */
st_collectives *st_collectives_begin(const st_alloc *alloc, const st_analysis *an);
st_code st_collectives_add(st_collectives *c, uint32_t k, const st_coll_source *source);
st_code st_collectives_finish(st_collectives *c);

/* Matched collectives, by (step, aligned last arrival). */
const st_coll *st_colls(const st_collectives *c, uint32_t *count);
const st_coll_member *st_coll_members(const st_collectives *c, uint32_t *count);
/* One per trace of the analysis. */
const st_coll_offset *st_coll_offsets(const st_collectives *c);
/* Aligned time of trace k's own time t (ns). */
int64_t st_coll_aligned(const st_collectives *c, uint32_t k, int64_t t);
/* Per (trace, step) with collectives, by trace then step. */
const st_coll_step_rank *st_coll_step_ranks(const st_collectives *c, uint32_t *count);
/* The row of (trace, step) or NULL. */
const st_coll_step_rank *st_coll_step_find(const st_collectives *c, uint32_t trace, int64_t step);
const st_coll_path *st_coll_paths(const st_collectives *c, uint32_t *count);
const st_coll_segment *st_coll_segments(const st_collectives *c, uint32_t *count);
/* Per trace: mean step time saved (ns); *has = 0 where the trace has no steps replayed. */
const double *st_coll_what_if(const st_collectives *c, const uint8_t **has);

/* The one-line statement of the step rank that blocked the most (the
 * overview's line), e.g. "trace 5 arrived last at 11 of 12 collectives;
 * the other 7 ranks waited 11.8 ms per step for it (25 % of the step)".
 * names: per trace, may be NULL ("trace K"). Like snprintf. */
size_t st_coll_summary(const st_collectives *c, const char *const *names, char *buf, size_t cap);

/* ---- JSON: the members of `strata analyze --json` --------------------------
 * ,"collectives":[{"group","kind","seq","step","bytes","dur_us","ranks":[{"trace",
 *   "start_us","end_us","wait_us"}],"blocker","skew_us","algbw_gbps","busbw_gbps"}]
 * ,"clock_offsets":[{"trace","offset_us","residual_us","collectives"}] (traces with
 *   collectives), "unaligned":[trace...] (those without)
 * ,"critical_path":[{"step","total_us","segments":[{"trace","kind","name","start_us",
 *   "end_us"}]}]
 * ,"what_if":[{"trace","step_us_saved"}]
 * ,"waits":[{"trace","step","waited_us","caused_us"}] (per file and step with collectives)
 * ,"collectives_summary":"..."
 * Each starts with a comma (appended to an object). Like snprintf. */
size_t st_collectives_json(const st_collectives *c, const char *const *names, char *buf,
                           size_t cap);

#endif
