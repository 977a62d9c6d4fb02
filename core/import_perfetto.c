/* import_perfetto.c: Perfetto TrackEvent protobuf -> st_builder (see
 * import_perfetto.h for the mapping rules).
 *
 * Contents
 *   1. state: tracks (by uuid), sequences (by trusted_packet_sequence_id)
 *   2. helpers: errors, interning, flows, clocks
 *   3. tracks: descriptors, resolution to builder processes/tracks
 *   4. sequence state: interned data, defaults, clock snapshots
 *   5. track events
 *   6. packets (and compressed_packets)
 *   7. public API
 */
#include "import_perfetto.h"

#include "argsrc.h"
#include "pb_stream.h"
#include "pb_wire.h"
#include "u64map.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

/* ==== 1. state =========================================================== */

enum { TK_UNKNOWN = 0, TK_PROCESS, TK_THREAD, TK_COUNTER, TK_CUSTOM };

typedef struct open_slice {
  int64_t ts;
  uint64_t src;
  uint32_t name, cat;
} open_slice;

typedef struct ptrack {
  uint64_t uuid, parent;
  uint8_t kind, has_parent, incremental;
  int64_t pid, tid;
  uint32_t name;
  uint32_t order;  /* descriptor order */
  uint32_t btrack; /* builder track, UINT32_MAX until used */
  double mult, acc;
  open_slice *stack;
  uint32_t depth, cap;
} ptrack;

#define SEQ_CLOCKS 4

typedef struct seq_clock {
  uint32_t id;
  uint8_t incremental, has_snap;
  uint64_t mult;
  int64_t last, snap_clock, snap_trace;
} seq_clock;

typedef struct pseq {
  uint8_t valid; /* incremental state usable */
  st_u64map names, cats;
  uint8_t has_def_track, has_def_clock;
  uint64_t def_track;
  uint32_t def_clock;
  uint64_t *def_extra; /* extra counter track uuids: ints then doubles */
  uint32_t ndef_int, ndef_dbl, cap_def;
  uint32_t legacy_track; /* ptrack of a legacy ThreadDescriptor, UINT32_MAX */
  seq_clock clocks[SEQ_CLOCKS];
  uint32_t nclocks;
} pseq;

typedef struct gclock { /* a global clock's latest snapshot pair */
  uint8_t has;
  int64_t clock_ts, trace_ts;
} gclock;

typedef struct skipped {
  uint32_t field;
  uint64_t count;
} skipped;

#define MAX_SKIPPED 64

typedef struct flag_array {
  uint8_t *v;
  size_t n;
} flag_array;

typedef struct pflow {
  uint64_t id;
  uint8_t terminating;
} pflow;

struct st_perfetto_importer {
  st_alloc alloc;
  st_builder *b;
  st_stats *stats;
  st_strtab *strs;
  st_pb_stream *stream;
  st_argsrc *args;  /* interned annotation names for args on selection, or NULL */
  uint64_t cur_seq; /* trusted_packet_sequence_id of the packet being read */
  ptrack *tracks;
  uint32_t ntracks, cap_tracks;
  st_u64map track_map; /* uuid -> index */
  pseq *seqs;
  uint32_t nseqs, cap_seqs;
  st_u64map seq_map; /* sequence id -> index */
  pflow *fids;       /* flow ids of the event being read */
  uint32_t nfids, cap_fids;
  uint32_t roots; /* processes made for custom-track trees */
  flag_array track_seen, proc_seen;
  gclock gclocks[64];
  uint32_t trace_clock;
  skipped skips[MAX_SKIPPED];
  uint32_t nskips;
  uint8_t *zbuf; /* inflate output, reused */
  size_t zcap;
  int in_compressed;
  char *meta_json;
  int has_trace, nomem;
  st_pb_status status; /* the first error, kept */
};

/* ==== 2. helpers ========================================================= */

static st_code nomem(st_perfetto_importer *im, uint64_t at, st_error *err) {
  im->nomem = 1;
  return st_error_set(err, ST_ERR_NOMEM, at, "out of memory");
}

static uint32_t intern(st_perfetto_importer *im, const void *s, size_t n) {
  uint32_t id = st_strtab_intern(im->strs, (const char *)s, n);
  if (id == ST_STR_NONE) {
    im->nomem = 1;
    return ST_STR_EMPTY;
  }
  return id;
}

static int flag_test_set(st_perfetto_importer *im, flag_array *f, uint32_t i) {
  if (i >= f->n) {
    size_t n = f->n ? f->n : 64;
    while (n <= i) n *= 2;
    uint8_t *v = st_realloc(&im->alloc, f->v, n);
    if (!v) {
      im->nomem = 1;
      return 1;
    }
    memset(v + f->n, 0, n - f->n);
    f->v = v;
    f->n = n;
  }
  if (f->v[i]) return 1;
  f->v[i] = 1;
  return 0;
}

/* Flow ids are collected while the event is read, then become builder flow
 * points bound to the event's slice (see flow_points): the builder chains
 * each id's points in timestamp order (flow_ids: IN|OUT, terminating: IN|END). */
static void flow_step(st_perfetto_importer *im, uint64_t id, int terminating) {
  if (im->nfids == im->cap_fids) {
    uint32_t cap = im->cap_fids ? im->cap_fids * 2 : 16;
    pflow *p = cap > im->cap_fids ? st_realloc_array(&im->alloc, im->fids, cap, sizeof *p) : NULL;
    if (!p) {
      im->nomem = 1;
      return;
    }
    im->fids = p;
    im->cap_fids = cap;
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

static int64_t sat_add(int64_t a, int64_t b) {
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}
static int64_t sat_mul(int64_t a, uint64_t m) {
  if (m <= 1 || a == 0) return a;
  if (m > (uint64_t)INT64_MAX) return a > 0 ? INT64_MAX : INT64_MIN;
  int64_t mm = (int64_t)m;
  if (a > INT64_MAX / mm) return INT64_MAX;
  if (a < INT64_MIN / mm) return INT64_MIN;
  return a * mm;
}

static seq_clock *seq_clock_get(pseq *s, uint32_t id, int create) {
  for (uint32_t i = 0; i < s->nclocks; i++)
    if (s->clocks[i].id == id) return &s->clocks[i];
  if (!create || s->nclocks == SEQ_CLOCKS) return NULL;
  seq_clock *c = &s->clocks[s->nclocks++];
  memset(c, 0, sizeof *c);
  c->id = id;
  c->mult = 1;
  return c;
}

/* A packet timestamp in clock `id` -> trace-clock ns. */
static int64_t to_trace_ns(st_perfetto_importer *im, pseq *s, uint32_t id, uint64_t raw,
                           uint64_t at) {
  int64_t v = st_pb_i64(raw);
  if (id == im->trace_clock) return v;
  if (id >= 64 && id < 128) {
    seq_clock *c = seq_clock_get(s, id, 0);
    if (c && c->has_snap) {
      if (c->incremental) v = c->last = sat_add(c->last, v);
      return sat_add(c->snap_trace, sat_mul(sat_add(v, -c->snap_clock), c->mult));
    }
  } else if (id < 64 && im->gclocks[id].has) {
    return sat_add(im->gclocks[id].trace_ts, sat_add(v, -im->gclocks[id].clock_ts));
  }
  st_stats_warn(im->stats, "perfetto_clock_not_converted", at);
  return v;
}

/* ==== 3. tracks ========================================================== */

static uint32_t track_get(st_perfetto_importer *im, uint64_t uuid, int create) {
  uint32_t i = st_u64map_get(&im->track_map, uuid);
  if (i != ST_U64MAP_NONE || !create) return i;
  if (im->ntracks == im->cap_tracks) {
    uint32_t cap = im->cap_tracks ? im->cap_tracks * 2 : 64;
    ptrack *p = st_realloc_array(&im->alloc, im->tracks, cap, sizeof *p);
    if (!p || cap < im->cap_tracks) {
      im->nomem = 1;
      return ST_U64MAP_NONE;
    }
    im->tracks = p;
    im->cap_tracks = cap;
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

static int32_t clamp32(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* The builder process a track's events go to. */
static uint32_t track_process(st_perfetto_importer *im, uint32_t ti) {
  uint32_t cur = ti, root = ti;
  for (int hops = 0; hops < 64 && cur != ST_U64MAP_NONE; hops++) {
    const ptrack *t = &im->tracks[cur];
    if (t->kind == TK_PROCESS || t->kind == TK_THREAD) {
      uint32_t p = st_builder_process(im->b, t->pid);
      if (p == UINT32_MAX) im->nomem = 1;
      return p;
    }
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
    name = intern(im, r->uuid ? tmp : "default track", r->uuid ? (size_t)n : 13);
  }
  st_builder_process_name(im->b, p, name);
  st_builder_process_sort(im->b, p, clamp32((int64_t)INT32_MIN + 1 + r->order));
  return p;
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

/* The builder track of a ptrack, made on first use. */
static uint32_t track_builder(st_perfetto_importer *im, uint32_t ti, int counter) {
  ptrack *t = &im->tracks[ti];
  if (t->btrack != UINT32_MAX) return t->btrack;
  uint32_t p = track_process(im, ti);
  if (p == UINT32_MAX) return UINT32_MAX;
  t = &im->tracks[ti];
  if (!flag_test_set(im, &im->proc_seen, p)) im->stats->processes++;
  int64_t key = t->kind == TK_THREAD ? t->tid : -0x100000000LL - (int64_t)t->order;
  uint32_t name = t->name;
  if (name == ST_STR_EMPTY && t->kind != TK_THREAD) {
    char tmp[48];
    int n = snprintf(tmp, sizeof tmp, "track %llu", (unsigned long long)t->uuid);
    name = intern(im, tmp, (size_t)n);
  }
  uint32_t bt = st_builder_track(im->b, p, counter ? ST_TRACK_COUNTER : ST_TRACK_SLICES, key, name);
  if (bt == UINT32_MAX) {
    im->nomem = 1;
    return bt;
  }
  if (t->kind != TK_THREAD) {
    st_builder_track_sort(im->b, bt, clamp32(t->order));
    st_builder_track_indent(im->b, bt, track_depth(im, ti));
  }
  if (!counter && !flag_test_set(im, &im->track_seen, bt)) im->stats->threads++;
  t->btrack = bt;
  return bt;
}

/* ProcessDescriptor / ThreadDescriptor fields shared by the legacy packets. */
static st_code read_pt_desc(st_pb_reader *r, const st_pb_field *f, int64_t *pid, int64_t *tid,
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

static void name_process(st_perfetto_importer *im, int64_t pid, const uint8_t *s, size_t n) {
  uint32_t p = st_builder_process(im->b, pid);
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return;
  }
  if (n) st_builder_process_name(im->b, p, intern(im, s, n));
}

/* TrackDescriptor: 1 uuid, 2 name, 10 static_name, 13 atrace_name,
 * 3 process, 4 thread, 5 parent_uuid, 8 counter. */
static st_code read_track_descriptor(st_perfetto_importer *im, st_pb_reader *r,
                                     const st_pb_field *df, st_error *err) {
  st_pb_reader d, c;
  st_pb_field f, g;
  int k, j;
  uint64_t uuid = 0, parent = 0;
  int has_parent = 0, kind = TK_CUSTOM, incremental = 0;
  int64_t pid = 0, tid = 0;
  uint64_t mult = 1;
  const uint8_t *name = NULL, *pname = NULL;
  size_t nlen = 0, pnlen = 0;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    switch (f.num) {
    case 1: uuid = f.u; break;
    case 5: parent = f.u, has_parent = 1; break;
    case 2:
    case 10:
    case 13:
      if (f.wire == ST_PB_LEN) name = f.data, nlen = f.len;
      break;
    case 3:
      if (read_pt_desc(&d, &f, &pid, &tid, &pname, &pnlen, 0, err) != ST_OK) return err->code;
      kind = TK_PROCESS;
      break;
    case 4:
      if (read_pt_desc(&d, &f, &pid, &tid, &pname, &pnlen, 1, err) != ST_OK) return err->code;
      kind = TK_THREAD;
      break;
    case 8:
      kind = TK_COUNTER;
      if (st_pb_enter(&d, &f, &c, err) != ST_OK) return err->code;
      while ((j = st_pb_next(&c, &g, err)) > 0) {
        if (g.num == 4 && g.wire == ST_PB_VARINT) mult = g.u ? g.u : 1;
        if (g.num == 5 && g.wire == ST_PB_VARINT) incremental = g.u != 0;
      }
      if (j < 0) return ST_ERR_PROTO;
      break;
    default: break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  uint32_t ti = track_get(im, uuid, 1);
  if (ti == ST_U64MAP_NONE) return nomem(im, df->offset, err);
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
  const uint8_t *tn = nlen ? name : pname;
  size_t tl = nlen ? nlen : pnlen;
  if (tl) t->name = intern(im, tn, tl);
  if (kind == TK_PROCESS) name_process(im, pid, pnlen ? pname : name, pnlen ? pnlen : nlen);
  if (t->btrack != UINT32_MAX && t->name != ST_STR_EMPTY)
    st_builder_track_name(im->b, t->btrack, t->name);
  return im->nomem ? nomem(im, df->offset, err) : ST_OK;
}

/* ==== 4. sequence state ================================================== */

static pseq *seq_get(st_perfetto_importer *im, uint64_t id) {
  uint32_t i = st_u64map_get(&im->seq_map, id);
  if (i != ST_U64MAP_NONE) return &im->seqs[i];
  if (im->nseqs == im->cap_seqs) {
    uint32_t cap = im->cap_seqs ? im->cap_seqs * 2 : 8;
    pseq *p = st_realloc_array(&im->alloc, im->seqs, cap, sizeof *p);
    if (!p || cap < im->cap_seqs) return NULL;
    im->seqs = p;
    im->cap_seqs = cap;
  }
  pseq *s = &im->seqs[im->nseqs];
  memset(s, 0, sizeof *s);
  s->legacy_track = UINT32_MAX;
  if (!st_u64map_put(&im->seq_map, &im->alloc, id, im->nseqs)) return NULL;
  im->nseqs++;
  return s;
}

static void seq_clear(pseq *s) {
  st_u64map_clear(&s->names);
  st_u64map_clear(&s->cats);
  s->has_def_track = s->has_def_clock = 0;
  s->ndef_int = s->ndef_dbl = 0;
  s->valid = 1;
}

/* InternedData: 1 event_categories, 2 event_names ({1 iid, 2 name}); for
 * args (im->args): 3 debug_annotation_names, 29 debug_annotation_string_values
 * ({1 iid, 2 name / str}). */
static st_code read_interned(st_perfetto_importer *im, pseq *s, st_pb_reader *r,
                             const st_pb_field *df, st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
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
        return nomem(im, f.offset, err);
      continue;
    }
    uint32_t id = intern(im, name, n);
    if (!st_u64map_put(f.num == 1 ? &s->cats : &s->names, &im->alloc, iid, id))
      return nomem(im, f.offset, err);
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

static int def_push(st_perfetto_importer *im, pseq *s, uint64_t uuid) {
  if (s->ndef_int + s->ndef_dbl == s->cap_def) {
    uint32_t cap = s->cap_def ? s->cap_def * 2 : 8;
    uint64_t *p = st_realloc_array(&im->alloc, s->def_extra, cap, sizeof *p);
    if (!p || cap < s->cap_def) return 0;
    s->def_extra = p;
    s->cap_def = cap;
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
static st_code read_defaults(st_perfetto_importer *im, pseq *s, st_pb_reader *r,
                             const st_pb_field *df, st_error *err) {
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
  return im->nomem ? nomem(im, df->offset, err) : ST_OK;
}

/* ClockSnapshot: 1 clocks {1 clock_id, 2 timestamp, 3 is_incremental,
 * 4 unit_multiplier_ns}, 2 primary_trace_clock. */
static st_code read_clock_snapshot(st_perfetto_importer *im, pseq *s, st_pb_reader *r,
                                   const st_pb_field *df, st_error *err) {
  enum { MAXC = 16 };
  struct {
    uint32_t id;
    uint64_t ts, mult;
    uint8_t incr;
  } c[MAXC];
  uint32_t n = 0;
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 2 && f.wire == ST_PB_VARINT) im->trace_clock = (uint32_t)f.u;
    if (f.num != 1 || f.wire != ST_PB_LEN || n == MAXC) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    c[n].id = 0;
    c[n].ts = 0;
    c[n].mult = 1;
    c[n].incr = 0;
    while ((j = st_pb_next(&e, &g, err)) > 0) {
      if (g.wire != ST_PB_VARINT) continue;
      if (g.num == 1) c[n].id = (uint32_t)g.u;
      if (g.num == 2) c[n].ts = g.u;
      if (g.num == 3) c[n].incr = g.u != 0;
      if (g.num == 4) c[n].mult = g.u ? g.u : 1;
    }
    if (j < 0) return ST_ERR_PROTO;
    n++;
  }
  if (k < 0) return ST_ERR_PROTO;
  int64_t trace_ts = 0;
  int have = 0;
  for (uint32_t i = 0; i < n; i++)
    if (c[i].id == im->trace_clock) trace_ts = st_pb_i64(c[i].ts), have = 1;
  if (!have) return ST_OK;
  for (uint32_t i = 0; i < n; i++) {
    if (c[i].id < 64) {
      im->gclocks[c[i].id] = (gclock){1, st_pb_i64(c[i].ts), trace_ts};
    } else if (c[i].id < 128) {
      seq_clock *sc = seq_clock_get(s, c[i].id, 1);
      if (!sc) continue;
      sc->has_snap = 1;
      sc->incremental = c[i].incr;
      sc->mult = c[i].mult;
      sc->snap_clock = sc->last = st_pb_i64(c[i].ts);
      sc->snap_trace = trace_ts;
    }
  }
  return ST_OK;
}

/* ==== 5. track events ==================================================== */

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

static void counter_sample(st_perfetto_importer *im, uint64_t uuid, int64_t ts, double v,
                           uint64_t src) {
  uint32_t ti = track_get(im, uuid, 1);
  if (ti == ST_U64MAP_NONE) return;
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
    im->stats->counter_samples++;
}

static void emit(st_perfetto_importer *im, uint32_t bt, int64_t ts, int64_t dur, uint32_t name,
                 uint32_t cat, uint64_t src, uint8_t flags) {
  if (bt == UINT32_MAX) return;
  st_code c = st_builder_slice(im->b, bt, ts, dur, name, cat, src, flags);
  if (c == ST_ERR_NOMEM)
    im->nomem = 1;
  else if (c != ST_OK)
    st_stats_warn(im->stats, "track_event_limit", src);
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
  return intern(im, tmp, na + nb + 1);
}

/* TrackEvent (see FORMATS.md §3.3 for field numbers). */
static st_code read_track_event(st_perfetto_importer *im, pseq *s, st_pb_reader *r,
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
      if (f.wire == ST_PB_LEN) name = intern(im, f.data, f.len);
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
      if (f.wire == ST_PB_LEN) cat = join_cats(im, cat, intern(im, f.data, f.len));
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
  if (!has_ts && has_abs) ts = sat_mul(abs_us, 1000), has_ts = 1;
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
    ti = track_get(im, uuid, 1);
  if (ti == ST_U64MAP_NONE) return nomem(im, src, err);
  if (im->tracks[ti].kind == TK_UNKNOWN && type != 4)
    st_stats_warn(im->stats, "perfetto_track_without_descriptor", src);
  switch (type) {
  case 1: { /* SLICE_BEGIN */
    im->stats->phases['B']++;
    ptrack *t = &im->tracks[ti];
    if (t->depth == t->cap) {
      uint32_t cap = t->cap ? t->cap * 2 : 8;
      open_slice *p = st_realloc_array(&im->alloc, t->stack, cap, sizeof *p);
      if (!p || cap < t->cap) return nomem(im, src, err);
      t->stack = p;
      t->cap = cap;
    }
    t->stack[t->depth++] = (open_slice){ts, src, name, cat};
    st_stats_time(im->stats, ts, ts);
    flow_points(im, track_builder(im, ti, 0), ts, src);
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
    uint32_t bt = track_builder(im, ti, 0);
    emit(im, bt, o.ts, ts - o.ts, o.name, o.cat, o.src, ST_EV_HAS_END);
    if (bt != UINT32_MAX && st_builder_end_src(im->b, o.src, src) == ST_ERR_NOMEM) im->nomem = 1;
    flow_points(im, bt, o.ts, o.src); /* the slice it ends */
    break;
  }
  case 3: /* INSTANT */
    im->stats->phases['i']++;
    im->stats->instants++;
    st_stats_time(im->stats, ts, ts);
    emit(im, track_builder(im, ti, 0), ts, 0, name, cat, src, ST_EV_INSTANT);
    flow_points(im, track_builder(im, ti, 0), ts, src);
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
  return im->nomem ? nomem(im, src, err) : ST_OK;
}

/* ==== 6. packets ========================================================= */

static void count_skipped(st_perfetto_importer *im, uint32_t field, uint64_t at) {
  st_stats_warn(im->stats, "perfetto_packets_skipped", at);
  for (uint32_t i = 0; i < im->nskips; i++)
    if (im->skips[i].field == field) {
      im->skips[i].count++;
      return;
    }
  if (im->nskips < MAX_SKIPPED) im->skips[im->nskips++] = (skipped){field, 1};
}

static st_code read_packet(st_perfetto_importer *im, const uint8_t *data, size_t len,
                           uint64_t origin, uint64_t src, st_error *err);

static voidpf z_alloc(voidpf opaque, uInt items, uInt size) {
  st_perfetto_importer *im = opaque;
  return st_calloc(&im->alloc, items, size);
}
static void z_free(voidpf opaque, voidpf p) {
  st_perfetto_importer *im = opaque;
  st_free(&im->alloc, p);
}

/* compressed_packets: a zlib/gzip-deflated run of Trace.packet records. */
static st_code read_compressed(st_perfetto_importer *im, const st_pb_field *f, st_error *err) {
  if (im->in_compressed)
    return st_error_set(err, ST_ERR_PROTO, f->offset,
                        "perfetto: compressed_packets nested inside compressed_packets");
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  zs.zalloc = z_alloc;
  zs.zfree = z_free;
  zs.opaque = im;
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return nomem(im, f->offset, err);
  zs.next_in = (Bytef *)(uintptr_t)f->data;
  size_t left = f->len, out = 0;
  int r = Z_OK;
  while (r != Z_STREAM_END) {
    if (out == im->zcap) {
      size_t cap = im->zcap ? im->zcap * 2 : 256 * 1024;
      if (cap > ST_PERFETTO_INFLATE_MAX) cap = ST_PERFETTO_INFLATE_MAX;
      if (cap <= im->zcap) {
        inflateEnd(&zs);
        return st_error_set(err, ST_ERR_LIMIT, f->offset,
                            "perfetto: compressed_packets inflates past %zu bytes",
                            ST_PERFETTO_INFLATE_MAX);
      }
      uint8_t *p = st_realloc(&im->alloc, im->zbuf, cap);
      if (!p) {
        inflateEnd(&zs);
        return nomem(im, f->offset, err);
      }
      im->zbuf = p;
      im->zcap = cap;
    }
    uInt in_now = left > 1u << 30 ? 1u << 30 : (uInt)left;
    size_t room = im->zcap - out;
    zs.avail_in = in_now;
    zs.next_out = im->zbuf + out;
    zs.avail_out = room > 1u << 30 ? 1u << 30 : (uInt)room;
    uInt before_out = zs.avail_out;
    r = inflate(&zs, Z_NO_FLUSH);
    left -= in_now - zs.avail_in;
    out += before_out - zs.avail_out;
    if (r == Z_BUF_ERROR && left == 0) r = Z_DATA_ERROR;
    if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR) {
      inflateEnd(&zs);
      return st_error_set(err, ST_ERR_GZIP, f->offset,
                          "perfetto: compressed_packets is not a valid zlib/gzip stream");
    }
  }
  inflateEnd(&zs);
  /* the inflated bytes are a Trace: field 1 = packet */
  st_pb_reader tr;
  st_pb_field g;
  int k;
  st_pb_reader_init(&tr, im->zbuf, out, 0);
  im->in_compressed = 1;
  st_code c = ST_OK;
  while (c == ST_OK && (k = st_pb_next(&tr, &g, err)) > 0)
    if (g.num == 1 && g.wire == ST_PB_LEN) c = read_packet(im, g.data, g.len, 0, f->offset, err);
  im->in_compressed = 0;
  if (c == ST_OK && k < 0) c = ST_ERR_PROTO;
  if (c != ST_OK && err && c != ST_ERR_NOMEM) {
    /* offsets inside inflated data mean nothing to a user: point at the blob */
    char msg[sizeof err->msg + 64];
    snprintf(msg, sizeof msg, "%s (at inflated byte %llu of compressed_packets)", err->msg,
             (unsigned long long)err->offset);
    msg[sizeof err->msg - 1] = 0;
    st_error_set(err, c, f->offset, "%s", msg);
  }
  return c;
}

/* TracePacket: see FORMATS.md §3.2. src = the packet record's offset. */
static st_code read_packet(st_perfetto_importer *im, const uint8_t *data, size_t len,
                           uint64_t origin, uint64_t src, st_error *err) {
  st_pb_reader pr, r;
  st_pb_field f, ev, desc, interned, defaults, clocks, tdesc, pdesc;
  int k;
  int has_ts = 0, has_clock = 0, cleared = 0, dropped = 0, first = 0;
  int has_ev = 0, has_desc = 0, has_int = 0, has_def = 0, has_clk = 0, has_td = 0, has_pd = 0;
  uint64_t ts = 0, seq_id = 0, flags = 0;
  uint32_t clock = 0, other = 0;
  st_code c;
  im->stats->events++;
  st_pb_reader_init(&pr, data, len, origin);
  pr.depth = 1;
  r = pr;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    switch (f.num) {
    case 8: ts = f.u, has_ts = 1; break;
    case 58: clock = (uint32_t)f.u, has_clock = 1; break;
    case 10: seq_id = f.u; break;
    case 13: flags = f.u; break;
    case 41: cleared = f.u != 0; break;
    case 42: dropped = f.u != 0; break;
    case 87: first = f.u != 0; break;
    case 11: ev = f, has_ev = 1; break;
    case 60: desc = f, has_desc = 1; break;
    case 12: interned = f, has_int = 1; break;
    case 59: defaults = f, has_def = 1; break;
    case 6: clocks = f, has_clk = 1; break;
    case 44: tdesc = f, has_td = 1; break;
    case 43: pdesc = f, has_pd = 1; break;
    case 50:
      if (f.wire == ST_PB_LEN) {
        c = read_compressed(im, &f, err);
        if (c != ST_OK) return c;
      }
      break;
    case 3:
    case 79:
    case 36: break; /* trusted uid/pid, sync marker */
    default:
      if (f.wire == ST_PB_LEN && !other) other = f.num;
      break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  pseq *s = seq_get(im, seq_id);
  if (!s) return nomem(im, src, err);
  if (dropped && !first) {
    s->valid = 0;
    st_stats_warn(im->stats, "perfetto_packet_loss", src);
  }
  im->cur_seq = seq_id;
  if (cleared || (flags & 1)) {
    seq_clear(s);
    if (st_argsrc_perfetto_clear(im->args, seq_id, src) != ST_OK) return nomem(im, src, err);
  }
  if (has_int && (c = read_interned(im, s, &pr, &interned, err)) != ST_OK) return c;
  if (has_def && (c = read_defaults(im, s, &pr, &defaults, err)) != ST_OK) return c;
  if (has_clk && (c = read_clock_snapshot(im, s, &pr, &clocks, err)) != ST_OK) return c;
  if (has_desc && (c = read_track_descriptor(im, &pr, &desc, err)) != ST_OK) return c;
  if (has_pd) {
    int64_t pid = 0, tid = 0;
    const uint8_t *nm = NULL;
    size_t nl = 0;
    if ((c = read_pt_desc(&pr, &pdesc, &pid, &tid, &nm, &nl, 0, err)) != ST_OK) return c;
    name_process(im, pid, nm, nl);
  }
  if (has_td) { /* legacy: the sequence's default track is this thread */
    int64_t pid = 0, tid = 0;
    const uint8_t *nm = NULL;
    size_t nl = 0;
    if ((c = read_pt_desc(&pr, &tdesc, &pid, &tid, &nm, &nl, 1, err)) != ST_OK) return c;
    uint64_t key = 0x8000000000000000ull ^ ((uint64_t)(uint32_t)pid << 32) ^ (uint32_t)tid;
    uint32_t ti = track_get(im, key, 1);
    if (ti == ST_U64MAP_NONE) return nomem(im, src, err);
    ptrack *t = &im->tracks[ti];
    t->kind = TK_THREAD;
    t->pid = pid;
    t->tid = tid;
    if (nl) t->name = intern(im, nm, nl);
    if (t->btrack != UINT32_MAX && nl) st_builder_track_name(im->b, t->btrack, t->name);
    s->legacy_track = ti;
  }
  if (has_ev) {
    if ((flags & 2) && !s->valid) {
      st_stats_warn(im->stats, "perfetto_incremental_state_invalid", src);
    } else {
      int64_t tns = 0;
      if (has_ts) {
        uint32_t id = has_clock ? clock : s->has_def_clock ? s->def_clock : im->trace_clock;
        tns = to_trace_ns(im, s, id, ts, src);
      }
      im->has_trace = 1;
      if ((c = read_track_event(im, s, &pr, &ev, has_ts, tns, src, err)) != ST_OK) return c;
    }
  } else if (other && !has_desc && !has_int && !has_def && !has_clk && !has_td && !has_pd) {
    count_skipped(im, other, src);
  }
  im->has_trace = 1;
  return im->nomem ? nomem(im, src, err) : ST_OK;
}

static st_code on_trace_field(void *ud, const st_pb_field *f, uint64_t data_offset, st_error *err) {
  st_perfetto_importer *im = ud;
  if (f->num != 1 || f->wire != ST_PB_LEN) {
    st_stats_warn(im->stats, "perfetto_unknown_top_level_field", f->offset);
    return ST_OK;
  }
  return read_packet(im, f->data, f->len, data_offset, f->offset, err);
}

/* ==== 7. public API ====================================================== */

st_perfetto_importer *st_perfetto_create(const st_alloc *a, st_builder *b, st_stats *stats) {
  if (!b || !stats) return NULL;
  st_perfetto_importer *im = st_calloc(a, 1, sizeof *im);
  if (!im) return NULL;
  im->alloc = a ? *a : (st_alloc){0};
  im->b = b;
  im->stats = stats;
  im->strs = st_builder_strings(b);
  im->trace_clock = 6; /* BOOTTIME */
  im->stream =
      st_pb_stream_create(&im->alloc, ST_PERFETTO_PACKET_MAX, on_trace_field, im, "packet");
  if (!im->stream) {
    st_free(&im->alloc, im);
    return NULL;
  }
  return im;
}

void st_perfetto_destroy(st_perfetto_importer *im) {
  if (!im) return;
  st_alloc a = im->alloc;
  st_pb_stream_destroy(im->stream);
  for (uint32_t i = 0; i < im->ntracks; i++) st_free(&a, im->tracks[i].stack);
  st_free(&a, im->tracks);
  for (uint32_t i = 0; i < im->nseqs; i++) {
    st_u64map_free(&im->seqs[i].names, &a);
    st_u64map_free(&im->seqs[i].cats, &a);
    st_free(&a, im->seqs[i].def_extra);
  }
  st_free(&a, im->seqs);
  st_u64map_free(&im->track_map, &a);
  st_u64map_free(&im->seq_map, &a);
  st_free(&a, im->fids);
  st_free(&a, im->track_seen.v);
  st_free(&a, im->proc_seen.v);
  st_free(&a, im->zbuf);
  st_free(&a, im->meta_json);
  st_free(&a, im);
}

st_code st_perfetto_push(st_perfetto_importer *im, const uint8_t *data, size_t len, st_error *err) {
  if (!im) return st_error_set(err, ST_ERR_ARG, 0, "no importer");
  return st_pb_stream_push_kept(im->stream, &im->status, data, len, err);
}

st_code st_perfetto_finish(st_perfetto_importer *im, st_error *err) {
  if (!im) return st_error_set(err, ST_ERR_ARG, 0, "no importer");
  st_pb_stream_finish_kept(im->stream, &im->status, err);
  /* unclosed BEGINs end at the trace end */
  if (im->status.code != ST_ERR_NOMEM)
    for (uint32_t i = 0; i < im->ntracks; i++) {
      ptrack *t = &im->tracks[i];
      while (t->depth) {
        open_slice o = t->stack[--t->depth];
        st_stats_warn(im->stats, "unclosed_slice", o.src);
        im->stats->slices++;
        emit(im, track_builder(im, i, 0), o.ts, 0, o.name, o.cat, o.src, ST_EV_UNFINISHED);
        t = &im->tracks[i];
      }
    }
  if (im->nomem && im->status.code == ST_OK) {
    st_error e;
    memset(&e, 0, sizeof e);
    st_pb_status_record(&im->status, nomem(im, 0, &e), &e, err);
  }
  return st_pb_status_record(&im->status, ST_OK, NULL, err);
}

int st_perfetto_has_trace(const st_perfetto_importer *im) { return im && im->has_trace; }

void st_perfetto_set_args_source(st_perfetto_importer *im, st_argsrc *as) {
  if (im) im->args = as;
}

const char *st_perfetto_metadata_json(const st_perfetto_importer *im) {
  if (!im || !im->nskips) return "{}";
  st_perfetto_importer *m = (st_perfetto_importer *)im; /* caches the text */
  if (m->meta_json) return m->meta_json;
  size_t cap = 40 + (size_t)im->nskips * 40;
  char *out = st_malloc(&m->alloc, cap);
  if (!out) return "{}";
  size_t n = (size_t)snprintf(out, cap, "{\"skipped_packet_fields\": {");
  for (uint32_t i = 0; i < im->nskips; i++)
    n += (size_t)snprintf(out + n, cap - n, "%s\"%u\": %llu", i ? ", " : "",
                          (unsigned)im->skips[i].field, (unsigned long long)im->skips[i].count);
  snprintf(out + n, cap - n, "}}");
  m->meta_json = out;
  return out;
}
