/* analyze_internal.h: the analysis's state (core/analysis/analyze.h) and the
 * working types its passes share. analyze.c builds it (devices, the sweep,
 * gaps, stragglers, op statistics) and calls the passes in their own files:
 * analyze_steps.c (the steps), idle_causes.c (each device's idle causes),
 * analyze_ops.c (the ops' launchers and blocked time), over event_kinds.c
 * (the kind of an event) and row_merge.c (rows' events in start order).
 * analyze_json.c only
 * reads the state and writes it out. Nothing here is analyze.h's contract.
 */
#ifndef STRATA_ANALYZE_INTERNAL_H
#define STRATA_ANALYZE_INTERNAL_H

#include "analyze.h"

#include <string.h>

struct st_analysis {
  st_alloc alloc;
  const st_trace *const *traces_in;
  const st_trace **traces;
  uint32_t n;
  st_step_source *source; /* per trace */
  st_an_step *steps;
  uint32_t nsteps, cap_steps;
  uint32_t *first_step, *step_count; /* per trace */
  st_an_device *devices;
  uint32_t ndevices, cap_devices;
  st_an_cell *cells;
  uint32_t ncells;
  st_an_gap *gaps;
  uint64_t *gap_seq, gap_next; /* while sweeping: the gaps' heap order */
  uint32_t ngaps, max_gaps;
  st_an_rank *ranks;
  double rank_median, rank_scale;
  st_opstats *ops;
  st_an_op_extra *op_extra;
  uint32_t top_ops;       /* rows per table of kernels, host ops, runtime calls */
  int64_t kernel_wait_ns; /* the idle split's threshold */
  st_an_cause *causes;
  uint32_t ncauses, cap_causes;
  struct st_memory *mem; /* memory.h: the devices' memory (issue 34) */
  st_an_span *cgaps;     /* the causes' gaps */
  uint32_t ncgaps, cap_cgaps;
};

/* ---- working types of one build (analyze.c, analyze_steps.c, idle_causes.c) */

/* The class of a string (analyze.c's, one byte per string id). */
enum {
  CLS_COMPUTE = 0,
  CLS_COMM = 1,
  CLS_MEMCPY = 2, /* name class: bits 0-1 */
  CAT_SKIP = 1 << 2,
  CAT_MEMCPY = 2 << 2, /* category class: bits 2-3 */
  MARKER = 1 << 4      /* a step marker's name (host sweep leaves it out) */
};

/* 1 if s[0, n) is w. */
static inline int an_eq(const char *s, size_t n, const char *w) {
  return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* A step marker's event: a Steps line's, the profiler's or a named one. */
typedef struct raw_step {
  int64_t number, t0, t1;
  uint32_t process;
} raw_step;

/* What a row is (trace_ctx.rowk). */
enum { ROW_HOST = 0, ROW_DEVICE = 1, ROW_WRAPPER = 2, ROW_DEVICE_OTHER = 3 };

typedef struct trace_ctx {
  const st_trace *t;
  uint8_t *cls;     /* per string id */
  uint8_t *kcls;    /* per string id: kind_class */
  uint8_t *rowk;    /* per row: ROW_* */
  int64_t *blocked; /* per string id: device idle time attributed to it (idle causes) */
  uint32_t ncls;
  raw_step *raw; /* Steps lines' events, by (process, number) */
  size_t nraw;
  st_step_source source;
} trace_ctx;

/* Row lists are kept in one growing array (rows of a device, or host rows). */
typedef struct rowlist {
  uint32_t *v;
  uint32_t n, cap;
} rowlist;

typedef struct m_item {
  int64_t key; /* the row's next start */
  uint32_t k;  /* the listed row */
} m_item;

typedef struct merger {
  const st_row *rows;
  const uint32_t *list; /* row indices */
  uint32_t *pos;        /* per listed row: next index */
  m_item *heap;         /* listed rows with events left, by next start */
  uint32_t hn;
} merger;

/* Every idle gap of a device, in time order (idle causes). */
typedef struct ivl {
  int64_t t0, t1;
} ivl;
typedef struct ivlist {
  const st_alloc *a;
  ivl *v;
  uint32_t n, cap;
  int nomem;
} ivlist;

/* Finds trace k's steps (analyze.h rules), appends them to an->steps and
 * marks the markers' names (MARKER in c->cls); keeps a Steps line's events
 * in c->raw. ST_OK or ST_ERR_NOMEM. */
st_code an_find_steps(st_analysis *an, trace_ctx *c, uint32_t k, const st_analyze_opts *o);

/* The window [*t0, *t1) of step `number` on process `process`'s own Steps
 * line: 1, or 0 if it has none. */
int an_own_window(const trace_ctx *c, uint32_t process, int64_t number, int64_t *t0, int64_t *t1);

/* The k-way merge of listed rows by start (m->pos and m->heap hold n
 * entries): an_merge_init starts it; an_merge_next gives the next event in
 * start order, 1 and (*row, *index), or 0 at the end. */
void an_merge_init(merger *m, const st_row *rows, const uint32_t *list, uint32_t n);
int an_merge_next(merger *m, uint32_t *row, uint32_t *index);

/* The kind classes of string s[0, n), as a name or as a category
 * (event_kinds.c; trace_ctx.kcls holds them per string id). */
uint8_t an_kind_class(const char *s, size_t n);

/* 1 if [s, e) holds a whole step of steps[0, n) (by start): a wrapper such
 * as the profiler's range or a loop iteration, not host work. */
int an_wraps_step(const st_an_step *steps, uint32_t n, int64_t s, int64_t e);

/* The kind (ST_KIND_*, README "Kinds of events") of event i of row `row`
 * of trace k, c its context. */
uint8_t an_kind_at(const st_analysis *an, const trace_ctx *c, uint32_t k, uint32_t row, uint32_t i);

/* The slice enclosing event i of row `row` (the row above, same track):
 * 1 and *out, or 0. */
int an_parent_of(const st_trace *t, uint32_t row, uint32_t i, st_event_ref *out);

/* The op statistics' extras (analyze_ops.c): the kernels' launchers and
 * the runtime calls' blocked time into an->op_extra, one per row of
 * an->ops; ctx: one per trace. ST_OK or ST_ERR_NOMEM. */
st_code an_op_extras(st_analysis *an, const trace_ctx *ctx);

/* Device d's idle causes (idle_causes.c) from its gaps gl (time order) and
 * its host rows, through the merger m (sized for host->n rows); appended
 * to an->causes and an->cgaps; ST_OK or ST_ERR_NOMEM. */
st_code an_idle_causes(st_analysis *an, trace_ctx *c, uint32_t k, uint32_t d, const rowlist *host,
                       const ivlist *gl, merger *m);

/* 1 if w (lower case ASCII) occurs in s[0, n), ignoring ASCII case. */
static inline int has_ci(const char *s, size_t n, const char *w) {
  size_t m = strlen(w);
  for (size_t i = 0; i + m <= n; i++) {
    size_t k = 0;
    while (k < m && (s[i + k] | 0x20) == w[k]) k++;
    if (k == m) return 1;
  }
  return 0;
}

#endif
