/* diff_json.c: the diff as JSON (diff.h st_diff_json): the summary, the
 * rollup by kind, the headline and the rows, each figure in microseconds,
 * verdicts and tests by name.
 */
#include "diff.h"
#include "diff_internal.h"

#include "json_out.h"

#include <math.h>
#include <string.h>

static void key(st_jout *o, const char *k, int first) {
  if (!first) st_jout_put(o, ",", 1);
  st_jout_put(o, "\"", 1);
  st_jout_lit(o, k);
  st_jout_put(o, "\":", 2);
}

static void put_avg_us(st_jout *o, double ns) { st_jout_fixed(o, ns / 1000.0, 6); }

static void opt_us(st_jout *o, int has, double ns) {
  if (has)
    st_jout_fixed(o, ns / 1000.0, 3);
  else
    st_jout_lit(o, "null");
}

static void opt_pair(st_jout *o, int has, double lo, double hi) {
  if (!has) {
    st_jout_lit(o, "null");
    return;
  }
  st_jout_put(o, "[", 1);
  st_jout_fixed(o, lo / 1000.0, 3);
  st_jout_put(o, ",", 1);
  st_jout_fixed(o, hi / 1000.0, 3);
  st_jout_put(o, "]", 1);
}

static const char *verdict_json(uint32_t f) {
  return f & ST_DIFF_REGRESSION        ? "\"regression\""
         : f & ST_DIFF_IMPROVEMENT     ? "\"improvement\""
         : f & ST_DIFF_ONLY_A          ? "\"only_a\""
         : f & ST_DIFF_ONLY_B          ? "\"only_b\""
         : f & ST_DIFF_NOT_ENOUGH_DATA ? "\"too_few\""
                                       : "\"no_change\"";
}

static const char *test_json(uint8_t t) {
  return t == ST_DIFF_TEST_WILCOXON       ? "\"wilcoxon\""
         : t == ST_DIFF_TEST_MANN_WHITNEY ? "\"mann_whitney\""
                                          : "null";
}

size_t st_diff_json(const st_diff *d, uint32_t max_rows, char *buf, size_t cap) {
  st_jout o = {.buf = buf, .cap = cap};
  st_diff_summary s;
  st_diff_summary_get(d, &s);
  uint32_t n = d ? d->count : 0;
  if (max_rows && max_rows < n) n = max_rows;
  st_jout_lit(&o, "{\"schema\":\"strata.diff/1\",\"by\":");
  st_jout_lit(&o, s.by == ST_DIFF_BY_CAT ? "\"cat\"" : "\"name\"");
  key(&o, "rows", 0);
  st_jout_put(&o, "[", 1);
  for (uint32_t i = 0; i < n; i++) {
    const st_diff_row *r = &d->rows[i];
    st_jout_lit(&o, i ? ",{" : "{");
    key(&o, "name", 1);
    st_jout_str(&o, r->name, r->name_len);
    key(&o, "count_a", 0);
    st_jout_u64(&o, r->count_a);
    key(&o, "count_b", 0);
    st_jout_u64(&o, r->count_b);
    key(&o, "total_us_a", 0);
    st_jout_us(&o, r->total_a_ns);
    key(&o, "total_us_b", 0);
    st_jout_us(&o, r->total_b_ns);
    key(&o, "self_us_a", 0);
    st_jout_us(&o, r->self_a_ns);
    key(&o, "self_us_b", 0);
    st_jout_us(&o, r->self_b_ns);
    key(&o, "avg_us_a", 0);
    put_avg_us(&o, r->avg_a_ns);
    key(&o, "avg_us_b", 0);
    put_avg_us(&o, r->avg_b_ns);
    key(&o, "d_count", 0);
    st_jout_i64(&o, r->d_count);
    key(&o, "d_total_us", 0);
    st_jout_us(&o, r->d_total_ns);
    key(&o, "d_self_us", 0);
    st_jout_us(&o, r->d_self_ns);
    key(&o, "d_avg_us", 0);
    put_avg_us(&o, r->d_avg_ns);
    key(&o, "ratio_total", 0);
    st_jout_sig(&o, r->ratio_total, 6);
    key(&o, "ratio_self", 0);
    st_jout_sig(&o, r->ratio_self, 6);
    key(&o, "ratio_avg", 0);
    st_jout_sig(&o, r->ratio_avg, 6);
    key(&o, "only_a", 0);
    st_jout_lit(&o, r->flags & ST_DIFF_ONLY_A ? "true" : "false");
    key(&o, "only_b", 0);
    st_jout_lit(&o, r->flags & ST_DIFF_ONLY_B ? "true" : "false");
    key(&o, "regression", 0);
    st_jout_lit(&o, r->flags & ST_DIFF_REGRESSION ? "true" : "false");
    key(&o, "improvement", 0);
    st_jout_lit(&o, r->flags & ST_DIFF_IMPROVEMENT ? "true" : "false");
    key(&o, "p_value", 0);
    if (r->p_value < 0)
      st_jout_lit(&o, "null");
    else
      st_jout_sig(&o, r->p_value, 4);
    key(&o, "verdict", 0);
    st_jout_lit(&o, verdict_json(r->flags));
    key(&o, "test", 0);
    st_jout_lit(&o, test_json(r->test));
    st_jout_put(&o, "}", 1);
  }
  st_jout_put(&o, "]", 1);
  key(&o, "only_a", 0);
  st_jout_u64(&o, s.only_a);
  key(&o, "only_b", 0);
  st_jout_u64(&o, s.only_b);
  key(&o, "regressions", 0);
  st_jout_u64(&o, s.regressions);
  key(&o, "improvements", 0);
  st_jout_u64(&o, s.improvements);
  key(&o, "events_a", 0);
  st_jout_u64(&o, s.events_a);
  key(&o, "events_b", 0);
  st_jout_u64(&o, s.events_b);
  key(&o, "busy_us_a", 0);
  st_jout_us(&o, s.busy_a_ns);
  key(&o, "busy_us_b", 0);
  st_jout_us(&o, s.busy_b_ns);
  key(&o, "range_a", 0);
  st_jout_put(&o, "[", 1);
  st_jout_us(&o, s.a_t0_ns);
  st_jout_put(&o, ",", 1);
  st_jout_us(&o, s.a_t1_ns);
  st_jout_put(&o, "]", 1);
  key(&o, "range_b", 0);
  st_jout_put(&o, "[", 1);
  st_jout_us(&o, s.b_t0_ns);
  st_jout_put(&o, ",", 1);
  st_jout_us(&o, s.b_t1_ns);
  st_jout_put(&o, "]", 1);
  key(&o, "not_enough_data", 0);
  st_jout_u64(&o, s.not_enough_data);
  key(&o, "alpha", 0);
  st_jout_sig(&o, s.alpha, 6);
  key(&o, "regression_ratio", 0);
  st_jout_sig(&o, s.regression_ratio, 6);
  key(&o, "rollup", 0);
  st_jout_put(&o, "[", 1);
  for (uint32_t i = 0; d && i < d->nkinds; i++) {
    const st_diff_kind *k = &d->kinds[i];
    st_jout_lit(&o, i ? ",{" : "{");
    key(&o, "kind", 1);
    st_jout_str(&o, k->kind, k->kind_len);
    key(&o, "rows", 0);
    st_jout_u64(&o, k->rows);
    key(&o, "count_a", 0);
    st_jout_u64(&o, k->count_a);
    key(&o, "count_b", 0);
    st_jout_u64(&o, k->count_b);
    key(&o, "total_us_a", 0);
    st_jout_us(&o, k->total_a_ns);
    key(&o, "total_us_b", 0);
    st_jout_us(&o, k->total_b_ns);
    key(&o, "d_total_us", 0);
    st_jout_us(&o, k->d_total_ns);
    key(&o, "regressions", 0);
    st_jout_u64(&o, k->regressions);
    key(&o, "improvements", 0);
    st_jout_u64(&o, k->improvements);
    key(&o, "verdict", 0);
    st_jout_lit(&o, verdict_json(k->verdict));
    key(&o, "p_value", 0);
    if (k->p_value < 0)
      st_jout_lit(&o, "null");
    else
      st_jout_sig(&o, k->p_value, 4);
    key(&o, "test", 0);
    st_jout_lit(&o, test_json(k->test));
    st_jout_put(&o, "}", 1);
  }
  st_jout_put(&o, "]", 1);
  st_diff_headline h;
  st_diff_headline_get(d, &h);
  key(&o, "headline", 0);
  st_jout_lit(&o, "{\"steps_a\":");
  st_jout_u64(&o, h.steps_a);
  key(&o, "steps_b", 0);
  st_jout_u64(&o, h.steps_b);
  key(&o, "step_us_a", 0);
  opt_us(&o, h.has_step, h.step_a_ns);
  key(&o, "step_us_b", 0);
  opt_us(&o, h.has_step, h.step_b_ns);
  key(&o, "d_step_us", 0);
  opt_us(&o, h.has_step, h.d_step_ns);
  key(&o, "d_step_ci_us", 0);
  opt_pair(&o, h.has_step_ci, h.d_step_lo_ns, h.d_step_hi_ns);
  key(&o, "busy_us_a", 0);
  opt_us(&o, h.has_busy, h.busy_a_ns);
  key(&o, "busy_us_b", 0);
  opt_us(&o, h.has_busy, h.busy_b_ns);
  key(&o, "d_busy_us", 0);
  opt_us(&o, h.has_busy, h.d_busy_ns);
  key(&o, "d_busy_ci_us", 0);
  opt_pair(&o, h.has_busy_ci, h.d_busy_lo_ns, h.d_busy_hi_ns);
  st_jout_lit(&o, "}}");
  return st_jout_end(&o);
}
