/* import_pickle.c: a PyTorch memory snapshot -> the model (see
 * import_pickle.h). */
#include "import_pickle.h"

#include "bisect.h"
#include "merge_sort.h"
#include "pickle.h"
#include "u64map.h"

#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

enum { MAX_FRAMES = 64 }; /* frames of a stack shown (the top ones) */

struct st_pickle_imp {
  st_alloc alloc;
  st_builder *b;
  st_stats *stats;
  uint8_t *buf;
  size_t n, cap;
  int has_trace;
};

st_pickle_imp *st_pickle_imp_create(const st_alloc *a, st_builder *b, st_stats *stats) {
  st_pickle_imp *im = st_calloc(a, 1, sizeof *im);
  if (!im) return NULL;
  im->alloc = *a;
  im->b = b;
  im->stats = stats;
  return im;
}

void st_pickle_imp_destroy(st_pickle_imp *im) {
  if (!im) return;
  st_alloc a = im->alloc;
  st_free(&a, im->buf);
  st_free(&a, im);
}

void st_pickle_imp_release(st_pickle_imp *im) {
  if (!im) return;
  st_free(&im->alloc, im->buf);
  im->buf = NULL;
  im->n = im->cap = 0;
}

int st_pickle_imp_has_trace(const st_pickle_imp *im) { return im && im->has_trace; }
const char *st_pickle_imp_metadata_json(const st_pickle_imp *im) {
  (void)im;
  return "{}";
}

st_code st_pickle_imp_push(st_pickle_imp *im, const uint8_t *data, size_t len, st_error *err) {
  if (!len) return ST_OK;
  size_t need;
  if (!st_add_size(im->n, len, &need) || need > SIZE_MAX / 2) {
    st_error_set(err, ST_ERR_NOMEM, im->n, "out of memory: the snapshot is too large");
    return ST_ERR_NOMEM;
  }
  void *v = im->buf;
  int ok = st_grow_from(&im->alloc, &v, &im->cap, need, 1, 1 << 16);
  im->buf = v;
  if (!ok) {
    st_error_set(err, ST_ERR_NOMEM, im->n, "out of memory reading the snapshot");
    return ST_ERR_NOMEM;
  }
  memcpy(im->buf + im->n, data, len);
  im->n += len;
  return ST_OK;
}

/* ---- reading the snapshot -------------------------------------------------- */

typedef struct ctx {
  st_pickle_imp *im;
  const st_pickle *pk;
  st_strtab *strs;
  st_frames *frames;
  char *text;
  size_t ntext, ctext;
  int nomem;
  /* per frames list (a value id): its interned (top name, stack text, leaf frame) */
  st_u64map fmemo;
  struct fmrec {
    uint32_t top, stack, leaf;
  } * fm;
  size_t nfm, cfm;
} ctx;

static void put(ctx *c, const char *s, size_t n) {
  if (c->nomem) return;
  if (!st_grow(&c->im->alloc, (void **)&c->text, &c->ctext, c->ntext + n + 1, 1)) {
    c->nomem = 1;
    return;
  }
  memcpy(c->text + c->ntext, s, n);
  c->ntext += n;
}

static uint32_t intern(ctx *c, const char *s, size_t n) {
  uint32_t id = st_strtab_intern(c->strs, s, n);
  if (id == ST_STR_NONE) c->nomem = 1;
  return id == ST_STR_NONE ? ST_STR_EMPTY : id;
}

static int64_t dict_int(const st_pickle *pk, uint32_t d, const char *k, int64_t dflt) {
  uint32_t v = st_pickle_dict_get(pk, d, k);
  st_pk_type t = st_pickle_type(pk, v);
  return v != UINT32_MAX && (t == ST_PK_INT || t == ST_PK_FLOAT || t == ST_PK_BOOL)
             ? st_pickle_int(pk, v)
             : dflt;
}

static const char *dict_str(const st_pickle *pk, uint32_t d, const char *k, size_t *n) {
  uint32_t v = st_pickle_dict_get(pk, d, k);
  if (st_pickle_type(pk, v) != ST_PK_STR) {
    *n = 0;
    return "";
  }
  return st_pickle_str(pk, v, n);
}

/* "name (file:line)" of a frame dict into c->text (from c->ntext) */
static void frame_text(ctx *c, uint32_t f, int base_only) {
  size_t nl, fl;
  const char *name = dict_str(c->pk, f, "name", &nl), *file = dict_str(c->pk, f, "filename", &fl);
  if (base_only)
    for (size_t i = fl; i-- > 0;)
      if (file[i] == '/') {
        file += i + 1;
        fl -= i + 1;
        break;
      }
  char num[32];
  snprintf(num, sizeof num, ":%lld)", (long long)dict_int(c->pk, f, "line", 0));
  put(c, name, nl);
  put(c, " (", 2);
  put(c, file, fl);
  put(c, num, strlen(num));
}

/* the frames list v: *top (name of the first frame), *stack (every frame's
 * text, top first), *leaf (the samples' frame chain, outermost first) */
static void frames_of(ctx *c, uint32_t v, uint32_t *top, uint32_t *stack, uint32_t *leaf) {
  *top = *stack = ST_STR_EMPTY;
  *leaf = ST_FRAME_NONE;
  uint32_t n;
  const uint32_t *it = st_pickle_items(c->pk, v, &n);
  if (!it || !n) return;
  uint32_t k = st_u64map_get(&c->fmemo, v);
  if (k != ST_U64MAP_NONE) {
    *top = c->fm[k].top;
    *stack = c->fm[k].stack;
    *leaf = c->fm[k].leaf;
    return;
  }
  if (n > MAX_FRAMES) n = MAX_FRAMES;
  c->ntext = 0;
  frame_text(c, it[0], 1);
  *top = intern(c, c->text, c->ntext);
  c->ntext = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (i) put(c, " \xE2\x86\x90 ", 5); /* " <- ": called from */
    frame_text(c, it[i], 0);
  }
  *stack = intern(c, c->text, c->ntext);
  uint32_t parent = ST_FRAME_NONE;
  for (uint32_t i = n; i-- > 0 && c->frames;) {
    c->ntext = 0;
    frame_text(c, it[i], 1);
    uint32_t id = st_frames_intern(c->frames, parent, intern(c, c->text, c->ntext));
    if (id == ST_FRAME_NONE) {
      c->nomem = 1;
      break;
    }
    parent = id;
  }
  *leaf = parent;
  if (c->nfm >= UINT32_MAX - 1 ||
      !st_grow(&c->im->alloc, (void **)&c->fm, &c->cfm, c->nfm + 1, sizeof *c->fm) ||
      !st_u64map_put(&c->fmemo, &c->im->alloc, v, (uint32_t)c->nfm)) {
    c->nomem = 1;
    return;
  }
  c->fm[c->nfm] = (struct fmrec){*top, *stack, *leaf};
  c->nfm++;
}

/* ---- one device's trace -------------------------------------------------- */

static int64_t us_to_ns(int64_t us) {
  return us > INT64_MAX / 1000 ? INT64_MAX : us < INT64_MIN / 1000 ? INT64_MIN : us * 1000;
}

typedef struct blk {
  int64_t start, size, end; /* end: once closed */
  uint64_t addr;
  int closed;
  uint32_t top, stack, leaf;
  uint64_t src;
} blk;

/* an address range of the device: a segment's, or a block's outside any */
typedef struct span {
  uint64_t lo, hi;
} span;

typedef struct dev {
  uint32_t active, reserved, blocks, samples; /* tracks */
  blk *b;
  size_t nb, cb;
  st_u64map open; /* addr -> index into b */
  st_mem_event *mem;
  size_t nmem, cmem;
  span *sp; /* segments seen (the trace's and those listed at the end) */
  size_t nsp, csp;
} dev;

static int act_is(const char *s, size_t n, const char *w) {
  return strlen(w) == n && memcmp(s, w, n) == 0;
}

static int mem_ev(ctx *c, dev *d, int64_t ts, int64_t bytes, uint64_t addr, int32_t id, uint32_t op,
                  uint64_t src) {
  if (!st_grow(&c->im->alloc, (void **)&d->mem, &d->cmem, d->nmem + 1, sizeof *d->mem)) return 0;
  d->mem[d->nmem++] = (st_mem_event){.ts_abs_ns = ts,
                                     .bytes = bytes,
                                     .addr = addr,
                                     .pid = id,
                                     .tid = 0,
                                     .dev_pid = id,
                                     .total_alloc = NAN,
                                     .total_reserved = NAN,
                                     .src = src,
                                     .device_type = 1,
                                     .device_id = id,
                                     .op = op};
  return 1;
}

static uint64_t sat_addu(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static int add_span(ctx *c, dev *d, uint64_t addr, int64_t size) {
  uint64_t n = size > 0 ? (uint64_t)size : 0;
  if (!st_grow(&c->im->alloc, (void **)&d->sp, &d->csp, d->nsp + 1, sizeof *d->sp)) return 0;
  d->sp[d->nsp++] = (span){addr, addr + n < addr ? UINT64_MAX : addr + n};
  return 1;
}

static int open_block(ctx *c, dev *d, int64_t ts, int64_t size, uint64_t addr, uint32_t frames,
                      uint64_t src, int32_t id) {
  blk k = {ts, size, 0, addr, 0, ST_STR_EMPTY, ST_STR_EMPTY, ST_FRAME_NONE, src};
  frames_of(c, frames, &k.top, &k.stack, &k.leaf);
  if (c->nomem || d->nb >= UINT32_MAX - 1 ||
      !st_grow(&c->im->alloc, (void **)&d->b, &d->cb, d->nb + 1, sizeof *d->b) ||
      !st_u64map_put(&d->open, &c->im->alloc, addr, (uint32_t)d->nb))
    return 0;
  d->b[d->nb++] = k;
  if (!mem_ev(c, d, ts, size, addr, id, k.top, src)) return 0;
  st_builder *b = c->im->b;
  if (d->samples != UINT32_MAX && k.leaf != ST_FRAME_NONE) {
    if (st_builder_slice(b, d->samples, ts, 0, k.top, k.leaf, src, ST_EV_INSTANT) == ST_ERR_NOMEM)
      return 0;
    c->im->stats->samples++;
  }
  return 1;
}

static int close_block(ctx *c, dev *d, uint32_t i, int64_t ts, uint64_t addr, uint64_t src,
                       int32_t id) {
  blk *k = &d->b[i];
  k->end = ts >= k->start ? ts : k->start;
  k->closed = 1;
  return mem_ev(c, d, ts, k->size == INT64_MIN ? INT64_MAX : -k->size, addr, id, k->top, src);
}

static int span_less(const span *a, const span *b) { return a->lo < b->lo; }
ST_DEFINE_MERGE_SORT(sort_spans, span, span_less)

/* The blocks track: every block a slice from its alloc to its free (or
 * end), and its place in the device's address space laid end to end: the
 * segments and the blocks outside any, sorted by address and merged where
 * they overlap or touch, one after the other without the gaps between
 * them; a block's y is its range's offset there + (addr - range start). */
static int emit_blocks(ctx *c, dev *d, int64_t t_end, st_block **all, size_t *nall, size_t *call) {
  st_builder *b = c->im->b;
  for (size_t k = 0; k < d->nb; k++)
    if (!add_span(c, d, d->b[k].addr, d->b[k].size)) return 0;
  span *tmp = st_malloc(&c->im->alloc, (d->nsp ? d->nsp : 1) * sizeof *tmp);
  if (!tmp) return 0;
  sort_spans(d->sp, tmp, d->nsp);
  /* merged in place; tmp[i].lo: the merged range i's offset */
  size_t m = 0;
  uint64_t off = 0;
  for (size_t i = 0; i < d->nsp; i++) {
    if (m && d->sp[i].lo <= d->sp[m - 1].hi) {
      if (d->sp[i].hi > d->sp[m - 1].hi) d->sp[m - 1].hi = d->sp[i].hi;
      continue;
    }
    if (m) off = sat_addu(off, d->sp[m - 1].hi - d->sp[m - 1].lo);
    tmp[m].lo = off;
    d->sp[m++] = d->sp[i];
  }
  uint64_t total = m ? sat_addu(off, d->sp[m - 1].hi - d->sp[m - 1].lo) : 0;
  int ok = st_grow(&c->im->alloc, (void **)all, call, *nall + d->nb, sizeof **all);
  for (size_t k = 0; ok && k < d->nb; k++) {
    blk *x = &d->b[k];
    /* lo - 1: the last range starting at or before addr */
    size_t lo = st_bound_u64_at(d->sp, m, sizeof *d->sp, offsetof(span, lo), x->addr, ST_UPPER);
    uint64_t y = lo ? sat_addu(tmp[lo - 1].lo, x->addr - d->sp[lo - 1].lo) : 0;
    int64_t end = !x->closed ? (t_end >= x->start ? t_end : x->start) : x->end;
    int64_t dur = st_sat_sub(end, x->start);
    if (st_builder_slice(b, d->blocks, x->start, dur, x->top, x->stack, x->src, 0) == ST_ERR_NOMEM)
      ok = 0;
    c->im->stats->async_slices++;
    st_stats_time(c->im->stats, x->start, end);
    (*all)[(*nall)++] = (st_block){x->src, y, x->size > 0 ? (uint64_t)x->size : 0, x->addr};
  }
  st_free(&c->im->alloc, tmp);
  if (ok) st_builder_track_blocks(b, d->blocks, total ? total : 1);
  return ok;
}

static int counter(ctx *c, uint32_t tr, int64_t ts, double v) {
  if (tr == UINT32_MAX) return 1;
  if (st_builder_counter(c->im->b, tr, ts, v) == ST_ERR_NOMEM) return 0;
  c->im->stats->counter_samples++;
  return 1;
}

static uint32_t track(ctx *c, uint32_t p, st_track_kind kind, int64_t key, const char *fmt,
                      int32_t id) {
  char name[64];
  snprintf(name, sizeof name, fmt, (int)id);
  uint32_t t = st_builder_track(c->im->b, p, kind, key, intern(c, name, strlen(name)));
  if (t == UINT32_MAX) c->nomem = 1;
  return t;
}

/* device id's entries [it, it + n); segments: the snapshot's list (or UINT32_MAX) */
static int device(ctx *c, int32_t id, const uint32_t *it, uint32_t n, uint32_t segments,
                  st_mem_event **all, size_t *nall, size_t *call, st_block **blocks,
                  size_t *nblocks, size_t *cblocks) {
  const st_pickle *pk = c->pk;
  st_builder *b = c->im->b;
  dev d = {0};
  int ok = 1, untimed = 0;
  char pname[64];
  snprintf(pname, sizeof pname, "GPU %d (memory snapshot)", (int)id);
  uint32_t p = st_builder_process(b, id);
  if (p == UINT32_MAX) return 0;
  st_builder_process_name(b, p, intern(c, pname, strlen(pname)));
  d.active = track(c, p, ST_TRACK_COUNTER, 1, "Active memory (GPU %d)", id);
  d.reserved = track(c, p, ST_TRACK_COUNTER, 2, "Reserved memory (GPU %d)", id);
  d.blocks = track(c, p, ST_TRACK_ASYNC, 3, "Active blocks (GPU %d)", id);
  d.samples = track(c, p, ST_TRACK_SAMPLES, 4, "Allocation stacks (GPU %d)", id);
  if (c->nomem) return 0;
  /* times: time_us, else 1 us apart */
  int64_t t0 = 0, t_end = 0;
#define TS(i, e) (untimed ? (int64_t)(i)*1000 : us_to_ns(dict_int(pk, e, "time_us", 0)))
  for (uint32_t i = 0; i < n; i++)
    if (st_pickle_dict_get(pk, it[i], "time_us") == UINT32_MAX) untimed = 1;
  if (untimed) st_stats_warn(c->im->stats, "snapshot_without_time_us", 0);
  if (n) {
    t0 = TS(0, it[0]);
    t_end = TS(n - 1, it[n - 1]);
  }
  /* blocks from before the trace: freed in it without an alloc in it, or
   * active at the end without one */
  st_u64map seen = {0}; /* addr -> 1 allocated in the trace and not freed yet */
  int64_t net_seg = 0, active = 0, reserved = 0;
  for (uint32_t i = 0; ok && i < n; i++) {
    size_t al;
    const char *a = dict_str(pk, it[i], "action", &al);
    uint64_t addr = (uint64_t)dict_int(pk, it[i], "addr", 0);
    int64_t size = dict_int(pk, it[i], "size", 0);
    if (act_is(a, al, "alloc")) {
      if (!st_u64map_put(&seen, &c->im->alloc, addr, 1)) ok = 0;
    } else if (act_is(a, al, "free_completed") || act_is(a, al, "free")) {
      if (st_u64map_get(&seen, addr) == 1) {
        if (!st_u64map_put(&seen, &c->im->alloc, addr, 0)) ok = 0;
      } else if (st_u64map_get(&d.open, addr) == ST_U64MAP_NONE) {
        ok = open_block(c, &d, t0, size, addr, st_pickle_dict_get(pk, it[i], "frames"),
                        ((uint64_t)(uint32_t)id << 40) | i, id);
        active = st_sat_add(active, size);
      }
    } else if (act_is(a, al, "segment_alloc") || act_is(a, al, "segment_map")) {
      net_seg = st_sat_add(net_seg, size);
      ok = add_span(c, &d, addr, size);
    } else if (act_is(a, al, "segment_free") || act_is(a, al, "segment_unmap")) {
      net_seg = st_sat_sub(net_seg, size);
    }
  }
  uint32_t ns;
  const uint32_t *segs = st_pickle_items(pk, segments, &ns);
  int64_t seg_total = 0;
  uint64_t nseg_blocks = 0; /* their srcs: unique over the segments */
  for (uint32_t s = 0; ok && s < ns; s++) {
    if (dict_int(pk, segs[s], "device", -1) != id) continue;
    seg_total = st_sat_add(seg_total, dict_int(pk, segs[s], "total_size", 0));
    uint32_t nbk;
    const uint32_t *bk = st_pickle_items(pk, st_pickle_dict_get(pk, segs[s], "blocks"), &nbk);
    int64_t addr = dict_int(pk, segs[s], "address", 0);
    ok = add_span(c, &d, (uint64_t)addr, dict_int(pk, segs[s], "total_size", 0));
    for (uint32_t j = 0; ok && j < nbk; j++) {
      size_t sl;
      const char *state = dict_str(pk, bk[j], "state", &sl);
      int64_t size = dict_int(pk, bk[j], "size", 0);
      uint64_t ba = (uint64_t)dict_int(pk, bk[j], "address", addr);
      addr = (int64_t)((uint64_t)addr + (uint64_t)size);
      if (sl < 6 || memcmp(state, "active", 6) != 0) continue;
      if (st_u64map_get(&seen, ba) == 1 || st_u64map_get(&d.open, ba) != ST_U64MAP_NONE) continue;
      ok = open_block(c, &d, t0, size, ba, st_pickle_dict_get(pk, bk[j], "frames"),
                      ((uint64_t)(uint32_t)id << 40) | ((uint64_t)1 << 39) | nseg_blocks++, id);
      active = st_sat_add(active, size);
    }
  }
  st_u64map_free(&seen, &c->im->alloc);
  reserved = st_sat_sub(seg_total, net_seg);
  if (ok && n)
    ok = counter(c, d.active, t0, (double)active) && counter(c, d.reserved, t0, (double)reserved);
  /* the trace */
  for (uint32_t i = 0; ok && i < n; i++) {
    size_t al;
    const char *a = dict_str(pk, it[i], "action", &al);
    uint64_t addr = (uint64_t)dict_int(pk, it[i], "addr", 0);
    int64_t size = dict_int(pk, it[i], "size", 0), ts = TS(i, it[i]);
    uint64_t src = ((uint64_t)(uint32_t)id << 40) | i;
    c->im->stats->events++;
    st_stats_time(c->im->stats, ts, ts);
    if (act_is(a, al, "alloc")) {
      uint32_t o = st_u64map_get(&d.open, addr);
      if (o != ST_U64MAP_NONE && !d.b[o].closed) { /* allocated again: the old one ended */
        ok = close_block(c, &d, o, ts, addr, src, id);
        active = st_sat_sub(active, d.b[o].size);
      }
      ok =
          ok && open_block(c, &d, ts, size, addr, st_pickle_dict_get(pk, it[i], "frames"), src, id);
      active = st_sat_add(active, size);
      ok = ok && counter(c, d.active, ts, (double)active);
    } else if (act_is(a, al, "free_completed") || act_is(a, al, "free")) {
      uint32_t o = st_u64map_get(&d.open, addr);
      if (o == ST_U64MAP_NONE || d.b[o].closed) continue;
      ok = close_block(c, &d, o, ts, addr, src, id);
      active = st_sat_sub(active, d.b[o].size);
      ok = ok && counter(c, d.active, ts, (double)active);
    } else if (act_is(a, al, "segment_alloc") || act_is(a, al, "segment_map")) {
      reserved = st_sat_add(reserved, size);
      ok = counter(c, d.reserved, ts, (double)reserved);
    } else if (act_is(a, al, "segment_free") || act_is(a, al, "segment_unmap")) {
      reserved = st_sat_sub(reserved, size);
      ok = counter(c, d.reserved, ts, (double)reserved);
    }
  }
#undef TS
  /* the blocks (those still active at the end: to the trace's end) */
  ok = ok && emit_blocks(c, &d, t_end, blocks, nblocks, cblocks);
  /* the memory events join the snapshot's */
  if (ok && d.nmem) {
    if (!st_grow(&c->im->alloc, (void **)all, call, *nall + d.nmem, sizeof **all))
      ok = 0;
    else {
      memcpy(*all + *nall, d.mem, d.nmem * sizeof *d.mem);
      *nall += d.nmem;
    }
  }
  if (ok && (n || d.nb)) c->im->has_trace = 1;
  st_free(&c->im->alloc, d.b);
  st_free(&c->im->alloc, d.mem);
  st_free(&c->im->alloc, d.sp);
  st_u64map_free(&d.open, &c->im->alloc);
  return ok && !c->nomem;
}

/* sorted by (ts, src) */
static int mem_less(const st_mem_event *a, const st_mem_event *b) {
  return a->ts_abs_ns < b->ts_abs_ns || (a->ts_abs_ns == b->ts_abs_ns && a->src < b->src);
}
ST_DEFINE_MERGE_SORT(sort_mem, st_mem_event, mem_less)

st_code st_pickle_imp_finish(st_pickle_imp *im, st_error *err) {
  st_pickle *pk = st_pickle_read(&im->alloc, im->buf, im->n, err);
  if (!pk) return err ? err->code : ST_ERR_FORMAT;
  ctx c = {
      .im = im, .pk = pk, .strs = st_builder_strings(im->b), .frames = st_builder_frames(im->b)};
  uint32_t root = st_pickle_root(pk);
  uint32_t traces = st_pickle_dict_get(pk, root, "device_traces");
  uint32_t segments = st_pickle_dict_get(pk, root, "segments");
  st_code rc = ST_OK;
  uint32_t nd;
  const uint32_t *devs = st_pickle_items(pk, traces, &nd);
  if (st_pickle_type(pk, root) != ST_PK_DICT || (traces == UINT32_MAX && segments == UINT32_MAX)) {
    st_error_set(err, ST_ERR_FORMAT, 0,
                 "not a PyTorch memory snapshot: a pickle without \"segments\" or "
                 "\"device_traces\"");
    rc = ST_ERR_FORMAT;
  }
  st_mem_event *all = NULL;
  size_t nall = 0, call = 0;
  st_block *blocks = NULL;
  size_t nblocks = 0, cblocks = 0;
  for (uint32_t d = 0; rc == ST_OK && d < nd && d < (1u << 20); d++) {
    uint32_t n;
    const uint32_t *it = st_pickle_items(pk, devs[d], &n);
    if (!n) continue;
    if (!device(&c, (int32_t)d, it, n, segments, &all, &nall, &call, &blocks, &nblocks, &cblocks)) {
      st_error_set(err, ST_ERR_NOMEM, 0, "out of memory reading the snapshot");
      rc = ST_ERR_NOMEM;
    }
  }
  if (rc == ST_OK && !im->has_trace) {
    st_error_set(err, ST_ERR_FORMAT, 0,
                 "the memory snapshot has no allocation history (its device_traces are empty: "
                 "record it with torch.cuda.memory._record_memory_history())");
    rc = ST_ERR_FORMAT;
  }
  if (rc == ST_OK && nall) {
    st_mem_event *tmp = st_malloc(&im->alloc, nall * sizeof *tmp);
    if (!tmp) {
      st_error_set(err, ST_ERR_NOMEM, 0, "out of memory reading the snapshot");
      rc = ST_ERR_NOMEM;
    } else {
      sort_mem(all, tmp, nall);
      st_free(&im->alloc, tmp);
      st_builder_mem_events(im->b, all, nall);
      all = NULL;
    }
  }
  if (rc == ST_OK && nblocks) {
    st_builder_blocks(im->b, blocks, nblocks);
    blocks = NULL;
  }
  st_free(&im->alloc, blocks);
  st_free(&im->alloc, all);
  st_u64map_free(&c.fmemo, &im->alloc);
  st_free(&im->alloc, c.fm);
  st_free(&im->alloc, c.text);
  st_pickle_destroy(pk);
  return rc;
}
