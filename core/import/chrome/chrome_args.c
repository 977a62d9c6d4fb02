/* chrome_args.c: the "args" of one event object as compact, valid JSON (see
 * chrome_args.h), and the args source's Chrome JSON step (argsrc_internal.h).
 *
 * A small recursive-descent reader over pointer + length. Emitting recurses
 * at most ST_ARGS_MAX_DEPTH levels; anything deeper, and every member other
 * than "args", is skipped by an iterative scanner, so hostile nesting cannot
 * exhaust the stack. Output goes through a writer that keeps back room for
 * closing every open container and for cutting a string with an ellipsis;
 * a member or element that does not fit is rolled back whole, so the text
 * stays valid JSON.
 */
#include "chrome_args.h"

#include "argsrc_internal.h"
#include "json_out.h"
#include "json_scan.h"

#include <string.h>

#define ELLIPSIS "\xE2\x80\xA6"
#define RESERVE (ST_ARGS_MAX_DEPTH + 2 + 8) /* closers + a cut string's tail */

typedef struct rd {
  const unsigned char *s;
  size_t n, i;
  int eof; /* ran off the end */
  int bad; /* malformed */
  size_t bad_at;
} rd;

typedef struct wr {
  char *out;
  size_t n, limit; /* limit: bytes usable before the reserve */
  int full;        /* something did not fit: emit nothing more */
} wr;

static void fail(rd *r) {
  if (!r->bad && !r->eof) {
    r->bad = 1;
    r->bad_at = r->i;
  }
}

static int ws(rd *r) {
  while (r->i < r->n) {
    unsigned char c = r->s[r->i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return 1;
    r->i++;
  }
  r->eof = 1;
  return 0;
}

/* Writes bytes if they fit below the limit. */
static int put(wr *w, const char *p, size_t k) {
  if (w->full || w->n > w->limit || k > w->limit - w->n) {
    w->full = 1;
    return 0;
  }
  memcpy(w->out + w->n, p, k);
  w->n += k;
  return 1;
}

/* Writes into the reserve (closers, a cut string's tail): always fits. */
static void put_reserved(wr *w, const char *p, size_t k) {
  memcpy(w->out + w->n, p, k);
  w->n += k;
}

/* ---- skipping (iterative) ------------------------------------------------ */

static void skip_string(rd *r) { /* at the opening quote */
  r->i++;
  while (r->i < r->n) {
    unsigned char c = r->s[r->i++];
    if (c == '"') return;
    if (c == '\\') r->i++;
  }
  r->eof = 1;
}

static void skip_value(rd *r) {
  if (!ws(r)) return;
  unsigned char c = r->s[r->i];
  if (c == '"') {
    skip_string(r);
    return;
  }
  if (c == '{' || c == '[') {
    size_t depth = 0;
    while (r->i < r->n) {
      c = r->s[r->i];
      if (c == '"') {
        skip_string(r);
        if (r->eof) return;
        continue;
      }
      r->i++;
      if (c == '{' || c == '[') depth++;
      if (c == '}' || c == ']') {
        if (--depth == 0) return;
      }
    }
    r->eof = 1;
    return;
  }
  size_t start = r->i;
  while (r->i < r->n) {
    c = r->s[r->i];
    if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r') break;
    r->i++;
  }
  if (r->i == r->n) r->eof = 1;
  if (r->i == start) fail(r);
}

/* ---- emitting ------------------------------------------------------------ */

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static long hex4(rd *r, size_t at) {
  if (at + 4 > r->n) return -2;
  long v = 0;
  for (int k = 0; k < 4; k++) {
    int h = hexval(r->s[at + (size_t)k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/* Emits a string, cutting it with an ellipsis when room runs out (then the
 * writer is full but the string is complete). 0 if not even the opening
 * quote fit (caller rolls back). */
static int emit_string(rd *r, wr *w) {
  if (!put(w, "\"", 1)) {
    skip_string(r);
    return 0;
  }
  r->i++;
  char tmp[16];
  while (r->i < r->n) {
    unsigned char c = r->s[r->i];
    const char *p = (const char *)&r->s[r->i];
    size_t in = 1, k = 1;
    if (c == '"') {
      r->i++;
      if (!put(w, "\"", 1)) goto cut_done;
      return 1;
    }
    if (c == '\\') {
      if (r->i + 1 >= r->n) {
        r->eof = 1;
        return 0;
      }
      unsigned char e = r->s[r->i + 1];
      if (e == 'u') {
        uint32_t cp;
        int u = st_json_u_escape(r->s + r->i, r->n - r->i, &cp);
        if (u < 0) {
          r->eof = 1;
          return 0;
        }
        if (u == 0) {
          fail(r);
          return 0;
        }
        in = k = (size_t)u;                        /* kept as written (a pair too) */
        if (u == 6 && cp == 0xFFFD) p = "\\ufffd"; /* a lone surrogate */
      } else if (strchr("\"\\/bfnrt", e) && e) {
        in = k = 2;
      } else {
        fail(r);
        return 0;
      }
    } else if (c < 0x20 || c >= 0x80) {
      /* a raw control character (\u00XX) or a UTF-8 sequence (an invalid
       * byte: U+FFFD, one byte consumed), the way json_out.h writes them */
      in = c < 0x20 ? 1 : st_utf8_len(r->s + r->i, r->n - r->i);
      if (!in) in = 1;
      st_jout e = {.buf = tmp, .cap = sizeof tmp};
      st_jout_esc(&e, p, in, ST_JESC_UTF8);
      p = tmp;
      k = e.len;
    }
    if (!put(w, p, k)) goto cut;
    r->i += in;
  }
  r->eof = 1;
  return 0;
cut:
  /* skip the rest of the input string, then close the cut one */
  while (r->i < r->n) {
    unsigned char c = r->s[r->i++];
    if (c == '"') break;
    if (c == '\\') r->i++;
    if (r->i >= r->n) {
      r->eof = 1;
      return 0;
    }
  }
  put_reserved(w, ELLIPSIS "\"", sizeof ELLIPSIS);
  return 1;
cut_done:
  put_reserved(w, "\"", 1);
  return 1;
}

static int emit_value(rd *r, wr *w, int depth);

/* Members of an object or elements of an array; at the opening bracket. */
static int emit_container(rd *r, wr *w, int depth, int object) {
  char close = object ? '}' : ']';
  if (!put(w, object ? "{" : "[", 1)) {
    skip_value(r);
    return 0;
  }
  r->i++;
  int first = 1;
  for (;;) {
    if (!ws(r)) return 0;
    if (r->s[r->i] == (unsigned char)close) {
      r->i++;
      break;
    }
    if (!first) {
      if (r->s[r->i] != ',') {
        fail(r);
        return 0;
      }
      r->i++;
      if (!ws(r)) return 0;
    }
    size_t mark = w->n;
    int ok = !w->full;
    if (ok && !first) ok = put(w, ",", 1);
    if (object) {
      if (r->s[r->i] != '"') {
        fail(r);
        return 0;
      }
      if (ok)
        ok = emit_string(r, w) && !w->full; /* a cut key is no key */
      else
        skip_string(r);
      if (r->eof || r->bad || !ws(r)) return 0;
      if (r->s[r->i] != ':') {
        fail(r);
        return 0;
      }
      r->i++;
      if (ok) ok = put(w, ":", 1);
    }
    if (ok)
      ok = emit_value(r, w, depth + 1);
    else
      skip_value(r);
    if (r->eof || r->bad) return 0;
    if (!ok) { /* drop the member that did not fit; emit nothing more */
      w->n = mark;
      w->full = 1;
    }
    first = 0;
  }
  put_reserved(w, &close, 1);
  return 1;
}

static int emit_literal(rd *r, wr *w) {
  static const char *lits[] = {"true", "false", "null"};
  for (int k = 0; k < 3; k++) {
    size_t l = strlen(lits[k]);
    if (r->n - r->i >= l && !memcmp(r->s + r->i, lits[k], l)) {
      r->i += l;
      return put(w, lits[k], l);
    }
    if (r->n - r->i < l && !memcmp(r->s + r->i, lits[k], r->n - r->i)) {
      r->eof = 1;
      return 0;
    }
  }
  fail(r);
  return 0;
}

static int emit_number(rd *r, wr *w) {
  size_t a = r->i;
  unsigned char c = r->s[a];
  if (c != '-' && !(c >= '0' && c <= '9')) {
    fail(r);
    return 0;
  }
  while (r->i < r->n) {
    c = r->s[r->i];
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
      break;
    r->i++;
  }
  if (r->i == r->n) {
    r->eof = 1;
    return 0;
  }
  c = r->s[r->i - 1];
  if (!(c >= '0' && c <= '9')) { /* "-", "1.", "1e" */
    fail(r);
    return 0;
  }
  return put(w, (const char *)r->s + a, r->i - a);
}

static int emit_value(rd *r, wr *w, int depth) {
  if (!ws(r)) return 0;
  unsigned char c = r->s[r->i];
  if ((c == '{' || c == '[') && depth > ST_ARGS_MAX_DEPTH) {
    skip_value(r);
    return put(w, "\"" ELLIPSIS "\"", sizeof ELLIPSIS + 1);
  }
  if (c == '{') return emit_container(r, w, depth, 1);
  if (c == '[') return emit_container(r, w, depth, 0);
  if (c == '"') return emit_string(r, w);
  if (c == 't' || c == 'f' || c == 'n') return emit_literal(r, w);
  return emit_number(r, w);
}

/* Reads a key at the opening quote; 1 if it is exactly "args" (escapes
 * decoded). */
static int key_is_args(rd *r) {
  char buf[5];
  size_t k = 0;
  int ok = 1;
  r->i++;
  while (r->i < r->n) {
    unsigned char c = r->s[r->i++];
    if (c == '"') return ok && k == 4 && !memcmp(buf, "args", 4);
    if (c == '\\') {
      if (r->i >= r->n) break;
      unsigned char e = r->s[r->i++];
      if (e == 'u') {
        long v = hex4(r, r->i);
        if (v == -2) break;
        r->i += 4;
        c = v > 0 && v < 0x80 ? (unsigned char)v : 0;
      } else {
        c = e;
      }
    }
    if (k < 4 && c)
      buf[k++] = (char)c;
    else
      ok = 0;
  }
  r->eof = 1;
  return 0;
}

st_code st_args_extract(const char *json, size_t len, char *out, size_t cap, size_t *out_len,
                        int *truncated, st_error *err) {
  if (truncated) *truncated = 0;
  if (out_len) *out_len = 0;
  if (!out || cap < 64 || (!json && len)) {
    if (out && cap) out[0] = 0;
    return st_error_set(err, ST_ERR_ARG, 0, "args: bad arguments");
  }
  rd r = {(const unsigned char *)json, len, 0, 0, 0, 0};
  wr w = {out, 0, cap > RESERVE + 1 ? cap - 1 - RESERVE : 0, 0};
  int found = 0;
  if (ws(&r) && r.s[r.i] != '{') fail(&r);
  if (!r.eof && !r.bad) {
    r.i++;
    int first = 1;
    while (!found && ws(&r)) {
      if (r.s[r.i] == '}') break;
      if (!first) {
        if (r.s[r.i] != ',') {
          fail(&r);
          break;
        }
        r.i++;
        if (!ws(&r)) break;
      }
      first = 0;
      if (r.s[r.i] != '"') {
        fail(&r);
        break;
      }
      int is_args = key_is_args(&r);
      if (r.eof || !ws(&r)) break;
      if (r.s[r.i] != ':') {
        fail(&r);
        break;
      }
      r.i++;
      if (is_args) {
        if (!ws(&r)) break;
        emit_value(&r, &w, 1);
        found = !r.eof && !r.bad;
        if (found && w.n == 0) put_reserved(&w, "\"" ELLIPSIS "\"", sizeof ELLIPSIS + 1);
      } else {
        skip_value(&r);
      }
      if (r.eof || r.bad) break;
    }
  }
  if (found) {
    out[w.n] = 0;
    if (out_len) *out_len = w.n;
    if (truncated) *truncated = w.full;
    if (err) memset(err, 0, sizeof *err);
    return ST_OK;
  }
  memcpy(out, "{}", 3);
  if (out_len) *out_len = 2;
  if (r.bad)
    return st_error_set(err, ST_ERR_JSON, r.bad_at, "args: malformed JSON at byte %zu", r.bad_at);
  if (r.eof) return st_error_set(err, ST_ERR_TRUNCATED, len, "args: the event object is cut short");
  if (err) memset(err, 0, sizeof *err);
  return ST_OK; /* an object without args */
}

/* ---- merging a B/E pair's args (st_args_merge) ---------------------------- */

typedef struct member { /* [k0, k1): the key with its quotes; [v0, v1): the value */
  size_t k0, k1, v0, v1;
} member;

/* The next member of an object whose '{' was consumed: 1 (m set), 0 at its
 * '}', -1 if malformed or cut short. */
static int next_member(rd *r, int *first, member *m) {
  if (!ws(r)) return -1;
  if (r->s[r->i] == '}') {
    r->i++;
    return 0;
  }
  if (!*first) {
    if (r->s[r->i] != ',') return -1;
    r->i++;
    if (!ws(r)) return -1;
  }
  *first = 0;
  if (r->s[r->i] != '"') return -1;
  m->k0 = r->i;
  skip_string(r);
  if (r->eof) return -1;
  m->k1 = r->i;
  if (!ws(r) || r->s[r->i] != ':') return -1;
  r->i++;
  if (!ws(r)) return -1;
  m->v0 = r->i;
  skip_value(r);
  if (r->eof || r->bad) return -1;
  m->v1 = r->i;
  return 1;
}

/* A key's bytes with its escapes decoded (\uXXXX and surrogate pairs as
 * UTF-8, lone surrogates as U+FFFD), one byte at a time. */
typedef struct keydec {
  const unsigned char *s;
  size_t i, end;
  unsigned char pend[4];
  int np, ip;
} keydec;

static keydec keydec_of(const char *s, const member *m) {
  keydec d;
  memset(&d, 0, sizeof d);
  d.s = (const unsigned char *)s;
  d.i = m->k0 + 1;
  d.end = m->k1 - 1; /* the closing quote */
  return d;
}

static int keydec_next(keydec *d) {
  if (d->ip < d->np) return d->pend[d->ip++];
  if (d->i >= d->end) return -1;
  unsigned char c = d->s[d->i];
  if (c != '\\' || d->i + 1 >= d->end) {
    d->i++;
    return c;
  }
  unsigned char e = d->s[d->i + 1];
  unsigned long cp = e;
  size_t used = 2;
  switch (e) {
  case 'b': cp = 8; break;
  case 'f': cp = 12; break;
  case 'n': cp = 10; break;
  case 'r': cp = 13; break;
  case 't': cp = 9; break;
  case 'u': {
    uint32_t u;
    int k = st_json_u_escape(d->s + d->i, d->end - d->i, &u);
    if (k <= 0) { /* not an escape after all: the backslash as it is */
      d->i++;
      return '\\';
    }
    used = (size_t)k;
    cp = u;
    break;
  }
  default: break; /* \" \\ \/ (and anything else) stand for themselves */
  }
  d->i += used;
  if (cp < 0x80) return (int)cp;
  d->np = (int)st_utf8_put(d->pend, (uint32_t)cp);
  d->ip = 1;
  return d->pend[0];
}

static uint64_t key_hash(const char *s, const member *m) {
  keydec d = keydec_of(s, m);
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (int c; (c = keydec_next(&d)) >= 0;) h = (h ^ (uint64_t)c) * 0x100000001b3ull;
  return h;
}

static int key_eq(const char *a, const member *ma, const char *b, const member *mb) {
  keydec x = keydec_of(a, ma), y = keydec_of(b, mb);
  for (;;) {
    int c = keydec_next(&x), d = keydec_next(&y);
    if (c != d) return 0;
    if (c < 0) return 1;
  }
}

typedef struct keyslot {
  uint64_t h;
  member m; /* m.k1 == 0: empty (a key is at least its two quotes) */
} keyslot;

/* Writes s[0..n) (one member, with its separator) if it fits below limit. */
static void put_member(char *out, size_t *n, size_t limit, int *first, int *full, const char *s,
                       const member *m) {
  size_t kl = m->k1 - m->k0, vl = m->v1 - m->v0;
  size_t need = (*first ? 0 : 1) + kl + 1 + vl;
  if (*full || need > limit - *n) {
    *full = 1;
    return;
  }
  if (!*first) out[(*n)++] = ',';
  memcpy(out + *n, s + m->k0, kl);
  *n += kl;
  out[(*n)++] = ':';
  memcpy(out + *n, s + m->v0, vl);
  *n += vl;
  *first = 0;
}

/* Copies the value text s (trimmed) whole, or "{}" and *cut if it does not fit. */
static size_t copy_whole(const char *s, size_t n, char *out, size_t cap, int *cut) {
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
  while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) s++, n--;
  if (n + 1 > cap) {
    memcpy(out, "{}", 3);
    *cut = 1;
    return 2;
  }
  memcpy(out, s, n);
  out[n] = 0;
  return n;
}

/* 1 if the text's first non-blank byte is '{'; *blank: nothing but blanks. */
static int is_object(const char *s, size_t n, int *blank) {
  rd r = {(const unsigned char *)s, n, 0, 0, 0, 0};
  *blank = !ws(&r);
  return !*blank && r.s[r.i] == '{';
}

st_code st_args_merge(const st_alloc *a, const char *b, size_t nb, const char *e, size_t ne,
                      char *out, size_t cap, size_t *out_len, int *truncated, st_error *err) {
  if (truncated) *truncated = 0;
  if (out_len) *out_len = 0;
  if (!out || cap < 64 || (!b && nb) || (!e && ne)) {
    if (out && cap) out[0] = 0;
    return st_error_set(err, ST_ERR_ARG, 0, "args: bad arguments");
  }
  memcpy(out, "{}", 3); /* also the result of every error below */
  if (out_len) *out_len = 2;
  int cut = 0, bblank, eblank;
  int bobj = is_object(b, nb, &bblank), eobj = is_object(e, ne, &eblank);
  if (bblank || eblank) return st_error_set(err, ST_ERR_JSON, 0, "args: nothing to merge");
  /* e's members: counted, then put in a hash table by decoded key */
  rd r = {(const unsigned char *)e, ne, 0, 0, 0, 0};
  size_t ecount = 0;
  member m;
  if (eobj) {
    ws(&r);
    r.i++;
    int first = 1, k;
    while ((k = next_member(&r, &first, &m)) > 0) ecount++;
    if (k < 0) return st_error_set(err, ST_ERR_JSON, r.i, "args: malformed JSON at byte %zu", r.i);
  }
  size_t n = 0;
  if (!eobj || !bobj || ecount == 0) { /* e as it is; b if e is {} */
    n = eobj && ecount == 0 ? copy_whole(b, nb, out, cap, &cut) : copy_whole(e, ne, out, cap, &cut);
  } else {
    size_t scap = 16;
    while (scap < ecount * 2) {
      if (scap > SIZE_MAX / 4 / sizeof(keyslot))
        return st_error_set(err, ST_ERR_NOMEM, 0, "args: out of memory");
      scap *= 2;
    }
    keyslot *slots = st_calloc(a, scap, sizeof *slots);
    if (!slots) return st_error_set(err, ST_ERR_NOMEM, 0, "args: out of memory");
    r = (rd){(const unsigned char *)e, ne, 0, 0, 0, 0};
    ws(&r);
    r.i++;
    int first = 1;
    while (next_member(&r, &first, &m) > 0) {
      uint64_t h = key_hash(e, &m);
      size_t i = (size_t)h & (scap - 1);
      while (slots[i].m.k1 && !(slots[i].h == h && key_eq(e, &slots[i].m, e, &m)))
        i = (i + 1) & (scap - 1);
      slots[i].h = h;
      slots[i].m = m;
    }
    /* b's members without a key in e, then e's */
    size_t limit = cap - 2; /* room for '}' and the NUL */
    int ofirst = 1, full = 0, k;
    out[n++] = '{';
    r = (rd){(const unsigned char *)b, nb, 0, 0, 0, 0};
    ws(&r);
    r.i++;
    first = 1;
    while ((k = next_member(&r, &first, &m)) > 0) {
      uint64_t h = key_hash(b, &m);
      size_t i = (size_t)h & (scap - 1);
      int dup = 0;
      for (; slots[i].m.k1 && !dup; i = (i + 1) & (scap - 1))
        dup = slots[i].h == h && key_eq(e, &slots[i].m, b, &m);
      if (!dup) put_member(out, &n, limit, &ofirst, &full, b, &m);
    }
    st_free(a, slots);
    if (k < 0) {
      memcpy(out, "{}", 3);
      return st_error_set(err, ST_ERR_JSON, r.i, "args: malformed JSON at byte %zu", r.i);
    }
    r = (rd){(const unsigned char *)e, ne, 0, 0, 0, 0};
    ws(&r);
    r.i++;
    first = 1;
    while (next_member(&r, &first, &m) > 0) put_member(out, &n, limit, &ofirst, &full, e, &m);
    out[n++] = '}';
    out[n] = 0;
    cut = full;
  }
  if (out_len) *out_len = n;
  if (truncated) *truncated = cut;
  if (err) memset(err, 0, sizeof *err);
  return ST_OK;
}

/* ---- the args source's step (argsrc_internal.h): the object at src ---------- */

/* The args of the object read at src; when it goes on past the read, asks
 * for 16 times more (up to ST_ARGS_MAX_OBJECT). */
st_code argsrc_step_json(st_args_query *q, const uint8_t *data, size_t len, int *more,
                         st_args_span *read, st_error *err) {
  size_t cap = len > (SIZE_MAX - 4096) / 2 ? SIZE_MAX : len * 2 + 4096;
  if (cap > ST_ARGS_RESULT_MAX + 4096) cap = ST_ARGS_RESULT_MAX + 4096;
  char *out = st_malloc(&q->alloc, cap);
  if (!out) return st_error_set(err, ST_ERR_NOMEM, q->src, "out of memory");
  size_t used = 0;
  int cut = 0;
  st_code c = st_args_extract((const char *)data, len, out, cap, &used, &cut, err);
  if (c == ST_ERR_TRUNCATED && len >= q->want && q->want < ST_ARGS_MAX_OBJECT) {
    st_free(&q->alloc, out);
    uint64_t next = q->want * 16 < ST_ARGS_MAX_OBJECT ? q->want * 16 : ST_ARGS_MAX_OBJECT;
    return argsrc_ask(q, q->src, next, more, read, err);
  }
  if (c == ST_OK) {
    jb_put(&q->out, out, used);
    q->out.truncated = cut;
  }
  st_free(&q->alloc, out);
  return c == ST_OK ? argsrc_finish(q, more, err) : c;
}
