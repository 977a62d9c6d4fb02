/* cli_efficiency.c: the efficiency part of `strata analyze` (issue 33,
 * core/analysis/efficiency.h): reads the args of the events the core names
 * (through a gzip index when the file is compressed), turns them into
 * costs and builds the efficiency of the analysis; prints it as text.
 *
 * Reading: the wanted events are in ascending src per file, so the
 * decoded file is read through a window of CLI_EFF_WINDOW bytes that moves
 * forward (a compressed file is inflated about once); a read outside the
 * window (an XSpace event's metadata record, earlier in its plane) is
 * served on its own.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_efficiency.h"

#include "chrome_args.h"
#include "argsrc.h"
#include "gzindex.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLI_EFF_WINDOW ((size_t)8u << 20)
#define CLI_EFF_CHUNK ((size_t)1u << 20)

typedef struct wfile {
  FILE *f;
  st_gzindex *ix;
  uint8_t *win; /* decoded [base, base + have) */
  uint64_t base;
  size_t have, cap;
  uint8_t *one; /* a read outside the window */
  size_t one_cap;
  uint8_t *chunk;
} wfile;

/* Decoded [off, off + len) into dst (cap >= len): bytes got. */
static int wread_raw(wfile *w, uint64_t off, size_t len, uint8_t *dst, size_t *got) {
  *got = 0;
  if (!w->ix) {
    if (fseeko(w->f, (off_t)off, SEEK_SET) != 0) return 1;
    *got = fread(dst, 1, len, w->f);
    return !ferror(w->f);
  }
  uint64_t from = 0;
  st_gzread *r = st_gzread_begin(w->ix, off, len, &from);
  if (!r) return 0;
  int done = 0, ok = fseeko(w->f, (off_t)from, SEEK_SET) == 0;
  while (ok && !done) {
    size_t n = fread(w->chunk, 1, CLI_EFF_CHUNK, w->f);
    if (n == 0) break;
    ok = st_gzread_push(r, w->chunk, n, &done) == ST_OK;
  }
  size_t n = 0;
  const uint8_t *data = st_gzread_data(r, &n);
  if (ok && n) memcpy(dst, data, n < len ? n : len);
  *got = ok ? (n < len ? n : len) : 0;
  st_gzread_end(r);
  return ok;
}

static const uint8_t *wread(wfile *w, uint64_t off, uint64_t len, size_t *got) {
  if (len > ST_ARGS_MAX_OBJECT) return NULL;
  if (off >= w->base && off + len <= w->base + w->have) {
    *got = (size_t)len;
    return w->win + (off - w->base);
  }
  if (off >= w->base + w->have || w->have == 0) { /* move the window forward */
    size_t want = len > CLI_EFF_WINDOW ? (size_t)len : CLI_EFF_WINDOW;
    if (want > w->cap) {
      uint8_t *p = realloc(w->win, want);
      if (!p) return NULL;
      w->win = p;
      w->cap = want;
    }
    w->base = off;
    if (!wread_raw(w, off, want, w->win, &w->have)) return NULL;
    *got = w->have < len ? w->have : (size_t)len;
    return w->win;
  }
  if (len > w->one_cap) {
    uint8_t *p = realloc(w->one, (size_t)len);
    if (!p) return NULL;
    w->one = p;
    w->one_cap = (size_t)len;
  }
  if (!wread_raw(w, off, (size_t)len, w->one, got)) return NULL;
  return w->one;
}

static int wopen(wfile *w, const char *path, int compressed) {
  memset(w, 0, sizeof *w);
  w->f = fopen(path, "rb");
  w->chunk = malloc(CLI_EFF_CHUNK);
  if (!w->f || !w->chunk) return 0;
  if (compressed) {
    w->ix = st_gzindex_create(NULL, 0);
    st_error e;
    size_t n;
    while (w->ix && (n = fread(w->chunk, 1, CLI_EFF_CHUNK, w->f)) > 0)
      if (st_gzindex_push(w->ix, w->chunk, n, &e) != ST_OK) break;
    if (w->ix) st_gzindex_finish(w->ix, &e);
    if (!w->ix) return 0;
  }
  return 1;
}

static void wclose(wfile *w) {
  if (w->f) fclose(w->f);
  st_gzindex_destroy(w->ix);
  free(w->win);
  free(w->one);
  free(w->chunk);
}

static const uint8_t *wread_ud(void *ud, uint64_t off, uint64_t len, size_t *got) {
  return wread(ud, off, len, got);
}

/* One event's cost from its args (0: none, or its args unreadable). */
static int event_cost(wfile *w, const st_argsrc *as, uint64_t src, uint64_t end_src,
                      const char *name, size_t nl, st_op_cost *out) {
  st_error err;
  st_code c;
  memset(out, 0, sizeof *out);
  st_args_query *q = cli_args_read(as, src, end_src, wread_ud, w, &c, &err);
  int ok = 0;
  if (c == ST_OK && q) {
    size_t n = 0;
    int cut = 0;
    const char *text = st_args_query_result(q, &n, &cut);
    ok = st_op_cost_from_args(name, nl, text, n, out);
  }
  st_args_query_end(q);
  return ok;
}

st_efficiency *cli_efficiency(const st_analysis *an, const cli_set *cs, const st_eff_opts *o) {
  st_eff_want *w = NULL;
  uint32_t n = 0;
  if (st_eff_wanted(NULL, an, &w, &n) != ST_OK) return NULL;
  st_op_cost *costs = calloc(n ? n : 1, sizeof *costs);
  uint32_t nt = st_analysis_traces(an);
  const char **meta = calloc(nt ? nt : 1, sizeof *meta);
  if (!costs || !meta) {
    free(costs), free(meta), free(w);
    return NULL;
  }
  uint32_t i = 0;
  for (uint32_t k = 0; k < nt; k++) {
    st_traceset_file f = cli_set_file(cs, k);
    meta[k] = f.metadata_json;
    uint32_t j = i;
    while (j < n && w[j].trace == k) j++;
    if (j > i && f.args) {
      wfile wf;
      if (wopen(&wf, cs->files[k], f.stats && f.stats->compressed)) {
        const st_trace *t = f.trace;
        const st_row *rows = st_trace_rows(t, NULL);
        for (uint32_t q = i; q < j; q++) {
          const st_row *r = &rows[w[q].row];
          size_t nl;
          const char *nm = st_strtab_get(st_trace_strings(t), r->name[w[q].index], &nl);
          event_cost(&wf, f.args, r->src[w[q].index], st_trace_end_src(t, w[q].row, w[q].index), nm,
                     nl, &costs[q]);
        }
      } else {
        fprintf(stderr, "strata: %s: cannot read its args: %s\n", cs->files[k], strerror(errno));
      }
      wclose(&wf);
    }
    i = j;
  }
  st_error err;
  st_efficiency *e = st_efficiency_build(NULL, an, w, costs, n, meta, o, &err);
  free(costs);
  free(meta);
  free(w);
  return e;
}

void cli_efficiency_text(const st_efficiency *e, int wide) {
  uint32_t np, no, ns;
  const st_eff_peak *pk = st_efficiency_peaks(e, &np);
  const st_eff_op *ops = st_efficiency_ops(e, &no);
  const st_eff_step *st = st_efficiency_steps(e, &ns);
  int64_t dev_ns, none_ns;
  st_efficiency_coverage(e, &dev_ns, &none_ns);
  printf("\nefficiency (peaks at %s)\n", st_dtype_name(st_efficiency_headline(e)));
  for (uint32_t d = 0; d < np; d++) {
    char nm[ST_ANALYZE_NAME_CAP];
    cli_clean(pk[d].name, strlen(pk[d].name), nm, sizeof nm);
    if (pk[d].headline_tflops > 0 || pk[d].gbps > 0)
      printf("  device %u: %s, %.6g TFLOP/s, %.6g GB/s (%s)\n", d, nm[0] ? nm : "?",
             pk[d].headline_tflops, pk[d].gbps, pk[d].source);
    else
      printf("  device %u: %s, peak unknown (--peak-tflops, --peak-gbps)\n", d,
             nm[0] ? nm : "unnamed");
  }
  if (dev_ns > 0 && none_ns > 0)
    printf("  %.0f %% of device time has no FLOP count%s\n",
           100.0 * (double)none_ns / (double)dev_ns, "");
  int w = wide ? 96 : 48;
  printf("\n%-*s %-6s %8s %12s %10s %9s %9s %8s %8s\n", w, "op (FLOPs)", "kind", "count", "GFLOP",
         "time", "TFLOP/s", "GB/s", "% peak", "bound");
  for (uint32_t i = 0; i < no; i++) {
    const st_eff_op *p = &ops[i];
    char nm[1024], t[32];
    cli_clean(p->name, p->name_len, nm, sizeof nm);
    if ((int)strlen(nm) > w) nm[w] = 0;
    double sec = (double)p->time_ns / 1e9, tf = sec > 0 ? p->flops / sec / 1e12 : 0;
    double gb = sec > 0 ? p->bytes / sec / 1e9 : 0, peak = st_eff_op_peak_tflops(e, p);
    double bw = st_eff_op_peak_gbps(e, p);
    st_format_dur((double)p->time_ns, t, sizeof t);
    char pc[16] = "-", bd[16] = "-";
    if (peak > 0) snprintf(pc, sizeof pc, "%.1f", 100 * tf / peak);
    if (peak > 0 && bw > 0 && p->bytes > 0)
      snprintf(bd, sizeof bd, "%s", p->flops / p->bytes >= peak * 1000 / bw ? "compute" : "memory");
    printf("%-*s %-6s %8llu %12.3f %10s %9.3f %9.1f %8s %8s\n", w, nm,
           p->kind == ST_KIND_KERNEL ? "kernel"
           : p->xla                  ? "xla"
                                     : "op",
           (unsigned long long)p->count, p->flops / 1e9, t, tf, gb, pc, bd);
  }
  int any = 0;
  for (uint32_t j = 0; j < ns; j++) {
    double denom = (double)st[j].wall_ns / 1e9 * st[j].peak_tflops * 1e12;
    if (!(denom > 0) || !(st[j].flops > 0)) continue;
    if (!any++) printf("\n%-8s %8s %14s %9s %9s\n", "trace", "step", "TFLOP", "MFU %", "HFU %");
    printf("%-8u %8lld %14.4f %9.2f %9.2f\n", st[j].trace, (long long)st[j].step,
           st[j].flops / 1e12, 100 * st[j].model_flops / denom, 100 * st[j].flops / denom);
  }
}
