/* event_kinds.c: the kind of an event (analyze.h st_kind; README "Kinds of
 * events"): wrapper, annotation, kernel, runtime call or host op, from its
 * name's and category's classes (one byte per string, an_kind_class), its
 * row's role, and whether it holds a whole step; and the slice enclosing an
 * event. Used by the analysis's passes (analyze.c, idle_causes.c,
 * analyze_ops.c).
 */
#include "analyze.h"
#include "analyze_internal.h"

#include "bisect.h"

#include <stddef.h>
#include <string.h>

/* The kind classes of a string (README "Kinds of events"): as a name or as
 * a category. */
enum {
  K_WRAP_NAME = 1 << 0,   /* "PyTorch Profiler (N)", "jit_..." (an XLA module) */
  K_ANN_NAME = 1 << 1,    /* "## x ##" */
  K_RUN_NAME = 1 << 2,    /* cudaX, cuX, hipX, ncclX, rcclX (X upper case) */
  K_TRACE_CAT = 1 << 3,   /* "Trace": Kineto's profiler span */
  K_ANN_CAT = 1 << 4,     /* user_annotation, gpu_user_annotation, cuda_profiler_range, cuda_sync */
  K_KERNEL_CAT = 1 << 5,  /* kernel, gpu_memcpy, gpu_memset */
  K_RUNTIME_CAT = 1 << 6, /* cuda_runtime, cuda_driver, hip_runtime, hip_driver */
};

static int prefix_upper(const char *s, size_t n, const char *p) {
  size_t m = strlen(p);
  return n > m && memcmp(s, p, m) == 0 && s[m] >= 'A' && s[m] <= 'Z';
}

uint8_t an_kind_class(const char *s, size_t n) {
  uint8_t c = 0;
  if ((n >= 16 && memcmp(s, "PyTorch Profiler", 16) == 0) || (n > 4 && memcmp(s, "jit_", 4) == 0))
    c |= K_WRAP_NAME;
  if (n >= 5 && memcmp(s, "## ", 3) == 0 && memcmp(s + n - 2, "##", 2) == 0) c |= K_ANN_NAME;
  if (prefix_upper(s, n, "cuda") || prefix_upper(s, n, "cu") || prefix_upper(s, n, "hip") ||
      prefix_upper(s, n, "nccl") || prefix_upper(s, n, "rccl"))
    c |= K_RUN_NAME;
  if (an_eq(s, n, "Trace")) c |= K_TRACE_CAT;
  if (an_eq(s, n, "user_annotation") || an_eq(s, n, "gpu_user_annotation") ||
      an_eq(s, n, "cuda_profiler_range") || an_eq(s, n, "cuda_sync"))
    c |= K_ANN_CAT;
  if (an_eq(s, n, "kernel") || an_eq(s, n, "gpu_memcpy") || an_eq(s, n, "gpu_memset"))
    c |= K_KERNEL_CAT;
  if (an_eq(s, n, "cuda_runtime") || an_eq(s, n, "cuda_driver") || an_eq(s, n, "hip_runtime") ||
      an_eq(s, n, "hip_driver"))
    c |= K_RUNTIME_CAT;
  return c;
}

/* 1 if [s, e) holds a whole step of the trace (steps[0, n), by start): a
 * wrapper such as the profiler's range or a loop iteration, not host work. */
int an_wraps_step(const st_an_step *steps, uint32_t n, int64_t s, int64_t e) {
  size_t lo = st_bound_i64_at(steps, n, sizeof *steps, offsetof(st_an_step, t0_ns), s, ST_LOWER);
  return lo < n && steps[lo].t1_ns <= e;
}

/* The kind of event i of row `row` of trace k (README "Kinds of events"). */
uint8_t an_kind_at(const st_analysis *an, const trace_ctx *c, uint32_t k, uint32_t row,
                   uint32_t i) {
  const st_row *r = &st_trace_rows(c->t, NULL)[row];
  uint32_t nm = r->name[i], ct = r->cat[i];
  uint8_t kn = nm < c->ncls ? c->kcls[nm] : 0, kc = ct < c->ncls ? c->kcls[ct] : 0;
  uint8_t cn = nm < c->ncls ? c->cls[nm] : 0, rk = c->rowk[row];
  if (rk == ROW_WRAPPER || (cn & MARKER) || (kn & K_WRAP_NAME) || (kc & K_TRACE_CAT))
    return ST_KIND_WRAPPER;
  if ((kc & K_ANN_CAT) || (kn & K_ANN_NAME) || rk == ROW_DEVICE_OTHER) return ST_KIND_ANNOTATION;
  if (rk == ROW_DEVICE || (kc & K_KERNEL_CAT)) return ST_KIND_KERNEL;
  if ((kc & K_RUNTIME_CAT) || (kn & K_RUN_NAME)) return ST_KIND_RUNTIME;
  int64_t s = r->start[i], e = st_sat_add(s, r->dur[i]);
  if (an->step_count[k] && an_wraps_step(an->steps + an->first_step[k], an->step_count[k], s, e))
    return ST_KIND_WRAPPER;
  return ST_KIND_HOST;
}

/* The slice enclosing event i of row `row` (the row above, same track). */
int an_parent_of(const st_trace *t, uint32_t row, uint32_t i, st_event_ref *out) {
  uint32_t nr, nt;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_row *r = &rows[row];
  if (!r->depth || r->track >= nt) return 0;
  const st_track *tk = &tracks[r->track];
  uint32_t pr = tk->first_row + r->depth - 1;
  if (pr < tk->first_row || pr >= tk->first_row + tk->row_count || rows[pr].depth != r->depth - 1)
    return 0;
  const st_row *p = &rows[pr];
  int64_t s = r->start[i];
  uint32_t j = st_row_first_end_gt(p, s);
  if (j >= p->count || p->start[j] > s) return 0;
  *out = (st_event_ref){pr, j};
  return 1;
}
