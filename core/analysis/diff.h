/* diff.h: two traces compared, row by row: the diff table of a baseline A
 * and a candidate B (issue 13's "what changed between run A and run B?").
 *
 * Each side is aggregated with core/index/query.h's st_agg (count, total, self
 * time and average per name, or per category), over the whole trace or
 * over a time range of its own: [t0, t1) in that trace's ns from its
 * start (the page passes the visible window or one step; st_profile_find_step
 * in profile.h gives a step's range). As in the page's "Summarise view",
 * an event counts when it intersects the range, with its whole duration.
 * The two sets of rows are then joined on the name's bytes (each trace has
 * its own string table), so a row exists in both, only in A or only in B.
 *
 * Per row: count, total, self and average in A and in B, B - A for each,
 * and B / A for total, self and average. A ratio is 1 when both sides are
 * 0 (e.g. instants) and +infinity when only B has time (a new row; the
 * JSON writer prints null). The diff of a trace with itself has every
 * difference 0 and every ratio 1.
 *
 * Verdicts (issue 18: "regressions that are real"). A row is a
 * regression (ST_DIFF_REGRESSION) when B's instances are slower by a
 * meaningful effect AND the difference is significant over the instances:
 *   1. effect: B's mean duration is at least `regression_ratio` (default
 *      1.1, i.e. 10 % slower) times A's;
 *   2. significance: a two-sided test over the instances gives p <
 *      `alpha` (default 0.01), B's values tending larger (z > 0): when both
 *      sides hold the same number of instances (enough for the test to
 *      reach alpha) and, if both traces have as many steps (analyze.h), the
 *      same number in each step, the instances pair up in order (step by
 *      step, as listed within one) and the Wilcoxon signed-rank test of
 *      log(B / A) decides (row.test ST_DIFF_TEST_WILCOXON); else the
 *      Mann-Whitney U test of A's durations against B's (normal
 *      approximation, tie and continuity corrections: stat_tests.h);
 *      the effect (rule 1) is the ratio rounded to 3 significant digits;
 *   3. if `regression_share` > 0 (default 0: off), the time the row added,
 *      total_b - total_a, is at least that share of the busy time compared
 *      (the sum of self times of the side with more).
 * An improvement (ST_DIFF_IMPROVEMENT) is the mirror image. A row with too
 * few instances for the test to ever reach p < alpha (even if every B
 * instance were slower than every A instance: with n_a = n_b that takes
 * at least 6 each) is "not enough data" (ST_DIFF_NOT_ENOUGH_DATA), never a
 * verdict; so is a row on one side only (ST_DIFF_ONLY_A / _B). p_value is
 * the test's p, or -1 when it was not computed (one side only).
 *
 * Rollup: each kind gets its own verdict, p and test: the signed-rank
 * test over the pairs of its paired rows, else Mann-Whitney over its rows'
 * instances pooled, the effect its total B / A.
 * Rollup: the rows grouped by kind, a name without its trailing number
 * and the '.', '#', '_', '-' or ' ' before it ("fusion.37" -> "fusion",
 * "ProfilerStep#2" -> "ProfilerStep", "train_step 7" -> "train_step",
 * "aten::mm" stays): rows, totals, the
 * difference, regressions and improvements per kind ("fusion: +100 ms"),
 * by total difference, largest increase first.
 *
 * Headline: the whole traces analysed (analyze.h): the mean step time
 * (the steps' windows) and the mean busy time per step (busy averaged over
 * the devices) in A and B, and the difference of B - A with a 95 %
 * bootstrap interval over the steps (2000 resamples, fixed seed:
 * stat_tests.h); without steps, the devices' busy over their ranges and no
 * interval.
 *
 * Rows start sorted by total difference, largest increase first (the op
 * that got slower at the top); st_diff_sort re-sorts by any column. A
 * row's events in each trace are listed with st_diff_events_begin/next
 * (the page selects them in both), or found by its key ids (key_a, key_b:
 * the name or category string's id in that trace's strtab).
 *
 *   st_diff_opts o = {0};                       // by name, whole traces
 *   st_diff *d = st_diff_build(&alloc, a, b, &o, &err);
 *   uint32_t n; const st_diff_row *r = st_diff_rows(d, &n);
 *   st_diff_sort(d, ST_DIFF_COL_RATIO_TOTAL, 1);
 *   st_diff_iter it; st_event_ref ref;
 *   st_diff_events_begin(d, 0, ST_DIFF_SIDE_B, &it);
 *   while (st_diff_events_next(&it, &ref)) select(ref);
 *   st_diff_destroy(d);
 *
 * The traces must outlive the diff (rows point into their string tables).
 */
#ifndef STRATA_DIFF_H
#define STRATA_DIFF_H

#include "query.h"

#define ST_DIFF_REGRESSION_RATIO 1.1
#define ST_DIFF_REGRESSION_SHARE 0.0
#define ST_DIFF_ALPHA 0.01

typedef enum st_diff_by {
  ST_DIFF_BY_NAME = 0, /* rows are event names */
  ST_DIFF_BY_CAT = 1   /* rows are categories ("" for events without one) */
} st_diff_by;

typedef enum st_diff_side { ST_DIFF_SIDE_A = 0, ST_DIFF_SIDE_B = 1 } st_diff_side;

/* Zeroed fields mean defaults: by name, whole traces, default thresholds. */
typedef struct st_diff_opts {
  st_diff_by by;
  int range_a, range_b;     /* non-zero: use [a_t0_ns, a_t1_ns) / [b_t0_ns, b_t1_ns) */
  int64_t a_t0_ns, a_t1_ns; /* ns from A's start; t1 < t0 is ST_ERR_ARG */
  int64_t b_t0_ns, b_t1_ns; /* ns from B's start */
  double regression_ratio;  /* 0: ST_DIFF_REGRESSION_RATIO; must be >= 1 */
  double regression_share;  /* 0: off; in [0, 1] */
  double alpha;             /* 0: ST_DIFF_ALPHA; in (0, 1) */
  int no_headline;          /* 1: skip the headline's analysis of both traces */
} st_diff_opts;

enum {
  ST_DIFF_ONLY_A = 1u << 0,         /* no event of this name (category) in B's range */
  ST_DIFF_ONLY_B = 1u << 1,         /* none in A's range */
  ST_DIFF_REGRESSION = 1u << 2,     /* a regression (the verdict above) */
  ST_DIFF_IMPROVEMENT = 1u << 3,    /* an improvement (its mirror image) */
  ST_DIFF_NOT_ENOUGH_DATA = 1u << 4 /* too few instances for a verdict */
};

enum { ST_DIFF_TEST_NONE = 0, ST_DIFF_TEST_MANN_WHITNEY = 1, ST_DIFF_TEST_WILCOXON = 2 };

typedef struct st_diff_row {
  const char *name; /* the name (or category), from A's strtab (B's if only in B) */
  size_t name_len;  /* bytes; names may hold any bytes, even NUL */
  uint32_t key_a;   /* its strtab id in A, ST_STR_NONE if only in B */
  uint32_t key_b;   /* its strtab id in B, ST_STR_NONE if only in A */
  uint32_t flags;   /* ST_DIFF_ONLY_A | ST_DIFF_ONLY_B | ST_DIFF_REGRESSION | ... */
  uint64_t count_a, count_b;
  int64_t total_a_ns, total_b_ns;
  int64_t self_a_ns, self_b_ns;
  double avg_a_ns, avg_b_ns; /* total / count; 0 when count is 0 */
  int64_t d_count;           /* count_b - count_a */
  int64_t d_total_ns;        /* total_b - total_a (saturating) */
  int64_t d_self_ns;         /* self_b - self_a */
  double d_avg_ns;           /* avg_b - avg_a */
  double ratio_total;        /* total_b / total_a (1 if both 0, +inf if only B has time) */
  double ratio_self;         /* self_b / self_a, same rule */
  double ratio_avg;          /* avg_b / avg_a, same rule */
  double p_value;            /* the test's two-sided p; -1: not computed */
  uint8_t test;              /* ST_DIFF_TEST_*: which test decided */
} st_diff_row;

/* What the diff covered, for headers and the JSON writer. */
typedef struct st_diff_summary {
  st_diff_by by;
  uint32_t rows, only_a, only_b, regressions, improvements, not_enough_data;
  uint64_t events_a, events_b;  /* events aggregated on each side */
  int64_t busy_a_ns, busy_b_ns; /* sum of self times over every row */
  int64_t a_t0_ns, a_t1_ns;     /* the ranges used (whole trace: 0 .. duration) */
  int64_t b_t0_ns, b_t1_ns;
  double regression_ratio, regression_share, alpha; /* the thresholds used */
} st_diff_summary;

/* The rollup by kind (rule above). */
typedef struct st_diff_kind {
  const char *kind; /* a prefix of a row's name */
  size_t kind_len;
  uint32_t rows, regressions, improvements;
  uint64_t count_a, count_b;
  int64_t total_a_ns, total_b_ns, d_total_ns;
  uint32_t verdict; /* ST_DIFF_REGRESSION, _IMPROVEMENT, _NOT_ENOUGH_DATA, _ONLY_A/_B or 0 */
  double p_value;   /* -1: none */
  uint8_t test;     /* ST_DIFF_TEST_* */
} st_diff_kind;

/* The headline (rule above); has_* 0 when the traces have no steps /
 * no devices; has_*_ci 0 without an interval (fewer than 2 steps). */
typedef struct st_diff_headline {
  uint32_t steps_a, steps_b;
  int has_step, has_step_ci, has_busy, has_busy_ci;
  double step_a_ns, step_b_ns, d_step_ns, d_step_lo_ns, d_step_hi_ns;
  double busy_a_ns, busy_b_ns, d_busy_ns, d_busy_lo_ns, d_busy_hi_ns;
} st_diff_headline;

typedef enum st_diff_col {
  ST_DIFF_COL_NAME = 0,
  ST_DIFF_COL_COUNT_A,
  ST_DIFF_COL_COUNT_B,
  ST_DIFF_COL_TOTAL_A,
  ST_DIFF_COL_TOTAL_B,
  ST_DIFF_COL_SELF_A,
  ST_DIFF_COL_SELF_B,
  ST_DIFF_COL_AVG_A,
  ST_DIFF_COL_AVG_B,
  ST_DIFF_COL_D_COUNT,
  ST_DIFF_COL_D_TOTAL,
  ST_DIFF_COL_D_SELF,
  ST_DIFF_COL_D_AVG,
  ST_DIFF_COL_RATIO_TOTAL,
  ST_DIFF_COL_RATIO_SELF,
  ST_DIFF_COL_RATIO_AVG,
  ST_DIFF_COL_COUNT_ /* number of columns */
} st_diff_col;

typedef struct st_diff st_diff;

/* Aggregates both sides and joins them. NULL + err: ST_ERR_ARG (a or b
 * NULL, a bad range or threshold), ST_ERR_NOMEM. a may equal b. */
st_diff *st_diff_build(const st_alloc *alloc, const st_trace *a, const st_trace *b,
                       const st_diff_opts *opts, st_error *err);
void st_diff_destroy(st_diff *d);

/* The rows in their current order (valid until the next sort or destroy). */
const st_diff_row *st_diff_rows(const st_diff *d, uint32_t *count);
void st_diff_summary_get(const st_diff *d, st_diff_summary *out);
const st_diff_kind *st_diff_rollup(const st_diff *d, uint32_t *count);
void st_diff_headline_get(const st_diff *d, st_diff_headline *out);
const st_trace *st_diff_trace(const st_diff *d, st_diff_side side);

/* Stable re-sort by one column; ties by name (bytes), then by key_a/key_b.
 * Ratios sort +infinity above every finite value. */
void st_diff_sort(st_diff *d, st_diff_col col, int descending);

/* Column <-> its JSON key ("name", "count_a", ..., "d_total_us",
 * "ratio_total"); st_diff_col_parse returns ST_DIFF_COL_COUNT_ if unknown. */
const char *st_diff_col_key(st_diff_col col);
st_diff_col st_diff_col_parse(const char *key, size_t len);

/* ---- a row's events ------------------------------------------------------
 * The events of row `row` (its position in the current order) on one side:
 * those whose name (category) is the row's key there and that intersect
 * that side's range, row by row of the trace and in index order within
 * one. Nothing for a side the row does not exist on. The iterator holds no
 * memory; the diff must outlive it and not be sorted while it runs. */
typedef struct st_diff_iter {
  const st_trace *trace;
  uint32_t key; /* ST_STR_NONE: nothing to list */
  int by_cat;
  int64_t t0, t1;
  uint32_t row, index, end; /* position: trace row, next index, end of its range */
  uint32_t rows;            /* trace rows */
} st_diff_iter;

void st_diff_events_begin(const st_diff *d, uint32_t row, st_diff_side side, st_diff_iter *it);
/* 1 and *out = the next event, or 0 at the end. */
int st_diff_events_next(st_diff_iter *it, st_event_ref *out);

/* ---- JSON ----------------------------------------------------------------
 * The diff as one JSON object, for `strata diff --json` and the page's
 * window.strata.diff():
 *   {"by":"name"|"cat","rows":[{"name","count_a","count_b","total_us_a",
 *    "total_us_b","self_us_a","self_us_b","avg_us_a","avg_us_b","d_count",
 *    "d_total_us","d_self_us","d_avg_us","ratio_total","ratio_self",
 *    "ratio_avg","only_a","only_b","regression","improvement","p_value",
 *    "verdict","test"}...],
 *    "only_a":N,"only_b":N,"regressions":N,"improvements":N,
 *    "events_a":N,"events_b":N,"busy_us_a":X,"busy_us_b":X,
 *    "range_a":[t0_us,t1_us],"range_b":[t0_us,t1_us],
 *    "not_enough_data":N,"alpha":X,"regression_ratio":X,
 *    "rollup":[{"kind","rows","count_a","count_b","total_us_a","total_us_b",
 *    "d_total_us","regressions","improvements","verdict","p_value","test"}...],
 *    "headline":{"steps_a","steps_b","step_us_a","step_us_b","d_step_us",
 *    "d_step_ci_us":[lo,hi],"busy_us_a","busy_us_b","d_busy_us",
 *    "d_busy_ci_us":[lo,hi]}}
 * p_value: 4 significant digits, null when not computed; verdict:
 * "regression", "improvement", "no_change", "too_few", "only_a" or
 * "only_b"; test (rows and rollup): "wilcoxon", "mann_whitney" or null;
 * the rollup's kinds also carry "verdict", "p_value", "test". Headline values are null when missing
 * (no steps, no devices, no interval); its times have 3 decimals. in the current row order, at most
 * max_rows rows (0: all). Times are exact decimal microseconds (ns / 1000, trailing zeros dropped;
 * averages with 3 decimals); ratios with 6 significant digits, null when infinite. Names are JSON
 * strings (invalid UTF-8 becomes U+FFFD). Writes at most cap - 1 bytes plus a NUL (cap 0: nothing)
 * and returns the length the full text needs, like snprintf. */
size_t st_diff_json(const st_diff *d, uint32_t max_rows, char *buf, size_t cap);

#endif
