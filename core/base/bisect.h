/* bisect.h: the core's binary searches over ascending arrays, so that each
 * one is written once (static inline: the per-frame walks of index/ and
 * draw/ inline them).
 *
 *   lower bound  the first index whose key is >= v (n if none)
 *   upper bound  the first index whose key is > v (n if none)
 *   the last index whose key is <= v: upper bound - 1, none when it is 0
 *
 *   uint32_t i = st_lower_bound_i64(row->start, row->count, t);
 *
 * The _at forms search an array of records: the key is the field at byte
 * `off` (offsetof) of each of n records `stride` bytes apart (sizeof the
 * record), of the type the name says, and the bound is ST_LOWER or ST_UPPER:
 *
 *   st_bound_i64_at(steps, n, sizeof *steps, offsetof(st_an_step, t0_ns), t, ST_UPPER)
 *
 * st_partition_point is the one loop, and the general form for a key of
 * several fields or one computed from several columns: the first i in
 * [lo, hi) for which before(ctx, i) is 0, where before is 1 on a prefix of
 * [lo, hi) and 0 after it (hi if it is 1 throughout). Every other form is it
 * with a key function the compiler inlines; a search within [lo, hi) of an
 * array (st_lower_bound_i64_in) passes the range rather than a + lo, which
 * the row query's loop measured slower. */
#ifndef STRATA_BISECT_H
#define STRATA_BISECT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t st_partition_point(size_t lo, size_t hi,
                                        int (*before)(const void *ctx, size_t i), const void *ctx) {
  while (lo < hi) {
    size_t m = lo + (hi - lo) / 2;
    if (before(ctx, m))
      lo = m + 1;
    else
      hi = m;
  }
  return lo;
}

/* The key of the searches below: n records from base, stride bytes apart,
 * the field at off of type `type` compared with v; upper = 0 stops at the
 * first key >= v, upper = 1 at the first key > v. A field of int64 times
 * compares with a double (ST_KEY_I64_F) as it converts. */
typedef enum { ST_KEY_I64, ST_KEY_U64, ST_KEY_U32, ST_KEY_I64_F } st_key_type;
typedef struct st_bound_key {
  const char *base;
  size_t stride, off;
  st_key_type type;
  int upper;
  union {
    int64_t i64;
    uint64_t u64;
    uint32_t u32;
    double f;
  } v;
} st_bound_key;

static inline int st_bound_before(const void *ctx, size_t i) {
  const st_bound_key *k = ctx;
  const char *p = k->base + i * k->stride + k->off;
  int64_t i64;
  uint64_t u64;
  uint32_t u32;
  switch (k->type) {
  case ST_KEY_I64: return memcpy(&i64, p, 8), i64 < k->v.i64 || (k->upper && i64 == k->v.i64);
  case ST_KEY_U64: return memcpy(&u64, p, 8), u64 < k->v.u64 || (k->upper && u64 == k->v.u64);
  case ST_KEY_U32: return memcpy(&u32, p, 4), u32 < k->v.u32 || (k->upper && u32 == k->v.u32);
  default: return memcpy(&i64, p, 8), (double)i64 < k->v.f || (k->upper && (double)i64 == k->v.f);
  }
}
static inline size_t st_bound(st_bound_key k, size_t n) {
  return st_partition_point(0, n, st_bound_before, &k);
}

static inline size_t st_lower_bound_i64(const int64_t *a, size_t n, int64_t v) {
  return st_bound((st_bound_key){(const char *)a, sizeof *a, 0, ST_KEY_I64, 0, {.i64 = v}}, n);
}
/* st_lower_bound_i64 within [lo, hi): the first index there whose value is >= v */
static inline size_t st_lower_bound_i64_in(const int64_t *a, size_t lo, size_t hi, int64_t v) {
  st_bound_key k = {(const char *)a, sizeof *a, 0, ST_KEY_I64, 0, {.i64 = v}};
  return st_partition_point(lo, hi, st_bound_before, &k);
}
static inline size_t st_upper_bound_i64(const int64_t *a, size_t n, int64_t v) {
  return st_bound((st_bound_key){(const char *)a, sizeof *a, 0, ST_KEY_I64, 1, {.i64 = v}}, n);
}
static inline size_t st_lower_bound_u64(const uint64_t *a, size_t n, uint64_t v) {
  return st_bound((st_bound_key){(const char *)a, sizeof *a, 0, ST_KEY_U64, 0, {.u64 = v}}, n);
}
static inline size_t st_upper_bound_u64(const uint64_t *a, size_t n, uint64_t v) {
  return st_bound((st_bound_key){(const char *)a, sizeof *a, 0, ST_KEY_U64, 1, {.u64 = v}}, n);
}
static inline size_t st_upper_bound_u32(const uint32_t *a, size_t n, uint32_t v) {
  return st_bound((st_bound_key){(const char *)a, sizeof *a, 0, ST_KEY_U32, 1, {.u32 = v}}, n);
}
/* the first time that is > t as a double (a position on the screen's axis) */
static inline size_t st_upper_bound_i64_f(const int64_t *a, size_t n, double t) {
  return st_bound((st_bound_key){(const char *)a, sizeof *a, 0, ST_KEY_I64_F, 1, {.f = t}}, n);
}

/* The side of a bound, for the record forms below: ST_LOWER, the first key
 * >= v; ST_UPPER, the first key > v. */
enum { ST_LOWER = 0, ST_UPPER = 1 };

static inline size_t st_bound_i64_at(const void *base, size_t n, size_t stride, size_t off,
                                     int64_t v, int side) {
  return st_bound((st_bound_key){base, stride, off, ST_KEY_I64, side, {.i64 = v}}, n);
}
static inline size_t st_bound_u64_at(const void *base, size_t n, size_t stride, size_t off,
                                     uint64_t v, int side) {
  return st_bound((st_bound_key){base, stride, off, ST_KEY_U64, side, {.u64 = v}}, n);
}
static inline size_t st_bound_u32_at(const void *base, size_t n, size_t stride, size_t off,
                                     uint32_t v, int side) {
  return st_bound((st_bound_key){base, stride, off, ST_KEY_U32, side, {.u32 = v}}, n);
}

/* Records ordered by a pair (a uint32 at byte off1, then an int64 at off2),
 * as steps by (trace, start): the first whose pair is >= (k1, k2)
 * (ST_LOWER) or > (k1, k2) (ST_UPPER). */
typedef struct st_pair_key {
  const char *base;
  size_t stride, off1, off2;
  uint32_t k1;
  int64_t k2;
  int upper;
} st_pair_key;
static inline int st_pair_before(const void *ctx, size_t i) {
  const st_pair_key *k = ctx;
  uint32_t a;
  int64_t b;
  memcpy(&a, k->base + i * k->stride + k->off1, sizeof a);
  memcpy(&b, k->base + i * k->stride + k->off2, sizeof b);
  return a < k->k1 || (a == k->k1 && (b < k->k2 || (k->upper && b == k->k2)));
}
static inline size_t st_bound_pair_at(const void *base, size_t n, size_t stride, size_t off1,
                                      uint32_t k1, size_t off2, int64_t k2, int side) {
  st_pair_key k = {base, stride, off1, off2, k1, k2, side};
  return st_partition_point(0, n, st_pair_before, &k);
}

/* The first of n ascending disjoint byte ranges ending after x (n if none):
 * records stride bytes apart, each with a uint64 start at byte start_off and
 * a uint64 length at len_off. */
typedef struct st_range_key {
  const char *base;
  size_t stride, start_off, len_off;
  uint64_t x;
} st_range_key;
static inline int st_range_ends_by(const void *ctx, size_t i) {
  const st_range_key *k = ctx;
  uint64_t start, len;
  memcpy(&start, k->base + i * k->stride + k->start_off, sizeof start);
  memcpy(&len, k->base + i * k->stride + k->len_off, sizeof len);
  return start + len <= k->x;
}
static inline size_t st_first_range_ending_after(const void *base, size_t n, size_t stride,
                                                 size_t start_off, size_t len_off, uint64_t x) {
  st_range_key k = {base, stride, start_off, len_off, x};
  return st_partition_point(0, n, st_range_ends_by, &k);
}

#endif
