/* args_search.c: streaming search in events' args (see args_search.h).
 *
 * One byte-level state machine over the decoded JSON: strings (with an
 * escape decoder used only inside "args"), container depth with one
 * array/object bit per level, the open event candidate, its top-level keys
 * (to find "args") and the extent of its args value. Needle matching is
 * Knuth-Morris-Pratt over ASCII-folded bytes, so a needle may span any
 * chunk boundary; the automaton restarts at each token. Bytes of strings
 * that are not fed to the matcher are skipped by a tight loop that stops
 * only at '"' and '\\'.
 */
#include "args_search.h"

#include "ascii_ci.h"

#include "import_perfetto.h"
#include "import_xplane.h"
#include "pb_stream.h"
#include "source.h"
#include "trace.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

enum { ARGS_NONE = 0, ARGS_PENDING, ARGS_CONTAINER, ARGS_STRING, ARGS_LITERAL };

struct st_args_search {
  st_alloc alloc;
  st_source *source;
  st_code status;
  st_error err;
  uint64_t pos; /* decoded offset of the next byte */
  /* needle */
  unsigned char *nd; /* lower-cased */
  uint32_t *fail;
  size_t m, k;
  /* structure */
  uint32_t depth;
  uint8_t is_arr[ST_ARGS_SEARCH_MAX_DEPTH + 1];
  int in_str, esc; /* esc: 0 none, 1 after '\', 2..5 reading \u hex digits */
  uint32_t hexv, hi_sur;
  /* the open event candidate */
  uint32_t ev_depth; /* 0: none */
  uint64_t ev_src;
  int ev_hit;
  int expect_key, in_key;
  unsigned char key[5];
  uint32_t keylen; /* 5: not "args" */
  int last_key_args;
  int args; /* ARGS_* */
  uint32_t args_depth;
  /* results */
  uint64_t *hits;
  size_t nhits, caphits;
  /* protobuf formats (XSpace, Perfetto): see pb_unit() */
  st_args_kind kind;
  const st_argsrc *as;
  st_pb_stream *pbs;
  uint64_t *evs; /* the model's event srcs, ascending, unique; freed at finish */
  size_t nevs, evi;
  st_args_search *inner; /* a JSON matcher run over each decoded args text */
  uint8_t *pkt;          /* Perfetto: one packet with its head, re-encoded */
  size_t pktcap;
  uint64_t decoded_events, skipped;
};

static void feed(st_args_search *s, unsigned char c) {
  if (s->ev_hit) return;
  c = st_ascii_lower(c);
  size_t k = s->k;
  while (k && s->nd[k] != c) k = s->fail[k - 1];
  if (s->nd[k] == c) k++;
  if (k == s->m) {
    s->ev_hit = 1;
    k = 0;
  }
  s->k = k;
}

static void feed_cp(st_args_search *s, uint32_t cp) {
  unsigned char b[4];
  size_t n = st_utf8_put(b, cp);
  for (size_t i = 0; i < n; i++) feed(s, b[i]);
}

/* A pending high surrogate not followed by a low one. */
static void flush_hi(st_args_search *s) {
  if (s->hi_sur) {
    s->hi_sur = 0;
    feed_cp(s, 0xFFFD);
  }
}

static void add_hit(st_args_search *s) {
  if (s->nhits == s->caphits) {
    void *p = s->hits;
    if (!st_grow_from(&s->alloc, &p, &s->caphits, s->nhits + 1, sizeof *s->hits, 64)) {
      s->status = st_error_set(&s->err, ST_ERR_NOMEM, s->ev_src, "out of memory");
      return;
    }
    s->hits = p;
  }
  s->hits[s->nhits++] = s->ev_src;
}

static int in_args(const st_args_search *s) { return s->args >= ARGS_CONTAINER; }

/* A string content byte (decoded). */
static void str_byte(st_args_search *s, unsigned char c) {
  if (s->in_key) {
    if (s->keylen < 4 && "args"[s->keylen] == c)
      s->keylen++;
    else
      s->keylen = 5;
  }
  if (in_args(s)) feed(s, c);
}

static void end_string(st_args_search *s) {
  s->in_str = 0;
  if (in_args(s)) {
    flush_hi(s);
    s->k = 0;
    if (s->args == ARGS_STRING) s->args = ARGS_NONE;
  }
  if (s->in_key) {
    s->in_key = 0;
    s->last_key_args = s->keylen == 4;
  }
}

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = st_ascii_lower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* One byte inside a string after a backslash. Returns 1 if c was consumed. */
static int escape_byte(st_args_search *s, unsigned char c) {
  if (!in_args(s) && !s->in_key) { /* only skip: \uXXXX holds no '"' or '\' */
    s->esc = 0;
    return 1;
  }
  if (s->esc == 1) {
    s->esc = 0;
    unsigned char d;
    switch (c) {
    case 'b': d = '\b'; break;
    case 'f': d = '\f'; break;
    case 'n': d = '\n'; break;
    case 'r': d = '\r'; break;
    case 't': d = '\t'; break;
    case 'u':
      s->esc = 2;
      s->hexv = 0;
      return 1;
    default: d = c; break; /* \" \\ \/ (and anything else as written) */
    }
    if (s->in_key) s->keylen = 5; /* an escaped key is never taken for "args" */
    if (in_args(s)) flush_hi(s);
    str_byte(s, d);
    return 1;
  }
  int h = hexval(c);
  if (h < 0) { /* malformed \u: U+FFFD, then c as a plain byte */
    s->esc = 0;
    if (in_args(s)) {
      flush_hi(s);
      feed_cp(s, 0xFFFD);
    }
    return 0;
  }
  s->hexv = s->hexv << 4 | (uint32_t)h;
  if (++s->esc < 6) return 1;
  s->esc = 0;
  if (s->in_key) s->keylen = 5;
  if (!in_args(s)) return 1;
  uint32_t cp = s->hexv;
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    flush_hi(s);
    s->hi_sur = cp;
    return 1;
  }
  if (cp >= 0xDC00 && cp <= 0xDFFF) {
    if (s->hi_sur) {
      cp = st_utf16_join(s->hi_sur, cp);
      s->hi_sur = 0;
    } else {
      cp = 0xFFFD;
    }
  } else {
    flush_hi(s);
  }
  feed_cp(s, cp);
  return 1;
}

/* A structural byte, or a literal's, outside strings. */
static void outside_byte(st_args_search *s, unsigned char c, uint64_t pos) {
  switch (c) {
  case '"':
    s->in_str = 1;
    s->esc = 0;
    s->hi_sur = 0;
    if (s->ev_depth && s->depth == s->ev_depth) {
      if (s->args == ARGS_PENDING) {
        s->args = ARGS_STRING;
      } else if (s->expect_key) {
        s->in_key = 1;
        s->keylen = 0;
      }
    }
    if (in_args(s)) s->k = 0;
    return;
  case '{':
  case '[':
    if (s->args == ARGS_PENDING && s->depth == s->ev_depth) {
      s->args = ARGS_CONTAINER;
      s->args_depth = s->depth + 1;
    }
    if (in_args(s)) s->k = 0;
    if (s->depth == UINT32_MAX) return;
    s->depth++;
    if (s->depth <= ST_ARGS_SEARCH_MAX_DEPTH) s->is_arr[s->depth] = c == '[';
    if (c == '{' && !s->ev_depth && s->depth >= 2 && s->depth - 1 <= ST_ARGS_SEARCH_MAX_DEPTH &&
        s->is_arr[s->depth - 1]) {
      s->ev_depth = s->depth;
      s->ev_src = pos;
      s->ev_hit = 0;
      s->expect_key = 1;
      s->in_key = 0;
      s->last_key_args = 0;
      s->args = ARGS_NONE;
      s->k = 0;
    }
    return;
  case '}':
  case ']':
    if (s->ev_depth && s->depth == s->ev_depth) { /* the event closes */
      if (s->ev_hit) add_hit(s);
      s->ev_depth = 0;
      s->args = ARGS_NONE;
    } else if (s->args == ARGS_CONTAINER && s->depth == s->args_depth) {
      s->args = ARGS_NONE;
    }
    s->k = 0;
    if (s->depth) s->depth--;
    return;
  case ',':
    if (s->ev_depth && s->depth == s->ev_depth) {
      s->expect_key = 1;
      s->last_key_args = 0;
      if (s->args != ARGS_CONTAINER) s->args = ARGS_NONE;
    }
    s->k = 0;
    return;
  case ':':
    if (s->ev_depth && s->depth == s->ev_depth) {
      s->expect_key = 0;
      if (s->last_key_args) s->args = ARGS_PENDING;
      s->last_key_args = 0;
    }
    s->k = 0;
    return;
  case ' ':
  case '\t':
  case '\n':
  case '\r': s->k = 0; return;
  default:
    if (s->args == ARGS_PENDING && s->depth == s->ev_depth) {
      s->args = ARGS_LITERAL;
      s->k = 0;
    }
    if (in_args(s)) feed(s, c);
    return;
  }
}

static st_code sink(void *ud, const uint8_t *data, size_t len) {
  st_args_search *s = ud;
  const uint8_t *p = data, *end = data + len;
  const unsigned char c0 = s->nd[0];
  const unsigned char c1 = c0 >= 'a' && c0 <= 'z' ? (unsigned char)(c0 - 32) : c0;
  while (p < end) {
    if (s->in_str && !s->esc) {
      if (!s->in_key && (!in_args(s) || s->ev_hit)) { /* skip the string */
        while (p < end && *p != '"' && *p != '\\') p++;
        if (p == end) break;
      } else if (!s->in_key && s->k == 0 && !s->hi_sur) { /* skip to the needle's first byte */
        while (p < end && *p != '"' && *p != '\\' && *p != c0 && *p != c1) p++;
        if (p == end) break;
      }
      unsigned char c = *p;
      if (c == '"') {
        end_string(s);
      } else if (c == '\\') {
        s->esc = 1;
      } else {
        if (s->hi_sur) flush_hi(s);
        str_byte(s, c);
      }
      p++;
    } else if (s->in_str) {
      if (escape_byte(s, *p)) p++;
    } else {
      outside_byte(s, *p, s->pos + (uint64_t)(p - data));
      p++;
    }
    if (s->status != ST_OK) break;
  }
  s->pos += len;
  return s->status;
}

/* ---- protobuf formats ---------------------------------------------------
 * The decoded input is framed into top-level units with pb_stream (XSpace:
 * each XPlane payload; Perfetto: each Trace.packet, with its head). Every
 * model event whose src lies inside the unit is decoded through the args
 * source's read protocol, every read served from the unit's bytes, and the
 * args JSON text is run through a JSON matcher (`inner`: the text is framed
 * as [{"args":TEXT}]), so the matching rule is the JSON path's. */

static void json_reset(st_args_search *s) {
  s->depth = 0;
  s->in_str = s->esc = 0;
  s->hexv = s->hi_sur = 0;
  s->ev_depth = 0;
  s->ev_hit = 0;
  s->expect_key = s->in_key = 0;
  s->keylen = 0;
  s->last_key_args = 0;
  s->args = ARGS_NONE;
  s->k = 0;
  s->nhits = 0;
}

/* 1 if the args text matches, 0 if not, -1 out of memory. */
static int match_text(st_args_search *in, const char *text, size_t n) {
  static const char pre[] = "[{\"args\":", post[] = "}]";
  json_reset(in);
  sink(in, (const uint8_t *)pre, sizeof pre - 1);
  sink(in, (const uint8_t *)text, n);
  sink(in, (const uint8_t *)post, sizeof post - 1);
  if (in->status != ST_OK) return -1;
  return in->nhits > 0;
}

/* Decodes the args of the event at src from the unit [base, base + len)
 * held at buf and matches them. ST_OK (hit recorded, or the event counted
 * as skipped) or ST_ERR_NOMEM. */
static st_code pb_event(st_args_search *s, uint64_t src, const uint8_t *buf, uint64_t base,
                        uint64_t len, st_error *err) {
  st_error e;
  memset(&e, 0, sizeof e);
  st_args_span rd;
  st_args_query *q = st_args_query_begin(s->as, src, &rd, &e);
  if (!q) {
    if (e.code == ST_ERR_NOMEM) return st_error_set(err, ST_ERR_NOMEM, src, "out of memory");
    s->skipped++;
    return ST_OK;
  }
  int more = 1;
  st_code c = ST_OK;
  while (more) {
    if (rd.offset < base || rd.offset - base >= len) { /* outside the unit */
      c = ST_ERR_ARG;
      break;
    }
    uint64_t avail = base + len - rd.offset;
    if (rd.length < avail) avail = rd.length;
    c = st_args_query_push(q, buf + (rd.offset - base), (size_t)avail, &more, &rd, &e);
    if (c != ST_OK) break;
  }
  if (c == ST_OK) {
    size_t n = 0;
    const char *text = st_args_query_result(q, &n, NULL);
    s->decoded_events++;
    int m = match_text(s->inner, text, n);
    if (m < 0) c = ST_ERR_NOMEM;
    if (m > 0) {
      s->ev_src = src;
      add_hit(s);
      if (s->status != ST_OK) c = ST_ERR_NOMEM;
    }
  } else if (c != ST_ERR_NOMEM) {
    s->skipped++;
    c = ST_OK;
  }
  st_args_query_end(q);
  if (c == ST_ERR_NOMEM) return st_error_set(err, ST_ERR_NOMEM, src, "out of memory");
  return ST_OK;
}

/* A varint of value v written in exactly k bytes (padded, as protozero does). */
static void put_varint_k(uint8_t *p, uint64_t v, size_t k) {
  for (size_t i = 0; i + 1 < k; i++, v >>= 7) p[i] = (uint8_t)(0x80 | (v & 0x7F));
  p[k - 1] = (uint8_t)(v & 0x7F);
}

static st_code pb_unit(void *ud, const st_pb_field *f, uint64_t data_offset, st_error *err) {
  st_args_search *s = ud;
  if (f->wire != ST_PB_LEN || f->num != 1) return ST_OK; /* XPlane / TracePacket only */
  int perfetto = s->kind == ST_ARGS_PERFETTO;
  uint64_t lo = perfetto ? f->offset : data_offset, hi = data_offset + f->len;
  while (s->evi < s->nevs && s->evs[s->evi] < lo) { /* in no unit */
    s->skipped++;
    s->evi++;
  }
  if (s->evi == s->nevs || s->evs[s->evi] >= hi) return ST_OK;
  const uint8_t *buf = f->data;
  if (perfetto) { /* the packet's head (tag, length) is not kept by the stream: re-encode it */
    uint64_t head = data_offset - f->offset;
    if (head < 2 || head > 20) {
      while (s->evi < s->nevs && s->evs[s->evi] < hi) s->skipped++, s->evi++;
      return ST_OK;
    }
    size_t need = (size_t)head + f->len;
    if (need > s->pktcap) {
      uint8_t *p = st_realloc(&s->alloc, s->pkt, need);
      if (!p) return st_error_set(err, ST_ERR_NOMEM, f->offset, "out of memory");
      s->pkt = p;
      s->pktcap = need;
    }
    size_t nl = head - 1 > 10 ? 10 : (size_t)head - 1, nt = (size_t)head - nl;
    put_varint_k(s->pkt, (1u << 3) | ST_PB_LEN, nt);
    put_varint_k(s->pkt + nt, f->len, nl);
    if (f->len) memcpy(s->pkt + head, f->data, f->len);
    buf = s->pkt;
  }
  for (; s->evi < s->nevs && s->evs[s->evi] < hi; s->evi++) {
    st_code c = pb_event(s, s->evs[s->evi], buf, lo, hi - lo, err);
    if (c != ST_OK) return c;
  }
  return ST_OK;
}

static st_code pb_sink(void *ud, const uint8_t *data, size_t len) {
  st_args_search *s = ud;
  st_error e;
  memset(&e, 0, sizeof e);
  st_code c = st_pb_stream_push(s->pbs, data, len, &e);
  if (c != ST_OK && s->status == ST_OK) {
    s->status = c;
    s->err = e;
  }
  s->pos += len;
  return s->status;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The model's event srcs and the end events' of its begin/end slices
 * (their args are the slice's too: st_trace_end_src), ascending and unique. */
static st_code gather_srcs(st_args_search *s, const st_trace *t) {
  uint32_t nrows;
  const st_row *rows = st_trace_rows(t, &nrows);
  size_t npairs;
  const st_end_src *pairs = st_trace_end_srcs(t, &npairs);
  size_t total = npairs;
  for (uint32_t r = 0; r < nrows; r++) total += rows[r].count; /* < 2^32 per row, rows < 2^32 */
  if (!total) return ST_OK;
  s->evs = st_realloc_array(&s->alloc, NULL, total, sizeof *s->evs);
  if (!s->evs) return ST_ERR_NOMEM;
  size_t n = 0;
  for (uint32_t r = 0; r < nrows; r++)
    for (uint32_t i = 0; i < rows[r].count; i++) s->evs[n++] = rows[r].src[i];
  for (size_t i = 0; i < npairs; i++) s->evs[n++] = pairs[i].end_src;
  qsort(s->evs, n, sizeof *s->evs, cmp_u64);
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (!w || s->evs[i] != s->evs[w - 1]) s->evs[w++] = s->evs[i];
  s->nevs = w;
  return ST_OK;
}

static st_args_search *create(const st_alloc *a, st_args_kind kind, const char *needle, size_t len,
                              int with_source, st_error *err) {
  if (!needle || !len || len > ST_ARGS_SEARCH_MAX_NEEDLE) {
    st_error_set(err, ST_ERR_ARG, 0, "the search text must be 1 to %u bytes",
                 ST_ARGS_SEARCH_MAX_NEEDLE);
    return NULL;
  }
  st_alloc al = a ? *a : (st_alloc){0};
  st_args_search *s = st_calloc(&al, 1, sizeof *s);
  if (!s) {
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  s->alloc = al;
  s->kind = kind;
  s->nd = st_malloc(&al, len + 1);
  s->fail = st_calloc(&al, len, sizeof *s->fail);
  if (with_source) s->source = st_source_create(&al, kind == ST_ARGS_JSON ? sink : pb_sink, s);
  if (!s->nd || !s->fail || (with_source && !s->source)) {
    st_args_search_destroy(s);
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < len; i++) s->nd[i] = st_ascii_lower((unsigned char)needle[i]);
  s->nd[len] = 0; /* never equal to a fed byte position past m (k < m always) */
  s->m = len;
  /* KMP failure function */
  size_t k = 0;
  for (size_t i = 1; i < len; i++) {
    while (k && s->nd[i] != s->nd[k]) k = s->fail[k - 1];
    if (s->nd[i] == s->nd[k]) k++;
    s->fail[i] = (uint32_t)k;
  }
  return s;
}

st_args_search *st_args_search_create(const st_alloc *a, st_args_kind kind, const char *needle,
                                      size_t len, st_error *err) {
  if (kind != ST_ARGS_JSON) {
    st_error_set(err, ST_ERR_FORMAT, 0, "args search is not available for %s traces",
                 kind == ST_ARGS_NONE ? "these" : st_argsrc_kind_name(kind));
    return NULL;
  }
  return create(a, kind, needle, len, 1, err);
}

st_args_search *st_args_search_create_for(const st_alloc *a, const st_argsrc *as, const st_trace *t,
                                          const char *needle, size_t len, st_error *err) {
  st_args_kind kind = st_argsrc_kind(as);
  if (kind == ST_ARGS_JSON) return create(a, kind, needle, len, 1, err);
  if ((kind != ST_ARGS_XPLANE && kind != ST_ARGS_PERFETTO) || !t) {
    st_error_set(err, ST_ERR_FORMAT, 0, "args search is not available for %s traces",
                 kind == ST_ARGS_NONE ? "these" : st_argsrc_kind_name(kind));
    return NULL;
  }
  st_args_search *s = create(a, kind, needle, len, 1, err);
  if (!s) return NULL;
  s->as = as;
  s->inner = create(a, ST_ARGS_JSON, needle, len, 0, err);
  s->pbs = st_pb_stream_create(
      &s->alloc, kind == ST_ARGS_XPLANE ? ST_XPLANE_PLANE_MAX : ST_PERFETTO_PACKET_MAX, pb_unit, s,
      kind == ST_ARGS_XPLANE ? "plane" : "packet");
  if (!s->inner || !s->pbs || gather_srcs(s, t) != ST_OK) {
    st_args_search_destroy(s);
    st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  return s;
}

void st_args_search_destroy(st_args_search *s) {
  if (!s) return;
  st_alloc a = s->alloc;
  st_source_destroy(s->source);
  st_pb_stream_destroy(s->pbs);
  st_args_search_destroy(s->inner);
  st_free(&a, s->evs);
  st_free(&a, s->pkt);
  st_free(&a, s->nd);
  st_free(&a, s->fail);
  st_free(&a, s->hits);
  st_free(&a, s);
}

static st_code report(st_args_search *s, st_code c, st_error *err) {
  if (c != ST_OK && s->status == ST_OK) s->status = c;
  if (s->status != ST_OK && err) {
    if (s->err.code != ST_OK)
      *err = s->err;
    else
      err->code = s->status;
  }
  return s->status;
}

st_code st_args_search_push(st_args_search *s, const void *data, size_t len, st_error *err) {
  if (!s) return st_error_set(err, ST_ERR_ARG, 0, "no search");
  if (s->status != ST_OK) return report(s, ST_OK, err);
  st_error e;
  memset(&e, 0, sizeof e);
  st_code c = st_source_push(s->source, data, len, &e);
  if (c != ST_OK && s->err.code == ST_OK) s->err = e;
  return report(s, c, err);
}

st_code st_args_search_finish(st_args_search *s, st_error *err) {
  if (!s) return st_error_set(err, ST_ERR_ARG, 0, "no search");
  if (s->status != ST_OK) return report(s, ST_OK, err);
  st_error e;
  memset(&e, 0, sizeof e);
  st_code c = st_source_finish(s->source, &e);
  if (c == ST_OK && s->pbs) {
    c = st_pb_stream_finish(s->pbs, &e);
    if (c == ST_ERR_TRUNCATED) c = ST_OK; /* the importer keeps what came whole */
    if (c == ST_OK) {
      s->skipped += s->nevs - s->evi; /* in no unit */
      s->evi = s->nevs;
    }
  }
  if (c != ST_OK && s->err.code == ST_OK) s->err = e;
  st_free(&s->alloc, s->evs);
  st_free(&s->alloc, s->pkt);
  s->evs = NULL;
  s->pkt = NULL;
  s->nevs = s->evi = 0;
  s->pktcap = 0;
  return report(s, c, err);
}

const uint64_t *st_args_search_hits(const st_args_search *s, size_t *count) {
  if (count) *count = s ? s->nhits : 0;
  return s ? s->hits : NULL;
}

uint64_t st_args_search_decoded(const st_args_search *s) { return s ? s->pos : 0; }
uint64_t st_args_search_skipped(const st_args_search *s) { return s ? s->skipped : 0; }
