/* import_xplane.c: XSpace -> st_builder (see import_xplane.h for the
 * mapping rules).
 *
 * Contents
 *   1. state
 *   2. helpers: errors, interning, time conversion, metadata texts
 *   3. plane metadata: stat metadata, event metadata (and their stats)
 *   4. events and lines
 *   5. planes -> processes
 *   6. the XSpace stream and public API
 *
 * An event's args (its stats) are decoded on selection by the args source
 * (core/import/args/argsrc.h) in xplane_args.c.
 *
 * A plane is walked three times over its top-level fields (stat metadata,
 * then event metadata, then lines), because protobuf writers emit fields in
 * number order (lines = 3 come before the metadata maps = 4, 5); a line is
 * walked twice (its display id/name, 10/11, come after its events, 4).
 * Skipping a field is O(1), so this costs little next to decoding events.
 */
#include "import_xplane.h"

#include "argsrc.h"
#include "json_out.h"
#include "pb_stream.h"
#include "pb_wire.h"
#include "seen.h"
#include "u64map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== 1. state =========================================================== */

enum { SK_OTHER = 0, SK_STEP_NAME, SK_FLOW, SK_ASYNC };

typedef struct statmeta {
  const uint8_t *name; /* into the current plane */
  uint32_t len;
  uint8_t kind;
} statmeta;

typedef struct evmeta {
  const uint8_t *name, *disp; /* into the current plane */
  uint32_t name_len, disp_len;
  uint32_t id;        /* interned display-or-name, UINT32_MAX until used */
  uint32_t step_name; /* from a metadata stat, UINT32_MAX if none */
  uint8_t async, has_flow;
  uint64_t flow;
} evmeta;

typedef struct strbuf { /* a JSON list's items (growing st_jout, json_out.h) */
  st_jout o;
  uint32_t items;
} strbuf;

typedef struct line_key {
  const uint8_t *name;
  size_t len;
  uint32_t index;
} line_key;

struct st_xplane_importer {
  st_alloc alloc;
  st_builder *b;
  st_stats *stats;
  st_strtab *strs;
  st_pb_stream *stream;
  st_argsrc *args; /* where args are found on selection (may be NULL) */
  /* per plane */
  statmeta *sm;
  uint32_t nsm, cap_sm;
  st_u64map sm_map;
  evmeta *ev;
  uint32_t nev, cap_ev;
  st_u64map ev_map;
  uint32_t special_stats; /* stat metadata of a special kind in this plane */
  uint32_t proc;          /* builder process of the current plane, lazily */
  int64_t pid;
  uint32_t plane_name;
  line_key *lines;
  uint32_t *ranks; /* by line index: 1-based rank in name order (host planes) */
  size_t cap_lines;
  /* whole import */
  st_seen proc_seen, track_seen; /* builder processes / tracks counted */
  uint32_t host_planes;
  uint32_t *procs; /* builder processes made (for hostname labels) */
  uint32_t nprocs, cap_procs;
  strbuf hostnames, errors, warnings;
  strbuf planes;     /* device planes' own stats (efficiency.h: peaks) */
  uint32_t hostname; /* interned first hostname */
  char *meta_json;
  int has_trace, nomem;
  st_pb_status status; /* the first error, kept */
};

/* ==== 2. helpers ========================================================= */

static st_code nomem(st_xplane_importer *im, uint64_t at, st_error *err) {
  im->nomem = 1;
  return st_error_set(err, ST_ERR_NOMEM, at, "out of memory");
}

static uint32_t intern(st_xplane_importer *im, const uint8_t *s, size_t n) {
  uint32_t id = st_strtab_intern(im->strs, (const char *)s, n);
  if (id == ST_STR_NONE) {
    im->nomem = 1;
    return ST_STR_EMPTY;
  }
  return id;
}

static int starts_with(const uint8_t *s, size_t n, const char *prefix) {
  size_t m = strlen(prefix);
  return n >= m && memcmp(s, prefix, m) == 0;
}

/* ps -> ns, flooring both ends (see the header). 0 if out of int64 range. */
static int xp_time(int64_t line_ns, int64_t off_ps, int64_t dur_ps, int64_t *start, int64_t *dur) {
  int64_t q = off_ps / 1000, r = off_ps % 1000;
  if (r < 0) {
    r += 1000;
    q -= 1;
  }
  if ((q > 0 && line_ns > INT64_MAX - q) || (q < 0 && line_ns < INT64_MIN - q)) return 0;
  int64_t s = line_ns + q;
  if (dur_ps < 0) dur_ps = 0;
  int64_t d = dur_ps / 1000 + (r + dur_ps % 1000) / 1000;
  if (s > INT64_MAX - d) return 0;
  *start = s;
  *dur = d;
  return 1;
}

/* Appends a JSON string literal (control characters escaped; other bytes
 * as they are). Whole items only: an item that does not fit in
 * ST_XPLANE_META_MAX is dropped. */
static void sb_json_string(strbuf *sb, st_xplane_importer *im, const uint8_t *s, size_t n) {
  st_jout m = {0}; /* measures */
  st_jout_str_as(&m, (const char *)s, n, 0);
  if (sb->o.len + m.len + 2 > ST_XPLANE_META_MAX) return; /* with a comma and the NUL */
  sb->o.grow = 1;
  sb->o.alloc = &im->alloc;
  if (sb->items++) st_jout_put(&sb->o, ",", 1);
  st_jout_str_as(&sb->o, (const char *)s, n, 0);
  if (sb->o.nomem) im->nomem = 1;
}

/* ==== 3. plane metadata ================================================== */

static int stat_kind(const uint8_t *s, size_t n) {
  if (n == 9 && !memcmp(s, "step_name", 9)) return SK_STEP_NAME;
  if (n == 4 && !memcmp(s, "flow", 4)) return SK_FLOW;
  if (n == 2 && !memcmp(s, "_a", 2)) return SK_ASYNC;
  return SK_OTHER;
}

/* plane field 5: {1: key, 2: XStatMetadata {1 id, 2 name, 3 description}} */
static st_code read_stat_meta(st_xplane_importer *im, st_pb_reader *pr, const st_pb_field *ef,
                              st_error *err) {
  st_pb_reader er, vr;
  st_pb_field f;
  uint64_t key = 0;
  const uint8_t *name = NULL;
  size_t len = 0;
  int k;
  if (st_pb_enter(pr, ef, &er, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&er, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT) {
      key = f.u;
    } else if (f.num == 2 && f.wire == ST_PB_LEN) {
      if (st_pb_enter(&er, &f, &vr, err) != ST_OK) return err->code;
      st_pb_field g;
      int j;
      while ((j = st_pb_next(&vr, &g, err)) > 0)
        if (g.num == 2 && g.wire == ST_PB_LEN) {
          name = g.data;
          len = g.len;
        }
      if (j < 0) return ST_ERR_PROTO;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  if (im->nsm == im->cap_sm) {
    void *p = im->sm;
    if (!st_grow32(&im->alloc, &p, &im->cap_sm, im->nsm + 1, sizeof *im->sm, 64))
      return nomem(im, ef->offset, err);
    im->sm = p;
  }
  statmeta *m = &im->sm[im->nsm];
  m->name = name;
  m->len = (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len);
  m->kind = (uint8_t)stat_kind(name, len);
  if (m->kind != SK_OTHER) im->special_stats++;
  if (!st_u64map_put(&im->sm_map, &im->alloc, key, im->nsm)) return nomem(im, ef->offset, err);
  im->nsm++;
  if (st_argsrc_xplane_stat(im->args, key, name, len) != ST_OK) return nomem(im, ef->offset, err);
  return ST_OK;
}

static const statmeta *stat_meta(const st_xplane_importer *im, uint64_t id) {
  uint32_t i = st_u64map_get(&im->sm_map, id);
  return i == ST_U64MAP_NONE ? NULL : &im->sm[i];
}

/* The special meaning of one XStat, if any. */
typedef struct special {
  uint8_t has_step, async, has_flow;
  uint32_t step_name;
  uint64_t flow;
} special;

static st_code read_special_stat(st_xplane_importer *im, st_pb_reader *r, const st_pb_field *sf,
                                 special *sp, st_error *err) {
  st_pb_reader sr;
  st_pb_field f;
  uint64_t mid = 0, u = 0;
  const uint8_t *str = NULL;
  size_t slen = 0;
  int kind_v = -1, k;
  if (st_pb_enter(r, sf, &sr, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&sr, &f, err)) > 0) {
    switch (f.num) {
    case 1: mid = f.u; break;
    case 3:
    case 4:
    case 7:
      u = f.u;
      kind_v = (int)f.num;
      break;
    case 5:
      str = f.data;
      slen = f.len;
      kind_v = 5;
      break;
    default: break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  const statmeta *m = stat_meta(im, mid);
  if (!m || m->kind == SK_OTHER) return ST_OK;
  if (m->kind == SK_ASYNC) {
    sp->async = 1;
  } else if (m->kind == SK_FLOW && (kind_v == 3 || kind_v == 4)) {
    sp->has_flow = 1;
    sp->flow = u;
  } else if (m->kind == SK_STEP_NAME) {
    if (kind_v == 5) {
      sp->has_step = 1;
      sp->step_name = intern(im, str, slen);
    } else if (kind_v == 7) {
      const statmeta *ref = stat_meta(im, u);
      sp->has_step = 1;
      sp->step_name = ref ? intern(im, ref->name, ref->len) : ST_STR_EMPTY;
    }
  }
  return ST_OK;
}

/* plane field 4: {1: key, 2: XEventMetadata {1 id, 2 name, 4 display_name,
 * 5 stats, ...}} */
static st_code read_event_meta(st_xplane_importer *im, st_pb_reader *pr, const st_pb_field *ef,
                               st_error *err) {
  st_pb_reader er, vr;
  st_pb_field f;
  uint64_t key = 0, voff = 0, vlen = 0;
  evmeta m;
  memset(&m, 0, sizeof m);
  m.id = UINT32_MAX;
  m.step_name = UINT32_MAX;
  int k;
  if (st_pb_enter(pr, ef, &er, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&er, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT) {
      key = f.u;
    } else if (f.num == 2 && f.wire == ST_PB_LEN) {
      if (st_pb_enter(&er, &f, &vr, err) != ST_OK) return err->code;
      voff = st_pb_offset(&er, f.data);
      vlen = f.len;
      st_pb_field g;
      int j;
      while ((j = st_pb_next(&vr, &g, err)) > 0) {
        if (g.wire != ST_PB_LEN) continue;
        if (g.num == 2) {
          m.name = g.data;
          m.name_len = (uint32_t)(g.len > UINT32_MAX ? UINT32_MAX : g.len);
        } else if (g.num == 4) {
          m.disp = g.data;
          m.disp_len = (uint32_t)(g.len > UINT32_MAX ? UINT32_MAX : g.len);
        } else if (g.num == 5 && im->special_stats) {
          special sp;
          memset(&sp, 0, sizeof sp);
          if (read_special_stat(im, &vr, &g, &sp, err) != ST_OK) return err->code;
          if (sp.has_step) m.step_name = sp.step_name;
          if (sp.async) m.async = 1;
          if (sp.has_flow) {
            m.has_flow = 1;
            m.flow = sp.flow;
          }
        }
      }
      if (j < 0) return ST_ERR_PROTO;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  if (im->nev == im->cap_ev) {
    void *p = im->ev;
    if (!st_grow32(&im->alloc, &p, &im->cap_ev, im->nev + 1, sizeof *im->ev, 256))
      return nomem(im, ef->offset, err);
    im->ev = p;
  }
  im->ev[im->nev] = m;
  if (!st_u64map_put(&im->ev_map, &im->alloc, key, im->nev)) return nomem(im, ef->offset, err);
  im->nev++;
  if (st_argsrc_xplane_event_meta(im->args, key, voff, vlen) != ST_OK)
    return nomem(im, ef->offset, err);
  return ST_OK;
}

static uint32_t event_name(st_xplane_importer *im, evmeta *m) {
  if (m->id == UINT32_MAX)
    m->id = m->disp_len ? intern(im, m->disp, m->disp_len) : intern(im, m->name, m->name_len);
  return m->id;
}

/* ==== 4. events and lines ================================================ */

typedef struct line_ctx {
  int64_t tid, ts_ns;
  uint32_t name;
  int32_t sort;
  int counters;
  uint32_t track, async_track;
} line_ctx;

static uint32_t plane_process(st_xplane_importer *im) {
  if (im->proc != UINT32_MAX) return im->proc;
  uint32_t p = st_builder_process(im->b, im->pid);
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return p;
  }
  st_builder_process_name(im->b, p, im->plane_name);
  st_builder_process_sort(im->b, p, (int32_t)im->pid);
  if (im->nprocs == im->cap_procs) {
    void *v = im->procs;
    if (!st_grow32(&im->alloc, &v, &im->cap_procs, im->nprocs + 1, sizeof *im->procs, 16)) {
      im->nomem = 1;
      return UINT32_MAX;
    }
    im->procs = v;
  }
  im->procs[im->nprocs++] = p;
  im->proc = p;
  if (!st_seen_test_set(&im->alloc, &im->proc_seen, p, &im->nomem)) im->stats->processes++;
  return p;
}

static uint32_t line_track(st_xplane_importer *im, line_ctx *lc, st_track_kind kind) {
  uint32_t *slot = kind == ST_TRACK_ASYNC ? &lc->async_track : &lc->track;
  if (*slot != UINT32_MAX) return *slot;
  uint32_t p = plane_process(im);
  if (p == UINT32_MAX) return UINT32_MAX;
  uint32_t t = st_builder_track(im->b, p, kind, lc->tid, lc->name);
  if (t == UINT32_MAX) {
    im->nomem = 1;
    return t;
  }
  st_builder_track_sort(im->b, t, lc->sort);
  if (kind == ST_TRACK_SLICES && !st_seen_test_set(&im->alloc, &im->track_seen, t, &im->nomem))
    im->stats->threads++;
  *slot = t;
  return t;
}

static void emit(st_xplane_importer *im, uint32_t track, int64_t ts, int64_t dur, uint32_t name,
                 uint64_t src, uint8_t flags) {
  if (track == UINT32_MAX) return;
  st_code c = st_builder_slice(im->b, track, ts, dur, name, ST_STR_EMPTY, src, flags);
  if (c == ST_ERR_NOMEM)
    im->nomem = 1;
  else if (c != ST_OK)
    st_stats_warn(im->stats, "track_event_limit", src);
}

/* The `flow` stat: bits 0-1 direction (1 in, 2 out, 3 both), bits 2-57 the
 * id. The event itself is the end point; the builder chains each id's points
 * in timestamp order (trace.h). */
static void flow_point(st_xplane_importer *im, uint32_t track, uint64_t flow_stat, int64_t ts,
                       uint64_t src) {
  uint64_t id = (flow_stat >> 2) & ((1ull << 56) - 1);
  unsigned dir = (unsigned)(flow_stat & 3), role = 0;
  if (dir & 1) role |= ST_FLOW_IN;
  if (dir & 2) role |= ST_FLOW_OUT;
  if (!role || track == UINT32_MAX) return; /* direction 0: not a flow end */
  st_code c = st_builder_flow(im->b, id, role, ST_FLOW_BIND_EVENT, track, ts, src);
  if (c == ST_ERR_NOMEM)
    im->nomem = 1;
  else if (c != ST_OK)
    st_stats_warn(im->stats, "flow_unbound", src);
}

/* One sample per numeric stat (with known metadata) of a `_counters_`
 * event: series "<event> <stat>", or "<event>" when the stat is named like
 * the event (a stable name per (event, stat), whatever else the event has). */
static st_code counter_event(st_xplane_importer *im, st_pb_reader *er, uint32_t name, int64_t ts,
                             uint64_t src, st_error *err) {
  st_pb_reader r = *er, sr;
  st_pb_field f, g;
  int k, j;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num != 4 || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&r, &f, &sr, err) != ST_OK) return err->code;
    uint64_t mid = 0;
    double v = 0;
    int has = 0;
    while ((j = st_pb_next(&sr, &g, err)) > 0) {
      if (g.num == 1)
        mid = g.u;
      else if (g.num == 2 && g.wire == ST_PB_I64)
        v = st_pb_double(g.u), has = 1;
      else if (g.num == 3 && g.wire == ST_PB_VARINT)
        v = (double)g.u, has = 1;
      else if (g.num == 4 && g.wire == ST_PB_VARINT)
        v = (double)st_pb_i64(g.u), has = 1;
    }
    if (j < 0) return ST_ERR_PROTO;
    const statmeta *m = stat_meta(im, mid);
    if (!has || !m) continue;
    size_t n1;
    const char *s1 = st_strtab_get(im->strs, name, &n1);
    uint32_t series = name;
    char tmp[512];
    if (!(m->len == n1 && !memcmp(s1, m->name, n1)) && n1 + 1 + m->len < sizeof tmp) {
      memcpy(tmp, s1, n1);
      tmp[n1] = ' ';
      if (m->len) memcpy(tmp + n1 + 1, m->name, m->len);
      series = intern(im, (const uint8_t *)tmp, n1 + 1 + m->len);
    }
    uint32_t p = plane_process(im);
    if (p == UINT32_MAX) return nomem(im, src, err);
    uint32_t t = st_builder_track(im->b, p, ST_TRACK_COUNTER, (int64_t)series, series);
    if (t == UINT32_MAX) return nomem(im, src, err);
    st_code c = st_builder_counter(im->b, t, ts, v);
    if (c == ST_ERR_NOMEM) return nomem(im, src, err);
    im->stats->counter_samples++;
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

static st_code read_event(st_xplane_importer *im, st_pb_reader *lr, const st_pb_field *ef,
                          line_ctx *lc, st_error *err) {
  st_pb_reader er;
  st_pb_field f;
  uint64_t mid = 0;
  int64_t off_ps = 0, dur_ps = 0;
  int aggregate = 0, has_stats = 0, k;
  im->stats->events++;
  if (st_pb_enter(lr, ef, &er, err) != ST_OK) return err->code;
  st_pb_reader start = er;
  while ((k = st_pb_next(&er, &f, err)) > 0) {
    switch (f.num) {
    case 1: mid = f.u; break;
    case 2: off_ps = st_pb_i64(f.u); break;
    case 3: dur_ps = st_pb_i64(f.u); break;
    case 4: has_stats = 1; break;
    case 5: aggregate = 1; break;
    default: break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  uint64_t src = ef->offset;
  if (aggregate) {
    st_stats_warn(im->stats, "xplane_aggregate_events_skipped", src);
    return ST_OK;
  }
  int64_t ts, dur;
  if (dur_ps < 0) st_stats_warn(im->stats, "negative_duration", src);
  if (!xp_time(lc->ts_ns, off_ps, dur_ps, &ts, &dur)) {
    st_stats_warn(im->stats, "xplane_time_out_of_range", src);
    return ST_OK;
  }
  uint32_t mi = st_u64map_get(&im->ev_map, mid);
  evmeta *m = mi == ST_U64MAP_NONE ? NULL : &im->ev[mi];
  uint32_t name = ST_STR_EMPTY;
  if (m)
    name = event_name(im, m);
  else
    st_stats_warn(im->stats, "xplane_unknown_event_metadata", src);
  if (lc->counters) {
    im->stats->phases['C']++;
    st_stats_time(im->stats, ts, ts);
    return counter_event(im, &start, name, ts, src, err);
  }
  special sp;
  memset(&sp, 0, sizeof sp);
  if (m) {
    if (m->step_name != UINT32_MAX) sp.has_step = 1, sp.step_name = m->step_name;
    sp.async = m->async;
    sp.has_flow = m->has_flow;
    sp.flow = m->flow;
  }
  if (has_stats && im->special_stats) {
    er = start;
    while ((k = st_pb_next(&er, &f, err)) > 0)
      if (f.num == 4 && f.wire == ST_PB_LEN && read_special_stat(im, &er, &f, &sp, err) != ST_OK)
        return err->code;
    if (k < 0) return ST_ERR_PROTO;
  }
  if (sp.has_step) name = sp.step_name;
  st_stats_time(im->stats, ts, ts + dur);
  if (sp.async && sp.has_flow) {
    im->stats->phases['b']++;
    im->stats->async_slices++;
    emit(im, line_track(im, lc, ST_TRACK_ASYNC), ts, dur, name, src,
         dur_ps == 0 ? ST_EV_INSTANT : 0);
  } else {
    im->stats->phases['X']++;
    im->stats->slices++;
    if (dur_ps == 0) im->stats->instants++;
    emit(im, line_track(im, lc, ST_TRACK_SLICES), ts, dur, name, src,
         dur_ps == 0 ? ST_EV_INSTANT : 0);
  }
  if (sp.has_flow)
    flow_point(im, line_track(im, lc, sp.async ? ST_TRACK_ASYNC : ST_TRACK_SLICES), sp.flow, ts,
               src);
  return im->nomem ? nomem(im, src, err) : ST_OK;
}

/* XLine: 1 id, 2 name, 3 timestamp_ns, 4 events, 9 duration_ps,
 * 10 display_id, 11 display_name. */
static st_code read_line(st_xplane_importer *im, st_pb_reader *pr, const st_pb_field *lf, int drawn,
                         int host, int32_t host_rank, st_error *err) {
  st_pb_reader lr;
  st_pb_field f;
  uint64_t id = 0, display_id = 0;
  const uint8_t *name = NULL, *disp = NULL;
  size_t name_len = 0, disp_len = 0;
  int64_t ts_ns = 0;
  int k;
  if (st_pb_enter(pr, lf, &lr, err) != ST_OK) return err->code;
  st_pb_reader start = lr;
  while ((k = st_pb_next(&lr, &f, err)) > 0) {
    switch (f.num) {
    case 1: id = f.u; break;
    case 10: display_id = f.u; break;
    case 3: ts_ns = st_pb_i64(f.u); break;
    case 2:
      if (f.wire == ST_PB_LEN) name = f.data, name_len = f.len;
      break;
    case 11:
      if (f.wire == ST_PB_LEN) disp = f.data, disp_len = f.len;
      break;
    case 4:
      if (!drawn) im->stats->events++;
      break;
    default: break;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!drawn) return ST_OK;
  line_ctx lc;
  memset(&lc, 0, sizeof lc);
  lc.tid = (int64_t)(uint32_t)(display_id ? display_id : id);
  lc.ts_ns = ts_ns;
  lc.track = lc.async_track = UINT32_MAX;
  if (name && starts_with(name, name_len, "counters_")) {
    int any = 0;
    lr = start;
    while ((k = st_pb_next(&lr, &f, err)) > 0)
      if (f.num == 4) im->stats->events++, any = 1;
    if (any) st_stats_warn(im->stats, "xplane_counters_line_skipped", lf->offset);
    return k < 0 ? ST_ERR_PROTO : ST_OK;
  }
  lc.counters = name && name_len == 10 && !memcmp(name, "_counters_", 10);
  lc.name = disp_len ? intern(im, disp, disp_len) : intern(im, name, name_len);
  lc.sort = host ? host_rank : (int32_t)((int64_t)lc.tid - 2147483648LL);
  lr = start;
  while ((k = st_pb_next(&lr, &f, err)) > 0) {
    if (f.num != 4 || f.wire != ST_PB_LEN) continue;
    st_code c = read_event(im, &lr, &f, &lc, err);
    if (c != ST_OK) return c;
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

/* ==== 5. planes -> processes ============================================= */

static int cmp_line_key(const void *a, const void *b) {
  const line_key *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = n ? memcmp(x->name, y->name, n) : 0;
  if (c) return c;
  if (x->len != y->len) return x->len < y->len ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Host threads are ordered by name: rank of each line (by index) -> sort. */
static st_code host_line_ranks(st_xplane_importer *im, const st_pb_reader *plane, size_t *count,
                               st_error *err) {
  st_pb_reader r = *plane, lr;
  st_pb_field f, g;
  size_t n = 0;
  int k, j;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num != 3 || f.wire != ST_PB_LEN) continue;
    if (n == im->cap_lines) {
      void *v[2] = {im->lines, im->ranks};
      static const size_t elem[2] = {sizeof *im->lines, sizeof *im->ranks};
      int ok = st_grow_each(&im->alloc, v, elem, 2, &im->cap_lines, n + 1, 64, SIZE_MAX);
      im->lines = v[0], im->ranks = v[1];
      if (!ok) return nomem(im, f.offset, err);
    }
    line_key *lk = &im->lines[n];
    lk->name = NULL;
    lk->len = 0;
    lk->index = (uint32_t)n;
    const uint8_t *disp = NULL;
    size_t disp_len = 0;
    if (st_pb_enter(&r, &f, &lr, err) != ST_OK) return err->code;
    while ((j = st_pb_next(&lr, &g, err)) > 0) {
      if (g.wire != ST_PB_LEN) continue;
      if (g.num == 2) lk->name = g.data, lk->len = g.len;
      if (g.num == 11) disp = g.data, disp_len = g.len;
    }
    if (j < 0) return ST_ERR_PROTO;
    if (disp_len) lk->name = disp, lk->len = disp_len;
    n++;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (n > 1) qsort(im->lines, n, sizeof *im->lines, cmp_line_key);
  for (size_t i = 0; i < n; i++)
    im->ranks[im->lines[i].index] = (uint32_t)(i + 1 > INT32_MAX ? INT32_MAX : i + 1);
  *count = n;
  return ST_OK;
}

/* A device plane's own stats (XPlane field 6) as {"name": plane, "stats":
 * {name: value}}: numbers as numbers, strings as strings (others left
 * out); the peaks of core/analysis/efficiency.h come from them. */
static st_code plane_stats(st_xplane_importer *im, const st_pb_reader *pr, const uint8_t *name,
                           size_t name_len, st_error *err) {
  st_pb_reader r = *pr, sr;
  st_pb_field f, g;
  int k, j, any = 0;
  st_jout o = {.grow = 1, .alloc = &im->alloc};
  st_jout_lit(&o, "{\"name\":");
  st_jout_str_as(&o, (const char *)name, name_len, 0);
  st_jout_lit(&o, ",\"stats\":{");
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num != 6 || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&r, &f, &sr, err) != ST_OK) break;
    uint64_t mid = 0;
    int kind = 0;
    st_pb_field v;
    memset(&v, 0, sizeof v);
    while ((j = st_pb_next(&sr, &g, err)) > 0) {
      if (g.num == 1 && g.wire == ST_PB_VARINT) mid = g.u;
      if (g.num >= 2 && g.num <= 5) kind = (int)g.num, v = g;
    }
    const statmeta *m = stat_meta(im, mid);
    if (j < 0 || !m || !kind) continue;
    char num[64];
    if (any++) st_jout_lit(&o, ",");
    st_jout_str_as(&o, (const char *)m->name, m->len, 0);
    st_jout_lit(&o, ":");
    if (kind == 5) {
      st_jout_str_as(&o, (const char *)v.data, v.len, 0);
      continue;
    }
    if (kind == 2) {
      double d = st_pb_double(v.u);
      snprintf(num, sizeof num, "%.17g", d == d && d - d == 0 ? d : 0);
    } else if (kind == 3) {
      snprintf(num, sizeof num, "%llu", (unsigned long long)v.u);
    } else {
      snprintf(num, sizeof num, "%lld", (long long)st_pb_i64(v.u));
    }
    st_jout_put(&o, num, strlen(num));
  }
  st_jout_lit(&o, "}}");
  st_code rc = ST_OK;
  if (o.nomem)
    rc = nomem(im, 0, err);
  else if (any && im->planes.o.len + o.len + 2 <= ST_XPLANE_META_MAX) {
    strbuf *sb = &im->planes;
    sb->o.grow = 1;
    sb->o.alloc = &im->alloc;
    if (sb->items++) st_jout_put(&sb->o, ",", 1);
    st_jout_put(&sb->o, o.buf, o.len);
    if (sb->o.nomem) rc = nomem(im, 0, err);
  }
  st_free(&im->alloc, o.buf);
  return rc;
}

static st_code read_plane(st_xplane_importer *im, const uint8_t *data, size_t len, uint64_t origin,
                          st_error *err) {
  st_pb_reader pr, r;
  st_pb_field f;
  int k;
  st_pb_reader_init(&pr, data, len, origin);
  pr.depth = 1;
  im->nsm = im->nev = im->special_stats = 0;
  st_u64map_clear(&im->sm_map);
  st_u64map_clear(&im->ev_map);
  im->proc = UINT32_MAX;
  if (st_argsrc_xplane_plane(im->args, origin, len) != ST_OK) return nomem(im, origin, err);
  /* pass 1: id, name, stat metadata */
  int64_t id = 0;
  const uint8_t *name = NULL;
  size_t name_len = 0;
  r = pr;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT)
      id = st_pb_i64(f.u);
    else if (f.num == 2 && f.wire == ST_PB_LEN)
      name = f.data, name_len = f.len;
    else if (f.num == 5 && f.wire == ST_PB_LEN) {
      st_code c = read_stat_meta(im, &r, &f, err);
      if (c != ST_OK) return c;
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  /* which process */
  int drawn = 1, host = 0;
  if (name && starts_with(name, name_len, "/host:CPU")) {
    host = 1;
    im->pid = 701 + (int64_t)im->host_planes++;
  } else if (name && (starts_with(name, name_len, "/device:GPU:") ||
                      starts_with(name, name_len, "/device:TPU:"))) {
    im->pid = (id >= 0 && id < 500) ? 1 + id : 1;
  } else if (name && starts_with(name, name_len, "/device:CUSTOM:")) {
    im->pid = (id >= 0 && id < 200) ? 501 + id : 501;
  } else {
    drawn = 0;
  }
  im->plane_name = drawn ? intern(im, name, name_len) : ST_STR_EMPTY;
  if (drawn && !host) {
    st_code c = plane_stats(im, &pr, name, name_len, err);
    if (c != ST_OK) return c;
  }
  /* pass 2: event metadata */
  if (drawn) {
    r = pr;
    while ((k = st_pb_next(&r, &f, err)) > 0) {
      if (f.num == 4 && f.wire == ST_PB_LEN) {
        st_code c = read_event_meta(im, &r, &f, err);
        if (c != ST_OK) return c;
      }
    }
    if (k < 0) return ST_ERR_PROTO;
  }
  size_t nlines = 0;
  if (drawn && host) {
    st_code c = host_line_ranks(im, &pr, &nlines, err);
    if (c != ST_OK) return c;
  }
  /* pass 3: lines */
  uint64_t events_before = im->stats->events;
  uint32_t line_index = 0;
  r = pr;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num != 3 || f.wire != ST_PB_LEN) continue;
    int32_t rank = host && line_index < nlines ? (int32_t)im->ranks[line_index] : 0;
    line_index++;
    st_code c = read_line(im, &r, &f, drawn, host, rank, err);
    if (c != ST_OK) return c;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!drawn && im->stats->events > events_before)
    st_stats_warn(im->stats, "xplane_plane_not_drawn", origin);
  return im->nomem ? nomem(im, origin, err) : ST_OK;
}

/* ==== 6. the XSpace stream and public API ================================ */

static st_code on_space_field(void *ud, const st_pb_field *f, uint64_t data_offset, st_error *err) {
  st_xplane_importer *im = ud;
  if (f->wire != ST_PB_LEN || f->num > 4) {
    st_stats_warn(im->stats, "xplane_unknown_field", f->offset);
    return ST_OK;
  }
  if (f->num == 1) {
    /* a plane damaged part-way still hands over the events read before */
    uint64_t before = im->stats->slices + im->stats->async_slices + im->stats->counter_samples;
    st_code c = read_plane(im, f->data, f->len, data_offset, err);
    if (c == ST_OK ||
        im->stats->slices + im->stats->async_slices + im->stats->counter_samples > before)
      im->has_trace = 1;
    return c;
  }
  im->has_trace = 1;
  switch (f->num) {
  case 2:
    st_stats_warn(im->stats, "xplane_space_error", f->offset);
    sb_json_string(&im->errors, im, f->data, f->len);
    break;
  case 3:
    st_stats_warn(im->stats, "xplane_space_warning", f->offset);
    sb_json_string(&im->warnings, im, f->data, f->len);
    break;
  case 4:
    if (!im->hostnames.items) im->hostname = intern(im, f->data, f->len);
    sb_json_string(&im->hostnames, im, f->data, f->len);
    break;
  }
  return im->nomem ? nomem(im, f->offset, err) : ST_OK;
}

st_xplane_importer *st_xplane_create(const st_alloc *a, st_builder *b, st_stats *stats) {
  if (!b || !stats) return NULL;
  st_xplane_importer *im = st_calloc(a, 1, sizeof *im);
  if (!im) return NULL;
  im->alloc = a ? *a : (st_alloc){0};
  im->b = b;
  im->stats = stats;
  im->strs = st_builder_strings(b);
  im->stream = st_pb_stream_create(&im->alloc, ST_XPLANE_PLANE_MAX, on_space_field, im, "plane");
  if (!im->stream) {
    st_free(&im->alloc, im);
    return NULL;
  }
  return im;
}

/* Everything but what st_xplane_metadata_json needs (the host, error and
 * warning texts). Safe to call twice. */
static void free_working_state(st_xplane_importer *im) {
  st_alloc a = im->alloc;
  st_pb_stream_destroy(im->stream);
  im->stream = NULL;
  st_free(&a, im->sm);
  st_free(&a, im->ev);
  st_u64map_free(&im->sm_map, &a);
  st_u64map_free(&im->ev_map, &a);
  st_free(&a, im->lines);
  st_free(&a, im->ranks);
  st_seen_free(&a, &im->proc_seen);
  st_seen_free(&a, &im->track_seen);
  st_free(&a, im->procs);
  im->sm = NULL, im->nsm = im->cap_sm = 0;
  im->ev = NULL, im->nev = im->cap_ev = 0;
  memset(&im->sm_map, 0, sizeof im->sm_map);
  memset(&im->ev_map, 0, sizeof im->ev_map);
  im->lines = NULL, im->ranks = NULL, im->cap_lines = 0;
  im->proc_seen = (st_seen){0}, im->track_seen = (st_seen){0};
  im->procs = NULL, im->nprocs = im->cap_procs = 0;
}

void st_xplane_destroy(st_xplane_importer *im) {
  if (!im) return;
  st_alloc a = im->alloc;
  free_working_state(im);
  st_free(&a, im->hostnames.o.buf);
  st_free(&a, im->errors.o.buf);
  st_free(&a, im->warnings.o.buf);
  st_free(&a, im->planes.o.buf);
  st_free(&a, im->meta_json);
  st_free(&a, im);
}

void st_xplane_release(st_xplane_importer *im) {
  if (im) free_working_state(im);
}

st_code st_xplane_push(st_xplane_importer *im, const uint8_t *data, size_t len, st_error *err) {
  if (!im || !im->stream) return st_error_set(err, ST_ERR_ARG, 0, "no importer");
  return st_pb_stream_push_kept(im->stream, &im->status, data, len, err);
}

st_code st_xplane_finish(st_xplane_importer *im, st_error *err) {
  if (!im || !im->stream) return st_error_set(err, ST_ERR_ARG, 0, "no importer");
  st_pb_stream_finish_kept(im->stream, &im->status, err);
  /* one host: its name labels every process (XProf prefixes it) */
  if (im->hostnames.items == 1)
    for (uint32_t i = 0; i < im->nprocs; i++)
      st_builder_process_labels(im->b, im->procs[i], im->hostname);
  return st_pb_status_record(&im->status, ST_OK, NULL, err);
}

int st_xplane_has_trace(const st_xplane_importer *im) { return im && im->has_trace; }

void st_xplane_set_args_source(st_xplane_importer *im, st_argsrc *as) {
  if (im) im->args = as;
}

const char *st_xplane_metadata_json(const st_xplane_importer *im) {
  if (!im) return "{}";
  st_xplane_importer *m = (st_xplane_importer *)im; /* caches the text */
  if (m->meta_json) return m->meta_json;
  const strbuf *parts[4] = {&im->hostnames, &im->errors, &im->warnings, &im->planes};
  const char *keys[4] = {"hostnames", "errors", "warnings", "device_planes"};
  st_jout o = {.grow = 1, .alloc = &m->alloc};
  st_jout_put(&o, "{", 1);
  for (int i = 0; i < 4; i++) {
    if (!parts[i]->items) continue;
    if (o.len > 1) st_jout_put(&o, ", ", 2);
    st_jout_str_as(&o, keys[i], strlen(keys[i]), 0);
    st_jout_put(&o, ": [", 3);
    st_jout_put(&o, parts[i]->o.buf, parts[i]->o.len);
    st_jout_put(&o, "]", 1);
  }
  st_jout_put(&o, "}", 1);
  if (o.nomem) {
    st_free(&m->alloc, o.buf);
    return "{}";
  }
  m->meta_json = o.buf;
  return o.buf;
}
