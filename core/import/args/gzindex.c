/* gzindex.c: restart points for random access into gzip / zlib data (see
 * gzindex.h). After zlib's examples/zran.c (Mark Adler): inflate with
 * Z_BLOCK stops at every deflate block boundary; there, the bit position,
 * the offsets and the last 32 KiB of output are enough to resume with a raw
 * inflater (inflatePrime for the odd bits, inflateSetDictionary for the
 * window). */
#include "gzindex.h"

#include "bisect.h"

#include <string.h>
#include <zlib.h>

#define WIN ST_GZINDEX_WINDOW

typedef struct point {
  uint64_t in;  /* compressed offset of the first byte to feed */
  uint64_t out; /* decoded offset */
  uint8_t bits; /* bits of byte in - 1 still to use (raw points) */
  uint8_t head; /* 1: a stream / member start (header follows, no window) */
  uint32_t win_len;
  uint8_t *win; /* win_len bytes of output before out */
} point;

struct st_gzindex {
  st_alloc alloc;
  uint64_t span;
  z_stream zs;
  int zinit, gzip, ended, member_end;
  st_code code;
  st_error err;
  uint64_t in_total, out_total, last;
  uint8_t window[WIN]; /* circular: the last WIN output bytes */
  uint32_t wpos;
  point *pts;
  uint32_t count, cap;
  size_t bytes;
  uint8_t sniff[2];
  uint32_t sniffed;
};

static void *zalloc_fn(void *ud, uInt n, uInt size) {
  size_t t;
  if (!st_mul_size(n, size, &t)) return NULL;
  return st_malloc(ud, t);
}
static void zfree_fn(void *ud, void *p) { st_free(ud, p); }

st_gzindex *st_gzindex_create(const st_alloc *a, uint64_t span) {
  st_alloc al = a ? *a : (st_alloc){0};
  st_gzindex *ix = st_calloc(&al, 1, sizeof *ix);
  if (!ix) return NULL;
  ix->alloc = al;
  ix->span = span ? span : ST_GZINDEX_SPAN;
  ix->bytes = sizeof *ix;
  return ix;
}

void st_gzindex_destroy(st_gzindex *ix) {
  if (!ix) return;
  st_alloc a = ix->alloc;
  if (ix->zinit) inflateEnd(&ix->zs);
  for (uint32_t i = 0; i < ix->count; i++) st_free(&a, ix->pts[i].win);
  st_free(&a, ix->pts);
  st_free(&a, ix);
}

static st_code fail(st_gzindex *ix, st_code c, uint64_t off, const char *msg, st_error *err) {
  ix->code = c;
  st_error_set(&ix->err, c, off, "%s", msg);
  if (err) *err = ix->err;
  return c;
}

static int add_point(st_gzindex *ix, uint64_t in, uint8_t bits, int head) {
  if (ix->count == ix->cap) {
    void *np = ix->pts;
    if (!st_grow32(&ix->alloc, &np, &ix->cap, ix->count + 1, sizeof *ix->pts, 16)) return 0;
    ix->pts = np;
  }
  point *p = &ix->pts[ix->count];
  memset(p, 0, sizeof *p);
  p->in = in;
  p->out = ix->out_total;
  p->bits = bits;
  p->head = (uint8_t)head;
  if (!head) {
    uint32_t n = ix->out_total < WIN ? (uint32_t)ix->out_total : WIN;
    p->win = st_malloc(&ix->alloc, n ? n : 1);
    if (!p->win) return 0;
    /* the last n bytes of the circular window, oldest first */
    uint32_t start = (ix->wpos + WIN - n) % WIN;
    uint32_t first = WIN - start < n ? WIN - start : n;
    memcpy(p->win, ix->window + start, first);
    memcpy(p->win + first, ix->window, n - first);
    p->win_len = n;
    ix->bytes += n;
  }
  ix->count++;
  ix->last = ix->out_total;
  return 1;
}

static int start_stream(st_gzindex *ix) {
  if (!ix->zinit) {
    memset(&ix->zs, 0, sizeof ix->zs);
    ix->zs.zalloc = zalloc_fn;
    ix->zs.zfree = zfree_fn;
    ix->zs.opaque = &ix->alloc;
    if (inflateInit2(&ix->zs, 15 + 32) != Z_OK) return 0; /* gzip or zlib header */
    ix->zinit = 1;
  } else if (inflateReset(&ix->zs) != Z_OK) {
    return 0;
  }
  return add_point(ix, ix->in_total, 0, 1);
}

static st_code feed(st_gzindex *ix, const uint8_t *p, size_t len, st_error *err);

st_code st_gzindex_push(st_gzindex *ix, const void *data, size_t len, st_error *err) {
  if (!ix) return ST_ERR_ARG;
  if (ix->code != ST_OK) {
    if (err) *err = ix->err;
    return ix->code;
  }
  const uint8_t *p = data;
  if (ix->sniffed < 2) {
    while (ix->sniffed < 2 && len) {
      ix->sniff[ix->sniffed++] = *p++;
      len--;
    }
    if (ix->sniffed < 2) return ST_OK;
    int gz = ix->sniff[0] == 0x1f && ix->sniff[1] == 0x8b;
    int zl = (ix->sniff[0] & 0x0f) == 8 && (ix->sniff[0] >> 4) <= 7 &&
             ((unsigned)ix->sniff[0] * 256 + ix->sniff[1]) % 31 == 0;
    if (!gz && !zl) return fail(ix, ST_ERR_FORMAT, 0, "gzindex: not gzip or zlib data", err);
    ix->gzip = gz;
    if (!start_stream(ix)) return fail(ix, ST_ERR_NOMEM, 0, "gzindex: out of memory", err);
    st_code c = feed(ix, ix->sniff, 2, err);
    if (c != ST_OK) return c;
  }
  return feed(ix, p, len, err);
}

static st_code feed(st_gzindex *ix, const uint8_t *p, size_t len, st_error *err) {
  while (len) {
    if (ix->member_end) {
      /* another gzip member may follow; anything else ends the data */
      if (!ix->gzip || *p != 0x1f) {
        ix->ended = 1;
        return ST_OK;
      }
      ix->member_end = 0;
      if (!start_stream(ix))
        return fail(ix, ST_ERR_NOMEM, ix->in_total, "gzindex: out of memory", err);
    }
    if (ix->ended) return ST_OK;
    uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
    ix->zs.next_in = (Bytef *)(uintptr_t)p;
    ix->zs.avail_in = chunk;
    ix->zs.next_out = ix->window + ix->wpos;
    ix->zs.avail_out = WIN - ix->wpos;
    int ret = inflate(&ix->zs, Z_BLOCK);
    size_t used = chunk - ix->zs.avail_in;
    uint32_t made = (WIN - ix->wpos) - ix->zs.avail_out;
    ix->in_total += used;
    ix->out_total += made;
    ix->wpos = (ix->wpos + made) % WIN;
    p += used;
    len -= used;
    if (ret == Z_NEED_DICT || ret == Z_DATA_ERROR || ret == Z_MEM_ERROR)
      return fail(ix, ret == Z_MEM_ERROR ? ST_ERR_NOMEM : ST_ERR_GZIP, ix->in_total,
                  "gzindex: corrupt compressed data", err);
    if (ret == Z_STREAM_END) {
      ix->member_end = 1;
      continue;
    }
    /* at a block boundary (not after the last block): a restart point */
    if ((ix->zs.data_type & 128) && !(ix->zs.data_type & 64) &&
        ix->out_total - ix->last >= ix->span) {
      uint8_t bits = (uint8_t)(ix->zs.data_type & 7);
      if (!add_point(ix, ix->in_total - (bits ? 1 : 0), bits, 0))
        return fail(ix, ST_ERR_NOMEM, ix->in_total, "gzindex: out of memory", err);
    }
    if (ret == Z_BUF_ERROR && used == 0 && made == 0) break; /* needs more input */
  }
  return ST_OK;
}

st_code st_gzindex_finish(st_gzindex *ix, st_error *err) {
  if (!ix) return ST_ERR_ARG;
  if (ix->code != ST_OK) {
    if (err) *err = ix->err;
    return ix->code;
  }
  if (ix->sniffed < 2) return fail(ix, ST_ERR_FORMAT, 0, "gzindex: not gzip or zlib data", err);
  if (!ix->member_end && !ix->ended)
    return st_error_set(err, ST_ERR_TRUNCATED, ix->in_total, "gzindex: compressed data cut short");
  return ST_OK;
}

uint32_t st_gzindex_points(const st_gzindex *ix) { return ix ? ix->count : 0; }
uint64_t st_gzindex_decoded(const st_gzindex *ix) { return ix ? ix->out_total : 0; }

/* ---- reading ------------------------------------------------------------- */

struct st_gzread {
  st_alloc alloc;
  z_stream zs;
  int zinit, raw, gzip, done;
  int prime_pending; /* raw point with bits: the first byte primes */
  uint8_t bits;
  const point *pt;
  uint32_t trailer; /* bytes of a member trailer still to skip (raw mode) */
  uint64_t pos;     /* decoded offset of the next output byte */
  uint64_t want;    /* first decoded byte wanted */
  size_t len, got;
  uint8_t *buf;
  uint8_t scratch[16384];
};

st_gzread *st_gzread_begin(const st_gzindex *ix, uint64_t offset, size_t len, uint64_t *in_offset) {
  if (!ix || !ix->count || !len) return NULL;
  uint32_t lo = (uint32_t)st_bound_u64_at(ix->pts, ix->count, sizeof *ix->pts, offsetof(point, out),
                                          offset, ST_UPPER);
  lo = lo ? lo - 1 : 0; /* the last point with out <= offset */
  const point *pt = &ix->pts[lo];
  st_alloc al = ix->alloc;
  st_gzread *r = st_calloc(&al, 1, sizeof *r);
  if (!r) return NULL;
  r->alloc = al;
  r->buf = st_malloc(&al, len);
  if (!r->buf) {
    st_free(&al, r);
    return NULL;
  }
  r->len = len;
  r->pt = pt;
  r->pos = pt->out;
  r->want = offset;
  r->gzip = ix->gzip;
  r->zs.zalloc = zalloc_fn;
  r->zs.zfree = zfree_fn;
  r->zs.opaque = &r->alloc;
  r->raw = !pt->head;
  if (inflateInit2(&r->zs, r->raw ? -15 : 15 + 32) != Z_OK) {
    st_gzread_end(r);
    return NULL;
  }
  r->zinit = 1;
  if (r->raw) {
    r->bits = pt->bits;
    r->prime_pending = pt->bits != 0;
    if (!r->prime_pending && pt->win_len) inflateSetDictionary(&r->zs, pt->win, pt->win_len);
  }
  if (in_offset) *in_offset = pt->in;
  return r;
}

st_code st_gzread_push(st_gzread *r, const void *data, size_t len, int *done) {
  if (!r) return ST_ERR_ARG;
  const uint8_t *p = data;
  if (r->prime_pending && len) {
    inflatePrime(&r->zs, r->bits, p[0] >> (8 - r->bits));
    if (r->pt->win_len) inflateSetDictionary(&r->zs, r->pt->win, r->pt->win_len);
    r->prime_pending = 0;
    p++;
    len--;
  }
  while (len && !r->done) {
    if (r->trailer) {
      size_t k = len < r->trailer ? len : r->trailer;
      r->trailer -= (uint32_t)k;
      p += k;
      len -= k;
      if (r->trailer == 0) { /* the next member, with its header */
        inflateEnd(&r->zs);
        r->zinit = 0;
        if (inflateInit2(&r->zs, 15 + 32) != Z_OK) return ST_ERR_NOMEM;
        r->zinit = 1;
        r->raw = 0;
      }
      continue;
    }
    uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
    r->zs.next_in = (Bytef *)(uintptr_t)p;
    r->zs.avail_in = chunk;
    /* decode into the result once past the wanted offset, else into scratch */
    uint8_t *out;
    size_t room;
    if (r->pos >= r->want) {
      out = r->buf + r->got;
      room = r->len - r->got;
    } else {
      out = r->scratch;
      room = sizeof r->scratch;
      if (r->want - r->pos < room) room = (size_t)(r->want - r->pos);
    }
    r->zs.next_out = out;
    r->zs.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
    uInt avail0 = r->zs.avail_out;
    int ret = inflate(&r->zs, Z_NO_FLUSH);
    size_t used = chunk - r->zs.avail_in, made = avail0 - r->zs.avail_out;
    p += used;
    len -= used;
    if (r->pos >= r->want) r->got += made;
    r->pos += made;
    if (r->got >= r->len) r->done = 1;
    if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT) return ST_ERR_GZIP;
    if (ret == Z_MEM_ERROR) return ST_ERR_NOMEM;
    if (ret == Z_STREAM_END) {
      if (!r->gzip) {
        r->done = 1; /* zlib: one stream */
      } else if (r->raw) {
        r->trailer = 8; /* CRC32 + ISIZE, then maybe another member */
      } else if (inflateReset(&r->zs) != Z_OK) {
        return ST_ERR_NOMEM;
      }
      if (r->gzip && len && !r->raw && p[0] != 0x1f) r->done = 1;
    }
    if (ret == Z_BUF_ERROR && used == 0 && made == 0) break;
  }
  if (done) *done = r->done;
  return ST_OK;
}

const uint8_t *st_gzread_data(const st_gzread *r, size_t *len) {
  if (len) *len = r ? r->got : 0;
  return r ? r->buf : NULL;
}

void st_gzread_end(st_gzread *r) {
  if (!r) return;
  st_alloc a = r->alloc;
  if (r->zinit) inflateEnd(&r->zs);
  st_free(&a, r->buf);
  st_free(&a, r);
}

/* ---- saving and restoring ------------------------------------------------ */

int st_gzindex_point(const st_gzindex *ix, uint32_t i, st_gzpoint *out) {
  if (!ix || i >= ix->count) return 0;
  const point *p = &ix->pts[i];
  *out = (st_gzpoint){p->in, p->out, p->bits, p->head, p->win_len, p->win};
  return 1;
}

int st_gzindex_is_gzip(const st_gzindex *ix) { return ix ? ix->gzip : 0; }
uint64_t st_gzindex_span(const st_gzindex *ix) { return ix ? ix->span : 0; }
size_t st_gzindex_bytes(const st_gzindex *ix) {
  return ix ? ix->bytes + (size_t)ix->cap * sizeof(point) : 0;
}

st_gzindex *st_gzindex_restore(const st_alloc *a, int gzip, uint64_t span, uint64_t decoded) {
  st_gzindex *ix = st_gzindex_create(a, span);
  if (!ix) return NULL;
  ix->gzip = gzip != 0;
  ix->out_total = decoded;
  ix->sniffed = 2;
  ix->ended = 1;
  st_error_set(&ix->err, ST_ERR_ARG, 0, "gzindex: a restored index reads only");
  ix->code = ST_ERR_ARG;
  return ix;
}

st_code st_gzindex_restore_point(st_gzindex *ix, const st_gzpoint *p) {
  if (!ix || !p) return ST_ERR_ARG;
  const point *prev = ix->count ? &ix->pts[ix->count - 1] : NULL;
  int ok = p->bits <= 7 && p->win_len <= WIN && p->win_len <= p->out &&
           (p->head ? p->win_len == 0 && p->bits == 0 : p->win != NULL || p->win_len == 0) &&
           (prev ? p->out > prev->out && p->in > prev->in : p->head && p->in == 0 && p->out == 0) &&
           p->out <= ix->out_total;
  if (!ok) return ST_ERR_FORMAT;
  if (ix->count == ix->cap) {
    void *np = ix->pts;
    if (!st_grow32(&ix->alloc, &np, &ix->cap, ix->count + 1, sizeof *ix->pts, 16))
      return ST_ERR_NOMEM;
    ix->pts = np;
  }
  point *q = &ix->pts[ix->count];
  *q = (point){p->in, p->out, p->bits, p->head, p->win_len, NULL};
  if (p->win_len) {
    q->win = st_malloc(&ix->alloc, p->win_len);
    if (!q->win) return ST_ERR_NOMEM;
    memcpy(q->win, p->win, p->win_len);
    ix->bytes += p->win_len;
  }
  ix->count++;
  return ST_OK;
}

size_t st_gzwin_pack(const st_alloc *a, const uint8_t *win, uint32_t len, uint8_t **out) {
  st_alloc al = a ? *a : (st_alloc){0};
  z_stream z;
  memset(&z, 0, sizeof z);
  z.zalloc = zalloc_fn;
  z.zfree = zfree_fn;
  z.opaque = &al;
  *out = NULL;
  if (deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
  uLong cap = deflateBound(&z, len);
  uint8_t *buf = st_malloc(&al, cap ? cap : 1);
  size_t n = 0;
  if (buf) {
    z.next_in = (Bytef *)(uintptr_t)win;
    z.avail_in = len;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) == Z_STREAM_END) n = cap - z.avail_out;
  }
  deflateEnd(&z);
  if (!n)
    st_free(&al, buf);
  else
    *out = buf;
  return n;
}

int st_gzwin_unpack(const st_alloc *a, const uint8_t *in, size_t n, uint8_t *out, uint32_t len) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (len > WIN || n > UINT32_MAX) return 0;
  z_stream z;
  memset(&z, 0, sizeof z);
  z.zalloc = zalloc_fn;
  z.zfree = zfree_fn;
  z.opaque = &al;
  if (inflateInit2(&z, -15) != Z_OK) return 0;
  uint8_t extra;
  z.next_in = (Bytef *)(uintptr_t)in;
  z.avail_in = (uInt)n;
  z.next_out = len ? out : &extra;
  z.avail_out = len ? len : 1;
  int ret = inflate(&z, Z_FINISH);
  int ok = ret == Z_STREAM_END && z.total_out == len && z.avail_in == 0;
  inflateEnd(&z);
  return ok;
}
