/* stream_stx_read.c: st_stream_open_index (stream_stx.h): a `.stx` file,
 * untrusted, read back into a finished stream and its summary trace. Every
 * read is bounds-checked against the section it is in, every count against
 * the bytes left before anything is allocated for it, every index against
 * what it indexes; the summary goes through a builder (which checks it
 * again and lays it out), the file's checksum last.
 */
#include "json_scan.h"
#include "sha256.h"
#include "stream_internal.h"
#include "stream_stx.h"

#include <stdlib.h>
#include <string.h>

/* ==== 1. the cursor ======================================================== */

typedef struct rd {
  const uint8_t *p;
  size_t len, at, end; /* end: the current section's */
  st_error *err;
  int bad;
  const char *sec; /* the section's tag, for messages */
} rd;

static int fail(rd *r, st_code code, size_t at, const char *what) {
  if (!r->bad)
    st_error_set(r->err, code, at, "index: %s%s%s (at byte %llu)", r->sec ? r->sec : "",
                 r->sec ? ": " : "", what, (unsigned long long)at);
  r->bad = 1;
  return 0;
}

static int need(rd *r, size_t k) {
  if (r->bad) return 0;
  if (k > r->end - r->at) return fail(r, ST_ERR_TRUNCATED, r->end, "truncated");
  return 1;
}

static uint64_t get_le(rd *r, int bytes) {
  if (!need(r, (size_t)bytes)) return 0;
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)r->p[r->at + (size_t)i] << (8 * i);
  r->at += (size_t)bytes;
  return v;
}
static uint8_t get_u8(rd *r) { return (uint8_t)get_le(r, 1); }
static uint32_t get_u32(rd *r) { return (uint32_t)get_le(r, 4); }
static uint64_t get_u64(rd *r) { return get_le(r, 8); }
static int64_t get_i64(rd *r) { return (int64_t)get_le(r, 8); }
static double get_f64(rd *r) {
  uint64_t u = get_le(r, 8);
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* n records of at least rec bytes must fit in what the section has left. */
static int count_ok(rd *r, uint64_t n, size_t rec, const char *what) {
  if (r->bad) return 0;
  if (n > (r->end - r->at) / rec) return fail(r, ST_ERR_LIMIT, r->at - 8, what);
  return 1;
}

static int section(rd *r, const char tag[4]) {
  if (r->bad) return 0;
  r->sec = NULL;
  r->end = r->len - 32; /* the checksum follows the sections */
  size_t at = r->at;
  if (!need(r, 12)) return 0;
  if (memcmp(r->p + r->at, tag, 4) != 0) {
    char m[64];
    memcpy(m, "expected section ", 17);
    memcpy(m + 17, tag, 4);
    m[21] = 0;
    return fail(r, ST_ERR_FORMAT, at, m);
  }
  r->at += 4;
  uint64_t n = get_u64(r);
  if (n > r->end - r->at) return fail(r, ST_ERR_TRUNCATED, at, "section longer than the file");
  r->end = r->at + (size_t)n;
  r->sec = tag;
  return 1;
}

static int section_done(rd *r) {
  if (r->bad) return 0;
  if (r->at != r->end) return fail(r, ST_ERR_FORMAT, r->at, "bytes left over in the section");
  r->sec = NULL;
  return 1;
}

/* ==== 2. the sections ====================================================== */

typedef struct lctx {
  st_stream *s;
  uint32_t *str; /* the file's string k -> the table's id */
  uint32_t nstr;
  const char *format;
  int compressed;
  uint32_t features; /* ST_STX_F_* of the header */
} lctx;

static const char *const k_formats[] = {"chrome-json", "perfetto-proto", "xplane", "unknown"};

static uint32_t plan_ranges(uint64_t raw, st_stream_range *out) {
  /* the plan of a stream of raw bytes (stream_stx_ident.c) */
  st_stream probe;
  memset(&probe, 0, sizeof probe);
  probe.raw_bytes = raw;
  return st_stream_identity_plan(&probe, out);
}

static int rd_idnt(rd *r, lctx *c) {
  st_stream *s = c->s;
  s->raw_bytes = get_u64(r);
  s->bytes_decoded = get_u64(r);
  uint8_t comp = get_u8(r);
  uint8_t fl = get_u8(r);
  if (!need(r, fl)) return 0;
  c->format = NULL;
  for (size_t i = 0; i < sizeof k_formats / sizeof *k_formats; i++)
    if (strlen(k_formats[i]) == fl && !memcmp(r->p + r->at, k_formats[i], fl))
      c->format = k_formats[i];
  if (!c->format || comp > 1) return fail(r, ST_ERR_FORMAT, r->at - 2, "unknown format");
  c->compressed = comp;
  r->at += fl;
  uint32_t n = get_u32(r);
  st_stream_range plan[ST_STX_SAMPLES];
  uint32_t want = plan_ranges(s->raw_bytes, plan);
  if (!r->bad && n != want)
    return fail(r, ST_ERR_FORMAT, r->at - 4, "sampled blocks not as planned");
  for (uint32_t k = 0; k < n && !r->bad; k++) {
    size_t at = r->at;
    s->samples[k].offset = get_u64(r);
    s->samples[k].length = get_u64(r);
    if (need(r, 32)) memcpy(s->samples[k].sha, r->p + r->at, 32), r->at += 32;
    if (!r->bad &&
        (s->samples[k].offset != plan[k].offset || s->samples[k].length != plan[k].length))
      return fail(r, ST_ERR_FORMAT, at, "sampled block not as planned");
  }
  s->nsamples = n;
  return section_done(r);
}

static int rd_strs(rd *r, lctx *c) {
  uint32_t n = get_u32(r);
  if (!count_ok(r, n, 4, "more strings than bytes")) return 0;
  if (n == 0) return fail(r, ST_ERR_FORMAT, r->at, "no strings");
  c->str = st_calloc(&c->s->alloc, n, sizeof *c->str);
  if (!c->str) return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  c->nstr = n;
  for (uint32_t i = 0; i < n && !r->bad; i++) {
    uint32_t len = get_u32(r);
    if (!need(r, len)) return 0;
    if (i == 0 && len != 0) return fail(r, ST_ERR_FORMAT, r->at, "string 0 is not empty");
    c->str[i] = st_strtab_intern(c->s->strings, (const char *)r->p + r->at, len);
    if (c->str[i] == ST_STR_NONE) return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
    r->at += len;
  }
  return section_done(r);
}

static int rd_stat(rd *r, lctx *c) {
  st_stream *s = c->s;
  size_t room = r->end - r->at + 1;
  st_stats *st = s->saved_stats = st_calloc(&s->alloc, 1, sizeof *st);
  char *text = s->saved_text = st_malloc(&s->alloc, room);
  if (!st || !text) return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  size_t used = 0;
  st->format = c->format;
  st->compressed = c->compressed;
  st->bytes_in = get_u64(r);
  st->bytes_decoded = get_u64(r);
  st->events = get_u64(r);
  for (int i = 0; i < 129; i++) st->phases[i] = get_u64(r);
  st->phases_other = get_u64(r);
  st->slices = get_u64(r);
  st->instants = get_u64(r);
  st->counter_samples = get_u64(r);
  st->async_slices = get_u64(r);
  st->flows = get_u64(r);
  st->samples = get_u64(r);
  st->stack_frames = get_u64(r);
  st->processes = get_u64(r);
  st->threads = get_u64(r);
  st->has_ts = get_u8(r) != 0;
  st->ts_min_ns = get_i64(r);
  st->ts_max_ns = get_i64(r);
  uint32_t nw = get_u32(r);
  if (!r->bad && nw > ST_STATS_MAX_WARNINGS)
    return fail(r, ST_ERR_LIMIT, r->at - 4, "too many warnings");
  for (uint32_t i = 0; i < nw && !r->bad; i++) {
    uint32_t len = get_u32(r);
    if (!need(r, len)) return 0;
    if (len > 64 || memchr(r->p + r->at, 0, len))
      return fail(r, ST_ERR_FORMAT, r->at, "bad warning kind");
    memcpy(text + used, r->p + r->at, len); /* fits: the section holds it */
    text[used + len] = 0;
    st->warnings[i].kind = text + used;
    used += len + 1;
    r->at += len;
    st->warnings[i].count = get_u64(r);
    st->warnings[i].first_offset = get_u64(r);
  }
  st->warning_count = nw;
  uint64_t ml = get_u64(r);
  if (r->bad || !need(r, (size_t)(ml > SIZE_MAX ? SIZE_MAX : ml))) return 0;
  const char *m = (const char *)r->p + r->at, *out = NULL;
  if (ml == 0 || m[0] != '{' || memchr(m, 0, (size_t)ml) ||
      st_json_skip_value(m, m + ml, &out) != ST_JSON_OK || out != m + ml)
    return fail(r, ST_ERR_FORMAT, r->at, "metadata is not a JSON object");
  s->saved_meta = st_malloc(&s->alloc, (size_t)ml + 1);
  if (!s->saved_meta) return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  memcpy(s->saved_meta, m, (size_t)ml);
  s->saved_meta[ml] = 0;
  r->at += (size_t)ml;
  return section_done(r);
}

static int rd_strm(rd *r, lctx *c) {
  st_stream *s = c->s;
  size_t at = r->at;
  s->block_bytes = get_u64(r);
  s->max_buckets = get_u32(r);
  s->w = get_i64(r);
  s->base = get_i64(r);
  s->have_base = 1;
  s->saved_buckets = get_u64(r);
  s->summary_events = get_u64(r);
  s->events_end = get_u64(r);
  uint64_t dec = get_u64(r);
  s->origin = get_i64(r);
  s->end = get_i64(r);
  uint8_t win = get_u8(r);
  if (r->bad) return 0;
  if (s->block_bytes < 4096 || s->max_buckets < 64 || s->w < 1 || win > 1 ||
      dec != s->bytes_decoded || s->events_end > s->bytes_decoded || s->origin > s->end ||
      (win && strcmp(c->format, "chrome-json") != 0))
    return fail(r, ST_ERR_FORMAT, at, "stream figures out of range");
  s->windows = win;
  return section_done(r);
}

static int rd_blks(rd *r, lctx *c) {
  st_stream *s = c->s;
  uint64_t n = get_u64(r);
  if (!count_ok(r, n, 40, "more blocks than bytes")) return 0;
  if (n && n - 1 > s->events_end / s->block_bytes)
    return fail(r, ST_ERR_FORMAT, r->at - 8, "blocks beyond the events");
  if (n && !(s->blocks = st_calloc(&s->alloc, (size_t)n, sizeof *s->blocks)))
    return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  s->nblocks = s->capblocks = (size_t)n;
  for (size_t k = 0; k < n && !r->bad; k++) {
    size_t at = r->at;
    sblock *b = &s->blocks[k];
    b->first_src = get_u64(r);
    b->last_src = get_u64(r);
    b->lo = get_i64(r);
    b->hi = get_i64(r);
    b->events = get_u64(r);
    int ok = b->events ? b->first_src <= b->last_src && b->first_src / s->block_bytes == k &&
                             b->last_src / s->block_bytes == k && b->last_src < s->events_end &&
                             b->lo <= b->hi
                       : b->first_src == UINT64_MAX && b->last_src == 0;
    if (!r->bad && !ok) return fail(r, ST_ERR_FORMAT, at, "block out of range");
  }
  return section_done(r);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int rd_exct(rd *r, lctx *c) {
  st_stream *s = c->s;
  uint64_t n = get_u64(r);
  if (!count_ok(r, n, 62, "more exact events than bytes")) return 0;
  if (n && (!(s->exact = st_calloc(&s->alloc, (size_t)n, sizeof *s->exact)) ||
            !(s->skip = st_calloc(&s->alloc, (size_t)n, 2 * sizeof *s->skip))))
    return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  s->capexact = (size_t)n;
  for (size_t i = 0; i < n && !r->bad; i++) {
    size_t at = r->at;
    sexact *e = &s->exact[i];
    e->pid = get_i64(r);
    e->key = get_i64(r);
    uint32_t tn = get_u32(r);
    e->kind = get_u8(r);
    e->flags = get_u8(r);
    e->start = get_i64(r);
    e->dur = get_i64(r);
    uint32_t nm = get_u32(r), ct = get_u32(r);
    e->src = get_u64(r);
    e->end_src = get_u64(r);
    if (r->bad) return 0;
    int skey = (e->kind & ST_STX_KEY_STRING) != 0;
    e->kind &= (uint8_t)~ST_STX_KEY_STRING;
    if (skey && (e->key < 0 || e->key >= (int64_t)c->nstr))
      return fail(r, ST_ERR_FORMAT, at, "exact event's key out of range");
    if (skey) e->key = c->str[e->key];
    if (tn >= c->nstr || nm >= c->nstr || ct >= c->nstr || e->kind > ST_TRACK_INSTANTS ||
        e->src >= s->bytes_decoded || (e->end_src != UINT64_MAX && e->end_src >= s->bytes_decoded))
      return fail(r, ST_ERR_FORMAT, at, "exact event out of range");
    e->track_name = c->str[tn];
    e->name = c->str[nm];
    e->cat = c->str[ct];
    s->nexact++;
    s->skip[s->nskip++] = e->src;
    if (e->end_src != UINT64_MAX) s->skip[s->nskip++] = e->end_src;
  }
  if (s->nskip) qsort(s->skip, s->nskip, sizeof *s->skip, cmp_u64);
  return section_done(r);
}

/* CLST (optional: indexes written before it have none; their windows'
 * counters start at their first sample in the window) */
static int rd_clst(rd *r, lctx *c) {
  if (r->bad) return 0;
  if (r->at + 4 > r->len - 32 || memcmp(r->p + r->at, "CLST", 4) != 0) return 1;
  if (!section(r, "CLST")) return 0;
  st_stream *s = c->s;
  uint64_t n = get_u64(r);
  if (!count_ok(r, n, 45, "more counter samples than bytes")) return 0;
  if (n && !(s->clast = st_calloc(&s->alloc, (size_t)n, sizeof *s->clast)))
    return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  s->capclast = (size_t)n;
  for (size_t i = 0; i < n && !r->bad; i++) {
    size_t at = r->at;
    sclast *e = &s->clast[i];
    e->block = get_u64(r);
    e->track = get_u32(r);
    e->pid = get_i64(r);
    e->key = get_i64(r);
    uint8_t skey = get_u8(r);
    uint32_t nm = get_u32(r);
    e->ts = get_i64(r);
    e->v = get_f64(r);
    if (r->bad) return 0;
    if (skey & ~ST_STX_KEY_STRING || nm >= c->nstr || e->block >= s->nblocks ||
        (skey && (e->key < 0 || e->key >= (int64_t)c->nstr)))
      return fail(r, ST_ERR_FORMAT, at, "counter sample out of range");
    if (skey) e->key = c->str[e->key];
    e->name = c->str[nm];
    s->nclast++;
  }
  return section_done(r);
}

static int rd_gzix(rd *r, lctx *c) {
  st_stream *s = c->s;
  uint8_t present = get_u8(r);
  if (r->bad) return 0;
  if (present > 1 || (present && !c->compressed))
    return fail(r, ST_ERR_FORMAT, r->at - 1, "restart points of an uncompressed trace");
  s->gz_state = c->compressed ? 3 : 2;
  if (!present) return section_done(r);
  uint8_t gzip = get_u8(r);
  uint64_t span = get_u64(r), decoded = get_u64(r);
  uint32_t n = get_u32(r);
  if (r->bad) return 0;
  if (gzip > 1 || span == 0 || decoded != s->bytes_decoded)
    return fail(r, ST_ERR_FORMAT, r->at - 21, "restart points out of range");
  if (!count_ok(r, n, 26, "more restart points than bytes")) return 0;
  s->gz = st_gzindex_restore(&s->alloc, gzip, span, decoded);
  uint8_t *win = st_malloc(&s->alloc, ST_GZINDEX_WINDOW); /* a point's, unpacked */
  if (!s->gz || !win) {
    st_free(&s->alloc, win);
    return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  }
  for (uint32_t i = 0; i < n && !r->bad; i++) {
    size_t at = r->at;
    st_gzpoint p;
    p.in = get_u64(r);
    p.out = get_u64(r);
    p.bits = get_u8(r);
    p.head = get_u8(r);
    p.win_len = get_u32(r);
    uint32_t packed = get_u32(r);
    if (!need(r, packed)) break;
    if (p.win_len > ST_GZINDEX_WINDOW ||
        (p.win_len && !st_gzwin_unpack(&s->alloc, r->p + r->at, packed, win, p.win_len)) ||
        (!p.win_len && packed)) {
      fail(r, ST_ERR_FORMAT, at, "restart point's window does not unpack");
      break;
    }
    p.win = win;
    r->at += packed;
    st_code code = p.in < s->raw_bytes ? st_gzindex_restore_point(s->gz, &p) : ST_ERR_FORMAT;
    if (code != ST_OK)
      fail(r, code, at,
           code == ST_ERR_NOMEM ? "out of memory" : "restart point out of order or range");
  }
  st_free(&s->alloc, win);
  if (r->bad) return 0;
  s->gz_state = 1;
  return section_done(r);
}

/* ---- the summary, through a builder ---- */

static int rd_summ(rd *r, lctx *c, st_trace **out) {
  st_stream *s = c->s;
  st_builder *b = st_builder_create_shared(&s->alloc, s->strings);
  uint32_t *pmap = NULL, *tmap = NULL;
  uint8_t *tkind = NULL;
  if (!b) return fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  size_t at = r->at;
  int64_t origin = get_i64(r), end = get_i64(r);
  if (!r->bad && (origin != s->origin || end != s->end))
    fail(r, ST_ERR_FORMAT, at, "summary time not the stream's");
  uint32_t np = get_u32(r);
  if (count_ok(r, np, 20, "more processes than bytes") &&
      !(pmap = st_calloc(&s->alloc, np ? np : 1, sizeof *pmap)))
    fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  for (uint32_t i = 0; i < np && !r->bad; i++) {
    at = r->at;
    int64_t pid = get_i64(r);
    uint32_t name = get_u32(r), labels = get_u32(r);
    int32_t sort = (int32_t)get_u32(r);
    if (r->bad) break;
    if (name >= c->nstr || labels >= c->nstr) {
      fail(r, ST_ERR_FORMAT, at, "process name out of range");
      break;
    }
    pmap[i] = st_builder_process(b, pid);
    if (pmap[i] == UINT32_MAX) {
      fail(r, ST_ERR_NOMEM, at, "out of memory");
      break;
    }
    st_builder_process_name(b, pmap[i], c->str[name]);
    st_builder_process_labels(b, pmap[i], c->str[labels]);
    st_builder_process_sort(b, pmap[i], sort);
  }
  uint32_t nt = get_u32(r);
  if (count_ok(r, nt, 22, "more tracks than bytes") &&
      (!(tmap = st_calloc(&s->alloc, nt ? nt : 1, sizeof *tmap)) ||
       !(tkind = st_calloc(&s->alloc, nt ? nt : 1, 1))))
    fail(r, ST_ERR_NOMEM, r->at, "out of memory");
  for (uint32_t i = 0; i < nt && !r->bad; i++) {
    at = r->at;
    uint32_t proc = get_u32(r);
    uint8_t kind = get_u8(r), indent = get_u8(r);
    int64_t key = get_i64(r);
    uint32_t name = get_u32(r);
    int32_t sort = (int32_t)get_u32(r);
    uint32_t unit = c->features & ST_STX_F_UNITS ? get_u32(r) : 0;
    if (r->bad) break;
    int skey = (kind & ST_STX_KEY_STRING) != 0;
    kind &= (uint8_t)~ST_STX_KEY_STRING;
    if (proc >= np || kind > ST_TRACK_SAMPLES || name >= c->nstr || unit >= c->nstr ||
        (skey && (key < 0 || key >= (int64_t)c->nstr))) {
      fail(r, ST_ERR_FORMAT, at, "track out of range");
      break;
    }
    if (skey) key = c->str[key];
    tmap[i] = st_builder_track(b, pmap[proc], (st_track_kind)kind, key, c->str[name]);
    tkind[i] = kind;
    if (tmap[i] == UINT32_MAX) {
      fail(r, ST_ERR_NOMEM, at, "out of memory");
      break;
    }
    st_builder_track_name(b, tmap[i], c->str[name]);
    st_builder_track_sort(b, tmap[i], sort);
    st_builder_track_indent(b, tmap[i], indent);
    st_builder_track_unit(b, tmap[i], c->str[unit]);
  }
  uint32_t nf = get_u32(r);
  if (count_ok(r, nf, 8, "more frames than bytes") && nf) {
    st_frames *fr = st_builder_frames(b);
    if (!fr) fail(r, ST_ERR_NOMEM, r->at, "out of memory");
    for (uint32_t i = 0; i < nf && !r->bad; i++) {
      at = r->at;
      uint32_t parent = get_u32(r), name = get_u32(r);
      if (r->bad) break;
      if ((parent != ST_FRAME_NONE && parent >= i) || name >= c->nstr ||
          st_frames_intern(fr, parent, c->str[name]) != i)
        fail(r, ST_ERR_FORMAT, at, "stack frame out of order or range");
    }
  }
  uint64_t ne = get_u64(r);
  count_ok(r, ne, 37, "more summary events than bytes");
  for (uint64_t i = 0; i < ne && !r->bad; i++) {
    at = r->at;
    uint32_t tk = get_u32(r);
    int64_t start = get_i64(r), dur = get_i64(r);
    uint32_t name = get_u32(r), cat = get_u32(r);
    uint64_t src = get_u64(r);
    uint8_t flags = get_u8(r);
    if (r->bad) break;
    int smp = tk < nt && tkind[tk] == ST_TRACK_SAMPLES;
    if (tk >= nt || name >= c->nstr || cat >= (smp ? nf : c->nstr)) {
      fail(r, ST_ERR_FORMAT, at, "summary event out of range");
      break;
    }
    st_code code = st_builder_slice(b, tmap[tk], start, dur, c->str[name], smp ? cat : c->str[cat],
                                    src, flags);
    if (code != ST_OK)
      fail(r, code == ST_ERR_NOMEM ? ST_ERR_NOMEM : ST_ERR_FORMAT, at, "summary event refused");
  }
  uint64_t nc = get_u64(r);
  count_ok(r, nc, 20, "more counter samples than bytes");
  for (uint64_t i = 0; i < nc && !r->bad; i++) {
    at = r->at;
    uint32_t tk = get_u32(r);
    int64_t ts = get_i64(r);
    double v = get_f64(r);
    if (r->bad) break;
    if (tk >= nt || st_builder_counter(b, tmap[tk], ts, v) != ST_OK)
      fail(r, ST_ERR_FORMAT, at, "counter sample refused");
  }
  uint64_t nend = get_u64(r);
  count_ok(r, nend, 16, "more end events than bytes");
  for (uint64_t i = 0; i < nend && !r->bad; i++) {
    at = r->at;
    uint64_t src = get_u64(r), end_src = get_u64(r);
    if (!r->bad && st_builder_end_src(b, src, end_src) != ST_OK)
      fail(r, ST_ERR_FORMAT, at, "end event refused");
  }
  st_free(&s->alloc, pmap);
  st_free(&s->alloc, tmap);
  st_free(&s->alloc, tkind);
  if (r->bad || !section_done(r)) {
    st_builder_destroy(b);
    return 0;
  }
  st_builder_extend(b, s->origin, s->end);
  st_error e;
  *out = st_builder_finish(b, &e);
  if (!*out) return fail(r, e.code, r->at, "out of memory");
  return 1;
}

/* ==== 3. the whole file ===================================================== */

static st_stream *new_stream(const st_stream_desc *desc) {
  st_alloc al = desc ? desc->alloc : (st_alloc){0};
  st_stream *s = st_calloc(&al, 1, sizeof *s);
  if (!s) return NULL;
  s->alloc = al;
  s->own_strings = !(desc && desc->strings);
  s->strings = s->own_strings ? st_strtab_create(&al) : desc->strings;
  s->finished = s->opened = 1;
  s->last_src = UINT64_MAX;
  if (!s->strings) {
    st_free(&al, s);
    return NULL;
  }
  return s;
}

st_stream *st_stream_open_index(const st_stream_desc *desc, const void *bytes, size_t len,
                                st_trace **summary, st_error *err) {
  st_error dummy;
  if (!err) err = &dummy;
  memset(err, 0, sizeof *err);
  if (summary) *summary = NULL;
  if (!summary || (len && !bytes)) {
    st_error_set(err, ST_ERR_ARG, 0, "index: no bytes or no summary to return");
    return NULL;
  }
  rd r = {bytes, len, 0, len, err, 0, NULL};
  if (len < 20 + 32 || memcmp(bytes, ST_STX_MAGIC "\0\0\0", 12) != 0) {
    st_error_set(err, ST_ERR_FORMAT, 0, "index: not a strata index file (no STRATASTX header)");
    return NULL;
  }
  r.at = 12;
  uint32_t version = get_u32(&r), features = get_u32(&r);
  if (version != ST_STX_VERSION) {
    st_error_set(err, ST_ERR_FORMAT, 12,
                 "index: format version %u, this strata reads version %u (index the trace again)",
                 version, ST_STX_VERSION);
    return NULL;
  }
  if (features & ~(uint32_t)ST_STX_KNOWN_FEATURES) {
    st_error_set(err, ST_ERR_FORMAT, 16, "index: needs features this strata lacks (0x%x)",
                 features & ~(uint32_t)ST_STX_KNOWN_FEATURES);
    return NULL;
  }
  st_stream *s = new_stream(desc);
  if (!s) {
    st_error_set(err, ST_ERR_NOMEM, 0, "index: out of memory");
    return NULL;
  }
  lctx c = {s, NULL, 0, NULL, 0, features};
  st_trace *t = NULL;
  int ok = section(&r, "IDNT") && rd_idnt(&r, &c) && section(&r, "STRS") && rd_strs(&r, &c) &&
           section(&r, "STAT") && rd_stat(&r, &c) && section(&r, "STRM") && rd_strm(&r, &c) &&
           section(&r, "BLKS") && rd_blks(&r, &c) && section(&r, "EXCT") && rd_exct(&r, &c) &&
           rd_clst(&r, &c) && section(&r, "GZIX") && rd_gzix(&r, &c) && section(&r, "SUMM") &&
           rd_summ(&r, &c, &t);
  if (ok && r.at != len - 32) ok = fail(&r, ST_ERR_FORMAT, r.at, "bytes after the sections");
  if (ok) {
    uint8_t h[32];
    st_sha256(bytes, len - 32, h);
    if (memcmp(h, (const uint8_t *)bytes + len - 32, 32) != 0)
      ok = fail(&r, ST_ERR_FORMAT, len - 32, "checksum does not match: the file is damaged");
  }
  uint32_t want = (s->windows ? ST_STX_F_WINDOWS : 0) | (s->gz ? ST_STX_F_GZIP : 0) |
                  (t && st_frames_count(st_trace_frames(t)) ? ST_STX_F_FRAMES : 0) |
                  (t && st_stx_has_units(t) ? ST_STX_F_UNITS : 0);
  if (ok && want != features)
    ok = fail(&r, ST_ERR_FORMAT, 16, "features do not match the contents");
  st_free(&s->alloc, c.str);
  if (!ok) {
    st_trace_destroy(t);
    st_stream_destroy(s);
    return NULL;
  }
  *summary = t;
  return s;
}
