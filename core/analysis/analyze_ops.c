/* analyze_ops.c: what the op statistics' rows add from the analysis
 * (analyze.h st_an_op_extra): each kernel's launcher, the host op that
 * launched it through a flow (a runtime call's innermost enclosing host
 * op), else the XLA op over it, counted per kernel row; and each runtime
 * call's blocked time, the device idle time attributed to it (idle
 * causes), with the devices that waited.
 */
#include "analyze.h"
#include "analyze_internal.h"

#include "opstats.h"

#include <stdlib.h>
#include <string.h>

/* The host op that launched kernel i of row `row` through a flow into it
 * (analyze.h), or 0 (then the XLA op over it: an_op_extras). */
static int launcher(const st_analysis *an, const trace_ctx *c, uint32_t k, uint32_t row, uint32_t i,
                    uint32_t *name) {
  const st_trace *t = c->t;
  uint32_t nr, first;
  const st_row *rows = st_trace_rows(t, &nr);
  if (st_trace_flows_to(t, row, i, i + 1, &first)) {
    const st_flow *f = &st_trace_flows(t, NULL)[st_trace_flows_in(t, NULL)[first]];
    st_event_ref at = {f->from_row, f->from_index};
    uint8_t kd = an_kind_at(an, c, k, at.row, at.index);
    if (kd == ST_KIND_KERNEL || kd == ST_KIND_HOST) {
      *name = rows[at.row].name[at.index];
      return 1;
    }
    /* a runtime call (or an annotation): its innermost enclosing host op */
    st_event_ref p = at;
    while (an_parent_of(t, p.row, p.index, &p)) {
      uint8_t pk = an_kind_at(an, c, k, p.row, p.index);
      if (pk == ST_KIND_WRAPPER) break;
      if (pk == ST_KIND_HOST) {
        *name = rows[p.row].name[p.index];
        return 1;
      }
    }
    *name = rows[at.row].name[at.index];
    return 1;
  }
  return 0;
}

#define LAUNCH_CANDIDATES 8

typedef struct launch_count {
  const char *name;
  size_t len;
  uint64_t count;
} launch_count;

/* FNV-1a of a name (the table of kept rows by name). */
static uint64_t name_hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

/* An open-addressing table of the kernel and runtime rows by name: cap a
 * power of two > 2 x rows; slot value row + 1 (0 empty). */
static uint32_t *rows_by_name(const st_alloc *a, const st_opstat *ops, uint32_t n, uint32_t *cap) {
  uint32_t c = 16;
  while (c < 2u * n + 2 && c < (1u << 31)) c *= 2;
  uint32_t *t = st_calloc(a, c, sizeof *t);
  if (!t) return NULL;
  for (uint32_t i = 0; i < n; i++) {
    if (ops[i].kind != ST_KIND_KERNEL && ops[i].kind != ST_KIND_RUNTIME) continue;
    uint32_t h = (uint32_t)name_hash(ops[i].name, ops[i].name_len) & (c - 1);
    while (t[h]) h = (h + 1) & (c - 1);
    t[h] = i + 1;
  }
  *cap = c;
  return t;
}

/* The kernel or runtime row named s[0, l), or -1. */
static int64_t row_named(const uint32_t *t, uint32_t cap, const st_opstat *ops, const char *s,
                         size_t l) {
  uint32_t h = (uint32_t)name_hash(s, l) & (cap - 1);
  for (; t[h]; h = (h + 1) & (cap - 1)) {
    const st_opstat *o = &ops[t[h] - 1];
    if (o->name_len == l && (l == 0 || memcmp(o->name, s, l) == 0)) return t[h] - 1;
  }
  return -1;
}

/* Launchers of the kernels kept and the runtime calls' blocked time. */
st_code an_op_extras(st_analysis *an, const trace_ctx *ctx) {
  const st_alloc *a = &an->alloc;
  uint32_t nops;
  const st_opstat *ops = st_opstats_rows(an->ops, &nops);
  an->op_extra = st_calloc(a, nops ? nops : 1, sizeof *an->op_extra);
  launch_count *lc = st_calloc(a, (size_t)(nops ? nops : 1) * LAUNCH_CANDIDATES, sizeof *lc);
  uint32_t tcap = 0, *table = rows_by_name(a, ops, nops, &tcap);
  if (!an->op_extra || !lc || !table) {
    st_free(a, lc);
    st_free(a, table);
    return ST_ERR_NOMEM;
  }
  st_code rc = ST_OK;
  for (uint32_t k = 0; rc == ST_OK && k < an->n; k++) {
    const trace_ctx *c = &ctx[k];
    const st_strtab *strs = st_trace_strings(c->t);
    uint32_t ndev = 0;
    for (uint32_t d = 0; d < an->ndevices; d++) ndev += an->devices[d].trace == k;
    uint32_t *slot = st_calloc(a, c->ncls ? c->ncls : 1, sizeof *slot);
    if (!slot) {
      rc = ST_ERR_NOMEM;
      break;
    }
    int any = 0;
    for (uint32_t id = 0; id < c->ncls; id++) { /* each string once: is it a row's name? */
      size_t l;
      const char *nm = st_strtab_get(strs, id, &l);
      int64_t i = row_named(table, tcap, ops, nm, l);
      if (i < 0) continue;
      if (ops[i].kind == ST_KIND_RUNTIME) {
        an->op_extra[i].blocked_ns += c->blocked[id];
        an->op_extra[i].devices += ndev;
        continue;
      }
      slot[id] = (uint32_t)i + 1;
      any = 1;
    }
    uint32_t nr, nt, np;
    const st_row *rows = st_trace_rows(c->t, &nr);
    const st_track *tracks = st_trace_tracks(c->t, &nt);
    st_trace_processes(c->t, &np);
    uint32_t nflows;
    st_trace_flows(c->t, &nflows);
    /* each process's "XLA Ops" line (UINT32_MAX: none) */
    uint32_t *xla = any ? st_calloc(a, np ? np : 1, sizeof *xla) : NULL;
    if (any && !xla) {
      st_free(a, slot);
      rc = ST_ERR_NOMEM;
      break;
    }
    for (uint32_t p = 0; xla && p < np; p++) xla[p] = UINT32_MAX;
    for (uint32_t tk = 0; xla && tk < nt; tk++) {
      size_t l;
      const char *tn = st_strtab_get(strs, tracks[tk].name, &l);
      if (tracks[tk].kind == ST_TRACK_SLICES && tracks[tk].row_count && an_eq(tn, l, "XLA Ops") &&
          xla[tracks[tk].process] == UINT32_MAX)
        xla[tracks[tk].process] = tk;
    }
    for (uint32_t r = 0; any && r < nr; r++) {
      if (c->rowk[r] != ROW_DEVICE) continue;
      uint32_t xt = xla[tracks[rows[r].track].process];
      const st_row *xr =
          xt != UINT32_MAX && xt != rows[r].track ? &rows[tracks[xt].first_row] : NULL;
      uint32_t cur = 0; /* in xr: the first op not ended before the event */
      for (uint32_t i = 0; i < rows[r].count; i++) {
        uint32_t id = rows[r].name[i], s = id < c->ncls ? slot[id] : 0, who;
        if (!s) continue;
        int found = nflows && launcher(an, c, k, r, i, &who);
        if (!found && xr) { /* the XLA op over its start */
          int64_t t0 = rows[r].start[i];
          while (cur < xr->count && st_sat_add(xr->start[cur], xr->dur[cur]) <= t0) cur++;
          if (cur < xr->count && xr->start[cur] <= t0) who = xr->name[cur], found = 1;
        }
        if (!found) continue;
        size_t l;
        const char *nm = st_strtab_get(strs, who, &l);
        launch_count *v = &lc[(size_t)(s - 1) * LAUNCH_CANDIDATES];
        for (int q = 0; q < LAUNCH_CANDIDATES; q++) {
          if (!v[q].name) {
            v[q] = (launch_count){nm, l, 1};
            break;
          }
          if (v[q].len == l && memcmp(v[q].name, nm, l) == 0) {
            v[q].count++;
            break;
          }
        }
      }
    }
    st_free(a, slot);
    st_free(a, xla);
  }
  for (uint32_t i = 0; rc == ST_OK && i < nops; i++) {
    const launch_count *v = &lc[(size_t)i * LAUNCH_CANDIDATES];
    int best = -1;
    for (int q = 0; q < LAUNCH_CANDIDATES && v[q].name; q++) /* ties: the first in bytes */
      if (best < 0 || v[q].count > v[best].count ||
          (v[q].count == v[best].count &&
           (memcmp(v[q].name, v[best].name, v[q].len < v[best].len ? v[q].len : v[best].len) < 0 ||
            (memcmp(v[q].name, v[best].name, v[q].len < v[best].len ? v[q].len : v[best].len) ==
                 0 &&
             v[q].len < v[best].len))))
        best = q;
    if (best >= 0) {
      an->op_extra[i].launched_by = v[best].name;
      an->op_extra[i].launched_by_len = v[best].len;
    }
  }
  st_free(a, lc);
  st_free(a, table);
  return rc;
}
