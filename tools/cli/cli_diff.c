/* cli_diff.c: `strata diff A B [--by name|cat] [--json] [--range-a T0,T1]
 *             [--range-b T0,T1] [--step N] [--sort COL] [--asc] [--limit N]
 *             [--fail-on-regression] [--threads N]`
 *
 * What changed between a baseline A and a candidate B (core/analysis/diff.h): per
 * name (or category) count, total, self and average time in each, the
 * difference and the ratio, for the whole traces, a range of each (T0,T1:
 * microseconds from that trace's start, decimals allowed) or one step
 * (--step N: ProfilerStep#N, else the Steps line's step N, in each trace;
 * core/set/profile.h st_profile_find_step). Rows start with the biggest
 * increase of total time; --sort takes a JSON column key (name, count_a,
 * total_us_b, d_total_us, ratio_total, ...), descending unless --asc.
 *
 * --json prints st_diff_json's object: {"by", "rows": [{"name", "count_a",
 * "count_b", "total_us_a", "total_us_b", "self_us_a", "self_us_b", ...}],
 * "only_a", "only_b", ...}, every row, plus "alignment": {"kind": "start" |
 * "profiler_step" | "steps_line" | "xla_module", "step": N or -1,
 * "offset_us": what to add to B's times to line it up with A's}: the
 * default compare alignment of core/set/profile.h (also the table's header). The table (default)
 * shows the first
 * --limit rows (default 40; 0 = all) and marks rows only in A / only in B
 * and regressions ("!!") / improvements ("++"), the verdicts of diff.h (a
 * meaningful effect that is significant over the instances: Mann-Whitney
 * U, p < 0.01), with each row's p value ("n/a": too few instances for a
 * verdict), then the rollup by kind and the headline (mean step time and
 * busy time per step, B - A with a 95 % bootstrap interval).
 * Exit 1 if a file cannot be loaded or lacks the step, 2 on usage errors;
 * with --fail-on-regression, 3 when any row is a regression (CI gating).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "diff.h"
#include "json_scan.h"
#include "profile.h"
#include "query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void) {
  fprintf(stderr, "usage: strata diff A B [--by name|cat] [--json] [--range-a T0,T1] "
                  "[--range-b T0,T1] [--step N] [--sort COL] [--asc] [--limit N]\n"
                  "                   [--wide] [--fail-on-regression] " CLI_FEED_USAGE "\n"
                  "  T0,T1: microseconds from that trace's start\n");
  return 2;
}

/* "T0,T1" in microseconds -> ns */
static int parse_range(const char *s, int64_t *t0, int64_t *t1) {
  const char *comma = strchr(s, ',');
  if (!comma) return 0;
  size_t n0 = (size_t)(comma - s), n1 = strlen(comma + 1);
  if (!st_json_decimal_scaled(s, n0, 3, t0) || !st_json_decimal_scaled(comma + 1, n1, 3, t1))
    return 0;
  return *t1 >= *t0;
}

static const char *const align_names[] = {"start", "profiler_step", "steps_line", "xla_module",
                                          "events"};
static const char *const align_text[] = {"the trace starts", "the first ProfilerStep of each",
                                         "the first event of each Steps line",
                                         "the first XLA module of each", "two events"};

static void print_dur(int64_t ns) {
  char b[32], t[40];
  st_format_dur((double)(ns < 0 ? -ns : ns), b, sizeof b);
  snprintf(t, sizeof t, "%s%s", ns < 0 ? "-" : ns > 0 ? "+" : "", b);
  printf(" %12s", t);
}

/* The headline: step time and device busy, B - A with its interval. */
static void print_headline(const st_diff *d) {
  st_diff_headline h;
  st_diff_headline_get(d, &h);
  if (h.has_step) {
    printf("step time: A %.3f ms, B %.3f ms, B - A %+.3f ms", h.step_a_ns / 1e6, h.step_b_ns / 1e6,
           h.d_step_ns / 1e6);
    if (h.has_step_ci)
      printf(" (95%% CI %+.3f .. %+.3f ms)", h.d_step_lo_ns / 1e6, h.d_step_hi_ns / 1e6);
    printf(" over %u / %u steps\n", h.steps_a, h.steps_b);
  }
  if (h.has_busy) {
    printf("device busy%s: A %.3f ms, B %.3f ms, B - A %+.3f ms", h.has_step ? " per step" : "",
           h.busy_a_ns / 1e6, h.busy_b_ns / 1e6, h.d_busy_ns / 1e6);
    if (h.has_busy_ci)
      printf(" (95%% CI %+.3f .. %+.3f ms)", h.d_busy_lo_ns / 1e6, h.d_busy_hi_ns / 1e6);
    printf("\n");
  }
}

static const char *verdict_word(uint32_t f) {
  return f & ST_DIFF_REGRESSION        ? "slower"
         : f & ST_DIFF_IMPROVEMENT     ? "faster"
         : f & ST_DIFF_ONLY_A          ? "only A"
         : f & ST_DIFF_ONLY_B          ? "only B"
         : f & ST_DIFF_NOT_ENOUGH_DATA ? "too few"
                                       : "no change";
}

static void print_table(const st_diff *d, long limit, int wide) {
  uint32_t n;
  const st_diff_row *r = st_diff_rows(d, &n);
  st_diff_summary s;
  st_diff_summary_get(d, &s);
  print_headline(d);
  uint32_t shown = n;
  if (limit > 0 && shown > (uint32_t)limit) shown = (uint32_t)limit;
  int w = 8; /* the name column: as wide as the longest name shown, at most 48 (--wide: all) */
  for (uint32_t i = 0; i < shown; i++)
    if ((int)r[i].name_len > w) w = r[i].name_len > 48 && !wide ? 48 : (int)r[i].name_len;
  if (w > 1000) w = 1000;
  const char **names = calloc(shown ? shown : 1, sizeof *names);
  size_t *lens = calloc(shown ? shown : 1, sizeof *lens);
  for (uint32_t i = 0; names && lens && i < shown; i++)
    names[i] = r[i].name, lens[i] = r[i].name_len;
  printf("%-4s %-*s %9s %9s %11s %11s %12s %8s %11s %11s %-9s %9s %s\n", "", w,
         s.by ? "category" : "name", "count A", "count B", "total A", "total B", "diff", "ratio",
         "self A", "self B", "verdict", "p", "test");
  for (uint32_t i = 0; i < n && (limit <= 0 || i < (uint32_t)limit); i++) {
    const st_diff_row *x = &r[i];
    const char *mark = x->flags & ST_DIFF_ONLY_A ? "-A" : x->flags & ST_DIFF_ONLY_B ? "+B" : "";
    const char *big = x->flags & ST_DIFF_REGRESSION    ? "!!"
                      : x->flags & ST_DIFF_IMPROVEMENT ? "++"
                                                       : "";
    char tag[8];
    snprintf(tag, sizeof tag, "%s%s", big, mark);
    /* names are untrusted bytes: control characters shown as '?' */
    char name[1024];
    cli_short(x->name, x->name_len, names && lens ? cli_differs_at(names, lens, shown, i) : 0,
              wide ? 0 : (size_t)w, name, sizeof name);
    char ta[24], tb[24], sa[24], sb[24], ratio[16], p[16];
    st_format_dur((double)x->total_a_ns, ta, sizeof ta);
    st_format_dur((double)x->total_b_ns, tb, sizeof tb);
    st_format_dur((double)x->self_a_ns, sa, sizeof sa);
    st_format_dur((double)x->self_b_ns, sb, sizeof sb);
    if (x->ratio_total > 1e9)
      snprintf(ratio, sizeof ratio, "new");
    else
      snprintf(ratio, sizeof ratio, "%.3gx", x->ratio_total);
    if (x->p_value < 0 || (x->flags & ST_DIFF_NOT_ENOUGH_DATA))
      snprintf(p, sizeof p, "n/a");
    else
      snprintf(p, sizeof p, "%.2g", x->p_value);
    printf("%-4s %-*s %9llu %9llu %11s %11s", tag, w, name, (unsigned long long)x->count_a,
           (unsigned long long)x->count_b, ta, tb);
    print_dur(x->d_total_ns);
    printf(" %8s %11s %11s %-9s %9s %s\n", ratio, sa, sb, verdict_word(x->flags), p,
           x->test == ST_DIFF_TEST_WILCOXON       ? "paired"
           : x->test == ST_DIFF_TEST_MANN_WHITNEY ? "mann-whitney"
                                                  : "");
  }
  free(names);
  free(lens);
  if (limit > 0 && n > (uint32_t)limit)
    printf("... %u more rows (--limit 0: all)\n", n - (uint32_t)limit);
  printf("%u rows: %u only in A, %u only in B, %u regressions (!!), %u improvements (++), %u with "
         "too few instances for a verdict (p n/a); busy A %.3f ms, B %.3f ms\n",
         s.rows, s.only_a, s.only_b, s.regressions, s.improvements, s.not_enough_data,
         (double)s.busy_a_ns / 1e6, (double)s.busy_b_ns / 1e6);
  uint32_t nk;
  const st_diff_kind *k = st_diff_rollup(d, &nk);
  int kinds = 0;
  for (uint32_t i = 0; i < nk && kinds < 8; i++) {
    if (!k[i].regressions && !k[i].improvements &&
        !(k[i].verdict & (ST_DIFF_REGRESSION | ST_DIFF_IMPROVEMENT)))
      continue;
    char name[49];
    cli_clean(k[i].kind, k[i].kind_len, name, sizeof name);
    char dt[32];
    st_format_dur((double)(k[i].d_total_ns < 0 ? -k[i].d_total_ns : k[i].d_total_ns), dt,
                  sizeof dt);
    printf("%s%s %s%s (%u of %u rows regressed, %u improved; %s",
           kinds++ ? "; " : "by kind: ", name, k[i].d_total_ns < 0 ? "-" : "+", dt,
           k[i].regressions, k[i].rows, k[i].improvements, verdict_word(k[i].verdict));
    if (k[i].p_value >= 0) printf(", p %.2g", k[i].p_value);
    printf(")");
  }
  if (kinds) printf("\n");
}

int strata_cmd_diff(int argc, char **argv) {
  const char *files[2] = {NULL, NULL};
  int json = 0, asc = 0, has_step = 0, fail_on_regression = 0, wide = 0;
  long limit = 40;
  st_diff_opts o;
  memset(&o, 0, sizeof o);
  const char *sort = NULL;
  long long step = 0;
  cli_feed_opts fo = {0};
  for (int i = 2; i < argc; i++) {
    int r = cli_feed_opt(argc, argv, &i, &fo, "diff");
    if (r < 0) return 2;
    if (r) continue;
    const char *a = argv[i];
    int more = i + 1 < argc;
    if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--wide")) {
      wide = 1;
    } else if (!strcmp(a, "--asc")) {
      asc = 1;
    } else if (!strcmp(a, "--fail-on-regression")) {
      fail_on_regression = 1;
    } else if (!strcmp(a, "--by") && more) {
      const char *v = argv[++i];
      if (!strcmp(v, "name"))
        o.by = ST_DIFF_BY_NAME;
      else if (!strcmp(v, "cat") || !strcmp(v, "category"))
        o.by = ST_DIFF_BY_CAT;
      else
        return usage();
    } else if (!strcmp(a, "--range-a") && more) {
      if (!parse_range(argv[++i], &o.a_t0_ns, &o.a_t1_ns)) return usage();
      o.range_a = 1;
    } else if (!strcmp(a, "--range-b") && more) {
      if (!parse_range(argv[++i], &o.b_t0_ns, &o.b_t1_ns)) return usage();
      o.range_b = 1;
    } else if (!strcmp(a, "--step") && more) {
      char *end;
      step = strtoll(argv[++i], &end, 10);
      if (*end || step < 0) return usage();
      has_step = 1;
    } else if (!strcmp(a, "--sort") && more) {
      sort = argv[++i];
      if (st_diff_col_parse(sort, strlen(sort)) == ST_DIFF_COL_COUNT_) {
        fprintf(stderr, "strata diff: unknown column '%s'\n", sort);
        return 2;
      }
    } else if (!strcmp(a, "--limit") && more) {
      limit = strtol(argv[++i], NULL, 10);
    } else if (a[0] != '-' && !files[0]) {
      files[0] = a;
    } else if (a[0] != '-' && !files[1]) {
      files[1] = a;
    } else {
      return usage();
    }
  }
  if (!files[1]) return usage();
  if (has_step && (o.range_a || o.range_b)) {
    fprintf(stderr, "strata diff: --step and --range-a/--range-b exclude each other\n");
    return 2;
  }
  cli_set cs;
  int rc = cli_set_load(&cs, files, 2, 1, &fo);
  const st_trace *t[2] = {NULL, NULL};
  for (uint32_t k = 0; k < 2 && rc == 0; k++) t[k] = cli_set_file(&cs, k).trace;
  for (int k = 0; k < 2 && rc == 0 && has_step; k++) {
    int64_t *t0 = k ? &o.b_t0_ns : &o.a_t0_ns, *t1 = k ? &o.b_t1_ns : &o.a_t1_ns;
    if (!st_profile_find_step(t[k], step, NULL, t0, t1)) {
      fprintf(stderr, "strata: %s: no step %lld (no ProfilerStep#%lld, no Steps line event %lld)\n",
              files[k], step, step, step);
      rc = 1;
    }
    if (k) o.range_a = o.range_b = 1;
  }
  st_diff *d = NULL;
  if (rc == 0) {
    st_error err;
    d = st_diff_build(NULL, t[0], t[1], &o, &err);
    if (!d) {
      fprintf(stderr, "strata: diff: %s\n", err.msg);
      rc = 1;
    }
  }
  if (d) {
    if (sort)
      st_diff_sort(d, st_diff_col_parse(sort, strlen(sort)), !asc);
    else if (asc)
      st_diff_sort(d, ST_DIFF_COL_D_TOTAL, 0);
    st_profile_alignment al;
    if (st_profile_compare_offset(NULL, t[0], t[1], &al) != ST_OK)
      al.kind = ST_ALIGN_START, al.offset_ns = 0, al.step = -1;
    if (json) {
      size_t need = st_diff_json(d, 0, NULL, 0) + 1;
      char *out = malloc(need);
      if (!out) {
        fprintf(stderr, "strata: out of memory\n");
        rc = 1;
      } else {
        st_diff_json(d, 0, out, need);
        out[strlen(out) - 1] = 0; /* the closing brace: the alignment goes in too */
        printf("%s,\"alignment\":{\"kind\":\"%s\",\"step\":%lld,\"offset_us\":", out,
               align_names[al.kind], (long long)al.step);
        cli_print_us(al.offset_ns);
        printf("}}\n");
        free(out);
      }
    } else {
      printf("A: %s\nB: %s\n", files[0], files[1]);
      if (has_step) printf("step %lld in each\n", step);
      printf("B aligned on A: ");
      if (al.kind == ST_ALIGN_PROFILER_STEP && al.step >= 0)
        printf("ProfilerStep#%lld", (long long)al.step);
      else if (al.kind == ST_ALIGN_STEPS_LINE && al.step >= 0)
        printf("step %lld of the Steps line", (long long)al.step);
      else
        printf("%s", align_text[al.kind]);
      printf(" (B shifted by %.3f us)\n", (double)al.offset_ns / 1000.0);
      print_table(d, limit, wide);
    }
    cli_set_warn_damaged(&cs);
    st_diff_summary s;
    st_diff_summary_get(d, &s);
    if (rc == 0 && fail_on_regression && s.regressions) rc = 3;
  }
  st_diff_destroy(d);
  cli_set_free(&cs);
  return rc;
}
