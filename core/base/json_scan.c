/* json_scan.c: JSON scanning, string decoding and exact decimal numbers
 * (see json_scan.h).
 *
 * Contents
 *   1. strings: find the closing quote, decode escapes, repair UTF-8
 *   2. skipping values structurally
 * The byte scans themselves are in scan_simd.h (wasm SIMD128 or portable).
 *   3. numbers: exact decimal -> scaled int64, doubles
 *   4. the resumable skipper
 */
#include "json_scan.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

#include "scan_simd.h"

/* ==== 1. strings ========================================================= */

/* The closing quote of the string whose body starts at p, or NULL if it is
 * not in [p, end). One scan for '"' is the fastest way over long strings
 * (args); an escaped quote has an odd number of backslashes right before
 * it. */
static const char *closing_quote(const char *p, const char *end) {
  const char *start = p;
  for (;;) {
    const char *q = st_scan_byte(p, end, '"');
    if (!q) return NULL;
    const char *b = q;
    while (b > start && b[-1] == '\\') b--;
    if (((q - b) & 1) == 0) return q;
    p = q + 1;
  }
}

st_json_status st_json_string(const char *p, const char *end, const char **close, int *esc) {
  const char *q = closing_quote(p, end);
  if (!q) return ST_JSON_INCOMPLETE;
  *close = q;
  *esc = st_scan_contains(p, q, '\\');
  return ST_JSON_OK;
}

static int hex4(const char *s, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    unsigned c = (unsigned char)s[i], d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return 0;
    v = v << 4 | d;
  }
  *out = v;
  return 1;
}

static size_t put_utf8(char *o, uint32_t cp) { return st_utf8_put((unsigned char *)o, cp); }

int st_json_u_escape(const unsigned char *s, size_t n, uint32_t *cp) {
  unsigned v, lo;
  if (n < 6) return -1;
  if (s[0] != '\\' || s[1] != 'u' || !hex4((const char *)s + 2, &v)) return 0;
  if (v >= 0xD800 && v <= 0xDBFF) {
    if (n >= 12 && s[6] == '\\' && s[7] == 'u' && hex4((const char *)s + 8, &lo) && lo >= 0xDC00 &&
        lo <= 0xDFFF) {
      *cp = st_utf16_join(v, lo);
      return 12;
    }
    v = 0xFFFD;
  } else if (v >= 0xDC00 && v <= 0xDFFF) {
    v = 0xFFFD;
  }
  *cp = v;
  return 6;
}

int st_json_plain_utf8(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = st_scan_plain_ascii(s, n); /* ASCII without backslashes */
  while (i < n) {
    unsigned c = u[i];
    if (c == '\\') return 0;
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t k = st_utf8_len(u + i, n - i);
    if (!k) return 0;
    i += k;
  }
  return 1;
}

size_t st_json_unescape(const char *s, size_t n, char *out) {
  const unsigned char *u = (const unsigned char *)s;
  char *o = out;
  size_t i = 0;
  while (i < n) {
    unsigned c = u[i];
    if (c != '\\') {
      if (c < 0x80) {
        *o++ = (char)c;
        i++;
        continue;
      }
      size_t k = st_utf8_len(u + i, n - i);
      if (k) {
        memcpy(o, u + i, k);
        o += k;
        i += k;
      } else {
        o += put_utf8(o, 0xFFFD);
        i++;
      }
      continue;
    }
    if (i + 1 >= n) { /* a lone trailing backslash: keep it */
      *o++ = '\\';
      i++;
      continue;
    }
    unsigned e = u[i + 1];
    i += 2;
    switch (e) {
    case '"': *o++ = '"'; break;
    case '\\': *o++ = '\\'; break;
    case '/': *o++ = '/'; break;
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u': {
      uint32_t cp;
      int k = st_json_u_escape(u + i - 2, n - (i - 2), &cp);
      if (k <= 0) { /* malformed or cut \u: replace, keep going */
        o += put_utf8(o, 0xFFFD);
        break;
      }
      i += (size_t)k - 2;
      o += put_utf8(o, cp);
      break;
    }
    default: /* unknown escape: keep the character */
      if (e < 0x80)
        *o++ = (char)e;
      else
        o += put_utf8(o, 0xFFFD);
      break;
    }
  }
  return (size_t)(o - out);
}

/* ==== 2. skipping values ================================================= */

const char *st_json_number_end(const char *p, const char *end) {
  while (p < end) {
    unsigned c = (unsigned char)*p;
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')
      p++;
    else
      break;
  }
  return p;
}

static st_json_status skip_literal(const char *p, const char *end, const char *lit, size_t n,
                                   const char **out) {
  size_t have = (size_t)(end - p);
  if (have < n) {
    if (memcmp(p, lit, have) == 0) return ST_JSON_INCOMPLETE;
    *out = p;
    return ST_JSON_BAD;
  }
  if (memcmp(p, lit, n) != 0) {
    *out = p;
    return ST_JSON_BAD;
  }
  *out = p + n;
  return ST_JSON_OK;
}

st_json_status st_json_skip_value(const char *p, const char *end, const char **out) {
  if (p >= end) return ST_JSON_INCOMPLETE;
  unsigned c = (unsigned char)*p;
  if (c == '"') {
    const char *q;
    int esc;
    st_json_status s = st_json_string(p + 1, end, &q, &esc);
    if (s == ST_JSON_OK) *out = q + 1;
    return s;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    const char *q = st_json_number_end(p, end);
    if (q == end) return ST_JSON_INCOMPLETE;
    *out = q;
    return ST_JSON_OK;
  }
  if (c == 't') return skip_literal(p, end, "true", 4, out);
  if (c == 'f') return skip_literal(p, end, "false", 5, out);
  if (c == 'n') return skip_literal(p, end, "null", 4, out);
  if (c != '{' && c != '[') {
    *out = p;
    return ST_JSON_BAD;
  }
  uint64_t depth = 0;
  int in_string = 0;
  for (;;) {
    /* wasm SIMD: whole blocks without escapes at once (a no-op elsewhere) */
    if (st_scan_skip_blocks(&p, end, &depth, &in_string)) {
      *out = p;
      return ST_JSON_OK;
    }
    if (in_string) { /* the blocks stopped inside a string: finish it */
      const char *q = closing_quote(p, end);
      if (!q) return ST_JSON_INCOMPLETE;
      p = q + 1;
      in_string = 0;
      continue;
    }
    p = st_scan_structural(p, end);
    if (p >= end) return ST_JSON_INCOMPLETE;
    c = (unsigned char)*p;
    if (c == '"') {
      const char *q = closing_quote(p + 1, end); /* no need to know about escapes */
      if (!q) return ST_JSON_INCOMPLETE;
      p = q + 1;
    } else if (c == '{' || c == '[') {
      depth++;
      p++;
    } else {
      depth--;
      p++;
      if (depth == 0) {
        *out = p;
        return ST_JSON_OK;
      }
    }
  }
}

/* ==== 3. numbers ========================================================= */

typedef struct decimal {
  int neg;
  const char *ip; /* integer digits */
  size_t ni;
  const char *fp; /* fraction digits */
  size_t nf;
  int64_t exp;
} decimal;

static int parse_decimal(const char *p, size_t n, decimal *d) {
  const char *e = p + n;
  memset(d, 0, sizeof *d);
  if (p < e && (*p == '-' || *p == '+')) d->neg = *p++ == '-';
  d->ip = p;
  while (p < e && *p >= '0' && *p <= '9') p++;
  d->ni = (size_t)(p - d->ip);
  d->fp = p;
  if (p < e && *p == '.') {
    d->fp = ++p;
    while (p < e && *p >= '0' && *p <= '9') p++;
    d->nf = (size_t)(p - d->fp);
  }
  if (d->ni + d->nf == 0) return 0;
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    int eneg = 0;
    if (p < e && (*p == '-' || *p == '+')) eneg = *p++ == '-';
    if (p >= e || *p < '0' || *p > '9') return 0;
    int64_t x = 0;
    while (p < e && *p >= '0' && *p <= '9') {
      if (x < 100000) x = x * 10 + (*p - '0');
      p++;
    }
    d->exp = eneg ? -x : x;
  }
  return p == e;
}

static unsigned digit_at(const decimal *d, int64_t i) {
  if (i < 0) return 0;
  if ((uint64_t)i < d->ni) return (unsigned)(d->ip[i] - '0');
  uint64_t f = (uint64_t)i - d->ni;
  return f < d->nf ? (unsigned)(d->fp[f] - '0') : 0;
}

/* magnitude of d * 10^scale, rounded; 0 on overflow of uint64 */
static int decimal_magnitude(const decimal *d, int scale, uint64_t *out) {
  /* skip leading zeros so a long run of them cannot overflow the loop */
  int64_t first = 0, total = (int64_t)(d->ni + d->nf);
  while (first < total && digit_at(d, first) == 0) first++;
  if (first == total) {
    *out = 0;
    return 1;
  }
  int64_t point = (int64_t)d->ni + d->exp + scale; /* digits left of the point */
  if (point - first > 20) return 0;
  uint64_t v = 0;
  for (int64_t i = first; i < point; i++) {
    unsigned dg = digit_at(d, i);
    if (v > (UINT64_MAX - dg) / 10) return 0;
    v = v * 10 + dg;
  }
  if (point >= first && digit_at(d, point) >= 5) {
    if (v == UINT64_MAX) return 0;
    v++;
  }
  *out = v;
  return 1;
}

/* The common case of the two functions below: [-]digits[.digits], no
 * exponent, few enough digits that nothing can overflow. Returns 1 with
 * *out set, or 0 to leave the text to the general path (same rounding: the
 * first dropped digit, half away from zero). */
static int decimal_fast(const char *p, size_t n, int scale, int64_t *out) {
  static const uint64_t pow10[10] = {1,      10,      100,      1000,      10000,
                                     100000, 1000000, 10000000, 100000000, 1000000000};
  const char *e = p + n;
  int neg = 0;
  if (scale < 0 || scale > 9 || n == 0 || n > 24) return 0;
  if (*p == '-') neg = 1, p++;
  const char *d0 = p;
  uint64_t v = 0;
  while (p < e && (unsigned)(*p - '0') < 10) v = v * 10 + (unsigned)(*p++ - '0');
  size_t ni = (size_t)(p - d0);
  if (ni == 0 || ni + (size_t)scale > 18) return 0;
  int kept = 0;
  unsigned dropped = 0;
  if (p < e && *p == '.') {
    const char *f0 = ++p;
    while (p < e && (unsigned)(*p - '0') < 10) {
      unsigned dg = (unsigned)(*p - '0');
      if (kept < scale)
        v = v * 10 + dg, kept++;
      else if (p - f0 == scale)
        dropped = dg;
      p++;
    }
    if (p == f0) return 0;
  }
  if (p != e) return 0; /* exponent, '+', junk: the general path decides */
  v = v * pow10[scale - kept] + (dropped >= 5);
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 1;
}

int st_json_decimal_scaled(const char *p, size_t n, int scale, int64_t *out) {
  decimal d;
  uint64_t v;
  if (decimal_fast(p, n, scale, out)) return 1;
  if (!parse_decimal(p, n, &d) || !decimal_magnitude(&d, scale, &v)) return 0;
  if (d.neg) {
    if (v > (uint64_t)INT64_MAX + 1) return 0;
    *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
  } else {
    if (v > (uint64_t)INT64_MAX) return 0;
    *out = (int64_t)v;
  }
  return 1;
}

int st_json_int_key(const char *p, size_t n, int64_t *out) {
  decimal d;
  uint64_t v;
  if (decimal_fast(p, n, 0, out)) return 1;
  if (!parse_decimal(p, n, &d) || !decimal_magnitude(&d, 0, &v)) return 0;
  *out = d.neg ? (int64_t)(0 - v) : (int64_t)v; /* wraps: keeps distinct values distinct */
  return 1;
}

int st_json_double(const char *p, size_t n, double *out) {
  char buf[72];
  if (n == 0 || n >= sizeof buf) return 0;
  memcpy(buf, p, n);
  buf[n] = 0;
  char *e;
  double v = strtod(buf, &e);
  if (e != buf + n) return 0;
  *out = v;
  return 1;
}

/* ==== 4. resumable skipper ============================================== */

st_json_status st_json_skipper_run(st_json_skipper *s, const char *p, const char *end,
                                   const char **out) {
  if (!s->started) {
    if (p >= end) {
      *out = p;
      return ST_JSON_INCOMPLETE;
    }
    char c = *p;
    if (c != '"' && c != '[' && c != '{') {
      *out = p;
      return ST_JSON_BAD;
    }
    s->started = 1;
    if (c == '"')
      s->in_string = 1;
    else
      s->depth = 1;
    p++;
  }
  while (p < end) {
    if (s->in_string) {
      if (s->escape) {
        s->escape = 0;
        p++;
        continue;
      }
      /* jump to the next quote or backslash */
      const char *q = st_scan_byte2(p, end, '"', '\\');
      if (q >= end) {
        p = end;
        break;
      }
      if (*q == '\\') {
        s->escape = 1;
        p = q + 1;
        continue;
      }
      s->in_string = 0;
      p = q + 1;
      if (s->depth == 0) {
        *out = p;
        return ST_JSON_OK;
      }
      continue;
    }
    p = st_scan_structural(p, end);
    if (p >= end) break;
    char c = *p++;
    if (c == '"')
      s->in_string = 1;
    else if (c == '{' || c == '[')
      s->depth++;
    else if (--s->depth == 0) {
      *out = p;
      return ST_JSON_OK;
    }
  }
  *out = end;
  return ST_JSON_INCOMPLETE;
}

/* The member k of the object starting at p (after whitespace), its key
 * compared unescaped: 1 with [*v, *ve) its value, 0 if absent or not an
 * object (the JSON up to it malformed). */
int st_json_member(const char *p, const char *end, const char *k, const char **v, const char **ve) {
  size_t kl = strlen(k);
  p = st_json_ws(p, end);
  if (p >= end || *p != '{') return 0;
  p++;
  for (;;) {
    p = st_json_ws(p, end);
    if (p >= end || *p != '"') return 0;
    const char *close;
    int esc;
    if (st_json_string(p + 1, end, &close, &esc) != ST_JSON_OK) return 0;
    const char *ks = p + 1;
    size_t kn = (size_t)(close - ks);
    int match = 0;
    if (!esc) {
      match = kn == kl && memcmp(ks, k, kl) == 0;
    } else if (kn < 256) {
      char tmp[768];
      size_t dn = st_json_unescape(ks, kn, tmp);
      match = dn == kl && memcmp(tmp, k, kl) == 0;
    }
    p = st_json_ws(close + 1, end);
    if (p >= end || *p != ':') return 0;
    p = st_json_ws(p + 1, end);
    const char *after;
    if (p >= end || st_json_skip_value(p, end, &after) != ST_JSON_OK) return 0;
    if (match) {
      *v = p;
      *ve = after;
      return 1;
    }
    p = st_json_ws(after, end);
    if (p < end && *p == ',') {
      p++;
      continue;
    }
    return 0;
  }
}
