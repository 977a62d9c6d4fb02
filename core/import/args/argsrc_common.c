/* argsrc_json.c: the JSON text the args decoders write (argsrc_internal.h):
 * a growing buffer, capped at ST_ARGS_RESULT_MAX (members past it are left
 * out and the result marked truncated), strings made valid UTF-8 and JSON.
 */
#include "argsrc_internal.h"

#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jb_put(jb *b, const char *s, size_t n) {
  if (b->nomem) return;
  if (n + 1 > b->cap - b->n || !b->p) {
    size_t c = b->cap ? b->cap : 256;
    while (c - b->n < n + 1) {
      if (c > SIZE_MAX / 2) {
        b->nomem = 1;
        return;
      }
      c *= 2;
    }
    char *q = st_realloc(b->alloc, b->p, c);
    if (!q) {
      b->nomem = 1;
      return;
    }
    b->p = q;
    b->cap = c;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

void jb_lit(jb *b, const char *s) { jb_put(b, s, strlen(s)); }

/* A JSON string: control characters escaped, invalid UTF-8 -> U+FFFD, cut
 * with an ellipsis past STR_MAX bytes of input. */
void jb_str(jb *b, const uint8_t *s, size_t n) {
  int cut = n > STR_MAX;
  if (cut) n = STR_MAX;
  jb_put(b, "\"", 1);
  size_t i = 0, run = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      i++, run++;
      continue;
    }
    if (run) jb_put(b, (const char *)s + i - run, run);
    run = 0;
    if (c < 0x80) {
      char esc[8];
      if (c == '"' || c == '\\') {
        esc[0] = '\\', esc[1] = (char)c;
        jb_put(b, esc, 2);
      } else {
        snprintf(esc, sizeof esc, "\\u%04x", c);
        jb_put(b, esc, 6);
      }
      i++;
      continue;
    }
    size_t k = st_utf8_len(s + i, n - i);
    if (k) {
      jb_put(b, (const char *)s + i, k);
      i += k;
    } else {
      jb_put(b, "\xEF\xBF\xBD", 3);
      i++;
    }
  }
  if (run) jb_put(b, (const char *)s + i - run, run);
  if (cut) jb_put(b, ELLIPSIS, 3);
  jb_put(b, "\"", 1);
}

void jb_cstr(jb *b, const char *s) { jb_str(b, (const uint8_t *)s, strlen(s)); }

/* Starts a member or element: 0 (and stop) once the result is over the cap. */
int jb_sep(jb *b, int *first) {
  if (b->stop) return 0;
  if (b->n > ST_ARGS_RESULT_MAX) {
    b->stop = b->truncated = 1;
    return 0;
  }
  if (!*first) jb_put(b, ", ", 2);
  *first = 0;
  return 1;
}

/* The shortest %g that reads back the same double. */
void jb_fmt_double(char *buf, size_t cap, double v) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* An integer: a JSON number when a double holds it exactly, else a string. */
void jb_int(jb *b, int64_t v, int is_unsigned, uint64_t u) {
  char num[32];
  int exact = is_unsigned ? u <= (1ull << 53) : (v <= (1ll << 53) && v >= -(1ll << 53));
  if (is_unsigned)
    snprintf(num, sizeof num, "%llu", (unsigned long long)u);
  else
    snprintf(num, sizeof num, "%lld", (long long)v);
  if (exact)
    jb_lit(b, num);
  else
    jb_cstr(b, num);
}

/* Starts member k (after a separator). */
void jb_key(jb *b, int *first, const char *k) {
  jb_sep(b, first);
  jb_cstr(b, k);
  jb_put(b, ": ", 2);
}
