/* xplane_args.c: an XSpace event's args (argsrc_internal.h): the XEvent's
 * stats and its XEventMetadata's (display name -> long_name, metadata
 * stats), read from the file on demand; compressed text stats inflated.
 */
#include "argsrc_internal.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

static const txt *xp_stat_name(const st_argsrc *as, const xp_plane *p, uint64_t id) {
  uint32_t i = st_u64map_get(&p->stats, id);
  return i == ST_U64MAP_NONE ? NULL : &as->xstats[i];
}

/* compressed_str_value: gzip/zlib text, inflated up to STR_MAX bytes. */
static void xp_inflated(jb *b, const uint8_t *data, size_t len) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  uint8_t *out = st_malloc(b->o.alloc, STR_MAX);
  if (!out || inflateInit2(&zs, 15 + 32) != Z_OK) {
    st_free(b->o.alloc, out);
    jb_cstr(b, "<compressed text>");
    return;
  }
  zs.next_in = (Bytef *)(uintptr_t)data;
  zs.avail_in = len > 1u << 30 ? 1u << 30 : (uInt)len;
  zs.next_out = out;
  zs.avail_out = (uInt)STR_MAX;
  int r = inflate(&zs, Z_FINISH);
  size_t got = STR_MAX - zs.avail_out;
  inflateEnd(&zs);
  if (r == Z_STREAM_END || (r == Z_BUF_ERROR && zs.avail_out == 0)) {
    jb_str(b, out, got);
  } else {
    char tmp[64];
    snprintf(tmp, sizeof tmp, "<%zu bytes compressed>", len);
    jb_cstr(b, tmp);
  }
  st_free(b->o.alloc, out);
}

/* One XStat (payload in r) as "name": "value". */
static st_code xp_stat(const st_argsrc *as, const xp_plane *p, st_pb_reader *r, jb *b, int *first,
                       st_error *err) {
  st_pb_field f, val;
  uint64_t mid = 0;
  int has = 0, k;
  memset(&val, 0, sizeof val);
  while ((k = st_pb_next(r, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT)
      mid = f.u;
    else if (f.num >= 2 && f.num <= 8)
      val = f, has = 1;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!has) return ST_OK;
  const txt *nm = xp_stat_name(as, p, mid);
  if (nm && nm->len && as->text[nm->off] == '_') return ST_OK; /* internal */
  if (!jb_sep(b, first)) return ST_OK;
  char num[48];
  if (nm) {
    jb_str(b, (const uint8_t *)as->text + nm->off, nm->len);
  } else {
    snprintf(num, sizeof num, "stat %llu", (unsigned long long)mid);
    jb_cstr(b, num);
  }
  jb_put(b, ": ", 2);
  switch (val.num) {
  case 2: jb_fmt_double(num, sizeof num, st_pb_double(val.u)); break;
  case 3: snprintf(num, sizeof num, "%llu", (unsigned long long)val.u); break;
  case 4: snprintf(num, sizeof num, "%lld", (long long)st_pb_i64(val.u)); break;
  case 5:
    if (val.wire != ST_PB_LEN) break;
    jb_str(b, val.data, val.len);
    return ST_OK;
  case 7: {
    const txt *ref = xp_stat_name(as, p, val.u);
    jb_str(b, ref ? (const uint8_t *)as->text + ref->off : (const uint8_t *)"", ref ? ref->len : 0);
    return ST_OK;
  }
  case 8:
    if (val.wire != ST_PB_LEN) break;
    xp_inflated(b, val.data, val.len);
    return ST_OK;
  default: snprintf(num, sizeof num, "<%zu bytes>", val.len); break;
  }
  if (val.num >= 2 && val.num <= 4 && val.wire == (val.num == 2 ? ST_PB_I64 : ST_PB_VARINT))
    jb_cstr(b, num);
  else if (val.num == 6)
    jb_cstr(b, num);
  else
    jb_cstr(b, "<malformed>");
  return ST_OK;
}

/* Every stat (field `num`) of a message. */
static st_code xp_stats(const st_argsrc *as, const xp_plane *p, st_pb_reader r, uint32_t num, jb *b,
                        int *first, st_error *err) {
  st_pb_field f;
  st_pb_reader sr;
  int k;
  while ((k = st_pb_next(&r, &f, err)) > 0) {
    if (f.num != num || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&r, &f, &sr, err) != ST_OK) return err->code;
    st_code c = xp_stat(as, p, &sr, b, first, err);
    if (c != ST_OK) return c;
  }
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}

static st_code xp_output(st_args_query *q, const uint8_t *meta, size_t mlen, uint64_t meta_origin,
                         st_error *err) {
  const xp_plane *p = &q->as->planes[q->plane];
  jb *b = &q->out;
  int first = 1;
  st_pb_reader r;
  jb_put(b, "{", 1);
  if (meta) {
    st_pb_field f, name, disp;
    int k;
    memset(&name, 0, sizeof name);
    memset(&disp, 0, sizeof disp);
    st_pb_reader_init(&r, meta, mlen, meta_origin);
    r.depth = 3;
    st_pb_reader r0 = r;
    while ((k = st_pb_next(&r, &f, err)) > 0) {
      if (f.num == 2 && f.wire == ST_PB_LEN) name = f;
      if (f.num == 4 && f.wire == ST_PB_LEN) disp = f;
    }
    if (k < 0) return ST_ERR_PROTO;
    if (disp.len && jb_sep(b, &first)) {
      jb_cstr(b, "long_name");
      jb_put(b, ": ", 2);
      jb_str(b, name.data, name.len);
    }
    st_code c = xp_stats(q->as, p, r0, 5, b, &first, err);
    if (c != ST_OK) return c;
  }
  st_pb_reader_init(&r, q->ev, q->nev, q->ev_origin);
  r.depth = 3;
  st_code c = xp_stats(q->as, p, r, 4, b, &first, err);
  if (c != ST_OK) return c;
  jb_put(b, "}", 1);
  return ST_OK;
}

st_code argsrc_step_xplane(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_args_span *read, st_error *err) {
  const xp_plane *p = &q->as->planes[q->plane];
  if (q->state == 1) { /* the metadata record */
    if (len < q->want)
      return st_error_set(err, ST_ERR_TRUNCATED, q->want_off,
                          "the input ends inside the XEventMetadata");
    st_code c = xp_output(q, data, (size_t)q->want, q->want_off, err);
    return c == ST_OK ? argsrc_finish(q, more, err) : c;
  }
  const uint8_t *pl;
  size_t n = 0;
  st_code c = argsrc_record_at(q, data, len, (4u << 3) | 2u, "XEvent", &pl, &n, more, read, err);
  if (c != ST_OK || !pl) return c;
  uint64_t origin = q->src + (uint64_t)(pl - data);
  if (origin + n > p->off + p->len)
    return st_error_set(err, ST_ERR_PROTO, q->src, "the XEvent at byte %llu runs past its plane",
                        (unsigned long long)q->src);
  q->ev = st_malloc(&q->alloc, n ? n : 1);
  if (!q->ev) return st_error_set(err, ST_ERR_NOMEM, q->src, "out of memory");
  if (n) memcpy(q->ev, pl, n);
  q->nev = n;
  q->ev_origin = origin;
  st_pb_reader r;
  st_pb_field f;
  int k;
  uint64_t mid = 0;
  st_pb_reader_init(&r, q->ev, n, origin);
  r.depth = 3;
  while ((k = st_pb_next(&r, &f, err)) > 0)
    if (f.num == 1 && f.wire == ST_PB_VARINT) mid = f.u;
  if (k < 0) return ST_ERR_PROTO;
  uint32_t mi = st_u64map_get(&p->evs, mid);
  if (mi != ST_U64MAP_NONE) {
    q->state = 1;
    return argsrc_ask(q, q->as->xevs[mi].off, q->as->xevs[mi].len, more, read, err);
  }
  c = xp_output(q, NULL, 0, 0, err);
  return c == ST_OK ? argsrc_finish(q, more, err) : c;
}
