/* base.h: what every strata core module shares: the allocator hook, the
 * error record, and checked-arithmetic helpers.
 *
 * The core is portable C11: no platform calls, no globals, no I/O, no clock.
 * Memory comes from an st_alloc given by the caller (a zeroed st_alloc means
 * the C library's realloc/free). Every fallible call reports an st_error:
 * a code tests can assert on, the byte offset in the (decoded) input where
 * the problem is, and a one-line human message.
 *
 *   st_alloc a = {0};                 // default: realloc/free
 *   void *p = st_malloc(&a, 64);      // NULL on failure, never aborts
 *   st_free(&a, p);
 */
#ifndef STRATA_BASE_H
#define STRATA_BASE_H

#include <stddef.h>
#include <stdint.h>

/* realloc-shaped allocator: fn(ud, ptr, 0) frees and returns NULL;
 * fn(ud, NULL, n) allocates. A zeroed struct means realloc/free. */
typedef struct st_alloc {
  void *(*fn)(void *ud, void *ptr, size_t size);
  void *ud;
} st_alloc;

void *st_malloc(const st_alloc *a, size_t size);
void *st_calloc(const st_alloc *a, size_t count, size_t size); /* overflow-checked */
void *st_realloc(const st_alloc *a, void *ptr, size_t size);
void *st_realloc_array(const st_alloc *a, void *ptr, size_t count, size_t size);
void st_free(const st_alloc *a, void *ptr);

typedef enum st_code {
  ST_OK = 0,
  ST_ERR_NOMEM,     /* an allocation failed or a size would overflow */
  ST_ERR_EMPTY,     /* no bytes at all */
  ST_ERR_FORMAT,    /* not a format strata reads (PNG, HTML, random bytes) */
  ST_ERR_GZIP,      /* corrupt or truncated gzip/zlib stream */
  ST_ERR_JSON,      /* JSON syntax error */
  ST_ERR_TRUNCATED, /* input ended inside a value/record */
  ST_ERR_PROTO,     /* protobuf wire error */
  ST_ERR_LIMIT,     /* a hard cap (depth, size, count) was hit */
  ST_ERR_ARG        /* bad argument from the caller */
} st_code;

typedef struct st_error {
  st_code code;
  uint64_t offset; /* byte offset in the input where the problem is */
  uint32_t line;   /* 1-based line for text formats, 0 if not applicable */
  uint32_t column; /* 1-based column for text formats, 0 if not applicable */
  char msg[200];   /* one line, no trailing newline */
} st_error;

/* Sets err (if non-NULL) and returns code. printf-style message. */
st_code st_error_set(st_error *err, st_code code, uint64_t offset, const char *fmt, ...);
const char *st_code_name(st_code code);

/* The core's one growable array: grows *p (elements of elem bytes, capacity
 * *cap) so that index need - 1 is valid, doubling from at least 16; 0 on
 * overflow or failure (the array is intact). */
int st_grow(const st_alloc *a, void **p, size_t *cap, size_t need, size_t elem);
/* st_grow from a first capacity of `first` elements, and the same for a
 * uint32_t capacity (counts kept in 32 bits; 0 past UINT32_MAX elements).
 * Through a void * of the array's own (void *v = x->v; grow; x->v = v). */
int st_grow_from(const st_alloc *a, void **p, size_t *cap, size_t need, size_t elem, size_t first);
int st_grow32(const st_alloc *a, void **p, uint32_t *cap, size_t need, size_t elem, uint32_t first);
/* st_grow_from, never past `limit` elements: the doubled capacity is cut to
 * limit (a buffer whose whole size is known stops there); 0 when need > limit. */
int st_grow_upto(const st_alloc *a, void **p, size_t *cap, size_t need, size_t elem, size_t first,
                 size_t limit);
/* k parallel arrays that share one capacity *cap (at most max): grows each
 * p[i] (elements of elem[i] bytes) so that index need - 1 is valid in all,
 * doubling from first. 0 on overflow or failure: *cap is unchanged and every
 * array still holds its first *cap elements, though some may have moved, so
 * the caller writes p[] back either way. */
int st_grow_each(const st_alloc *a, void **p, const size_t *elem, size_t k, size_t *cap,
                 size_t need, size_t first, size_t max);

/* The n bytes at b as 2n lowercase hex digits and a NUL in out[2n + 1]
 * (a digest's text). */
void st_hex_lower(const void *b, size_t n, char *out);

/* Checked arithmetic: return 0 on overflow (result untouched), 1 on success. */
static inline int st_add_size(size_t a, size_t b, size_t *out) {
  if (a > SIZE_MAX - b) return 0;
  *out = a + b;
  return 1;
}
static inline int st_mul_size(size_t a, size_t b, size_t *out) {
  if (a != 0 && b > SIZE_MAX / a) return 0;
  *out = a * b;
  return 1;
}

/* Saturating int64 arithmetic: the result clamps to INT64_MIN / INT64_MAX
 * instead of overflowing (times and durations from hostile files). */
static inline int64_t st_sat_add(int64_t a, int64_t b) {
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}
static inline int64_t st_sat_sub(int64_t a, int64_t b) {
  if (b < 0 && a > INT64_MAX + b) return INT64_MAX;
  if (b > 0 && a < INT64_MIN + b) return INT64_MIN;
  return a - b;
}
/* a * m (a time in units of m ns, say) */
static inline int64_t st_sat_mul(int64_t a, uint64_t m) {
  if (m <= 1 || a == 0) return a;
  if (m > (uint64_t)INT64_MAX) return a > 0 ? INT64_MAX : INT64_MIN;
  int64_t mm = (int64_t)m;
  if (a > INT64_MAX / mm) return INT64_MAX;
  if (a < INT64_MIN / mm) return INT64_MIN;
  return a * mm;
}

#endif
