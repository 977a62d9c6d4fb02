/* cli_analyze.c: `strata analyze FILE... [--json] [--wide] [--step-name NAME]
 *                [--ops N] [--gaps N] [--from US --to US | --step N]
 *                [--hist NAME] [--peak-tflops T] [--peak-gbps G] [--threads N]`
 *
 * Answers for a trace or a profile of many files (core/analysis/analyze.h):
 * the steps of each file, its devices (GPU, TPU core, a process's
 * streams) with step time, busy, idle, compute, communication, memcpy
 * and overlap, the same per step, the host's time per step, the largest
 * idle gaps with the host slices overlapping them, the stragglers among
 * the files, and the top ops by self time with p50 / p90 / p99; first,
 * why each device is idle (its idle causes), and the ops as three tables
 * of kernels (with their launcher), host ops and runtime calls (with the
 * device time they blocked), names cut in the middle (--wide: whole).
 * Several files load through the trace set, each its own model, as
 * `strata stats A B` loads them.
 *
 * --json prints st_analysis_json's object, plus "histogram" with --hist
 * NAME ({"name", "bins": [{"lo_us", "hi_us", "count"}]}, opstats.h's log
 * bins), with --cause-gaps each idle cause's "gap_list" ([[start_us,
 * end_us], ...]: the gaps it has a part of), "analyze_ms" (the analysis alone, without the loads,
 * the collectives included) and "analyze_cpu_ms" (its thread's CPU time). Without
 * --json a readable text. --step-name NAME makes every event of that name
 * a step; --ops N keeps N ops (default 20; 0 all); --gaps N the N longest
 * idle gaps (default 10); --from/--to (microseconds of each file's own
 * time) or --step N restricts the op statistics and the histogram.
 * The efficiency (core/analysis/efficiency.h, web/guide/efficiency.md "How well the hardware
 * is used"): "efficiency" in the JSON, a table of ops' FLOPs in the text;
 * --peak-tflops / --peak-gbps give every device that peak.
 * Collectives (core/analysis/collectives.h, issue 32): each file's
 * communication kernels matched across the files, the clock offsets they
 * give, waits, critical paths and what-ifs: --json adds "collectives",
 * "clock_offsets", "unaligned", "critical_path", "what_if" and
 * "collectives_summary", and per_step rows "waited_us" / "caused_us"; the
 * text ends with the summary line and each step's blocker. --align
 * collectives writes every time of the JSON on the clock the collectives
 * give (collectives.h "aligned": ns from the first file with collectives'
 * time 0; files without collectives on their own absolute clock).
 * Exit 1 if a file cannot be loaded, 2 on usage errors.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "cli_efficiency.h"

#include "analyze.h"
#include "cli_collectives.h"
#include "json_out.h"
#include "json_scan.h"
#include "memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void) {
  fprintf(stderr, "usage: strata analyze FILE... [--json [--cause-gaps]] [--wide] [--step-name "
                  "NAME] [--ops N]\n"
                  "                      [--gaps N]\n"
                  "                      [--from US --to US | --step N] [--hist NAME]\n"
                  "                      [--peak-tflops T] [--peak-gbps G] [--align collectives]\n"
                  "                      " CLI_FEED_USAGE "\n");
  return 2;
}

static void us_text(int64_t ns, char *b, size_t cap) {
  size_t k = 0;
  if (ns < 0 && cap > 1) b[k++] = '-';
  st_format_dur((double)(ns < 0 ? -ns : ns), b + k, cap - k);
}

static double pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/* One table of ops of a kind, the `top` by self time; names cut in the
 * middle to the column (cli_short) unless wide. */
static void print_ops(const st_analysis *an, uint8_t kind, const char *title, uint32_t top,
                      int wide) {
  uint32_t no;
  const st_opstat *ops = st_opstats_rows(st_analysis_ops(an), &no);
  const st_an_op_extra *ex = st_analysis_op_extra(an);
  const char **names = calloc(no ? no : 1, sizeof *names);
  size_t *lens = calloc(no ? no : 1, sizeof *lens);
  uint32_t *at = calloc(no ? no : 1, sizeof *at);
  if (!names || !lens || !at) {
    free(names), free(lens), free(at);
    return;
  }
  uint32_t m = 0;
  for (uint32_t i = 0; i < no && m < top; i++)
    if (ops[i].kind == kind) names[m] = ops[i].name, lens[m] = ops[i].name_len, at[m++] = i;
  const char *last = kind == ST_KIND_KERNEL    ? "launched by"
                     : kind == ST_KIND_RUNTIME ? "blocked"
                                               : "";
  int w = 48;
  if (wide)
    for (uint32_t j = 0; j < m; j++)
      if ((int)lens[j] > w) w = lens[j] > 1000 ? 1000 : (int)lens[j];
  printf("\n%-*s %9s %11s %11s %11s %11s %11s %11s  %s\n", w, title, "count", "total", "self",
         "p50", "p90", "p99", "max", last);
  char a[32], b[32], c[32], d[32], e[32], f[32];
  for (uint32_t j = 0; j < m; j++) {
    const st_opstat *o = &ops[at[j]];
    char name[1024], by[1024] = "";
    cli_short(o->name, o->name_len, cli_differs_at(names, lens, m, j), wide ? 0 : (size_t)w, name,
              sizeof name);
    us_text(o->total_ns, a, sizeof a);
    us_text(o->self_ns, b, sizeof b);
    us_text(o->p50_ns, c, sizeof c);
    us_text(o->p90_ns, d, sizeof d);
    us_text(o->p99_ns, e, sizeof e);
    us_text(o->max_ns, f, sizeof f);
    if (kind == ST_KIND_KERNEL && ex[at[j]].launched_by)
      cli_short(ex[at[j]].launched_by, ex[at[j]].launched_by_len, 0, wide ? 0 : 40, by, sizeof by);
    if (kind == ST_KIND_RUNTIME) {
      char bl[32];
      us_text(ex[at[j]].blocked_ns, bl, sizeof bl);
      double den = (double)o->total_ns * ex[at[j]].devices;
      snprintf(by, sizeof by, "%s (%.1f%%)", bl,
               den > 0 ? 100.0 * (double)ex[at[j]].blocked_ns / den : 0);
    }
    printf("%-*s %9llu %11s %11s %11s %11s %11s %11s  %s\n", w, name, (unsigned long long)o->count,
           a, b, c, d, e, f, by);
  }
  if (!m) printf("(none)\n");
  free(names), free(lens), free(at);
}

/* The device's idle causes in one line: "idle 64.5 %: 91 % of it while the
 * host ran X (in Y), 6 % Z, 3 % nothing recorded". */
static void print_causes(const st_analysis *an, uint32_t d, int wide) {
  uint32_t nd;
  const st_an_device *v = &st_analysis_devices(an, &nd)[d];
  const st_an_cause *cs = st_analysis_causes(an, NULL);
  const st_trace *t = st_analysis_trace(an, v->trace);
  const st_row *rows = st_trace_rows(t, NULL);
  int64_t idle = v->total.wall_ns - v->total.busy_ns;
  printf("[%u]  %s: idle %.1f%%", v->trace, v->name, pct(idle, v->total.wall_ns));
  for (uint32_t c = 0; c < v->causes; c++) {
    const st_an_cause *x = &cs[v->first_cause + c];
    char name[1024], in[1024];
    if (x->what == ST_CAUSE_SLICE) {
      size_t l;
      const char *nm = st_strtab_get(st_trace_strings(t), rows[x->ref.row].name[x->ref.index], &l);
      cli_short(nm, l, 0, wide ? 0 : 48, name, sizeof name);
    } else {
      snprintf(name, sizeof name, "%s",
               x->what == ST_CAUSE_OTHER ? "other host activity" : "nothing recorded");
    }
    printf("%s%.0f%% %s%s", c ? ", " : ": ", pct(x->ns, idle), c ? "" : "of it while the host ran ",
           name);
    if (x->has_parent) {
      size_t l;
      const char *nm =
          st_strtab_get(st_trace_strings(t), rows[x->parent.row].name[x->parent.index], &l);
      cli_short(nm, l, 0, wide ? 0 : 40, in, sizeof in);
      printf(" (in %s)", in);
    }
  }
  printf("\n");
  if (idle > 0)
    printf("     idle split (HTA): host wait %.1f%%, kernel wait %.1f%%, other %.1f%%\n",
           pct(v->host_wait_ns, idle), pct(v->kernel_wait_ns, idle), pct(v->other_wait_ns, idle));
}

static void print_text(const st_analysis *an, const cli_set *cs, const st_hist_bin *bins,
                       uint32_t nbins, const char *hist, uint32_t top, int wide) {
  uint32_t nd, ns, ng;
  const st_an_device *dev = st_analysis_devices(an, &nd);
  const st_an_step *steps = st_analysis_steps(an, &ns);
  const st_an_gap *gaps = st_analysis_gaps(an, &ng);
  static const char *const from[] = {"no steps", "steps: named events", "steps: ProfilerStep#N",
                                     "steps: the Steps line"};
  char a[32], b[32];
  for (uint32_t k = 0; k < st_analysis_traces(an); k++) {
    st_traceset_file f = cli_set_file(cs, k);
    uint32_t cnt = 0;
    int64_t wall = 0, host = 0;
    for (uint32_t j = 0; j < ns; j++)
      if (steps[j].trace == k)
        cnt++, wall += steps[j].t1_ns - steps[j].t0_ns, host += steps[j].host_ns;
    printf("[%u] %s (%s): %s", k, cs->files[k], f.group, from[st_analysis_step_source(an, k)]);
    if (cnt) {
      us_text(wall / cnt, a, sizeof a);
      us_text(host / cnt, b, sizeof b);
      printf(", %u steps, mean %s, host busy %s per step", cnt, a, b);
    }
    printf("\n");
  }
  if (nd) printf("\nwhy idle (the host's innermost slice over each idle gap, summed):\n");
  for (uint32_t i = 0; i < nd; i++) print_causes(an, i, wide);
  printf("\n%-4s %-28s %6s %11s %7s %7s %7s %7s %7s %8s\n", "", "device", "steps", "step", "idle",
         "util", "compute", "comm", "memcpy", "overlap");
  for (uint32_t i = 0; i < nd; i++) {
    const st_an_device *v = &dev[i];
    const st_an_times *t = &v->total;
    us_text(v->step_ns, a, sizeof a);
    char ov[16];
    if (t->comm_ns > 0)
      snprintf(ov, sizeof ov, "%.1f%%", pct(t->overlap_ns, t->comm_ns));
    else
      snprintf(ov, sizeof ov, "-");
    printf("[%u]  %-28.28s %6u %11s %6.1f%% %6.1f%% %6.1f%% %6.1f%% %6.1f%% %8s\n", v->trace,
           v->name, v->step_count, a, pct(t->wall_ns - t->busy_ns, t->wall_ns),
           pct(t->busy_ns, t->wall_ns), pct(t->compute_ns, t->wall_ns), pct(t->comm_ns, t->wall_ns),
           pct(t->memcpy_ns, t->wall_ns), ov);
  }
  if (!nd) printf("(no device rows: no GPU streams, no XLA Ops line)\n");
  if (ng) printf("\nlongest idle gaps:\n");
  for (uint32_t g = 0; g < ng; g++) {
    const st_an_device *v = &dev[gaps[g].device];
    const st_trace *t = st_analysis_trace(an, v->trace);
    us_text(gaps[g].t1_ns - gaps[g].t0_ns, a, sizeof a);
    printf("  %10s  [%u] %s at %.3f us", a, v->trace, v->name, (double)gaps[g].t0_ns / 1000.0);
    for (uint32_t h = 0; h < gaps[g].host_count; h++) {
      const st_row *r = &st_trace_rows(t, NULL)[gaps[g].host[h].ref.row];
      size_t l;
      const char *nm = st_strtab_get(st_trace_strings(t), r->name[gaps[g].host[h].ref.index], &l);
      char name[64];
      cli_clean(nm, l, name, sizeof name);
      us_text(gaps[g].host[h].overlap_ns, b, sizeof b);
      printf("%s %s (%s)", h ? "," : "; host:", name, b);
    }
    printf("\n");
  }
  double med, scale;
  const st_an_rank *ranks = st_analysis_ranks(an, &med, &scale);
  if (scale > 0) {
    int any = 0;
    us_text((int64_t)med, a, sizeof a);
    printf("\nstragglers (per-step compute, median %s across %u files):", a,
           st_analysis_traces(an));
    for (uint32_t k = 0; k < st_analysis_traces(an); k++)
      if (ranks[k].straggler) {
        us_text((int64_t)ranks[k].value_ns, b, sizeof b);
        printf("%s [%u] %s %s (score %.1f)", any ? "," : "", k, cli_set_file(cs, k).group, b,
               ranks[k].score);
        any = 1;
      }
    printf("%s\n", any ? "" : " none");
  }
  uint32_t nmem;
  const st_mem_device *mem = st_memory_devices(st_analysis_memory(an), &nmem);
  for (uint32_t i = 0; i < nmem; i++) { /* issue 34: the devices' memory */
    const st_mem_device *m = &mem[i];
    char dname[48], op[41];
    size_t l;
    st_memory_device_name(m, dname, sizeof dname);
    us_text(m->peak_ns, a, sizeof a);
    if (!i) printf("\n");
    printf(
        "memory %s [%u]: peak %lld bytes at %s (%s), %u ops live at it, %lld bytes never freed\n",
        dname, m->trace, (long long)m->peak_bytes, a,
        m->from_total ? "Total Allocated" : "sum of Bytes", m->nlive, (long long)m->unfreed_bytes);
    const st_strtab *strs = st_trace_strings(st_analysis_trace(an, m->trace));
    for (uint32_t g = 0; g < m->nlive && g < 5; g++) {
      const char *s = st_strtab_get(strs, m->live[g].op, &l);
      cli_clean(s, l, op, sizeof op);
      printf("  live at peak: %-40s %12lld bytes in %llu\n", l ? op : "(no op)",
             (long long)m->live[g].bytes, (unsigned long long)m->live[g].count);
    }
  }
  static const struct {
    uint8_t kind;
    const char *title;
  } tables[] = {{ST_KIND_KERNEL, "kernel (by self time)"},
                {ST_KIND_HOST, "host op (by self time)"},
                {ST_KIND_RUNTIME, "runtime call (by self time)"}};
  for (size_t tb = 0; tb < sizeof tables / sizeof tables[0]; tb++)
    print_ops(an, tables[tb].kind, tables[tb].title, top, wide);
  if (hist) {
    printf("\nduration histogram of %s:\n", hist);
    uint64_t most = 1;
    for (uint32_t i = 0; i < nbins; i++)
      if (bins[i].count > most) most = bins[i].count;
    for (uint32_t i = 0; i < nbins; i++) {
      us_text(bins[i].lo_ns, a, sizeof a);
      us_text(bins[i].hi_ns, b, sizeof b);
      int bar = (int)(40 * bins[i].count / most);
      printf("  [%9s, %9s) %9llu %.*s\n", a, b, (unsigned long long)bins[i].count, bar,
             "########################################");
    }
    if (!nbins) printf("  (no such event)\n");
  }
}

/* The collectives' summary and each step's blocker, critical path and the
 * what-ifs (collectives.h). */
static void print_collectives(const st_analysis *an, const cli_set *cs, const st_collectives *c) {
  uint32_t n = st_analysis_traces(an), nc, np;
  const char **names = calloc(n, sizeof *names);
  if (!names) return;
  for (uint32_t k = 0; k < n; k++) names[k] = cli_set_file(cs, k).group;
  st_colls(c, &nc);
  if (!nc) {
    free(names);
    return;
  }
  char line[512], a[32], b[32];
  st_coll_summary(c, names, line, sizeof line);
  printf("\ncollectives: %u matched; %s\n", nc, line);
  const st_coll_path *paths = st_coll_paths(c, &np);
  const st_coll_segment *segs = st_coll_segments(c, NULL);
  const st_coll *cl = st_colls(c, NULL);
  for (uint32_t p = 0; p < np; p++) {
    us_text(paths[p].total_ns, a, sizeof a);
    printf("  step %lld: %s, critical path:", (long long)paths[p].step, a);
    for (uint32_t s = 0; s < paths[p].segments; s++) {
      const st_coll_segment *g = &segs[paths[p].first_segment + s];
      us_text(g->end_ns - g->start_ns, b, sizeof b);
      printf("%s [%u] %.*s %s", s ? "," : "", g->trace,
             (int)(g->collective ? cl[g->coll].kind_len : 6),
             g->collective ? cl[g->coll].kind : "device", b);
    }
    printf("\n");
  }
  const uint8_t *has;
  const double *w = st_coll_what_if(c, &has);
  printf("what if a rank's compute ran at the median rank's (step time saved):");
  for (uint32_t k = 0; k < n; k++)
    if (has[k]) {
      us_text((int64_t)w[k], a, sizeof a);
      printf(" [%u] %s", k, a);
    }
  printf("\n");
  const st_coll_offset *off = st_coll_offsets(c);
  printf("clock offsets (from matched collectives):");
  for (uint32_t k = 0; k < n; k++) {
    if (!off[k].has) {
      printf(" [%u] none (own clock)", k);
      continue;
    }
    us_text(off[k].offset_ns, a, sizeof a);
    us_text(off[k].residual_ns, b, sizeof b);
    printf(" [%u] %s (residual %s)", k, a, b);
  }
  printf("\n");
  free(names);
}

static void print_json(const st_analysis *an, const cli_set *cs, const st_hist_bin *bins,
                       uint32_t nbins, const char *hist, double ms, double cpu_ms,
                       const st_collectives *coll, int align, const st_efficiency *eff,
                       int cause_gaps) {
  uint32_t n = st_analysis_traces(an);
  const char **groups = calloc(n, sizeof *groups);
  if (!groups) return;
  for (uint32_t k = 0; k < n; k++) groups[k] = cli_set_file(cs, k).group;
  int64_t *shift = align && coll ? calloc(n, sizeof *shift) : NULL;
  for (uint32_t k = 0; shift && k < n; k++) shift[k] = -(st_coll_aligned(coll, k, 0));
  st_analysis_json_opts jo = {.files = cs->files,
                              .groups = groups,
                              .shift_ns = shift,
                              .coll = coll,
                              .cause_gaps = cause_gaps};
  size_t need = st_analysis_json(an, &jo, NULL, 0) + 1;
  char *out = malloc(need);
  if (out) {
    st_analysis_json(an, &jo, out, need);
    out[strlen(out) - 1] = 0; /* the closing brace: more keys follow */
    fputs(out, stdout);
    free(out);
  }
  if (coll) {
    need = st_collectives_json(coll, groups, NULL, 0) + 1;
    out = malloc(need);
    if (out) {
      st_collectives_json(coll, groups, out, need);
      fputs(out, stdout);
      free(out);
    }
  }
  free(shift);
  free(groups);
  if (hist) {
    char name[1024];
    st_jout jo2 = {.buf = name, .cap = sizeof name};
    st_jout_str(&jo2, hist, strlen(hist));
    if (st_jout_end(&jo2) >= sizeof name) snprintf(name, sizeof name, "\"\"");
    printf(",\"histogram\":{\"name\":%s,\"bins\":[", name);
    for (uint32_t i = 0; i < nbins; i++)
      printf("%s{\"lo_us\":%.3f,\"hi_us\":%.3f,\"count\":%llu}", i ? "," : "",
             (double)bins[i].lo_ns / 1000.0, (double)bins[i].hi_ns / 1000.0,
             (unsigned long long)bins[i].count);
    printf("]}");
  }
  if (eff) {
    st_jout eo = {.grow = 1};
    st_efficiency_json(eff, &eo);
    if (!eo.nomem) printf(",\"efficiency\":%.*s", (int)eo.len, eo.buf);
    st_free(NULL, eo.buf);
  }
  printf(",\"analyze_ms\":%.3f,\"analyze_cpu_ms\":%.3f}\n", ms, cpu_ms);
}

int strata_cmd_analyze(int argc, char **argv) {
  int json = 0, has_from = 0, has_to = 0, wide = 0, align = 0, cause_gaps = 0;
  const char *hist = NULL;
  st_analyze_opts o;
  memset(&o, 0, sizeof o);
  o.top_ops = 20;
  const char **files = calloc((size_t)argc, sizeof *files);
  if (!files) return 1;
  uint32_t n = 0;
  cli_feed_opts fo = {0};
  st_eff_opts eo = {0};
  for (int i = 2; i < argc; i++) {
    int r = cli_feed_opt(argc, argv, &i, &fo, "analyze");
    if (r < 0) return free(files), 2;
    if (r) continue;
    const char *a = argv[i];
    int more = i + 1 < argc;
    char *end;
    if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--wide")) {
      wide = 1;
    } else if (!strcmp(a, "--cause-gaps")) {
      cause_gaps = 1;
    } else if (!strcmp(a, "--step-name") && more) {
      o.step_name = argv[++i];
      o.step_name_len = strlen(o.step_name);
    } else if (!strcmp(a, "--ops") && more) {
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 0) return free(files), usage();
      o.top_ops = v ? (uint32_t)v : UINT32_MAX;
    } else if (!strcmp(a, "--gaps") && more) {
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > 100000) return free(files), usage();
      o.max_gaps = (uint32_t)v;
    } else if ((!strcmp(a, "--from") || !strcmp(a, "--to")) && more) {
      const char *v = argv[++i];
      int64_t *dst = a[2] == 'f' ? &o.ops_t0_ns : &o.ops_t1_ns;
      if (!st_json_decimal_scaled(v, strlen(v), 3, dst)) return free(files), usage();
      if (a[2] == 'f')
        has_from = 1;
      else
        has_to = 1;
    } else if (!strcmp(a, "--step") && more) {
      long long v = strtoll(argv[++i], &end, 10);
      if (*end || v < 0) return free(files), usage();
      o.ops_has_step = 1;
      o.ops_step = v;
    } else if ((!strcmp(a, "--peak-tflops") || !strcmp(a, "--peak-gbps")) && more) {
      double v = strtod(argv[++i], &end);
      if (*end || !(v > 0) || v > 1e9) return free(files), usage();
      *(a[7] == 't' ? &eo.peak_tflops : &eo.peak_gbps) = v;
    } else if (!strcmp(a, "--align") && more) {
      if (strcmp(argv[++i], "collectives") != 0) return free(files), usage();
      align = 1;
    } else if (!strcmp(a, "--hist") && more) {
      hist = argv[++i];
    } else if (a[0] != '-' || !a[1]) {
      files[n++] = a;
    } else {
      free(files);
      return usage();
    }
  }
  if (!n || has_from != has_to || (has_from && o.ops_has_step) ||
      (has_from && o.ops_t1_ns < o.ops_t0_ns)) {
    free(files);
    return usage();
  }
  o.ops_range = has_from;
  cli_set cs;
  int rc = cli_set_load(&cs, files, n, 1, &fo);
  st_analysis *an = NULL;
  st_collectives *coll = NULL;
  const st_trace **traces = rc ? NULL : calloc(n, sizeof *traces);
  if (!rc && !traces) rc = 1;
  double ms = 0, cpu_ms = 0;
  if (!rc) {
    for (uint32_t k = 0; k < n; k++) traces[k] = cli_set_file(&cs, k).trace;
    double t0 = cli_now_ms(), c0 = cli_clock_ms(CLOCK_THREAD_CPUTIME_ID);
    st_error err;
    an = st_analyze(NULL, traces, n, &o, &err);
    if (!an) {
      fprintf(stderr, "strata: analyze: %s\n", err.msg);
      rc = 1;
    }
    if (an) {
      cli_coll_file *cf = NULL;
      st_coll_source *src = cli_coll_sources(&cs, &cf);
      /* one file's bytes in memory at a time */
      coll = src ? st_collectives_begin(NULL, an) : NULL;
      for (uint32_t k = 0; coll && k < n; k++) {
        st_code c = st_collectives_add(coll, k, &src[k]);
        cli_coll_file_drop(cf, k);
        if (c != ST_OK) st_collectives_destroy(coll), coll = NULL;
      }
      if (coll && st_collectives_finish(coll) != ST_OK) st_collectives_destroy(coll), coll = NULL;
      cli_coll_sources_free(src, cf, n);
      if (!coll) {
        fprintf(stderr, "strata: analyze: collectives: out of memory\n");
        rc = 1;
      }
    }
    ms = cli_now_ms() - t0;
    cpu_ms = cli_clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
  }
  if (an) {
    st_hist_bin bins[ST_HIST_BINS_MAX];
    uint32_t nbins = 0;
    if (hist) {
      int64_t *h0 = NULL, *h1 = NULL;
      int64_t *r0 = calloc(n, sizeof *r0), *r1 = calloc(n, sizeof *r1);
      if (r0 && r1 && (o.ops_range || o.ops_has_step)) {
        for (uint32_t k = 0; k < n; k++) {
          r0[k] = o.ops_range ? o.ops_t0_ns : INT64_MIN;
          r1[k] = o.ops_range ? o.ops_t1_ns : INT64_MIN;
          uint32_t j = o.ops_has_step ? st_analysis_find_step(an, k, o.ops_step) : UINT32_MAX;
          if (j != UINT32_MAX) {
            r0[k] = st_analysis_steps(an, NULL)[j].t0_ns;
            r1[k] = st_analysis_steps(an, NULL)[j].t1_ns;
          }
        }
        h0 = r0;
        h1 = r1;
      }
      nbins = st_opstats_histogram(traces, n, h0, h1, hist, strlen(hist), bins, NULL);
      free(r0);
      free(r1);
    }
    st_efficiency *eff = cli_efficiency(an, &cs, &eo);
    if (json) {
      print_json(an, &cs, bins, nbins, hist, ms, cpu_ms, coll, align, eff, cause_gaps);
    } else {
      print_text(an, &cs, bins, nbins, hist, o.top_ops, wide);
      if (eff) cli_efficiency_text(eff, wide);
      if (coll) print_collectives(an, &cs, coll);
    }
    st_efficiency_destroy(eff);
    cli_set_warn_damaged(&cs);
  }
  st_collectives_destroy(coll);
  st_analysis_destroy(an);
  free(traces);
  cli_set_free(&cs);
  free(files);
  return rc;
}
