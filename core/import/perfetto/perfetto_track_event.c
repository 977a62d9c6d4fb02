/* perfetto_track_event.c: the TrackEvent part of the Perfetto importer (see
 * import_perfetto.h for the mapping): TrackDescriptor tracks (processes,
 * threads, counters, custom trees and their child ordering), TrackEvent
 * slices / instants / counters / flows, interned names and categories,
 * TracePacketDefaults. Threads' and processes' names and section order are
 * decided at the end by perfetto_system.c; the thread and process registry
 * all sources share is perfetto_common.c's.
 *
 * Contents
 *   1. flows
 *   2. tracks: descriptors, resolution to builder processes/tracks, order
 *   3. sequence state: interned data, defaults
 *   4. track events
 */
#include "perfetto_internal.h"

#include <stdio.h>
#include <string.h>

/* ==== 1. flows =========================================================== */

/* Flow ids are collected while the event is read, then become builder flow
 * points bound to the event's slice (see flow_points): the builder chains
 * each id's points in timestamp order (flow_ids: IN|OUT, terminating: IN|END). */
static void flow_step(st_perfetto_importer *im, uint64_t id, int terminating) {
  if (im->nfids == im->cap_fids) {
    void *p = im->fids;
    if (!st_grow32(&im->alloc, &p, &im->cap_fids, im->nfids + 1, sizeof *im->fids, 16)) {
      im->nomem = 1;
      return;
    }
    im->fids = p;
  }
  im->fids[im->nfids++] = (pflow){id, (uint8_t)(terminating != 0)};
}

static void flow_points(st_perfetto_importer *im, uint32_t bt, int64_t ts, uint64_t src) {
  for (uint32_t i = 0; bt != UINT32_MAX && i < im->nfids; i++) {
    unsigned role = ST_FLOW_IN | (im->fids[i].terminating ? ST_FLOW_END : ST_FLOW_OUT);
    st_code c = st_builder_flow(im->b, im->fids[i].id, role, ST_FLOW_BIND_EVENT, bt, ts, src);
    if (c == ST_ERR_NOMEM)
      im->nomem = 1;
    else if (c != ST_OK)
      st_stats_warn(im->stats, "flow_unbound", src);
  }
  im->nfids = 0;
}
static void on_flow(void *ud, uint64_t id) { flow_step(ud, id, 0); }
static void on_flow_end(void *ud, uint64_t id) { flow_step(ud, id, 1); }

/* ==== 2. tracks ========================================================= */

uint32_t pf_track_get(st_perfetto_importer *im, uint64_t uuid, int create) {
  uint32_t i = st_u64map_get(&im->track_map, uuid);
  if (i != ST_U64MAP_NONE || !create) return i;
  if (im->ntracks == im->cap_tracks) {
    void *p = im->tracks;
    if (!st_grow32(&im->alloc, &p, &im->cap_tracks, im->ntracks + 1, sizeof *im->tracks, 64)) {
      im->nomem = 1;
      return ST_U64MAP_NONE;
    }
    im->tracks = p;
  }
  i = im->ntracks;
  ptrack *t = &im->tracks[i];
  memset(t, 0, sizeof *t);
  t->uuid = uuid;
  t->btrack = UINT32_MAX;
  t->mult = 1;
  t->order = i;
  if (!st_u64map_put(&im->track_map, &im->alloc, uuid, i)) {
    im->nomem = 1;
    return ST_U64MAP_NONE;
  }
  im->ntracks++;
  return i;
}

/* The builder process a track's events go to. */
static uint32_t track_process(st_perfetto_importer *im, uint32_t ti) {
  uint32_t cur = ti, root = ti;
  for (int hops = 0; hops < 64 && cur != ST_U64MAP_NONE; hops++) {
    const ptrack *t = &im->tracks[cur];
    if (t->kind == TK_PROCESS || t->kind == TK_THREAD) return pf_builder_process(im, t->pid);
    root = cur;
    cur = t->has_parent ? st_u64map_get(&im->track_map, t->parent) : ST_U64MAP_NONE;
  }
  /* a tree of custom tracks: a process of its own, named after the root */
  const ptrack *r = &im->tracks[root];
  int64_t pid = ST_PERFETTO_TRACK_PID_BASE - (int64_t)r->order;
  uint32_t p = st_builder_process(im->b, pid);
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return p;
  }
  uint32_t name = r->name;
  if (name == ST_STR_EMPTY) {
    char tmp[48];
    int n = snprintf(tmp, sizeof tmp, "track %llu", (unsigned long long)r->uuid);
    name = pf_intern(im, r->uuid ? tmp : "default track", r->uuid ? (size_t)n : 13);
  }
  st_builder_process_name(im->b, p, name);
  /* after the synthetic sections (CPUs, System, Power, Network: pf_section) */
  st_builder_process_sort(im->b, p, pf_clamp32((int64_t)INT32_MIN + 4 + r->order));
  return p;
}

/* The process of the tracks without a descriptor, made on first use. */
static uint32_t undescribed_process(st_perfetto_importer *im) {
  if (im->undescribed_proc1) return im->undescribed_proc1 - 1;
  uint32_t p = st_builder_process(im->b, ST_PERFETTO_UNDESCRIBED_PID);
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return p;
  }
  st_builder_process_sort(im->b, p, ST_PROCESS_SORT_FOLDED);
  im->undescribed_proc1 = p + 1;
  return p;
}

/* Names the gathering after its count: "1,068 tracks without a descriptor". */
void pf_name_undescribed(st_perfetto_importer *im) {
  if (!im->undescribed_proc1) return;
  char tmp[64];
  uint32_t n = im->undescribed;
  int m = n >= 1000
              ? snprintf(tmp, sizeof tmp, "%u,%03u tracks without a descriptor", n / 1000, n % 1000)
              : snprintf(tmp, sizeof tmp, "%u track%s without a descriptor", n, n == 1 ? "" : "s");
  if (m > 0)
    st_builder_process_name(im->b, im->undescribed_proc1 - 1, pf_intern(im, tmp, (size_t)m));
}

/* How deep a custom track sits in its tree of custom tracks (0 for a root,
 * or for a track directly under a process/thread track, which Perfetto shows
 * as a sibling): its label's indent, as ui.perfetto.dev nests them. */
static uint8_t track_depth(const st_perfetto_importer *im, uint32_t ti) {
  uint8_t depth = 0;
  uint32_t cur = ti;
  for (int hops = 0; hops < 64; hops++) {
    const ptrack *t = &im->tracks[cur];
    uint32_t up = t->has_parent ? st_u64map_get(&im->track_map, t->parent) : ST_U64MAP_NONE;
    if (up == ST_U64MAP_NONE || im->tracks[up].kind == TK_PROCESS ||
        im->tracks[up].kind == TK_THREAD)
      break;
    depth++;
    cur = up;
  }
  return depth;
}

/* The builder track of a ptrack, made on first use. A thread track is the
 * thread's (shared with its atrace slices, perfetto_common.c). */
static uint32_t track_builder(st_perfetto_importer *im, uint32_t ti, int counter) {
  ptrack *t = &im->tracks[ti];
  if (t->btrack != UINT32_MAX) return t->btrack;
  uint32_t bt;
  if (t->kind == TK_THREAD && !counter) {
    pf_thread_tgid(im, t->tid, t->pid);
    pthr *th = pf_thread(im, t->tid);
    bt = th ? pf_thread_track(im, th, 0) : UINT32_MAX;
    t = &im->tracks[ti];
  } else {
    /* a track no descriptor ever described (its sequence's descriptors were
     * lost): into the one gathering after the named processes, not a
     * section of its own before them */
    int lost = t->kind == TK_UNKNOWN && !t->has_parent && t->name == ST_STR_EMPTY;
    uint32_t p = lost ? undescribed_process(im) : track_process(im, ti);
    if (p == UINT32_MAX) return UINT32_MAX;
    if (lost) im->undescribed++;
    if (!st_seen_test_set(&im->alloc, &im->proc_seen, p, &im->nomem)) im->stats->processes++;
    t = &im->tracks[ti];
    int64_t key = -0x100000000LL - (int64_t)t->order;
    uint32_t name = t->name;
    if (name == ST_STR_EMPTY) {
      char tmp[48];
      int n = snprintf(tmp, sizeof tmp, "track %llu", (unsigned long long)t->uuid);
      name = pf_intern(im, tmp, (size_t)n);
    }
    bt = st_builder_track(im->b, p, counter ? ST_TRACK_COUNTER : ST_TRACK_SLICES, key, name);
    if (bt != UINT32_MAX) {
      st_builder_track_sort(im->b, bt, pf_clamp32(t->order));
      st_builder_track_indent(im->b, bt, track_depth(im, ti));
      if (counter) st_builder_track_unit(im->b, bt, t->unit);
      if (!counter && !st_seen_test_set(&im->alloc, &im->track_seen, bt, &im->nomem))
        im->stats->threads++;
    }
  }
  if (bt == UINT32_MAX) {
    im->nomem = 1;
    return bt;
  }
  t->btrack = bt;
  return bt;
}

/* Sibling order of tracks sharing a parent, by the parent's child_ordering:
 * LEXICOGRAPHIC by name, CHRONOLOGICAL by first event, EXPLICIT by
 * sibling_order_rank; otherwise (and on ties) descriptor order. */
static int sibling_less(const st_perfetto_importer *im, const ptrack *x, const ptrack *y,
                        uint8_t how) {
  if (how == 1) {
    size_t nx, ny;
    const char *sx = st_strtab_get(im->strs, x->name, &nx),
               *sy = st_strtab_get(im->strs, y->name, &ny);
    int c = memcmp(sx, sy, nx < ny ? nx : ny);
    if (c || nx != ny) return c ? c < 0 : nx < ny;
  } else if (how == 2 && x->first_ts != y->first_ts) {
    return x->first_ts < y->first_ts;
  } else if (how == 3 && x->rank != y->rank) {
    return x->rank < y->rank;
  }
  return x->order < y->order;
}

/* Sort indices of the custom and counter tracks: a depth-first walk of the
 * track trees, siblings in their parent's child_ordering (at most 4096
 * siblings are sorted; more keep descriptor order). */
void pf_order_tracks(st_perfetto_importer *im) {
  uint32_t n = im->ntracks;
  if (!n) return;
  st_alloc *a = &im->alloc;
  uint32_t *parent = st_malloc(a, (size_t)n * sizeof *parent);
  uint32_t *first = st_calloc(a, (size_t)n + 2, sizeof *first);
  uint32_t *kids = st_malloc(a, (size_t)n * sizeof *kids);
  uint32_t *stack = st_malloc(a, (size_t)n * sizeof *stack);
  if (parent && first && kids && stack) {
    /* children grouped by parent (slot n: the roots), in descriptor order */
    for (uint32_t i = 0; i < n; i++) {
      const ptrack *t = &im->tracks[i];
      uint32_t up = t->has_parent ? st_u64map_get(&im->track_map, t->parent) : ST_U64MAP_NONE;
      parent[i] = up == ST_U64MAP_NONE || up == i ? n : up;
      first[parent[i] + 1]++;
    }
    for (uint32_t i = 0; i <= n; i++) first[i + 1] += first[i];
    for (uint32_t i = 0; i < n; i++) kids[first[parent[i]]++] = i;
    for (uint32_t i = n + 1; i > 0; i--) first[i] = first[i - 1];
    first[0] = 0;
    for (uint32_t p = 0; p < n; p++) { /* sort each parent's children */
      uint32_t lo = first[p], k = first[p + 1] - lo;
      uint8_t how = im->tracks[p].child_order;
      if (!how || k > 4096) continue;
      for (uint32_t i = 1; i < k; i++)
        for (uint32_t j = lo + i;
             j > lo && sibling_less(im, &im->tracks[kids[j]], &im->tracks[kids[j - 1]], how); j--) {
          uint32_t tmp = kids[j];
          kids[j] = kids[j - 1];
          kids[j - 1] = tmp;
        }
    }
    /* depth-first from the roots; a cycle's tracks are never reached and
     * keep their descriptor order */
    uint32_t sp = 0, seq = 0;
    for (uint32_t i = first[n + 1]; i-- > first[n];) stack[sp++] = kids[i];
    while (sp) {
      uint32_t u = stack[--sp];
      const ptrack *t = &im->tracks[u];
      if (t->btrack != UINT32_MAX && t->kind != TK_THREAD)
        st_builder_track_sort(im->b, t->btrack, pf_clamp32(seq));
      seq++;
      for (uint32_t i = first[u + 1]; i-- > first[u] && sp < n;) stack[sp++] = kids[i];
    }
  }
  st_free(a, parent);
  st_free(a, first);
  st_free(a, kids);
  st_free(a, stack);
}

/* ProcessDescriptor / ThreadDescriptor fields shared by the legacy packets. */
st_code pf_read_pt_desc(st_pb_reader *r, const st_pb_field *f, int64_t *pid, int64_t *tid,
                        const uint8_t **name, size_t *nlen, int thread, st_error *err) {
  st_pb_reader d;
  st_pb_field g;
  int k;
  if (st_pb_enter(r, f, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &g, err)) > 0) {
    if (g.num == 1 && g.wire == ST_PB_VARINT)
      *pid = (int64_t)(int32_t)(uint32_t)g.u;
    else if (thread && g.num == 2 && g.wire == ST_PB_VARINT)
      *tid = st_pb_i64(g.u);
    else if (g.wire == ST_PB_LEN && g.num == (thread ? 5u : 6u))
      *name = g.data, *nlen = g.len;
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

static void flush_track(st_perfetto_importer *im, uint32_t ti);

/* TrackDescriptor: 1 uuid, 2 name, 10 static_name, 13 atrace_name,
 * 3 process, 4 thread, 5 parent_uuid, 8 counter, 11 child_ordering,
 * 12 sibling_order_rank. */
st_code pf_read_track_descriptor(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                                 st_error *err) {
  st_pb_reader d, c;
  st_pb_field f, g;
  int k, j;
  uint64_t uuid = 0, parent = 0;
  int has_parent = 0, kind = TK_CUSTOM, incremental = 0;
  uint8_t child_order = 0;
  int32_t rank = 0;
  int64_t pid = 0, tid = 0;
  uint64_t mult = 1;
  const uint8_t *name = NULL, *pname = NULL, *unit_name = NULL;
  const char *unit = NULL;
  size_t nlen = 0, pnlen = 0, unit_len = 0;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    switch (f.num) {
    case 1: uuid = f.u; break;
    case 5: parent = f.u, has_parent = 1; break;
    case 11: child_order = f.u <= 3 ? (uint8_t)f.u : 0; break;
    case 12: rank = (int32_t)(uint32_t)f.u; break;
    case 2:
    case 10:
    case 13:
      if (f.wire == ST_PB_LEN) name = f.data, nlen = f.len;
      break;
    case 3:
      if (pf_read_pt_desc(&d, &f, &pid, &tid, &pname, &pnlen, 0, err) != ST_OK) return err->code;
      kind = TK_PROCESS;
      break;
    case 4:
      if (pf_read_pt_desc(&d, &f, &pid, &tid, &pname, &pnlen, 1, err) != ST_OK) return err->code;
      kind = TK_THREAD;
      break;
    case 8:
      kind = TK_COUNTER;
      if (st_pb_enter(&d, &f, &c, err) != ST_OK) return err->code;
      while ((j = st_pb_next(&c, &g, err)) > 0) {
        if (g.num == 4 && g.wire == ST_PB_VARINT) mult = g.u ? g.u : 1;
        if (g.num == 5 && g.wire == ST_PB_VARINT) incremental = g.u != 0;
        /* the values' unit: type 1 (thread time) implies ns; unit 1 ns, 2 a
         * count (no unit), 3 bytes; unit_name (6) names any other */
        if (g.num == 1 && g.wire == ST_PB_VARINT && g.u == 1) unit = "ns";
        if (g.num == 3 && g.wire == ST_PB_VARINT) unit = g.u == 1 ? "ns" : g.u == 3 ? "B" : NULL;
        if (g.num == 6 && g.wire == ST_PB_LEN && g.len) unit_name = g.data, unit_len = g.len;
      }
      if (j < 0) return ST_ERR_PROTO;
      break;
    default: break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  uint32_t ti = pf_track_get(im, uuid, 1);
  if (ti == ST_U64MAP_NONE) return pf_nomem(im, df->offset, err);
  ptrack *t = &im->tracks[ti];
  if (t->kind != TK_UNKNOWN && t->kind != kind)
    st_stats_warn(im->stats, "perfetto_track_redefined", df->offset);
  t->kind = (uint8_t)kind;
  t->pid = pid;
  t->tid = tid;
  t->parent = parent;
  t->has_parent = (uint8_t)(has_parent && parent != uuid);
  t->mult = (double)mult;
  t->incremental = (uint8_t)incremental;
  t->child_order = child_order;
  t->rank = rank;
  const uint8_t *tn = nlen ? name : pname;
  size_t tl = nlen ? nlen : pnlen;
  if (tl) t->name = pf_intern(im, tn, tl);
  if (kind == TK_PROCESS && (pnlen || nlen))
    pf_process_name(im, pid, pf_intern(im, pnlen ? pname : name, pnlen ? pnlen : nlen),
                    NAME_DESCRIPTOR);
  if (kind == TK_THREAD) {
    pf_thread_tgid(im, tid, pid);
    if (pnlen || nlen)
      pf_thread_name(im, tid, pf_intern(im, pnlen ? pname : name, pnlen ? pnlen : nlen),
                     NAME_DESCRIPTOR);
  }
  if (kind == TK_COUNTER)
    t->unit = unit_name ? pf_intern(im, unit_name, unit_len)
              : unit    ? pf_intern(im, unit, strlen(unit))
                        : ST_STR_EMPTY;
  if (t->btrack != UINT32_MAX && t->name != ST_STR_EMPTY)
    st_builder_track_name(im->b, t->btrack, t->name);
  if (t->btrack != UINT32_MAX && kind == TK_COUNTER)
    st_builder_track_unit(im->b, t->btrack, t->unit);
  if (t->npend) flush_track(im, ti);
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== 3. sequence state ================================================= */

void pf_seq_clear(pseq *s) {
  st_u64map_clear(&s->names);
  st_u64map_clear(&s->cats);
  s->has_def_track = s->has_def_clock = 0;
  s->ndef_int = s->ndef_dbl = 0;
  s->valid = 1;
}

/* InternedData: 1 event_categories, 2 event_names ({1 iid, 2 name}); for
 * args (im->args): 3 debug_annotation_names, 29 debug_annotation_string_values
 * ({1 iid, 2 name / str}). */
st_code pf_read_interned(st_perfetto_importer *im, pseq *s, st_pb_reader *r, const st_pb_field *df,
                         st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 30 && f.wire == ST_PB_LEN) { /* packet_context: network packets */
      st_code c = pf_read_net_context(im, im->cur_seq, &d, &f, err);
      if (c != ST_OK) return c;
      continue;
    }
    int for_args = (f.num == 3 || f.num == 29) && im->args;
    if ((f.num != 1 && f.num != 2 && !for_args) || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    uint64_t iid = 0;
    const uint8_t *name = NULL;
    size_t n = 0;
    while ((j = st_pb_next(&e, &g, err)) > 0) {
      if (g.num == 1 && g.wire == ST_PB_VARINT) iid = g.u;
      if (g.num == 2 && g.wire == ST_PB_LEN) name = g.data, n = g.len;
    }
    if (j < 0) return ST_ERR_PROTO;
    if (for_args) {
      if (st_argsrc_perfetto_intern(im->args, im->cur_seq, f.num == 29, iid, name, n) != ST_OK)
        return pf_nomem(im, f.offset, err);
      continue;
    }
    uint32_t id = pf_intern(im, name, n);
    if (!st_u64map_put(f.num == 1 ? &s->cats : &s->names, &im->alloc, iid, id))
      return pf_nomem(im, f.offset, err);
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

static int def_push(st_perfetto_importer *im, pseq *s, uint64_t uuid) {
  if (s->ndef_int + s->ndef_dbl == s->cap_def) {
    void *p = s->def_extra;
    if (!st_grow32(&im->alloc, &p, &s->cap_def, (size_t)s->cap_def + 1, sizeof *s->def_extra, 8))
      return 0;
    s->def_extra = p;
  }
  s->def_extra[s->ndef_int + s->ndef_dbl] = uuid;
  return 1;
}

typedef struct uuid_list {
  st_perfetto_importer *im;
  pseq *s;
  int dbl;
} uuid_list;

static void on_def_uuid(void *ud, uint64_t v) {
  uuid_list *l = ud;
  if (!def_push(l->im, l->s, v)) {
    l->im->nomem = 1;
    return;
  }
  if (l->dbl)
    l->s->ndef_dbl++;
  else
    l->s->ndef_int++;
}

/* TracePacketDefaults: 58 timestamp_clock_id, 11 TrackEventDefaults
 * {11 track_uuid, 31 extra_counter_track_uuids, 45 extra_double_...}. */
st_code pf_read_defaults(st_perfetto_importer *im, pseq *s, st_pb_reader *r, const st_pb_field *df,
                         st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  s->has_def_track = s->has_def_clock = 0;
  s->ndef_int = s->ndef_dbl = 0;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 58 && f.wire == ST_PB_VARINT) {
      s->has_def_clock = 1;
      s->def_clock = (uint32_t)f.u;
    } else if (f.num == 11 && f.wire == ST_PB_LEN) {
      if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
      /* integer uuids first, doubles after: two passes keep the order */
      for (int pass = 0; pass < 2; pass++) {
        st_pb_reader e2 = e;
        uuid_list l = {im, s, pass};
        while ((j = st_pb_next(&e2, &g, err)) > 0) {
          if (pass == 0 && g.num == 11 && g.wire == ST_PB_VARINT) {
            s->has_def_track = 1;
            s->def_track = g.u;
          } else if (g.num == (pass ? 45u : 31u) &&
                     st_pb_repeated(&e2, &g, ST_PB_VARINT, on_def_uuid, &l, err) != ST_OK) {
            return ST_ERR_PROTO;
          }
        }
        if (j < 0) return ST_ERR_PROTO;
      }
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ClockSnapshot: 1 clocks {1 clock_id, 2 timestamp, 3 is_incremental,
 * 4 unit_multiplier_ns}, 2 primary_trace_clock. */
/* ==== 4. track events =================================================== */

typedef struct extra_vals {
  uint64_t uuid[16];
  double val[16];
  uint32_t nu, nv;
} extra_vals;

static void on_extra_uuid(void *ud, uint64_t v) {
  extra_vals *x = ud;
  if (x->nu < 16) x->uuid[x->nu++] = v;
}
static void on_extra_int(void *ud, uint64_t v) {
  extra_vals *x = ud;
  if (x->nv < 16) x->val[x->nv++] = (double)st_pb_i64(v);
}
static void on_extra_dbl(void *ud, uint64_t v) {
  extra_vals *x = ud;
  if (x->nv < 16) x->val[x->nv++] = st_pb_double(v);
}

/* Events of a track without a descriptor yet are held (pend_ev) and
 * placed when it comes (or at the end): writers may emit the descriptor
 * after the track's first events, and a track placed early would land in a
 * section of its own, labelled "track <uuid>". */
static int held(const st_perfetto_importer *im, uint32_t ti) {
  return im->tracks[ti].kind == TK_UNKNOWN && !im->resolve_all;
}

static int hold(st_perfetto_importer *im, uint32_t ti, const pend_ev *e) {
  ptrack *t = &im->tracks[ti];
  if (t->npend == t->cap_pend) {
    void *p = t->pend;
    if (!st_grow32(&im->alloc, &p, &t->cap_pend, t->npend + 1, sizeof *t->pend, 16)) {
      im->nomem = 1;
      return 0;
    }
    t->pend = p;
  }
  t->pend[t->npend++] = *e;
  return 1;
}

static void counter_on(st_perfetto_importer *im, uint32_t ti, int64_t ts, double v, uint64_t src) {
  if (held(im, ti)) {
    pend_ev e = {ts, 0, src, UINT64_MAX, v, 0, 0, 0, 1};
    hold(im, ti, &e);
    return;
  }
  ptrack *t = &im->tracks[ti];
  if (t->kind != TK_COUNTER) st_stats_warn(im->stats, "perfetto_counter_on_non_counter_track", src);
  v *= t->mult;
  if (t->incremental) v = t->acc += v;
  uint32_t bt = track_builder(im, ti, 1);
  if (bt == UINT32_MAX) return;
  st_code c = st_builder_counter(im->b, bt, ts, v);
  if (c == ST_ERR_NOMEM)
    im->nomem = 1;
  else if (c != ST_OK)
    st_stats_warn(im->stats, "perfetto_counter_rejected", src);
  else
    im->stats->counter_samples++, im->shown++;
}

static void counter_sample(st_perfetto_importer *im, uint64_t uuid, int64_t ts, double v,
                           uint64_t src) {
  uint32_t ti = pf_track_get(im, uuid, 1);
  if (ti != ST_U64MAP_NONE) counter_on(im, ti, ts, v, src);
}

/* A slice (or instant) of track ti; end_src: its END's, or UINT64_MAX. */
static void slice_on(st_perfetto_importer *im, uint32_t ti, int64_t ts, int64_t dur, uint32_t name,
                     uint32_t cat, uint64_t src, uint8_t flags, uint64_t end_src) {
  if (held(im, ti)) {
    pend_ev e = {ts, dur, src, end_src, 0, name, cat, flags, 0};
    hold(im, ti, &e);
    return;
  }
  uint32_t bt = track_builder(im, ti, 0);
  pf_emit(im, bt, ts, dur, name, cat, src, flags);
  if (end_src != UINT64_MAX && bt != UINT32_MAX &&
      st_builder_end_src(im->b, src, end_src) == ST_ERR_NOMEM)
    im->nomem = 1;
}

/* Places track ti's held events (its descriptor came, or the end). */
static void flush_track(st_perfetto_importer *im, uint32_t ti) {
  ptrack *t = &im->tracks[ti];
  pend_ev *p = t->pend;
  uint32_t n = t->npend;
  t->pend = NULL;
  t->npend = t->cap_pend = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (p[i].counter)
      counter_on(im, ti, p[i].ts, p[i].value, p[i].src);
    else
      slice_on(im, ti, p[i].ts, p[i].dur, p[i].name, p[i].cat, p[i].src, p[i].flags, p[i].end_src);
  }
  st_free(&im->alloc, p);
}

void pf_flush_pending(st_perfetto_importer *im) {
  im->resolve_all = 1;
  for (uint32_t i = 0; i < im->ntracks; i++)
    if (im->tracks[i].npend) flush_track(im, i);
}

static uint32_t join_cats(st_perfetto_importer *im, uint32_t a, uint32_t b) {
  if (a == ST_STR_EMPTY) return b;
  if (b == ST_STR_EMPTY) return a;
  size_t na, nb;
  const char *sa = st_strtab_get(im->strs, a, &na), *sb = st_strtab_get(im->strs, b, &nb);
  char tmp[512];
  if (na + nb + 1 > sizeof tmp) return a;
  memcpy(tmp, sa, na);
  tmp[na] = ',';
  memcpy(tmp + na + 1, sb, nb);
  return pf_intern(im, tmp, na + nb + 1);
}

/* TrackEvent (see FORMATS.md §3.3 for field numbers). */
st_code pf_read_track_event(st_perfetto_importer *im, pseq *s, st_pb_reader *r,
                            const st_pb_field *ef, int has_ts, int64_t ts, uint64_t src,
                            st_error *err) {
  st_pb_reader d;
  st_pb_field f;
  int k;
  uint64_t type = 0, uuid = 0;
  int has_uuid = 0, has_cv = 0, has_abs = 0;
  double cv = 0;
  int64_t abs_us = 0;
  uint32_t name = ST_STR_EMPTY, cat = ST_STR_EMPTY;
  extra_vals xi, xd;
  memset(&xi, 0, sizeof xi);
  memset(&xd, 0, sizeof xd);
  im->nfids = 0;
  if (st_pb_enter(r, ef, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    st_code c = ST_OK;
    switch (f.num) {
    case 9: type = f.u; break;
    case 11: uuid = f.u, has_uuid = 1; break;
    case 23:
      if (f.wire == ST_PB_LEN) name = pf_intern(im, f.data, f.len);
      break;
    case 10: {
      uint32_t id = st_u64map_get(&s->names, f.u);
      if (id == ST_U64MAP_NONE)
        st_stats_warn(im->stats, "perfetto_unknown_interned_id", f.offset);
      else
        name = id;
      break;
    }
    case 22:
      if (f.wire == ST_PB_LEN) cat = join_cats(im, cat, pf_intern(im, f.data, f.len));
      break;
    case 3: {
      uint32_t id = st_u64map_get(&s->cats, f.u);
      if (f.wire != ST_PB_VARINT) break; /* packed category iids: rare, ignored */
      if (id == ST_U64MAP_NONE)
        st_stats_warn(im->stats, "perfetto_unknown_interned_id", f.offset);
      else
        cat = join_cats(im, cat, id);
      break;
    }
    case 30:
      if (f.wire == ST_PB_VARINT) cv = (double)st_pb_i64(f.u), has_cv = 1;
      break;
    case 44:
      if (f.wire == ST_PB_I64) cv = st_pb_double(f.u), has_cv = 1;
      break;
    case 31: c = st_pb_repeated(&d, &f, ST_PB_VARINT, on_extra_uuid, &xi, err); break;
    case 12: c = st_pb_repeated(&d, &f, ST_PB_VARINT, on_extra_int, &xi, err); break;
    case 45: c = st_pb_repeated(&d, &f, ST_PB_VARINT, on_extra_uuid, &xd, err); break;
    case 46: c = st_pb_repeated(&d, &f, ST_PB_I64, on_extra_dbl, &xd, err); break;
    case 47: c = st_pb_repeated(&d, &f, ST_PB_I64, on_flow, im, err); break;
    case 36: c = st_pb_repeated(&d, &f, ST_PB_VARINT, on_flow, im, err); break;
    case 48: c = st_pb_repeated(&d, &f, ST_PB_I64, on_flow_end, im, err); break;
    case 42: c = st_pb_repeated(&d, &f, ST_PB_VARINT, on_flow_end, im, err); break;
    case 16: abs_us = st_pb_i64(f.u), has_abs = 1; break;
    default: break;
    }
    if (c != ST_OK) return c;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!has_ts && has_abs) ts = st_sat_mul(abs_us, 1000), has_ts = 1;
  if (!has_ts) {
    st_stats_warn(im->stats, "perfetto_event_without_timestamp", src);
    return ST_OK;
  }
  /* which track */
  uint32_t ti;
  if (!has_uuid && s->has_def_track) uuid = s->def_track, has_uuid = 1;
  if (!has_uuid && s->legacy_track != UINT32_MAX)
    ti = s->legacy_track;
  else
    ti = pf_track_get(im, uuid, 1);
  if (ti == ST_U64MAP_NONE) return pf_nomem(im, src, err);
  if (im->tracks[ti].kind == TK_UNKNOWN && type != 4)
    st_stats_warn(im->stats, "perfetto_track_without_descriptor", src);
  if (!im->tracks[ti].has_first || ts < im->tracks[ti].first_ts)
    im->tracks[ti].first_ts = ts, im->tracks[ti].has_first = 1;
  switch (type) {
  case 1: { /* SLICE_BEGIN */
    im->stats->phases['B']++;
    ptrack *t = &im->tracks[ti];
    if (t->depth == t->cap) {
      void *p = t->stack;
      if (!st_grow32(&im->alloc, &p, &t->cap, t->depth + 1, sizeof *t->stack, 8))
        return pf_nomem(im, src, err);
      t->stack = p;
    }
    t->stack[t->depth++] = (open_slice){ts, src, name, cat};
    st_stats_time(im->stats, ts, ts);
    flow_points(im, im->nfids ? track_builder(im, ti, 0) : UINT32_MAX, ts, src);
    break;
  }
  case 2: { /* SLICE_END */
    im->stats->phases['E']++;
    ptrack *t = &im->tracks[ti];
    if (t->depth == 0) {
      st_stats_warn(im->stats, "unmatched_end", src);
      break;
    }
    open_slice o = t->stack[--t->depth];
    if (ts < o.ts) st_stats_warn(im->stats, "negative_duration", src);
    st_stats_time(im->stats, o.ts, ts);
    im->stats->slices++;
    /* the END's debug annotations are the slice's too (merged on selection) */
    slice_on(im, ti, o.ts, ts - o.ts, o.name, o.cat, o.src, ST_EV_HAS_END, src);
    flow_points(im, im->nfids ? track_builder(im, ti, 0) : UINT32_MAX, o.ts, o.src);
    break;
  }
  case 3: /* INSTANT */
    im->stats->phases['i']++;
    im->stats->instants++;
    st_stats_time(im->stats, ts, ts);
    slice_on(im, ti, ts, 0, name, cat, src, ST_EV_INSTANT, UINT64_MAX);
    flow_points(im, im->nfids ? track_builder(im, ti, 0) : UINT32_MAX, ts, src);
    break;
  case 4: /* COUNTER */
    im->stats->phases['C']++;
    if (has_cv) {
      st_stats_time(im->stats, ts, ts);
      counter_sample(im, im->tracks[ti].uuid, ts, cv, src);
    }
    break;
  default:
    if (type == 0) st_stats_warn(im->stats, "perfetto_event_without_type", src);
    break;
  }
  if (im->nfids) { /* flow ids on an event without a slice of its own */
    st_stats_warn_n(im->stats, "flow_unbound", src, im->nfids);
    im->nfids = 0;
  }
  /* extra counter values: uuids from the event, else from the defaults */
  for (int dbl = 0; dbl < 2; dbl++) {
    extra_vals *x = dbl ? &xd : &xi;
    if (!x->nv) continue;
    for (uint32_t i = 0; i < x->nv; i++) {
      uint64_t u;
      if (x->nu) {
        if (i >= x->nu) break;
        u = x->uuid[i];
      } else {
        uint32_t nd = dbl ? s->ndef_dbl : s->ndef_int;
        if (i >= nd) break;
        u = s->def_extra[dbl ? s->ndef_int + i : i];
      }
      st_stats_time(im->stats, ts, ts);
      counter_sample(im, u, ts, x->val[i], src);
    }
  }
  return im->nomem ? pf_nomem(im, src, err) : ST_OK;
}

/* End of input: unclosed BEGINs end at the trace end. */
void pf_close_track_events(st_perfetto_importer *im) {
  for (uint32_t i = 0; i < im->ntracks; i++) {
    ptrack *t = &im->tracks[i];
    while (t->depth) {
      open_slice o = t->stack[--t->depth];
      st_stats_warn(im->stats, "unclosed_slice", o.src);
      im->stats->slices++;
      slice_on(im, i, o.ts, 0, o.name, o.cat, o.src, ST_EV_UNFINISHED, UINT64_MAX);
      t = &im->tracks[i];
    }
  }
}

/* A custom or counter track without a name is labelled after the thread or
 * process it belongs to ("name tid", "name pid"), as ui.perfetto.dev does,
 * not "track <uuid>" (that stays for tracks with no owner and no name). */
void pf_name_unnamed_tracks(st_perfetto_importer *im) {
  for (uint32_t i = 0; i < im->ntracks; i++) {
    const ptrack *t = &im->tracks[i];
    if (t->btrack == UINT32_MAX || t->kind == TK_THREAD || t->name != ST_STR_EMPTY) continue;
    uint32_t cur = t->has_parent ? st_u64map_get(&im->track_map, t->parent) : ST_U64MAP_NONE;
    for (int hops = 0; hops < 64 && cur != ST_U64MAP_NONE; hops++) {
      const ptrack *u = &im->tracks[cur];
      if (u->kind == TK_THREAD || u->kind == TK_PROCESS) {
        int64_t id = u->kind == TK_THREAD ? u->tid : u->pid;
        uint32_t ni = u->kind == TK_THREAD ? st_u64map_get(&im->thr_map, (uint64_t)id)
                                           : st_u64map_get(&im->proc_map, (uint64_t)id);
        uint32_t nm = ni == ST_U64MAP_NONE   ? ST_STR_EMPTY
                      : u->kind == TK_THREAD ? im->thr[ni].name
                                             : im->procs[ni].name;
        size_t n;
        const char *sn = st_strtab_get(im->strs, nm, &n);
        char tmp[320];
        int m =
            n ? snprintf(tmp, sizeof tmp, "%.*s %lld", (int)(n > 256 ? 256 : n), sn, (long long)id)
              : snprintf(tmp, sizeof tmp, "%s %lld", u->kind == TK_THREAD ? "Thread" : "Process",
                         (long long)id);
        if (m > 0)
          st_builder_track_name(
              im->b, t->btrack,
              pf_intern(im, tmp, (size_t)m < sizeof tmp ? (size_t)m : sizeof tmp - 1));
        break;
      }
      cur = u->has_parent ? st_u64map_get(&im->track_map, u->parent) : ST_U64MAP_NONE;
    }
  }
}
