/* json_out.h: a bounded JSON text writer, header only, for the core's
 * snprintf-shaped writers (diff.c): bytes go to buf up to cap, and `len`
 * counts what the full text needs, so a caller can size a second call.
 *
 *   st_jout o = {buf, cap, 0};
 *   st_jout_lit(&o, "{\"name\":");
 *   st_jout_str(&o, name, name_len);   // escaped; invalid UTF-8 -> U+FFFD
 *   st_jout_us(&o, 1500);              // exact decimal us: 1.5
 *   st_jout_end(&o);                   // NUL at min(len, cap - 1)
 */
#ifndef STRATA_JSON_OUT_H
#define STRATA_JSON_OUT_H

#include "utf8.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

typedef struct st_jout {
  char *buf;
  size_t cap, len;
} st_jout;

static inline void st_jout_put(st_jout *o, const char *s, size_t n) {
  if (o->len < o->cap) {
    size_t room = o->cap - o->len;
    memcpy(o->buf + o->len, s, n < room ? n : room);
  }
  o->len += n;
}

static inline void st_jout_lit(st_jout *o, const char *s) { st_jout_put(o, s, strlen(s)); }

/* A JSON string of any bytes: quotes, backslashes and control characters
 * escaped, invalid UTF-8 replaced by U+FFFD. */
static inline void st_jout_str(st_jout *o, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  st_jout_put(o, "\"", 1);
  size_t i = 0;
  while (i < n) {
    unsigned c = p[i];
    char esc[8];
    if (c == '"' || c == '\\') {
      esc[0] = '\\';
      esc[1] = (char)c;
      st_jout_put(o, esc, 2);
      i++;
    } else if (c < 0x20 || c == 0x7f) {
      int k = snprintf(esc, sizeof esc, "\\u%04x", c);
      st_jout_put(o, esc, (size_t)k);
      i++;
    } else {
      size_t k = st_utf8_len(p + i, n - i);
      if (k) {
        st_jout_put(o, s + i, k);
        i += k;
      } else {
        st_jout_put(o, "\xEF\xBF\xBD", 3);
        i++;
      }
    }
  }
  st_jout_put(o, "\"", 1);
}

static inline void st_jout_u64(st_jout *o, uint64_t v) {
  char b[24];
  int k = snprintf(b, sizeof b, "%" PRIu64, v);
  st_jout_put(o, b, (size_t)k);
}

static inline void st_jout_i64(st_jout *o, int64_t v) {
  char b[24];
  int k = snprintf(b, sizeof b, "%" PRId64, v);
  st_jout_put(o, b, (size_t)k);
}

/* ns -> exact decimal microseconds: 1234567 -> 1234.567, -500 -> -0.5 */
static inline void st_jout_us(st_jout *o, int64_t ns) {
  char b[40];
  uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  unsigned fr = (unsigned)(m % 1000);
  int k;
  if (fr == 0) {
    k = snprintf(b, sizeof b, "%s%" PRIu64, ns < 0 ? "-" : "", m / 1000);
  } else {
    char f[4];
    snprintf(f, sizeof f, "%03u", fr);
    if (f[2] == '0') f[2] = 0;
    if (f[1] == '0' && !f[2]) f[1] = 0;
    k = snprintf(b, sizeof b, "%s%" PRIu64 ".%s", ns < 0 ? "-" : "", m / 1000, f);
  }
  st_jout_put(o, b, (size_t)k);
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
