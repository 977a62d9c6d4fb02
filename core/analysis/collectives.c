/* collectives.c: collectives found on each rank, matched across ranks,
 * clock offsets, waits, critical paths and what-ifs (collectives.h).
 *
 * Contents
 *   1. kinds from names, interned strings
 *   2. finding instances: device comm kernels, their launching
 *      record_param_comms and its args
 *   3. matching
 *   5. per collective and per (trace, step)
 *   7. summary and JSON
 * In their own files: 4. the clock offsets (collectives_clock.c) and
 * 6. the replay: critical paths and what-ifs (collectives_replay.c).
 */
#include "collectives.h"

#include "analyze_internal.h"
#include "collectives_internal.h"
#include "bisect.h"
#include "chrome_event.h"
#include "json_out.h"

#include <stdlib.h>
#include <string.h>

/* ==== 1. kinds and strings =============================================== */

/* Lower case letters and digits of s (others dropped) into b (cap 64). */
static size_t squeeze(const char *s, size_t n, char *b) {
  size_t k = 0;
  for (size_t i = 0; i < n && k < 63; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) b[k++] = c;
  }
  b[k] = 0;
  return k;
}

/* The kind of a collective named s (a Kineto "Collective name", an NCCL
 * kernel, an XLA op), or NULL. */
static const char *kind_of(const char *s, size_t n) {
  static const struct {
    const char *w, *kind;
  } k[] = {{"allreduce", "all_reduce"},
           {"allgather", "all_gather"},
           {"reducescatter", "reduce_scatter"},
           {"alltoall", "all_to_all"},
           {"collectivepermute", "collective_permute"},
           {"collectivebroadcast", "broadcast"},
           {"broadcast", "broadcast"},
           {"sendrecv", "send_recv"},
           {"send", "send_recv"},
           {"recv", "send_recv"},
           {"barrier", "barrier"},
           {"reduce", "reduce"},
           {"gather", "gather"},
           {"scatter", "scatter"}};
  char b[64];
  size_t m = squeeze(s, n < 200 ? n : 200, b);
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (has_ci(b, m, k[i].w)) return k[i].kind;
  return NULL;
}

/* An XLA collective op's name ("all-reduce.3", "all-gather-start",
 * "%send-done.1"): 1, with *phase 1 for "-start", 2 for "-done", else 0;
 * *skip: 1 if the name starts with '%' (left out of the op's name). */
static int xla_op(const char *s, size_t n, int *phase, size_t *skip) {
  static const char *const ops[] = {
      "all-reduce",         "all-gather",           "reduce-scatter", "all-to-all",
      "collective-permute", "collective-broadcast", "send",           "recv"};
  *skip = 0;
  if (n && s[0] == '%') s++, n--, *skip = 1;
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    size_t m = strlen(ops[k]);
    if (n < m || memcmp(s, ops[k], m) != 0) continue;
    if (n > m && s[m] != '.' && s[m] != '-' && !(s[m] >= '0' && s[m] <= '9')) continue;
    *phase = 0;
    if (n >= m + 6 && memcmp(s + m, "-start", 6) == 0) *phase = 1;
    if (n >= m + 5 && memcmp(s + m, "-done", 5) == 0) *phase = 2;
    return 1;
  }
  return 0;
}

/* The id of s in t (added if new); UINT32_MAX on allocation failure. */
static uint32_t intern(const st_alloc *a, istrs *t, const char *s, size_t n) {
  if (t->last < t->n && t->v[t->last].n == n && memcmp(t->v[t->last].p, s, n) == 0) return t->last;
  for (uint32_t i = 0; i < t->n; i++)
    if (t->v[i].n == n && memcmp(t->v[i].p, s, n) == 0) return t->last = i;
  if (t->n == t->cap) {
    void *nv = t->v;
    if (!st_grow32(a, &nv, &t->cap, t->n + 1, sizeof *t->v, 16)) return UINT32_MAX;
    t->v = nv;
  }
  char *p = st_malloc(a, n + 1);
  if (!p) return UINT32_MAX;
  if (n) memcpy(p, s, n);
  p[n] = 0;
  t->v[t->n] = (istr){p, n};
  return t->last = t->n++;
}

/* ==== 2. instances ======================================================= */

typedef struct comm_args {
  const char *kind, *group, *dtype;
  size_t kind_len, group_len, dtype_len, group_rank; /* group_rank: 0 name, 1 desc, 2 ranks */
  int has_kind, has_group, has_seq;
  int64_t in_n, out_n, seq;
} comm_args;

static uint64_t dtype_size(const char *s, size_t n) {
  static const struct {
    const char *name;
    uint64_t size;
  } d[] = {{"Float", 4},    {"float", 4}, {"Double", 8},       {"double", 8},        {"Half", 2},
           {"BFloat16", 2}, {"Long", 8},  {"Int", 4},          {"Short", 2},         {"Char", 1},
           {"Byte", 1},     {"Bool", 1},  {"ComplexFloat", 8}, {"ComplexDouble", 16}};
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
    if (strlen(d[i].name) == n && memcmp(d[i].name, s, n) == 0) return d[i].size;
  if (n > 6 && memcmp(s, "Float8", 6) == 0) return 1;
  return 0;
}

static int64_t value_int(const char *v, const char *vend) {
  double d = 0;
  if (!st_chrome_value_double(v, vend, &d) || !(d >= 0 && d < 9.0e18)) return -1;
  return (int64_t)d;
}

/* Reads the comm args of the object text [p, end). */
static void parse_args(const char *p, const char *end, comm_args *ca) {
  st_chrome_objit it = st_chrome_objit_of(p, end);
  st_json_str k, s;
  const char *v, *ve;
  while (st_chrome_objit_next(&it, &k, &v, &ve)) {
    if (k.esc) continue;
    if (st_chrome_str_eq(k, "Collective name") && st_chrome_value_str(v, ve, &s)) {
      ca->kind = s.p, ca->kind_len = s.n, ca->has_kind = 1;
    } else if (st_chrome_str_eq(k, "dtype") && st_chrome_value_str(v, ve, &s)) {
      ca->dtype = s.p, ca->dtype_len = s.n;
    } else if (st_chrome_str_eq(k, "In msg nelems")) {
      ca->in_n = value_int(v, ve);
    } else if (st_chrome_str_eq(k, "Out msg nelems")) {
      ca->out_n = value_int(v, ve);
    } else if (st_chrome_str_eq(k, "Seq")) {
      ca->seq = value_int(v, ve);
      ca->has_seq = ca->seq >= 0;
    } else {
      size_t rank = st_chrome_str_eq(k, "Process Group Name")          ? 0
                    : st_chrome_str_eq(k, "Process Group Description") ? 1
                    : st_chrome_str_eq(k, "Process Group Ranks")       ? 2
                    : st_chrome_str_eq(k, "Process Group ID")          ? 0
                                                                       : 3;
      if (rank == 3 || (ca->has_group && ca->group_rank <= rank)) continue;
      if (st_chrome_value_str(v, ve, &s)) {
        ca->group = s.p, ca->group_len = s.n;
      } else {
        ca->group = v, ca->group_len = (size_t)(ve - v);
      }
      ca->has_group = 1, ca->group_rank = rank;
    }
  }
}

/* The args of the event at src of trace t into *q's result; 1 if read. */
static st_args_query *read_args(const st_coll_source *so, const st_trace *t, uint64_t src) {
  if (!so || !so->args || !so->read) return NULL;
  st_error err;
  st_args_span rd;
  st_args_query *q = st_args_query_begin_end(so->args, src, st_trace_end_src_of(t, src), &rd, &err);
  int more = q != NULL;
  while (more) {
    const uint8_t *d = NULL;
    size_t n = 0;
    if (!so->read(so->ud, rd.offset, rd.length, &d, &n) ||
        st_args_query_push(q, d, n, &more, &rd, &err) != ST_OK) {
      st_args_query_end(q);
      return NULL;
    }
  }
  return q;
}

/* A Chrome JSON event with its args in one object (no end event): parsed
 * where it stands in the input, without the args decoder's copy. 1 if
 * done (ca filled, possibly without a kind), 0: use the decoder. */
static int direct_args(const st_coll_source *so, const st_trace *t, uint64_t src, comm_args *ca) {
  if (!so || !so->args || !so->read || st_argsrc_kind(so->args) != ST_ARGS_JSON ||
      st_trace_end_src_of(t, src) != UINT64_MAX)
    return 0;
  const uint8_t *d = NULL;
  size_t n = 0;
  if (!so->read(so->ud, src, 65536, &d, &n) || !n) return 0;
  st_chrome_ev e;
  const char *next, *bad, *why;
  const char *p = (const char *)d;
  if (st_chrome_parse_event(p, p + n, &e, &next, &bad, &why) != ST_JSON_OK) return 0;
  memset(ca, 0, sizeof *ca);
  ca->in_n = ca->out_n = -1;
  if (e.args) parse_args(e.args, e.args_end, ca);
  return 1;
}

/* The enclosing slice of (row, i) in its track: 1 and *out. */
static int parent(const st_trace *t, st_event_ref at, st_event_ref *out) {
  const st_row *rows = st_trace_rows(t, NULL);
  const st_row *r = &rows[at.row];
  if (r->depth == 0 || at.row == 0 || rows[at.row - 1].track != r->track) return 0;
  const st_row *p = &rows[at.row - 1];
  int64_t s = r->start[at.index];
  uint32_t j = st_row_first_end_gt(p, s);
  if (j >= p->count || p->start[j] > s) return 0;
  *out = (st_event_ref){at.row - 1, j};
  return 1;
}

/* The record_param_comms that launched kernel (row, i): flow in, then up. */
static int launcher_op(const st_trace *t, uint32_t rpc, uint32_t row, uint32_t i,
                       st_event_ref *out) {
  uint32_t first;
  if (rpc == ST_STR_NONE || !st_trace_flows_to(t, row, i, i + 1, &first)) return 0;
  const st_flow *f = &st_trace_flows(t, NULL)[st_trace_flows_in(t, NULL)[first]];
  const st_row *rows = st_trace_rows(t, NULL);
  st_event_ref at = {f->from_row, f->from_index};
  for (int depth = 0; depth < 64; depth++) {
    if (rows[at.row].name[at.index] == rpc) {
      *out = at;
      return 1;
    }
    if (!parent(t, at, &at)) return 0;
  }
  return 0;
}

static int push_inst(st_collectives *c, const inst *x) {
  if (c->nin == c->capin) {
    void *nv = c->in;
    if (!st_grow32(&c->alloc, &nv, &c->capin, c->nin + 1, sizeof *c->in, 256)) return 0;
    c->in = nv;
  }
  c->in[c->nin++] = *x;
  return 1;
}

/* The string id of `name` in t, or ST_STR_NONE. */
static uint32_t name_id(const st_trace *t, const char *name) {
  const st_strtab *s = st_trace_strings(t);
  uint32_t n = st_strtab_count(s);
  size_t m = strlen(name);
  for (uint32_t i = 0; i < n; i++) {
    size_t l;
    const char *p = st_strtab_get(s, i, &l);
    if (l == m && memcmp(p, name, m) == 0) return i;
  }
  return ST_STR_NONE;
}

/* Describes instance x (kernel named nm) from args, else its name. */
static int describe(st_collectives *c, const st_trace *t, const st_coll_source *so, uint32_t rpc,
                    uint32_t row, uint32_t i, const char *nm, size_t nl, inst *x) {
  const st_row *rows = st_trace_rows(t, NULL);
  comm_args ca;
  memset(&ca, 0, sizeof ca);
  ca.in_n = ca.out_n = -1;
  st_args_query *q = NULL;
  st_event_ref op;
  for (int pass = 0; pass < 2 && !ca.has_kind; pass++) {
    if (pass == 0 && !launcher_op(t, rpc, row, i, &op)) continue;
    st_event_ref at = pass == 0 ? op : (st_event_ref){row, i};
    if (direct_args(so, t, rows[at.row].src[at.index], &ca)) continue;
    st_args_query_end(q);
    q = read_args(so, t, rows[at.row].src[at.index]);
    if (!q) continue;
    size_t len;
    int cut;
    const char *txt = st_args_query_result(q, &len, &cut);
    memset(&ca, 0, sizeof ca);
    ca.in_n = ca.out_n = -1;
    parse_args(txt, txt + len, &ca);
  }
  const char *kind = ca.has_kind ? kind_of(ca.kind, ca.kind_len) : NULL;
  if (!kind) kind = kind_of(nm, nl);
  if (!kind) kind = "other";
  x->kind = intern(&c->alloc, &c->names, kind, strlen(kind));
  x->group = ca.has_group ? intern(&c->alloc, &c->names, ca.group, ca.group_len)
                          : intern(&c->alloc, &c->names, "", 0);
  x->seq = ca.has_seq ? ca.seq : -1;
  uint64_t el = ca.dtype ? dtype_size(ca.dtype, ca.dtype_len) : 0;
  int64_t ne = strcmp(kind, "all_gather") == 0 ? ca.out_n : ca.in_n;
  x->bytes = ne > 0 && el ? (uint64_t)ne * el : 0;
  st_args_query_end(q);
  return x->kind != UINT32_MAX && x->group != UINT32_MAX;
}

static int cmp_own(const void *p, const void *q) {
  const inst *a = p, *b = q;
  if (a->trace != b->trace) return a->trace < b->trace ? -1 : 1;
  if (a->device != b->device) return a->device < b->device ? -1 : 1;
  if (a->t_a != b->t_a) return a->t_a < b->t_a ? -1 : 1;
  return (a->kernel.row > b->kernel.row) - (a->kernel.row < b->kernel.row);
}

/* The step holding own time t of trace k (steps[first, first + n)): its
 * number, 0 if none. */
static int64_t step_at(const st_an_step *sv, uint32_t first, uint32_t n, int64_t t) {
  const st_an_step *steps = sv;
  uint32_t lo = first + (uint32_t)st_bound_i64_at(steps + first, n, sizeof *steps,
                                                  offsetof(st_an_step, t0_ns), t, ST_UPPER);
  for (uint32_t j = lo; j-- > first;) {
    if (t < steps[j].t1_ns || (t == steps[j].t0_ns)) return steps[j].number;
    if (lo - j > 4) break;
  }
  return 0;
}

/* Trace k's instances (so: its args, may be NULL). */
static st_code find_instances(st_collectives *c, uint32_t k, const st_coll_source *so) {
  const st_analysis *an = c->an;
  const st_alloc *a = &c->alloc;
  uint32_t nd, ns;
  const st_an_device *dev = st_analysis_devices(an, &nd);
  const st_an_step *steps = st_analysis_steps(an, &ns);
  {
    const st_trace *t = st_analysis_trace(an, k);
    const st_strtab *strs = st_trace_strings(t);
    uint32_t nstr = st_strtab_count(strs);
    uint8_t *cls = st_calloc(a, nstr ? nstr : 1, 1); /* 1 comm, 2 skip category */
    if (!cls) return ST_ERR_NOMEM;
    for (uint32_t i = 0; i < nstr; i++) {
      size_t l;
      const char *s = st_strtab_get(strs, i, &l);
      int ph;
      size_t sk;
      if (has_ci(s, l, "nccl") || has_ci(s, l, "rccl") || xla_op(s, l, &ph, &sk)) cls[i] |= 1;
      if ((l == 19 && memcmp(s, "gpu_user_annotation", 19) == 0) ||
          (l == 15 && memcmp(s, "user_annotation", 15) == 0))
        cls[i] |= 2;
    }
    uint32_t rpc = name_id(t, "record_param_comms");
    uint32_t nrows;
    const st_row *rows = st_trace_rows(t, &nrows);
    uint32_t kcat = name_id(t, "kernel");
    /* per row: its device + 1 (0: not a device row) */
    uint32_t *devof = st_calloc(a, nrows ? nrows : 1, sizeof *devof);
    if (!devof) {
      st_free(a, cls);
      return ST_ERR_NOMEM;
    }
    uint32_t first = 0, cnt = 0;
    for (uint32_t j = 0; j < ns; j++)
      if (steps[j].trace == k) {
        if (!cnt) first = j;
        cnt++;
      }
    st_code rc = ST_OK;
    for (uint32_t d = 0; rc == ST_OK && d < nd; d++) {
      if (dev[d].trace != k) continue;
      uint32_t *dr = NULL, ndr = 0;
      if ((rc = st_analysis_device_rows(an, a, d, &dr, &ndr)) != ST_OK) break;
      for (uint32_t q = 0; q < ndr; q++)
        if (dr[q] < nrows) devof[dr[q]] = d + 1;
      st_free(a, dr);
    }
    for (uint32_t rr = 0; rc == ST_OK && rr < nrows; rr++) {
      const st_row *r = &rows[rr];
      uint32_t d = devof[rr] ? devof[rr] - 1 : UINT32_MAX;
      /* where an XLA start's done is looked for: its track's rows */
      const st_track *tk = &st_trace_tracks(t, NULL)[r->track];
      uint32_t dr[64], ndr = 0;
      for (uint32_t q = tk->first_row; q < tk->first_row + tk->row_count && ndr < 64; q++)
        dr[ndr++] = q;
      {
        for (uint32_t i = 0; rc == ST_OK && i < r->count; i++) {
          uint32_t id = r->name[i], cat = r->cat[i];
          if (id >= nstr || !(cls[id] & 1) || (cat < nstr && (cls[cat] & 2))) continue;
          if (d == UINT32_MAX && (cat != kcat || kcat == ST_STR_NONE)) continue;
          size_t nl;
          const char *nm = st_strtab_get(strs, id, &nl);
          int ph = 0;
          size_t sk = 0;
          int xla = xla_op(nm, nl, &ph, &sk);
          if (xla && ph == 2) continue; /* a done: its start's instance ends there */
          inst x;
          memset(&x, 0, sizeof x);
          x.trace = k, x.device = d, x.kernel = (st_event_ref){rr, i};
          x.t_a = r->start[i];
          x.t_e = st_sat_add(r->start[i], r->dur[i]);
          if (!describe(c, t, so, rpc, rr, i, nm, nl, &x)) rc = ST_ERR_NOMEM;
          if (xla) { /* matched by its name (without "-start"); the done's end */
            char b[256];
            size_t m = 0;
            for (size_t p = sk; p < nl && m < sizeof b; p++) {
              if (ph == 1 && nl - p >= 6 && memcmp(nm + p, "-start", 6) == 0) {
                p += 5;
                continue;
              }
              b[m++] = nm[p];
            }
            x.group = intern(a, &c->names, b, m);
            if (x.group == UINT32_MAX) rc = ST_ERR_NOMEM;
            for (uint32_t q2 = 0; ph == 1 && q2 < ndr; q2++) { /* the done after it */
              const st_row *r2 = &rows[dr[q2]];
              for (uint32_t j = st_row_first_end_gt(r2, x.t_a); j < r2->count; j++) {
                size_t l2, sk2;
                int ph2;
                const char *n2 = st_strtab_get(strs, r2->name[j], &l2);
                if (!xla_op(n2, l2, &ph2, &sk2) || ph2 != 2) continue;
                /* same op: the name with "-done" for "-start" */
                size_t m2 = 0, p2 = sk2, ok = 1;
                for (; p2 < l2 && ok; p2++) {
                  if (l2 - p2 >= 5 && memcmp(n2 + p2, "-done", 5) == 0) {
                    p2 += 4;
                    continue;
                  }
                  ok = m2 < m && b[m2] == n2[p2];
                  m2++;
                }
                if (ok && m2 == m) {
                  int64_t e2 = st_sat_add(r2->start[j], r2->dur[j]);
                  if (e2 > x.t_e) x.t_e = e2;
                  break;
                }
              }
            }
          }
          x.step = step_at(steps, first, cnt, x.t_a);
          if (rc == ST_OK && !push_inst(c, &x)) rc = ST_ERR_NOMEM;
        }
      }
    }
    st_free(a, devof);
    st_free(a, cls);
    return rc;
  }
}

/* Ordinals per (trace, device, group, kind, step) in time order. */
static void ordinals(st_collectives *c) {
  if (c->nin) qsort(c->in, c->nin, sizeof *c->in, cmp_own); /* in is NULL without any */
  for (uint32_t i = 0; i < c->nin; i++) {
    uint32_t n = 0;
    for (uint32_t j = i; j-- > 0;) {
      const inst *p = &c->in[j];
      if (p->trace != c->in[i].trace || p->device != c->in[i].device || p->step != c->in[i].step)
        break;
      n += p->group == c->in[i].group && p->kind == c->in[i].kind;
    }
    c->in[i].ord = n;
  }
}

/* ==== 3. matching ======================================================== */

static int cmp_key(const void *p, const void *q) {
  const inst *a = *(const inst *const *)p, *b = *(const inst *const *)q;
  if (a->group != b->group) return a->group < b->group ? -1 : 1;
  int sa = a->seq >= 0, sb = b->seq >= 0;
  if (sa != sb) return sa ? -1 : 1;
  if (sa) {
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
  } else {
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    if (a->ord != b->ord) return a->ord < b->ord ? -1 : 1;
  }
  if (a->trace != b->trace) return a->trace < b->trace ? -1 : 1;
  return a->device < b->device ? -1 : a->device > b->device;
}

static int same_key(const inst *a, const inst *b) {
  if (a->group != b->group || (a->seq >= 0) != (b->seq >= 0)) return 0;
  if (a->seq >= 0) return a->seq == b->seq;
  return a->kind == b->kind && a->step == b->step && a->ord == b->ord;
}

static st_code match(st_collectives *c, inst ***order_out) {
  const st_alloc *a = &c->alloc;
  inst **o = st_calloc(a, c->nin ? c->nin : 1, sizeof *o);
  if (!o) return ST_ERR_NOMEM;
  for (uint32_t i = 0; i < c->nin; i++) o[i] = &c->in[i];
  qsort(o, c->nin, sizeof *o, cmp_key);
  uint32_t n = 0;
  for (uint32_t i = 0; i < c->nin; i++) n += i == 0 || !same_key(o[i - 1], o[i]);
  c->colls = st_calloc(a, n ? n : 1, sizeof *c->colls);
  c->members = st_calloc(a, c->nin ? c->nin : 1, sizeof *c->members);
  if (!c->colls || !c->members) {
    st_free(a, o);
    return ST_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < c->nin; i++) {
    if (i == 0 || !same_key(o[i - 1], o[i])) {
      st_coll *x = &c->colls[c->ncolls++];
      const istr *g = &c->names.v[o[i]->group], *kd = &c->names.v[o[i]->kind];
      x->group = g->p, x->group_len = g->n, x->kind = kd->p, x->kind_len = kd->n;
      x->seq = o[i]->seq;
      x->step = o[i]->step;
      x->bytes = o[i]->bytes;
      x->first_member = i;
    }
    o[i]->coll = c->ncolls - 1;
    c->colls[c->ncolls - 1].members++;
  }
  *order_out = o;
  return ST_OK;
}

/* ==== 5. per collective, per (trace, step) =============================== */

static double factor(const char *kind, uint32_t n) {
  if (n < 2) return 0;
  double f = (double)(n - 1) / n;
  if (!strcmp(kind, "all_reduce")) return 2 * f;
  if (!strcmp(kind, "all_gather") || !strcmp(kind, "reduce_scatter") || !strcmp(kind, "all_to_all"))
    return f;
  return 1;
}

typedef struct wrec {
  uint32_t trace;
  int64_t step, waited, caused;
  uint32_t blocked, colls;
} wrec;

static int cmp_wrec(const void *p, const void *q) {
  const wrec *a = p, *b = q;
  if (a->trace != b->trace) return a->trace < b->trace ? -1 : 1;
  return (a->step > b->step) - (a->step < b->step);
}

static st_code per_collective(st_collectives *c, inst **o) {
  const st_alloc *a = &c->alloc;
  int64_t *tmp = st_calloc(a, c->nin ? c->nin : 1, sizeof *tmp);
  wrec *w = st_calloc(a, (size_t)c->nin * 2 + 1, sizeof *w);
  if (!tmp || !w) {
    st_free(a, tmp);
    st_free(a, w);
    return ST_ERR_NOMEM;
  }
  uint32_t nw = 0;
  for (uint32_t x = 0; x < c->ncolls; x++) {
    st_coll *cl = &c->colls[x];
    int64_t last = INT64_MIN, first = INT64_MAX;
    uint32_t b = 0;
    for (uint32_t m = 0; m < cl->members; m++) {
      const inst *i = o[cl->first_member + m];
      if (i->a > last || (i->a == last && i->trace < o[cl->first_member + b]->trace)) {
        last = i->a;
        b = m;
      }
      if (i->a < first) first = i->a;
      tmp[m] = i->e;
    }
    cl->end_ns = coll_median(tmp, cl->members);
    cl->last_ns = last;
    cl->skew_ns = last - first;
    cl->dur_ns = cl->end_ns > last ? cl->end_ns - last : 0;
    cl->blocker = o[cl->first_member + b]->trace;
    if (cl->bytes && cl->dur_ns > 0) {
      cl->algbw_gbps = (double)cl->bytes / (double)cl->dur_ns; /* bytes per ns = GB/s */
      cl->busbw_gbps = cl->algbw_gbps * factor(cl->kind, cl->members);
    }
    int64_t caused = 0;
    for (uint32_t m = 0; m < cl->members; m++) {
      const inst *i = o[cl->first_member + m];
      st_coll_member *mb = &c->members[cl->first_member + m];
      mb->trace = i->trace;
      mb->device = i->device;
      mb->kernel = i->kernel;
      mb->start_ns = i->a;
      mb->end_ns = i->e;
      mb->wait_ns = last - i->a;
      caused += mb->wait_ns;
      w[nw++] = (wrec){i->trace, i->step, mb->wait_ns, 0, 0, 1};
    }
    if (cl->members > 1)
      w[nw++] = (wrec){cl->blocker, o[cl->first_member + b]->step, 0, caused, 1, 0};
  }
  qsort(w, nw, sizeof *w, cmp_wrec);
  c->sr = st_calloc(a, nw ? nw : 1, sizeof *c->sr);
  if (!c->sr) {
    st_free(a, tmp);
    st_free(a, w);
    return ST_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < nw; i++) {
    if (!c->nsr || c->sr[c->nsr - 1].trace != w[i].trace || c->sr[c->nsr - 1].step != w[i].step)
      c->sr[c->nsr++] = (st_coll_step_rank){.trace = w[i].trace, .step = w[i].step};
    st_coll_step_rank *r = &c->sr[c->nsr - 1];
    r->waited_ns += w[i].waited;
    r->caused_ns += w[i].caused;
    r->blocked += w[i].blocked;
    r->collectives += w[i].colls;
  }
  st_free(a, tmp);
  st_free(a, w);
  return ST_OK;
}

/* ==== 7. build, accessors, summary, JSON ================================= */

void st_collectives_destroy(st_collectives *c) {
  if (!c) return;
  const st_alloc *a = &c->alloc;
  for (uint32_t i = 0; i < c->names.n; i++) st_free(a, c->names.v[i].p);
  st_free(a, c->names.v);
  st_free(a, c->in), st_free(a, c->colls), st_free(a, c->members), st_free(a, c->offsets);
  st_free(a, c->sr), st_free(a, c->paths), st_free(a, c->segs), st_free(a, c->what_if);
  st_free(a, c->what_if_has);
  st_free(a, c->added);
  st_free(a, (void *)c);
}

st_collectives *st_collectives_begin(const st_alloc *alloc, const st_analysis *an) {
  st_alloc a = alloc ? *alloc : (st_alloc){0};
  st_collectives *c = st_calloc(&a, 1, sizeof *c);
  if (!c) return NULL;
  c->alloc = a;
  c->an = an;
  c->added = st_calloc(&a, st_analysis_traces(an) ? st_analysis_traces(an) : 1, 1);
  if (!c->added) {
    st_free(&a, c);
    return NULL;
  }
  return c;
}

st_code st_collectives_add(st_collectives *c, uint32_t k, const st_coll_source *source) {
  if (!c || c->finished || k >= st_analysis_traces(c->an) || c->added[k]) return ST_ERR_ARG;
  c->added[k] = 1;
  return find_instances(c, k, source);
}

st_code st_collectives_finish(st_collectives *c) {
  if (!c || c->finished) return ST_ERR_ARG;
  c->finished = 1;
  const st_alloc a = c->alloc;
  inst **o = NULL;
  ordinals(c);
  st_code rc = match(c, &o);
  if (rc == ST_OK) {
    for (uint32_t i = 0; i < c->nin; i++) o[i]->pos = i;
    rc = coll_offsets(c, o);
  }
  if (rc == ST_OK) rc = per_collective(c, o);
  if (rc == ST_OK) rc = coll_replays(c);
  st_free(&a, o);
  return rc;
}

st_collectives *st_collectives_build(const st_alloc *alloc, const st_analysis *an,
                                     const st_coll_source *sources, st_error *err) {
  st_collectives *c = st_collectives_begin(alloc, an);
  st_code rc = c ? ST_OK : ST_ERR_NOMEM;
  for (uint32_t k = 0; rc == ST_OK && k < st_analysis_traces(an); k++)
    rc = st_collectives_add(c, k, sources ? &sources[k] : NULL);
  if (rc == ST_OK) rc = st_collectives_finish(c);
  if (rc != ST_OK) {
    st_collectives_destroy(c);
    st_error_set(err, rc, 0, "out of memory");
    return NULL;
  }
  return c;
}

const st_coll *st_colls(const st_collectives *c, uint32_t *count) {
  if (count) *count = c->ncolls;
  return c->colls;
}
const st_coll_member *st_coll_members(const st_collectives *c, uint32_t *count) {
  if (count) *count = c->nin;
  return c->members;
}
const st_coll_offset *st_coll_offsets(const st_collectives *c) { return c->offsets; }
const st_coll_step_rank *st_coll_step_ranks(const st_collectives *c, uint32_t *count) {
  if (count) *count = c->nsr;
  return c->sr;
}
const st_coll_step_rank *st_coll_step_find(const st_collectives *c, uint32_t trace, int64_t step) {
  uint32_t lo =
      (uint32_t)st_bound_pair_at(c->sr, c->nsr, sizeof *c->sr, offsetof(st_coll_step_rank, trace),
                                 trace, offsetof(st_coll_step_rank, step), step, ST_LOWER);
  return lo < c->nsr && c->sr[lo].trace == trace && c->sr[lo].step == step ? &c->sr[lo] : NULL;
}
const st_coll_path *st_coll_paths(const st_collectives *c, uint32_t *count) {
  if (count) *count = c->npaths;
  return c->paths;
}
const st_coll_segment *st_coll_segments(const st_collectives *c, uint32_t *count) {
  if (count) *count = c->nsegs;
  return c->segs;
}
const double *st_coll_what_if(const st_collectives *c, const uint8_t **has) {
  if (has) *has = c->what_if_has;
  return c->what_if;
}

static void name_of(st_jout *o, const char *const *names, uint32_t k) {
  if (names && names[k] && names[k][0])
    st_jout_put(o, names[k], strlen(names[k]));
  else {
    st_jout_lit(o, "trace ");
    st_jout_u64(o, k);
  }
}

/* The trace that blocked the most multi-member collectives (ties: the
 * lower); UINT32_MAX if none. */
static uint32_t top_blocker(const st_collectives *c, uint32_t *blocked, uint32_t *in,
                            int64_t *caused, uint32_t *steps) {
  uint32_t best = UINT32_MAX, bb = 0;
  for (uint32_t i = 0; i < c->nsr;) {
    uint32_t k = c->sr[i].trace, b = 0, n = 0, st = 0;
    int64_t cs = 0;
    for (; i < c->nsr && c->sr[i].trace == k; i++) {
      b += c->sr[i].blocked, n += c->sr[i].collectives, cs += c->sr[i].caused_ns;
      st += c->sr[i].step != 0;
    }
    if (b > bb) {
      bb = b, best = k, *blocked = b, *in = n, *caused = cs, *steps = st ? st : 1;
    }
  }
  return best;
}

size_t st_coll_summary(const st_collectives *c, const char *const *names, char *buf, size_t cap) {
  st_jout o = {.buf = buf, .cap = cap};
  uint32_t blocked = 0, in = 0, steps = 1;
  int64_t caused = 0;
  uint32_t k = top_blocker(c, &blocked, &in, &caused, &steps);
  if (k == UINT32_MAX) {
    st_jout_lit(&o, c->ncolls ? "no collective waited for a rank" : "no collectives");
    return st_jout_end(&o);
  }
  /* the other ranks: members of the collectives it blocked, less one */
  uint32_t others = 0;
  for (uint32_t x = 0; x < c->ncolls; x++)
    if (c->colls[x].members > others + 1) others = c->colls[x].members - 1;
  double per_step = (double)caused / steps, mean_step = 0;
  uint32_t np = 0;
  for (uint32_t p = 0; p < c->npaths; p++) mean_step += (double)c->paths[p].total_ns, np++;
  mean_step = np ? mean_step / np : 0;
  char b[160];
  name_of(&o, names, k);
  snprintf(b, sizeof b, " arrived last at %u of %u collectives; the other %u ranks waited ",
           blocked, in, others);
  st_jout_put(&o, b, strlen(b));
  char d[32];
  if (per_step >= 1e6)
    snprintf(d, sizeof d, "%.1f ms", per_step / 1e6);
  else
    snprintf(d, sizeof d, "%.1f us", per_step / 1e3);
  st_jout_put(&o, d, strlen(d));
  st_jout_lit(&o, " per step for it");
  if (mean_step > 0 && others) {
    snprintf(b, sizeof b, " (%.0f %% of the step)", 100.0 * per_step / others / mean_step);
    st_jout_put(&o, b, strlen(b));
  }
  return st_jout_end(&o);
}

static void key(st_jout *o, const char *k, int first) {
  if (!first) st_jout_lit(o, ",");
  st_jout_lit(o, "\"");
  st_jout_put(o, k, strlen(k));
  st_jout_lit(o, "\":");
}

size_t st_collectives_json(const st_collectives *c, const char *const *names, char *buf,
                           size_t cap) {
  st_jout o = {.buf = buf, .cap = cap};
  st_jout_lit(&o, ",\"collectives\":[");
  for (uint32_t x = 0; x < c->ncolls; x++) {
    const st_coll *cl = &c->colls[x];
    st_jout_lit(&o, x ? ",{" : "{");
    key(&o, "group", 1);
    st_jout_str(&o, cl->group, cl->group_len);
    key(&o, "kind", 0);
    st_jout_str(&o, cl->kind, cl->kind_len);
    key(&o, "seq", 0);
    if (cl->seq >= 0)
      st_jout_i64(&o, cl->seq);
    else
      st_jout_lit(&o, "null");
    key(&o, "step", 0);
    st_jout_i64(&o, cl->step);
    key(&o, "bytes", 0);
    st_jout_u64(&o, cl->bytes);
    key(&o, "dur_us", 0);
    st_jout_us(&o, cl->dur_ns);
    key(&o, "ranks", 0);
    st_jout_lit(&o, "[");
    for (uint32_t m = 0; m < cl->members; m++) {
      const st_coll_member *mb = &c->members[cl->first_member + m];
      st_jout_lit(&o, m ? ",{" : "{");
      key(&o, "trace", 1);
      st_jout_u64(&o, mb->trace);
      key(&o, "start_us", 0);
      st_jout_us(&o, mb->start_ns);
      key(&o, "end_us", 0);
      st_jout_us(&o, mb->end_ns);
      key(&o, "wait_us", 0);
      st_jout_us(&o, mb->wait_ns);
      st_jout_lit(&o, "}");
    }
    st_jout_lit(&o, "]");
    key(&o, "blocker", 0);
    st_jout_u64(&o, cl->blocker);
    key(&o, "skew_us", 0);
    st_jout_us(&o, cl->skew_ns);
    key(&o, "algbw_gbps", 0);
    st_jout_fixed(&o, cl->algbw_gbps, 3);
    key(&o, "busbw_gbps", 0);
    st_jout_fixed(&o, cl->busbw_gbps, 3);
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"clock_offsets\":[");
  uint32_t nt = st_analysis_traces(c->an), first = 1;
  for (uint32_t k = 0; k < nt; k++) {
    const st_coll_offset *f = &c->offsets[k];
    if (!f->has) continue;
    st_jout_lit(&o, first ? "{" : ",{");
    first = 0;
    key(&o, "trace", 1);
    st_jout_u64(&o, k);
    key(&o, "offset_us", 0);
    st_jout_us(&o, f->offset_ns);
    key(&o, "residual_us", 0);
    st_jout_us(&o, f->residual_ns);
    key(&o, "collectives", 0);
    st_jout_u64(&o, f->collectives);
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"unaligned\":[");
  first = 1;
  for (uint32_t k = 0; k < nt; k++)
    if (!c->offsets[k].has) {
      if (!first) st_jout_lit(&o, ",");
      first = 0;
      st_jout_u64(&o, k);
    }
  st_jout_lit(&o, "],\"critical_path\":[");
  for (uint32_t p = 0; p < c->npaths; p++) {
    const st_coll_path *pa = &c->paths[p];
    st_jout_lit(&o, p ? ",{" : "{");
    key(&o, "step", 1);
    st_jout_i64(&o, pa->step);
    key(&o, "total_us", 0);
    st_jout_us(&o, pa->total_ns);
    key(&o, "segments", 0);
    st_jout_lit(&o, "[");
    for (uint32_t s = 0; s < pa->segments; s++) {
      const st_coll_segment *sg = &c->segs[pa->first_segment + s];
      st_jout_lit(&o, s ? ",{" : "{");
      key(&o, "trace", 1);
      st_jout_u64(&o, sg->trace);
      key(&o, "kind", 0);
      st_jout_lit(&o, sg->collective ? "\"collective\"" : "\"compute\"");
      key(&o, "name", 0);
      if (sg->collective)
        st_jout_str(&o, c->colls[sg->coll].kind, c->colls[sg->coll].kind_len);
      else
        st_jout_lit(&o, "\"device work\"");
      key(&o, "start_us", 0);
      st_jout_us(&o, sg->start_ns);
      key(&o, "end_us", 0);
      st_jout_us(&o, sg->end_ns);
      st_jout_lit(&o, "}");
    }
    st_jout_lit(&o, "]}");
  }
  st_jout_lit(&o, "],\"what_if\":[");
  first = 1;
  for (uint32_t k = 0; k < nt; k++) {
    if (!c->what_if_has[k]) continue;
    st_jout_lit(&o, first ? "{" : ",{");
    first = 0;
    key(&o, "trace", 1);
    st_jout_u64(&o, k);
    key(&o, "step_us_saved", 0);
    st_jout_fixed(&o, c->what_if[k] / 1000.0, 3);
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"waits\":[");
  for (uint32_t i = 0; i < c->nsr; i++) {
    const st_coll_step_rank *r = &c->sr[i];
    st_jout_lit(&o, i ? ",{" : "{");
    key(&o, "trace", 1);
    st_jout_u64(&o, r->trace);
    key(&o, "step", 0);
    st_jout_i64(&o, r->step);
    key(&o, "waited_us", 0);
    st_jout_us(&o, r->waited_ns);
    key(&o, "caused_us", 0);
    st_jout_us(&o, r->caused_ns);
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"collectives_summary\":");
  char line[512];
  st_coll_summary(c, names, line, sizeof line);
  st_jout_str(&o, line, strlen(line));
  return st_jout_end(&o);
}
