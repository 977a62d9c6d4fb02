/* opstats.h: op statistics with distributions, over one trace or several
 * (the files of a profile): per event name, count, total, self, mean, min,
 * max and the exact nearest-rank p50 / p90 / p99 of the durations
 * (stat_tests.h), over each trace's whole time or a range of its own; and
 * the log-binned duration histogram of one name (issue 18, item 5).
 *
 * The events counted are those of slice and async tracks (not instants,
 * counter samples or CPU samples) that intersect the range, each with its
 * whole duration (as the diff and the page's "Summarise view" count them).
 * Self time is st_agg's (query.h): the duration minus the time covered by
 * the event's children. Names are joined across traces by their bytes.
 *
 * Cost: one st_agg pass per trace (O(events)), a sort of the distinct
 * names, then for the rows kept one more pass gathering their durations
 * (8 bytes per instance while it runs) and three quickselects per name.
 *
 *   st_opstats *s = st_opstats_build(&alloc, traces, n, NULL, NULL, 20, &err);
 *   uint32_t k; const st_opstat *r = st_opstats_rows(s, &k);  // by self, largest first
 *   st_opstats_destroy(s);
 *
 * Histogram bins: 5 per decade of nanoseconds, edges round(10^(i/5)) ns
 * (1, 2, 3, 4, 6, 10, 16, 25, 40, 63, 100, 158, ...); bin i holds the
 * durations d with edge_i <= d < edge_(i+1); a first bin [0, 1) holds the
 * zero-length ones. Only the bins from the first to the last non-empty
 * are returned (empty ones between them included).
 */
#ifndef STRATA_OPSTATS_H
#define STRATA_OPSTATS_H

#include "json_out.h"
#include "query.h"
#include "select.h"

/* The kind of an event (`strata analyze`, README "Kinds of events"): set
 * by a classifier the caller gives (st_opstats_kinds); a name's kind is the
 * first of wrapper, annotation, kernel, runtime, host that any of its
 * events has. */
typedef enum st_op_kind {
  ST_KIND_HOST = 0,
  ST_KIND_KERNEL = 1,
  ST_KIND_RUNTIME = 2,
  ST_KIND_ANNOTATION = 3,
  ST_KIND_WRAPPER = 4,
  ST_KIND_COUNT = 5
} st_op_kind;
const char *st_op_kind_name(st_op_kind k); /* "host", "kernel", ... */

typedef struct st_opstat {
  const char *name; /* bytes in the first trace that has it (valid while it lives) */
  size_t name_len;
  uint8_t kind; /* st_op_kind (ST_KIND_HOST without a classifier) */
  uint8_t top;  /* 1: among the `top` names by self time of every kind */
  uint64_t count;
  int64_t total_ns, self_ns, min_ns, max_ns;
  double mean_ns; /* total / count */
  int64_t p50_ns, p90_ns, p99_ns;
} st_opstat;

typedef struct st_opstats st_opstats;

/* t0/t1: per trace k its range [t0[k], t1[k]) in its own ns, or NULL for
 * whole traces. top: keep the `top` names with the most self time (0: all).
 * NULL + err: ST_ERR_ARG (no traces), ST_ERR_NOMEM. */
st_opstats *st_opstats_build(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                             const int64_t *t0, const int64_t *t1, uint32_t top, st_error *err);
void st_opstats_destroy(st_opstats *s);
/* The same with each event's kind from fn(ctx, trace, row, index): rows
 * kept are the `top` by self time of every kind (st_opstat.top set) and
 * also the `top` of each kind (the tables of kernels, host ops, runtime
 * calls), all by self time, largest first. */
typedef uint8_t (*st_opstats_kind_fn)(void *ctx, uint32_t trace, uint32_t row, uint32_t index);
st_opstats *st_opstats_build_kinds(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                                   const int64_t *t0, const int64_t *t1, uint32_t top,
                                   st_opstats_kind_fn fn, void *ctx, st_error *err);
/* The same over the events of a selection of trace t (its spans on slice
 * and async rows) instead of ranges. NULL + err: ST_ERR_ARG, ST_ERR_NOMEM. */
st_opstats *st_opstats_build_sel(const st_alloc *alloc, const st_trace *t, const st_selection *sel,
                                 uint32_t top, st_error *err);
/* Rows by self time, largest first (ties by name bytes). */
const st_opstat *st_opstats_rows(const st_opstats *s, uint32_t *count);
/* One row as JSON: {"name","count","total_us","self_us","mean_us",
 * "min_us","p50_us","p90_us","p99_us","max_us"} (exact decimal us; the
 * mean with 3 decimals): `strata analyze`'s ops and the page's. */
void st_opstat_json(st_jout *o, const st_opstat *p);
/* Its fields alone (no braces), to add more. */
void st_opstat_json_fields(st_jout *o, const st_opstat *p);
/* Distinct names in the range(s), before the cut to `top`. */
uint32_t st_opstats_names(const st_opstats *s);

#define ST_HIST_BINS_MAX 128

typedef struct st_hist_bin {
  int64_t lo_ns, hi_ns; /* [lo, hi) */
  uint64_t count;
} st_hist_bin;

/* The bin index of a duration (0: [0, 1)). */
uint32_t st_hist_bin_of(int64_t dur_ns);
/* Bin i's bounds. */
void st_hist_bin_bounds(uint32_t i, int64_t *lo_ns, int64_t *hi_ns);
/* The histogram of the events named name[0, len) (name NULL: of every
 * event counted, whatever its name; ranges as above) into
 * bins[ST_HIST_BINS_MAX]; returns the number of bins written (0: no such
 * event). *first_bin (may be NULL) gets the index of bins[0]. */
uint32_t st_opstats_histogram(const st_trace *const *traces, uint32_t n, const int64_t *t0,
                              const int64_t *t1, const char *name, size_t len, st_hist_bin *bins,
                              uint32_t *first_bin);

/* The histogram of the selection's events named so (as st_opstats_build_sel). */
uint32_t st_opstats_histogram_sel(const st_trace *t, const st_selection *sel, const char *name,
                                  size_t len, st_hist_bin *bins, uint32_t *first_bin);

/* Adds to *out the events named name[0, len) whose duration d has lo_ns <=
 * d < hi_ns (a histogram bin's instances; name NULL: of any name), among
 * those counted in [t0, t1)
 * of t (sel == NULL) or among the selection's (sel), each at row row_base +
 * its row (t a part of a merged view: its first row there). ST_OK,
 * ST_ERR_NOMEM, ST_ERR_ARG. */
st_code st_opstats_select(const st_trace *t, int64_t t0, int64_t t1, const st_selection *sel,
                          const char *name, size_t len, int64_t lo_ns, int64_t hi_ns,
                          uint32_t row_base, st_selection *out);

#endif
