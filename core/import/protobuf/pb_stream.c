/* pb_stream.c: chunk-fed framing of top-level protobuf fields (see
 * pb_stream.h).
 *
 * Two states: HEAD collects a field's tag and (for LEN) its length, at most
 * 20 bytes, in a small array when they straddle chunks; BODY collects a LEN
 * payload that did not arrive in one piece. The common case, a whole field
 * inside one chunk, is decoded in place. */
#include "pb_stream.h"

#include <string.h>

#define HEAD_MAX 20 /* tag varint + length varint, 10 bytes each at most */

struct st_pb_stream {
  st_alloc alloc;
  uint64_t max_len;
  st_pb_stream_fn fn;
  void *ud;
  const char *what;
  uint64_t pos; /* absolute offset of the next unconsumed byte */
  uint8_t head[HEAD_MAX];
  size_t nhead;
  /* BODY state */
  int in_body;
  st_pb_field field; /* tag part of the field being collected */
  uint64_t body_offset;
  uint8_t *buf;
  size_t len, cap, need;
  st_code code;
  st_error err;
};

st_pb_stream *st_pb_stream_create(const st_alloc *a, uint64_t max_len, st_pb_stream_fn fn, void *ud,
                                  const char *what) {
  st_pb_stream *s = st_calloc(a, 1, sizeof *s);
  if (!s) return NULL;
  s->alloc = a ? *a : (st_alloc){0};
  s->max_len = max_len;
  s->fn = fn;
  s->ud = ud;
  s->what = what ? what : "field";
  return s;
}

void st_pb_stream_destroy(st_pb_stream *s) {
  if (!s) return;
  st_alloc a = s->alloc;
  st_free(&a, s->buf);
  st_free(&a, s);
}

size_t st_pb_stream_buffer_bytes(const st_pb_stream *s) { return s ? s->cap : 0; }

static st_code stop(st_pb_stream *s, st_error *err, const st_error *e) {
  s->code = e->code;
  s->err = *e;
  if (err) *err = *e;
  return s->code;
}

static st_code deliver(st_pb_stream *s, const st_pb_field *f, uint64_t data_offset, st_error *err) {
  st_error e;
  memset(&e, 0, sizeof e);
  st_code c = s->fn(s->ud, f, data_offset, &e);
  if (c != ST_OK) {
    if (e.code == ST_OK) st_error_set(&e, c, f->offset, "%s", st_code_name(c));
    return stop(s, err, &e);
  }
  return ST_OK;
}

/* Parses a field head at p[0..n). Returns bytes used (>0), 0 if more bytes
 * are needed, -1 on error (e set). For LEN, f->len is the declared length
 * and f->data is unset. */
static int parse_head(st_pb_stream *s, const uint8_t *p, size_t n, st_pb_field *f, st_error *e) {
  uint64_t tag, at = s->pos;
  const uint8_t *end = p + n;
  int k = st_pb_varint(p, end, &tag);
  if (k == 0) return 0;
  if (k < 0) {
    st_error_set(e, ST_ERR_PROTO, at, "protobuf: %s tag is an over-long varint", s->what);
    return -1;
  }
  uint64_t num = tag >> 3;
  unsigned wire = (unsigned)(tag & 7);
  if (num == 0 || num > ST_PB_MAX_FIELD) {
    st_error_set(e, ST_ERR_PROTO, at,
                 "protobuf: invalid top-level field number %llu (not a %s record)",
                 (unsigned long long)num, s->what);
    return -1;
  }
  f->num = (uint32_t)num;
  f->wire = (uint8_t)wire;
  f->offset = at;
  f->u = 0;
  f->data = NULL;
  f->len = 0;
  const uint8_t *q = p + k;
  switch (wire) {
  case ST_PB_VARINT:
    k = st_pb_varint(q, end, &f->u);
    if (k == 0) return 0;
    if (k < 0) {
      st_error_set(e, ST_ERR_PROTO, at + (uint64_t)(q - p),
                   "protobuf: varint of top-level field %u is longer than 10 bytes", (unsigned)num);
      return -1;
    }
    return (int)(q - p) + k;
  case ST_PB_I64:
  case ST_PB_I32: {
    size_t w = wire == ST_PB_I64 ? 8 : 4;
    if ((size_t)(end - q) < w) return 0;
    uint64_t v = 0;
    for (size_t i = w; i-- > 0;) v = (v << 8) | q[i];
    f->u = v;
    return (int)((size_t)(q - p) + w);
  }
  case ST_PB_LEN: {
    uint64_t len;
    k = st_pb_varint(q, end, &len);
    if (k == 0) return 0;
    if (k < 0) {
      st_error_set(e, ST_ERR_PROTO, at + (uint64_t)(q - p),
                   "protobuf: length of a %s is an over-long varint", s->what);
      return -1;
    }
    if (len > s->max_len || len > (uint64_t)SIZE_MAX) {
      st_error_set(
          e, ST_ERR_LIMIT, at + (uint64_t)(q - p),
          "protobuf: a %s claims %llu bytes, more than the %llu-byte limit (corrupt file?)",
          s->what, (unsigned long long)len, (unsigned long long)s->max_len);
      return -1;
    }
    f->len = (size_t)len;
    return (int)(q - p) + k;
  }
  default:
    st_error_set(e, ST_ERR_PROTO, at,
                 "protobuf: top-level field %u has wire type %u (%s); not a %s stream",
                 (unsigned)num, wire, st_pb_wire_name(wire), s->what);
    return -1;
  }
}

/* Makes room for `want` payload bytes of a `total`-byte field, growing
 * geometrically with what has arrived, never past `total`. */
static int reserve(st_pb_stream *s, size_t want, size_t total) {
  void *v = s->buf;
  int ok = st_grow_upto(&s->alloc, &v, &s->cap, want, 1, 4096, total);
  s->buf = v;
  return ok;
}

st_code st_pb_stream_push(st_pb_stream *s, const uint8_t *data, size_t n, st_error *err) {
  if (!s) return st_error_set(err, ST_ERR_ARG, 0, "no stream");
  if (s->code != ST_OK) {
    if (err) *err = s->err;
    return s->code;
  }
  st_error e;
  memset(&e, 0, sizeof e);
  while (n > 0) {
    if (s->in_body) {
      size_t take = n < s->need ? n : s->need;
      if (!reserve(s, s->len + take, s->len + s->need)) {
        st_error_set(&e, ST_ERR_NOMEM, s->pos, "out of memory (a %s of %llu bytes)", s->what,
                     (unsigned long long)(s->len + s->need));
        return stop(s, err, &e);
      }
      memcpy(s->buf + s->len, data, take);
      s->len += take;
      s->need -= take;
      s->pos += take;
      data += take;
      n -= take;
      if (s->need == 0) {
        s->in_body = 0;
        s->field.data = s->buf;
        s->field.len = s->len;
        st_code c = deliver(s, &s->field, s->body_offset, err);
        if (c != ST_OK) return c;
      }
      continue;
    }
    st_pb_field f;
    int used;
    size_t from_head = s->nhead;
    if (s->nhead == 0) {
      used = parse_head(s, data, n, &f, &e);
      if (used == 0) { /* the head straddles the chunk end */
        if (n >= HEAD_MAX) {
          st_error_set(&e, ST_ERR_PROTO, s->pos, "protobuf: malformed %s header", s->what);
          return stop(s, err, &e);
        }
        memcpy(s->head, data, n);
        s->nhead = n;
        return ST_OK; /* pos advances once the head is complete */
      }
    } else {
      size_t take = HEAD_MAX - s->nhead < n ? HEAD_MAX - s->nhead : n;
      memcpy(s->head + s->nhead, data, take);
      used = parse_head(s, s->head, s->nhead + take, &f, &e);
      if (used == 0) {
        if (s->nhead + take >= HEAD_MAX) {
          st_error_set(&e, ST_ERR_PROTO, s->pos, "protobuf: malformed %s header", s->what);
          return stop(s, err, &e);
        }
        s->nhead += take;
        return ST_OK;
      }
    }
    if (used < 0) return stop(s, err, &e);
    /* bytes of this chunk that the head used */
    size_t in_chunk = (size_t)used - from_head;
    s->nhead = 0;
    s->pos += (uint64_t)used;
    data += in_chunk;
    n -= in_chunk;
    if (f.wire != ST_PB_LEN) {
      st_code c = deliver(s, &f, 0, err);
      if (c != ST_OK) return c;
      continue;
    }
    if (f.len <= n) { /* whole payload here: in place */
      f.data = data;
      uint64_t off = s->pos;
      s->pos += f.len;
      data += f.len;
      n -= f.len;
      st_code c = deliver(s, &f, off, err);
      if (c != ST_OK) return c;
      continue;
    }
    s->in_body = 1;
    s->field = f;
    s->body_offset = s->pos;
    s->len = 0;
    s->need = f.len;
  }
  return ST_OK;
}

st_code st_pb_stream_finish(st_pb_stream *s, st_error *err) {
  if (!s) return st_error_set(err, ST_ERR_ARG, 0, "no stream");
  if (s->code != ST_OK) {
    if (err) *err = s->err;
    return s->code;
  }
  st_error e;
  memset(&e, 0, sizeof e);
  if (s->in_body) {
    st_error_set(&e, ST_ERR_TRUNCATED, s->field.offset,
                 "truncated: input ended inside a %s (field %u: %llu of %llu bytes present)",
                 s->what, (unsigned)s->field.num, (unsigned long long)s->len,
                 (unsigned long long)(s->len + s->need));
    return stop(s, err, &e);
  }
  if (s->nhead) {
    st_error_set(&e, ST_ERR_TRUNCATED, s->pos, "truncated: input ended inside a %s header",
                 s->what);
    return stop(s, err, &e);
  }
  /* release the body buffer: the import is over */
  st_free(&s->alloc, s->buf);
  s->buf = NULL;
  s->cap = 0;
  return ST_OK;
}

st_code st_pb_status_record(st_pb_status *st, st_code c, const st_error *e, st_error *err) {
  if (c != ST_OK && st->code == ST_OK) {
    st->code = c;
    st->err = *e;
  }
  if (err && st->code != ST_OK) *err = st->err;
  return st->code;
}

st_code st_pb_stream_push_kept(st_pb_stream *s, st_pb_status *st, const uint8_t *data, size_t len,
                               st_error *err) {
  if (st->code != ST_OK) return st_pb_status_record(st, ST_OK, NULL, err);
  st_error e;
  memset(&e, 0, sizeof e);
  return st_pb_status_record(st, st_pb_stream_push(s, data, len, &e), &e, err);
}

st_code st_pb_stream_finish_kept(st_pb_stream *s, st_pb_status *st, st_error *err) {
  if (st->code == ST_OK) {
    st_error e;
    memset(&e, 0, sizeof e);
    st_pb_status_record(st, st_pb_stream_finish(s, &e), &e, err);
  }
  return st->code;
}
