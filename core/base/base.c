/* base.c: allocator wrappers and error records (see base.h). */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *ud, void *ptr, size_t size) {
  (void)ud;
  if (size == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, size);
}

static void *call(const st_alloc *a, void *ptr, size_t size) {
  if (a && a->fn) return a->fn(a->ud, ptr, size);
  return default_alloc(NULL, ptr, size);
}

void *st_malloc(const st_alloc *a, size_t size) { return size ? call(a, NULL, size) : NULL; }

void *st_calloc(const st_alloc *a, size_t count, size_t size) {
  size_t n;
  if (!st_mul_size(count, size, &n) || n == 0) return NULL;
  void *p = call(a, NULL, n);
  if (p) memset(p, 0, n);
  return p;
}

void *st_realloc(const st_alloc *a, void *ptr, size_t size) {
  if (size == 0) return NULL; /* never frees implicitly: callers free explicitly */
  return call(a, ptr, size);
}

void *st_realloc_array(const st_alloc *a, void *ptr, size_t count, size_t size) {
  size_t n;
  if (!st_mul_size(count, size, &n)) return NULL;
  return st_realloc(a, ptr, n);
}

void st_free(const st_alloc *a, void *ptr) {
  if (ptr) call(a, ptr, 0);
}

st_code st_error_set(st_error *err, st_code code, uint64_t offset, const char *fmt, ...) {
  if (!err) return code;
  err->code = code;
  err->offset = offset;
  err->line = 0;
  err->column = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  /* one line: a message never carries a newline */
  for (char *p = err->msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  return code;
}

const char *st_code_name(st_code code) {
  switch (code) {
  case ST_OK: return "ok";
  case ST_ERR_NOMEM: return "out of memory";
  case ST_ERR_EMPTY: return "empty input";
  case ST_ERR_FORMAT: return "unrecognised format";
  case ST_ERR_GZIP: return "corrupt compressed data";
  case ST_ERR_JSON: return "JSON syntax error";
  case ST_ERR_TRUNCATED: return "truncated input";
  case ST_ERR_PROTO: return "protobuf wire error";
  case ST_ERR_LIMIT: return "limit exceeded";
  case ST_ERR_ARG: return "bad argument";
  }
  return "unknown error";
}

void st_hex_lower(const void *b, size_t n, char *out) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = b;
  for (size_t i = 0; i < n; i++) out[2 * i] = hex[p[i] >> 4], out[2 * i + 1] = hex[p[i] & 15];
  out[2 * n] = 0;
}

/* The capacity, doubled from cap (from first when 0), that holds need;
 * 0 past max. */
static size_t grown_cap(size_t cap, size_t need, size_t first, size_t max) {
  size_t ncap = cap ? cap : first ? first : 1;
  while (ncap < need) {
    if (ncap > max / 2) return 0;
    ncap *= 2;
  }
  return ncap <= max ? ncap : 0;
}

int st_grow_from(const st_alloc *a, void **p, size_t *cap, size_t need, size_t elem, size_t first) {
  if (need <= *cap) return 1;
  size_t ncap = grown_cap(*cap, need, first, SIZE_MAX);
  void *np = ncap ? st_realloc_array(a, *p, ncap, elem) : NULL;
  if (!np) return 0;
  *p = np;
  *cap = ncap;
  return 1;
}

int st_grow(const st_alloc *a, void **p, size_t *cap, size_t need, size_t elem) {
  return st_grow_from(a, p, cap, need, elem, 16);
}

int st_grow32(const st_alloc *a, void **p, uint32_t *cap, size_t need, size_t elem,
              uint32_t first) {
  if (need <= *cap) return 1;
  size_t ncap = grown_cap(*cap, need, first, UINT32_MAX);
  void *np = ncap ? st_realloc_array(a, *p, ncap, elem) : NULL;
  if (!np) return 0;
  *p = np;
  *cap = (uint32_t)ncap;
  return 1;
}

int st_grow_upto(const st_alloc *a, void **p, size_t *cap, size_t need, size_t elem, size_t first,
                 size_t limit) {
  if (need <= *cap) return 1;
  if (need > limit) return 0;
  size_t ncap = grown_cap(*cap, need, first, SIZE_MAX);
  if (!ncap || ncap > limit) ncap = limit; /* doubling passed the limit, or SIZE_MAX */
  void *np = st_realloc_array(a, *p, ncap, elem);
  if (!np) return 0;
  *p = np;
  *cap = ncap;
  return 1;
}

int st_grow_each(const st_alloc *a, void **p, const size_t *elem, size_t k, size_t *cap,
                 size_t need, size_t first, size_t max) {
  if (need <= *cap) return 1;
  size_t ncap = grown_cap(*cap, need, first, max);
  if (!ncap) return 0;
  for (size_t i = 0; i < k; i++) { /* a failure leaves the grown ones larger: still valid */
    void *np = st_realloc_array(a, p[i], ncap, elem[i]);
    if (!np) return 0;
    p[i] = np;
  }
  *cap = ncap;
  return 1;
}
