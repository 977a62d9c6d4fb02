/* query.h: questions asked of the whole trace: event references and
 * details, self time, search by name, and aggregation by name.
 *
 * Event references: an event is (row, index) into st_trace_rows(). Time
 * order over the whole trace is (start, row, index).
 *
 * Search (st_find): case-insensitive (ASCII) substring on event names over
 * EVERY row, not just what is on screen. Each interned string is tested once
 * to get the set of matching name ids; then the rows' name arrays are
 * scanned once into a bitset (one bit per event, each row starting on a
 * 64-bit word) with cumulative popcounts per word, so
 *   - "is (row, i) a match" and "how many matches in row[lo, hi)" are O(1)
 *     (the renderer dims merged blocks without touching their events);
 *   - next / previous match in time order costs O(rows x log n);
 *   - memory is about 1.1 bits per event, whatever the query.
 *
 *   st_find *f = st_find_create(&alloc, trace);
 *   st_find_set(f, "fusion", 6);            // whole-trace scan
 *   uint64_t n = st_find_count(f);
 *   st_event_ref r = ST_REF_NONE, next;
 *   while (st_find_step(f, r, +1, &next) && ...) r = next;  // time order
 *   st_find_destroy(f);
 *
 * Aggregation (st_agg): per name, count, total, self time (duration minus
 * the parts of it covered by its children: the events of the row one depth
 * below in the same thread that lie inside it), min, max and average;
 * fed with index ranges of rows (a selection, or everything intersecting a
 * time window) and sortable by any column. It can group by category
 * instead of name (st_agg_set_key).
 */
#ifndef STRATA_QUERY_H
#define STRATA_QUERY_H

#include "trace.h"

typedef struct st_event_ref {
  uint32_t row;
  uint32_t index;
} st_event_ref;

#define ST_REF_NONE ((st_event_ref){UINT32_MAX, UINT32_MAX})

/* 1 if ref names an event of t. */
int st_ref_valid(const st_trace *t, st_event_ref ref);

/* ---- row helpers (binary searches; rows' starts and ends are sorted) ---- */
/* First index whose start >= t_ns (count if none). */
uint32_t st_row_first_start_ge(const st_row *r, int64_t t_ns);
/* First index whose start > t_ns. */
uint32_t st_row_first_start_gt(const st_row *r, int64_t t_ns);
/* First index whose end > t_ns, or whose end == t_ns for a zero-length
 * event (so an instant at t is found). */
uint32_t st_row_first_end_gt(const st_row *r, int64_t t_ns);
/* First index whose end (saturated at INT64_MAX) is >= t_ns. */
uint32_t st_row_first_end_ge(const st_row *r, int64_t t_ns);

/* ---- one event ----------------------------------------------------------- */
typedef struct st_event_info {
  uint32_t name, cat;                 /* strtab ids */
  uint32_t process, track;            /* indexes */
  int64_t pid, tid;                   /* tid: the track's key */
  uint32_t process_name, thread_name; /* strtab ids ("" if unnamed) */
  uint32_t depth;
  int64_t start_ns, dur_ns, self_ns; /* start: from trace start */
  uint64_t src;                      /* byte offset of the event in the decoded input */
  uint8_t flags;                     /* ST_EV_* */
  uint8_t track_kind;                /* st_track_kind */
} st_event_info;

/* Fills *out; returns 0 (and leaves *out zeroed) for an invalid ref. */
int st_event_get(const st_trace *t, st_event_ref ref, st_event_info *out);
/* Duration minus the time covered by its children (events of the next
 * depth row of the same slice track that overlap it, clipped to it).
 * O(log n + children). Async lanes and instants have no children. */
int64_t st_event_self_ns(const st_trace *t, uint32_t row, uint32_t index);

/* Formats a duration with 4 significant digits in adaptive units
 * ("0 ns", "812 ns", "1.235 us", "12.5 ms", "3.2 s"). Returns the length. */
size_t st_format_dur(double ns, char *buf, size_t cap);

/* ---- search -------------------------------------------------------------- */
typedef struct st_find st_find;

st_find *st_find_create(const st_alloc *a, const st_trace *t);
void st_find_destroy(st_find *f);
/* Runs a new search over the whole trace. len 0 clears it (inactive).
 * ST_OK or ST_ERR_NOMEM (then the search is inactive). */
st_code st_find_set(st_find *f, const char *text, size_t len);
int st_find_active(const st_find *f);          /* a non-empty query is set */
const char *st_find_text(const st_find *f);    /* the query ("" if none) */
uint64_t st_find_count(const st_find *f);      /* matching events */
uint32_t st_find_name_count(const st_find *f); /* distinct matching names */
int st_find_is_match(const st_find *f, uint32_t row, uint32_t index);
/* "In args": adds to the active search every event whose src is in srcs
 * (ascending; st_args_search hits, core/import/args/args_search.h), so the match set
 * is names OR args. A src of a B/E slice's end event (the E: no model
 * event, trace.h st_trace_end_src) adds that slice. One pass over the
 * rows' src arrays with a binary search into srcs; no per-event memory
 * (8 bytes per slice found by its end event, while it runs). ST_ERR_ARG
 * if no search is active (st_find_set first), ST_ERR_NOMEM (then the
 * search is unchanged). */
st_code st_find_add_srcs(st_find *f, const uint64_t *srcs, size_t n);
/* The same for one part of a merged trace (trace.h st_trace_merge): srcs
 * are offsets in that part's file, matched against its rows only (and its
 * own B/E end events). For a plain trace, st_find_add_srcs. Several calls
 * (one per file) add up. */
st_code st_find_add_srcs_part(st_find *f, uint32_t part, const uint64_t *srcs, size_t n);
int st_find_in_args(const st_find *f); /* st_find_add_srcs was applied */
/* Makes dst the same search as src (query, matches, names OR args): both
 * must search the same trace. ST_OK, ST_ERR_ARG or ST_ERR_NOMEM (dst is
 * then inactive). Costs a copy of the match bits (~1.1 bits per event). */
st_code st_find_copy(st_find *dst, const st_find *src);
/* Matches among row[lo, hi). */
uint64_t st_find_count_in(const st_find *f, uint32_t row, uint32_t lo, uint32_t hi);
/* The next (dir > 0) or previous (dir < 0) match after / before `from` in
 * time order; from == ST_REF_NONE gives the first / last. Wraps around
 * when wrap != 0. Returns 1 and sets *out, or 0 if there is no match. */
int st_find_step(const st_find *f, st_event_ref from, int dir, int wrap, st_event_ref *out);
/* 0-based position of a matching ref in time order (matches before it). */
uint64_t st_find_rank(const st_find *f, st_event_ref ref);
/* The same three over the rows `skip` does not leave out (skip(ud, row) 1:
 * the row's matches do not count; NULL skips none): the matches a viewer
 * can show when some tracks are hidden (core/ui/ui.h st_ui_search_step).
 * Each calls skip once per row with a match. */
typedef int (*st_find_skip_fn)(const void *ud, uint32_t row);
uint64_t st_find_count_skipped(const st_find *f, st_find_skip_fn skip, const void *ud);
int st_find_step_skip(const st_find *f, st_event_ref from, int dir, int wrap, st_find_skip_fn skip,
                      const void *ud, st_event_ref *out);
uint64_t st_find_rank_skip(const st_find *f, st_event_ref ref, st_find_skip_fn skip,
                           const void *ud);

/* ---- aggregation --------------------------------------------------------- */
typedef enum st_agg_col {
  ST_AGG_NAME = 0,
  ST_AGG_COUNT,
  ST_AGG_TOTAL,
  ST_AGG_SELF,
  ST_AGG_AVG,
  ST_AGG_MIN,
  ST_AGG_MAX
} st_agg_col;

typedef struct st_agg_row {
  uint32_t name;
  uint64_t count;
  int64_t total_ns, self_ns, min_ns, max_ns;
  double avg_ns;
} st_agg_row;

typedef struct st_agg st_agg;

st_agg *st_agg_create(const st_alloc *a, const st_trace *t);
void st_agg_destroy(st_agg *g);
void st_agg_reset(st_agg *g);
/* What the rows group by: event names (the default) or categories; with
 * ST_AGG_KEY_CAT, st_agg_row.name holds the category's strtab id (sorting
 * by ST_AGG_NAME sorts the category strings). Resets g (core/analysis/diff.h uses
 * it for its by-category table). */
typedef enum st_agg_key { ST_AGG_KEY_NAME = 0, ST_AGG_KEY_CAT = 1 } st_agg_key;
void st_agg_set_key(st_agg *g, st_agg_key key);
/* Adds events row[lo, hi) (clamped to the row). O((hi - lo) + children). */
st_code st_agg_add(st_agg *g, uint32_t row, uint32_t lo, uint32_t hi);
/* Adds every event intersecting [t0, t1) in every row. */
st_code st_agg_add_window(st_agg *g, int64_t t0_ns, int64_t t1_ns);
/* Sorts the rows (ties by name, then name id). */
void st_agg_sort(st_agg *g, st_agg_col col, int descending);
const st_agg_row *st_agg_rows(const st_agg *g, uint32_t *count);
uint64_t st_agg_events(const st_agg *g); /* events added */

#endif
