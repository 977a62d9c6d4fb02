/* perfetto_args.c: a Perfetto event's args (argsrc_internal.h): a
 * TrackEvent's debug annotations (names and string values interned per
 * sequence generation), for scheduling slices the ftrace record's
 * details (thread, process, priority, states), and for a statsd atom its
 * id and fields.
 *
 * Contents
 *   1. debug annotations -> JSON
 *   2. scheduling details
 */
#include "argsrc_internal.h"

#include "bisect.h"

#include "perfetto_states.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ==== 1. debug annotations -> JSON ======================================= */

#define PF_MAX_DEPTH 16

static const txt *pf_lookup(const st_argsrc *as, int table, uint32_t g, uint64_t iid) {
  if (g == UINT32_MAX || iid > 0xFFFFFFFFu) return NULL;
  uint32_t i = st_u64map_get(&as->interned, pf_key(table, g, iid));
  return i == ST_U64MAP_NONE ? NULL : &as->ptxt[i];
}

/* One DebugAnnotation (payload in r): "name": value if named, else value. */
static st_code pf_annot(const st_argsrc *as, uint32_t g, st_pb_reader r, int named, int depth,
                        jb *b, int *first, st_error *err) {
  st_pb_field f, val, nm;
  int k, has_val = 0, has_nm = 0, dict = 0, arr = 0;
  uint64_t name_iid = 0;
  memset(&val, 0, sizeof val);
  memset(&nm, 0, sizeof nm);
  st_pb_reader r0 = r;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    switch (f.num) {
    case 10:
      if (f.wire == ST_PB_LEN) nm = f, has_nm = 1;
      break;
    case 1: name_iid = f.u; break;
    case 11: dict = 1; break;
    case 12: arr = 1; break;
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 14:
    case 17: val = f, has_val = 1; break;
    default: break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!jb_sep(b, first)) return ST_OK;
  if (named) {
    if (has_nm) {
      jb_str(b, nm.data, nm.len);
    } else {
      const txt *t = name_iid ? pf_lookup(as, 0, g, name_iid) : NULL;
      char tmp[48];
      if (t)
        jb_str(b, (const uint8_t *)as->text + t->off, t->len);
      else if (name_iid)
        snprintf(tmp, sizeof tmp, "name_iid:%llu", (unsigned long long)name_iid), jb_cstr(b, tmp);
      else
        jb_cstr(b, "(unnamed)");
    }
    jb_put(b, ": ", 2);
  }
  if ((dict || arr) && depth >= PF_MAX_DEPTH) {
    jb_cstr(b, ELLIPSIS);
    b->truncated = 1;
    return ST_OK;
  }
  if (dict || arr) {
    jb_put(b, dict ? "{" : "[", 1);
    int sub_first = 1;
    st_pb_reader sr;
    r = r0;
    while ((k = st_pb_next(&r, &f, err)) > 0) {
      if (f.num != (dict ? 11u : 12u) || f.wire != ST_PB_LEN) continue;
      if (st_pb_enter(&r, &f, &sr, err) != ST_OK) return err->code;
      st_code c = pf_annot(as, g, sr, dict, depth + 1, b, &sub_first, err);
      if (c != ST_OK) return c;
    }
    if (k < 0) return ST_ERR_PROTO;
    jb_put(b, dict ? "}" : "]", 1);
    return ST_OK;
  }
  if (!has_val) {
    jb_lit(b, "null");
    return ST_OK;
  }
  char tmp[48];
  int len_ok = val.wire == ST_PB_LEN, var_ok = val.wire == ST_PB_VARINT;
  switch (val.num) {
  case 2:
    if (var_ok)
      jb_lit(b, val.u ? "true" : "false");
    else
      jb_lit(b, "null");
    break;
  case 3:
    if (var_ok)
      jb_int(b, 0, 1, val.u);
    else
      jb_lit(b, "null");
    break;
  case 4:
    if (var_ok)
      jb_int(b, st_pb_i64(val.u), 0, 0);
    else
      jb_lit(b, "null");
    break;
  case 5: {
    double d = st_pb_double(val.u);
    if (val.wire != ST_PB_I64)
      jb_lit(b, "null");
    else if (isnan(d))
      jb_cstr(b, "NaN");
    else if (isinf(d))
      jb_cstr(b, d > 0 ? "Infinity" : "-Infinity");
    else
      jb_fmt_double(tmp, sizeof tmp, d), jb_lit(b, tmp);
    break;
  }
  case 6:
  case 9:
    if (len_ok)
      jb_str(b, val.data, val.len);
    else
      jb_lit(b, "null");
    break;
  case 7:
    snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)val.u);
    jb_cstr(b, tmp);
    break;
  case 17: {
    const txt *t = pf_lookup(as, 1, g, val.u);
    if (t) {
      jb_str(b, (const uint8_t *)as->text + t->off, t->len);
    } else {
      snprintf(tmp, sizeof tmp, "string_iid:%llu", (unsigned long long)val.u);
      jb_cstr(b, tmp);
    }
    break;
  }
  default:
    snprintf(tmp, sizeof tmp, "<%s, %zu bytes>", val.num == 14 ? "proto" : "nested value", val.len);
    jb_cstr(b, tmp);
    break;
  }
  return ST_OK;
}

/* The generation of sequence seq in force at offset src. */
static uint32_t pf_generation(const st_argsrc *as, uint64_t seq, uint64_t src) {
  uint32_t i = st_u64map_get(&as->seq_map, seq);
  if (i == ST_U64MAP_NONE) return UINT32_MAX;
  const pf_seq *s = &as->seqs[i];
  uint32_t lo = (uint32_t)st_bound_u64_at(s->gens, s->n, sizeof *s->gens, offsetof(pf_gen, offset),
                                          src, ST_UPPER);
  lo = lo ? lo - 1 : 0; /* the last gen with offset <= src */
  return s->gens[lo].g;
}

static st_code step_ftrace(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_error *err);

st_code argsrc_step_perfetto(st_args_query *q, const uint8_t *data, size_t len, int *more,
                             st_args_span *read, st_error *err) {
  if (q->plane) return step_ftrace(q, data, len, more, err);
  const uint8_t *pl;
  size_t n = 0;
  st_code c =
      argsrc_record_at(q, data, len, (1u << 3) | 2u, "TracePacket", &pl, &n, more, read, err);
  if (c != ST_OK || !pl) return c;
  st_pb_reader r, er;
  st_pb_field f, ev;
  int k, has_ev = 0, compressed = 0;
  uint64_t seq = 0;
  st_pb_reader_init(&r, pl, n, q->src + (uint64_t)(pl - data));
  r.depth = 1;
  st_pb_reader r0 = r;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num == 10 && f.wire == ST_PB_VARINT) seq = f.u;
    if (f.num == 11 && f.wire == ST_PB_LEN) ev = f, has_ev = 1;
    if (f.num == 50 && f.wire == ST_PB_LEN) compressed = 1;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (compressed && !has_ev)
    return st_error_set(err, ST_ERR_FORMAT, q->src,
                        "args of events inside compressed_packets are not available");
  jb *b = &q->out;
  jb_put(b, "{", 1);
  if (has_ev) {
    uint32_t g = pf_generation(q->as, seq, q->src);
    int first = 1;
    if (st_pb_enter(&r0, &ev, &er, err) != ST_OK) return err->code;
    st_pb_reader ar;
    while ((k = st_pb_next(&er, &f, err)) > 0) {
      if (f.num != 4 || f.wire != ST_PB_LEN) continue;
      if (st_pb_enter(&er, &f, &ar, err) != ST_OK) return err->code;
      c = pf_annot(q->as, g, ar, 1, 0, b, &first, err);
      if (c != ST_OK) return c;
    }
    if (k < 0) return ST_ERR_PROTO;
  }
  jb_put(b, "}", 1);
  return argsrc_finish(q, more, err);
}

/* ==== 2. scheduling details (st_argsrc_perfetto_bundle) ================== */

enum { ROLE_NONE = 0, ROLE_NEXT, ROLE_PREV, ROLE_WAKING };

typedef struct sched_rec { /* one scheduling record, from either encoding */
  int role;
  int has_comm, has_prev_comm, has_prio, has_state, has_cpu;
  const uint8_t *comm, *prev_comm;
  size_t comm_len, prev_comm_len;
  int64_t tid, prev_tid, prio, state, cpu;
} sched_rec;

static const pf_thr *pf_thread_of(const st_argsrc *as, int64_t tid) {
  uint32_t i = st_u64map_get(&as->thr_map, (uint64_t)tid);
  return i == ST_U64MAP_NONE ? NULL : &as->thr[i];
}

/* "thread", "tid", "process", "pid" of thread tid (comm: the record's name
 * for it, else the trace's) */
static void who(const st_argsrc *as, jb *b, int *first, int64_t tid, const uint8_t *comm,
                size_t n) {
  const pf_thr *t = pf_thread_of(as, tid);
  if (!n && t) comm = (const uint8_t *)as->text + t->tname.off, n = t->tname.len;
  if (n) {
    jb_key(b, first, "thread");
    jb_str(b, comm, n);
  }
  jb_key(b, first, "tid");
  jb_int(b, tid, 0, 0);
  if (t) {
    if (t->pname.len) {
      jb_key(b, first, "process");
      jb_str(b, (const uint8_t *)as->text + t->pname.off, t->pname.len);
    }
    jb_key(b, first, "pid");
    jb_int(b, t->pid, 0, 0);
  }
}

/* A FtraceEvent (payload in r) holding src: its scheduling record. */
static st_code sched_plain(st_pb_reader r, uint64_t src, sched_rec *x, st_error *err) {
  st_pb_field f, g, body;
  int k, has_body = 0;
  while ((k = st_pb_next(&r, &f, err)) > 0)
    if (f.wire == ST_PB_LEN && f.num >= 3 && !has_body) body = f, has_body = 1;
  if (k < 0) return ST_ERR_PROTO;
  if (!has_body || (body.num != 4 && body.num != 17 && body.num != 20 && body.num != 114))
    return ST_OK;
  st_pb_reader e;
  if (st_pb_enter(&r, &body, &e, err) != ST_OK) return err->code;
  int sw = body.num == 4;
  while ((k = st_pb_next(&e, &g, err)) > 0) {
    if (sw && g.offset == src && g.num == 6) x->role = ROLE_NEXT;
    if (sw && g.offset == src && (g.num == 4 || g.num == 2)) x->role = ROLE_PREV;
    if (!sw && g.offset == src && g.num == 2) x->role = ROLE_WAKING;
    if (g.wire == ST_PB_LEN && g.num == (sw ? 5u : 1u))
      x->comm = g.data, x->comm_len = g.len, x->has_comm = 1;
    if (sw && g.wire == ST_PB_LEN && g.num == 1)
      x->prev_comm = g.data, x->prev_comm_len = g.len, x->has_prev_comm = 1;
    if (g.wire != ST_PB_VARINT) continue;
    int64_t v = (int64_t)(int32_t)(uint32_t)g.u;
    if (g.num == (sw ? 6u : 2u)) x->tid = v;
    if (g.num == (sw ? 7u : 3u)) x->prio = v, x->has_prio = 1;
    if (sw && g.num == 2) x->prev_tid = v;
    if (sw && g.num == 4) x->state = st_pb_i64(g.u), x->has_state = 1;
    if (!sw && g.num == 5) x->cpu = v, x->has_cpu = 1;
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

/* A CompactSched (payload in r) holding src: the element at src and the
 * other columns' elements of the same index. */
static st_code sched_compact(st_pb_reader r, uint64_t src, sched_rec *x, st_error *err) {
  st_pb_field f, col[13];
  int has[13] = {0}, k;
  st_pb_reader r0 = r;
  while ((k = st_pb_next(&r, &f, err)) > 0)
    if (f.num <= 12 && f.num != 5 && f.wire == ST_PB_LEN && !has[f.num])
      col[f.num] = f, has[f.num] = 1;
  if (k < 0) return ST_ERR_PROTO;
  /* which column and index */
  int which = 0;
  uint64_t index = 0;
  static const int probe[3] = {3, 2, 8};
  for (int p = 0; p < 3 && !which; p++) {
    int c = probe[p];
    if (!has[c]) continue;
    st_pb_reader e;
    uint64_t v, i = 0;
    if (st_pb_packed_init(&r0, &col[c], &e, err) != ST_OK) return err->code;
    for (;;) {
      uint64_t at = st_pb_offset(&e, e.p);
      if (at == src) {
        which = c, index = i;
        break;
      }
      int a = st_pb_packed_next(&e, ST_PB_VARINT, &v, err);
      if (a < 0) return ST_ERR_PROTO;
      if (a == 0 || at > src) break;
      i++;
    }
  }
  if (!which) return ST_OK;
  int waking = which == 8;
  x->role = which == 3 ? ROLE_NEXT : which == 2 ? ROLE_PREV : ROLE_WAKING;
  /* the element at index in column c */
  uint64_t val[13] = {0};
  int got[13] = {0};
  const int cols_sw[4] = {2, 3, 4, 6}, cols_wk[4] = {8, 9, 10, 11};
  const int *cols = waking ? cols_wk : cols_sw;
  for (int j = 0; j < 4; j++) {
    int c = cols[j];
    if (!has[c]) continue;
    st_pb_reader e;
    if (st_pb_packed_init(&r0, &col[c], &e, err) != ST_OK) return err->code;
    for (uint64_t i = 0; i <= index; i++) {
      int a = st_pb_packed_next(&e, ST_PB_VARINT, &val[c], err);
      if (a < 0) return ST_ERR_PROTO;
      if (a == 0) break;
      if (i == index) got[c] = 1;
    }
  }
  uint64_t comm = waking ? val[11] : val[6];
  int has_comm = waking ? got[11] : got[6];
  if (has_comm) { /* the intern table */
    st_pb_reader t = r0;
    uint64_t i = 0;
    while ((k = st_pb_next(&t, &f, err)) > 0)
      if (f.num == 5 && f.wire == ST_PB_LEN && i++ == comm) {
        x->comm = f.data, x->comm_len = f.len, x->has_comm = 1;
        break;
      }
    if (k < 0) return ST_ERR_PROTO;
  }
  int cpid = waking ? 8 : 3, cprio = waking ? 10 : 4;
  if (got[cpid]) x->tid = (int64_t)(int32_t)(uint32_t)val[cpid];
  if (got[cprio]) x->prio = (int64_t)(int32_t)(uint32_t)val[cprio], x->has_prio = 1;
  if (!waking && got[2]) x->state = st_pb_i64(val[2]), x->has_state = 1;
  if (waking && got[9]) x->cpu = (int64_t)(int32_t)(uint32_t)val[9], x->has_cpu = 1;
  x->prev_tid = -1;
  return ST_OK;
}

/* A StatsdAtom (payload in r) holding the atom record at src: "atom_id"
 * (the atom's field number, its kind) and its fields as trace_processor
 * shows atoms it has no descriptor for: "field_N" (integers; text for
 * length-delimited fields), "field_N_assuming_float" / "_double". */
static st_code step_statsd(st_args_query *q, st_pb_reader r, st_error *err) {
  st_pb_field f, g, h;
  int k, j;
  jb *o = &q->out;
  int first = 1;
  jb_put(o, "{", 1);
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num != 1 || f.wire != ST_PB_LEN || f.offset != q->src) continue;
    st_pb_reader a, m;
    if (st_pb_enter(&r, &f, &a, err) != ST_OK) return err->code;
    if ((j = st_pb_next(&a, &g, err)) < 0) return ST_ERR_PROTO;
    if (j == 0) break;
    jb_key(o, &first, "atom_id");
    jb_int(o, g.num, 0, 0);
    if (g.wire != ST_PB_LEN || st_pb_enter(&a, &g, &m, err) != ST_OK) break;
    while ((j = st_pb_next(&m, &h, err)) > 0) {
      char key[48];
      snprintf(key, sizeof key, "field_%u%s", (unsigned)h.num,
               h.wire == ST_PB_I32   ? "_assuming_float"
               : h.wire == ST_PB_I64 ? "_assuming_double"
                                     : "");
      jb_key(o, &first, key);
      if (h.wire == ST_PB_VARINT) {
        jb_int(o, (int64_t)h.u, 0, 0);
      } else if (h.wire == ST_PB_LEN) {
        jb_str(o, h.data, h.len);
      } else {
        double d;
        if (h.wire == ST_PB_I32) {
          float x;
          uint32_t bits = (uint32_t)h.u;
          memcpy(&x, &bits, sizeof x);
          d = x;
        } else {
          d = st_pb_double(h.u);
        }
        char num[40];
        if (isfinite(d)) jb_fmt_double(num, sizeof num, d);
        jb_lit(o, isfinite(d) ? num : "null");
      }
    }
    if (j < 0) return ST_ERR_PROTO;
    break;
  }
  if (k < 0) return ST_ERR_PROTO;
  jb_put(o, "}", 1);
  return ST_OK;
}

/* The bundle holding src is in data: find src's record, write its details.
 * (A "bundle" is an FtraceEventBundle record, or a statsd_atom one.) */
static st_code step_ftrace(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_error *err) {
  const st_argsrc *as = q->as;
  if (len < q->want)
    return st_error_set(err, ST_ERR_TRUNCATED, q->want_off,
                        "the input ends inside the ftrace bundle");
  uint64_t tag = 0, n = 0, src = q->src;
  int a = st_pb_varint(data, data + len, &tag);
  int b = a > 0 ? st_pb_varint(data + a, data + len, &n) : 0;
  int statsd = tag == ((84u << 3) | 2u);
  if (a <= 0 || b <= 0 || (tag != ((1u << 3) | 2u) && !statsd) || (uint64_t)a + b + n > len)
    return st_error_set(err, ST_ERR_PROTO, q->want_off, "no ftrace bundle at byte %llu",
                        (unsigned long long)q->want_off);
  st_pb_reader r;
  st_pb_field f;
  int k;
  st_pb_reader_init(&r, data + a + b, (size_t)n, q->want_off + (uint64_t)a + (uint64_t)b);
  r.depth = 2;
  if (statsd) {
    st_code c = step_statsd(q, r, err);
    return c != ST_OK ? c : argsrc_finish(q, more, err);
  }
  sched_rec x;
  memset(&x, 0, sizeof x);
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if ((f.num != 2 && f.num != 4) || f.wire != ST_PB_LEN) continue;
    uint64_t start = f.offset, end = st_pb_offset(&r, f.data) + f.len;
    if (src < start || src >= end) continue;
    st_pb_reader e;
    if (st_pb_enter(&r, &f, &e, err) != ST_OK) return err->code;
    st_code c = f.num == 2 ? sched_plain(e, src, &x, err) : sched_compact(e, src, &x, err);
    if (c != ST_OK) return c;
    break;
  }
  if (k < 0) return ST_ERR_PROTO;
  jb *o = &q->out;
  int first = 1;
  jb_put(o, "{", 1);
  if (x.role == ROLE_NEXT && q->phase == 1) { /* the end of a CPU slice */
    if (x.has_state) {
      jb_key(o, &first, "end_state");
      jb_cstr(o, pf_state_name(pf_state_from_prev(x.state)));
    }
  } else if (x.role == ROLE_NEXT || x.role == ROLE_WAKING) {
    who(as, o, &first, x.tid, x.comm, x.comm_len);
    if (x.has_prio) {
      jb_key(o, &first, "priority");
      jb_int(o, x.prio, 0, 0);
    }
    if (x.role == ROLE_WAKING && x.has_cpu) {
      jb_key(o, &first, "woken_on_cpu");
      jb_int(o, x.cpu, 0, 0);
    }
  } else if (x.role == ROLE_PREV) {
    if (x.prev_tid >= 0 && (x.has_prev_comm || x.prev_tid > 0))
      who(as, o, &first, x.prev_tid, x.prev_comm, x.prev_comm_len);
    if (x.has_state) {
      jb_key(o, &first, "state");
      jb_cstr(o, pf_state_name(pf_state_from_prev(x.state)));
    }
  }
  jb_put(o, "}", 1);
  return argsrc_finish(q, more, err);
}
