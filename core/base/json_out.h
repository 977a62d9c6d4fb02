/* json_out.h: the core's one JSON text writer, header only. Every JSON the
 * core and the tools write goes through it: strings escaped one way (with
 * the few choices below), numbers formatted one way.
 *
 * Two modes, chosen by st_jout.grow:
 *   - bounded (grow 0), snprintf-shaped (diff.c, stats.c): bytes go to
 *     buf up to cap, and `len` counts what the full text needs, so a
 *     caller can size a second call (st_jout m = {0} only measures);
 *   - growing (grow 1: panel.c, the args decoders, the CLI): buf grows
 *     through alloc (an st_alloc; NULL: the default) from 256 bytes,
 *     doubling, to hold all of it, always NUL-terminated (buf and cap may
 *     start as an earlier text left them). On allocation failure nomem is
 *     set, later output is dropped and len stays what was written. The
 *     caller frees buf (st_free).
 *
 *   st_jout o = {.buf = buf, .cap = cap}; // or {.grow = 1, .alloc = &a}
 *   st_jout_lit(&o, "{\"name\":");
 *   st_jout_str(&o, name, name_len);   // escaped; invalid UTF-8 -> U+FFFD
 *   st_jout_us(&o, 1500);              // exact decimal us: 1.5
 *   st_jout_end(&o);                   // NUL at min(len, cap - 1)
 *
 * Strings: '"' and '\\' are escaped as \" and \\, control characters
 * (below 0x20) as \u00XX (lowercase hex), always. Flags choose the rest:
 *   ST_JESC_UTF8  bytes from 0x80 must form UTF-8 (utf8.h); an invalid
 *                 byte becomes U+FFFD. Without it they are copied as they
 *                 are (text the caller knows, or wants kept byte for byte).
 *   ST_JESC_DEL   0x7f is escaped as \u007f too.
 *   ST_JESC_HTML  '<', '>' and '&' are escaped as \u003c, \u003e, \u0026:
 *                 the text can sit inside an HTML <script> element (the
 *                 report's saved state) and no part of it can end it.
 * st_jout_str uses both; st_jout_str_as / st_jout_esc take the flags.
 */
#ifndef STRATA_JSON_OUT_H
#define STRATA_JSON_OUT_H

#include "base.h"
#include "utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

typedef struct st_jout {
  char *buf;
  size_t cap, len;
  int grow;              /* 1: growing mode */
  const st_alloc *alloc; /* growing mode: where buf comes from (NULL: default) */
  int nomem;             /* growing mode: an allocation failed */
} st_jout;

enum { ST_JESC_UTF8 = 1, ST_JESC_DEL = 2, ST_JESC_HTML = 4 };

/* Growing mode: room for n more bytes and the NUL. 0 (and nomem) if not. */
static inline int st_jout_room(st_jout *o, size_t n) {
  if (o->nomem) return 0;
  if (o->cap - o->len > n) return 1; /* len < cap once buf exists */
  void *p = o->buf;
  if (n >= SIZE_MAX - o->len || !st_grow_from(o->alloc, &p, &o->cap, o->len + n + 1, 1, 256))
    return o->nomem = 1, 0;
  o->buf = (char *)p;
  return 1;
}

static inline void st_jout_put(st_jout *o, const char *s, size_t n) {
  if (o->grow) {
    if (!st_jout_room(o, n)) return;
    if (n) memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = 0;
    return;
  }
  if (o->len < o->cap) {
    size_t room = o->cap - o->len;
    memcpy(o->buf + o->len, s, n < room ? n : room);
  }
  o->len += n;
}

static inline void st_jout_lit(st_jout *o, const char *s) { st_jout_put(o, s, strlen(s)); }

/* The inside of a JSON string (no quotes): s[0, n) escaped as the flags say
 * (see the top). Runs of bytes that need nothing are copied at once. */
static inline void st_jout_esc(st_jout *o, const char *s, size_t n, unsigned flags) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0, run = 0;
  while (i < n) {
    unsigned c = p[i];
    size_t k = 1;
    if (c == '"' || c == '\\' || c < 0x20 || (c == 0x7f && (flags & ST_JESC_DEL)) ||
        ((c == '<' || c == '>' || c == '&') && (flags & ST_JESC_HTML)))
      k = 0;
    else if (c >= 0x80 && (flags & ST_JESC_UTF8))
      k = st_utf8_len(p + i, n - i);
    if (k) { /* copied as it is */
      i += k, run += k;
      continue;
    }
    if (run) st_jout_put(o, s + i - run, run);
    run = 0;
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      st_jout_put(o, e, 2);
    } else if (c < 0x80) {
      char e[7] = "\\u00";
      st_hex_lower(&p[i], 1, e + 4);
      st_jout_put(o, e, 6);
    } else {
      st_jout_put(o, "\xEF\xBF\xBD", 3); /* U+FFFD for one invalid byte */
    }
    i++;
  }
  if (run) st_jout_put(o, s + i - run, run);
}

/* A JSON string of s[0, n): quoted, escaped as the flags say. */
static inline void st_jout_str_as(st_jout *o, const char *s, size_t n, unsigned flags) {
  st_jout_put(o, "\"", 1);
  st_jout_esc(o, s, n, flags);
  st_jout_put(o, "\"", 1);
}

/* A JSON string of any bytes: quotes, backslashes, control characters and
 * 0x7f escaped, invalid UTF-8 replaced by U+FFFD. */
static inline void st_jout_str(st_jout *o, const char *s, size_t n) {
  st_jout_str_as(o, s, n, ST_JESC_UTF8 | ST_JESC_DEL);
}

/* v's decimal digits into b (room for 20); returns how many. (Not
 * snprintf: the numbers of large answers are many, and printf is slow in
 * the page's wasm.) */
static inline size_t st_jout_digits(char *b, uint64_t v) {
  char t[20];
  size_t n = 0;
  do {
    t[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (size_t i = 0; i < n; i++) b[i] = t[n - 1 - i];
  return n;
}

static inline void st_jout_u64(st_jout *o, uint64_t v) {
  char b[24];
  st_jout_put(o, b, st_jout_digits(b, v));
}

static inline void st_jout_i64(st_jout *o, int64_t v) {
  char b[24];
  size_t k = 0;
  if (v < 0) b[k++] = '-';
  k += st_jout_digits(b + k, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
  st_jout_put(o, b, k);
}

/* ns -> exact decimal microseconds: 1234567 -> 1234.567, -500 -> -0.5 */
static inline void st_jout_us(st_jout *o, int64_t ns) {
  char b[40];
  uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  unsigned fr = (unsigned)(m % 1000);
  size_t k = 0;
  if (ns < 0) b[k++] = '-';
  k += st_jout_digits(b + k, m / 1000);
  if (fr) { /* three decimals, trailing zeros dropped */
    b[k++] = '.';
    b[k++] = (char)('0' + fr / 100);
    if (fr % 100) b[k++] = (char)('0' + fr / 10 % 10);
    if (fr % 10) b[k++] = (char)('0' + fr % 10);
  }
  st_jout_put(o, b, k);
}

/* A double with `decimals` fixed decimals, trailing zeros (and a bare '.')
 * dropped; "-0" written as 0; non-finite values as null. */
static inline void st_jout_fixed(st_jout *o, double v, int decimals) {
  if (!isfinite(v)) {
    st_jout_lit(o, "null");
    return;
  }
  char b[64];
  int k = snprintf(b, sizeof b, "%.*f", decimals, v);
  if (k < 0 || k >= (int)sizeof b) {
    k = snprintf(b, sizeof b, "%.17g", v);
    st_jout_put(o, b, (size_t)k);
    return;
  }
  if (memchr(b, '.', (size_t)k)) {
    while (k > 0 && b[k - 1] == '0') k--;
    if (k > 0 && b[k - 1] == '.') k--;
  }
  if ((k == 2 && b[0] == '-' && b[1] == '0')) k = 1, b[0] = '0';
  st_jout_put(o, b, (size_t)k);
}

/* A double with `digits` significant digits (%.*g); non-finite as null. */
static inline void st_jout_sig(st_jout *o, double v, int digits) {
  if (!isfinite(v)) {
    st_jout_lit(o, "null");
    return;
  }
  char b[40];
  int k = snprintf(b, sizeof b, "%.*g", digits, v);
  st_jout_put(o, b, (size_t)k);
}

/* NUL-terminates at min(len, cap - 1); returns len. */
static inline size_t st_jout_end(st_jout *o) {
  if (o->cap) o->buf[o->len < o->cap ? o->len : o->cap - 1] = 0;
  return o->len;
}

#endif
