/* scan_simd.h: the byte scans under the JSON importer's hot loops, 16 bytes
 * per step where the compiler offers wasm SIMD128, portable C otherwise.
 *
 * Why: most of a trace's bytes are inside strings (args such as HLO text)
 * that the importer only skips, so the time goes to "find the next '"'" and
 * friends. Natively memchr is glibc's vectorised one; in WebAssembly it is
 * musl's word-at-a-time loop plus a call per string, which made the page's
 * import of an args-heavy trace ~2.3x native. With -msimd128 (CMake's
 * Emscripten branch) clang defines __wasm_simd128__ and these helpers use its
 * <wasm_simd128.h> intrinsics (compiler builtins, no platform calls; every
 * browser with wasm SIMD, i.e. Chromium >= 91, Firefox >= 89, Safari >= 16.4,
 * runs them). Elsewhere they are the portable code the scanners used before
 * (memchr, 8-byte SWAR), so native builds are unchanged.
 *
 * Every function reads only inside [p, end) (the SIMD paths load 16 bytes
 * only while 16 remain, then finish byte by byte).
 *
 *   const char *q = st_scan_byte(p, end, '"');   // first '"' or NULL
 *   size_t lines = st_scan_count(p, end, '\n');
 */
#ifndef STRATA_SCAN_SIMD_H
#define STRATA_SCAN_SIMD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define ST_SCAN_SIMD 1
#else
#define ST_SCAN_SIMD 0
#endif

/* SWAR helpers for the portable path: has_byte() is non-zero iff some byte
 * of x equals the byte b was made from (the lowest flagged byte is exact;
 * higher flags may be false after a true one, so callers only use "some byte
 * matched" and then look byte by byte). */
#define ST_SCAN_ONES 0x0101010101010101ull
#define ST_SCAN_HIGHS 0x8080808080808080ull

static inline uint64_t st_scan_load8(const char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

static inline uint64_t st_scan_has_byte(uint64_t x, uint64_t b) {
  uint64_t y = x ^ b;
  return (y - ST_SCAN_ONES) & ~y & ST_SCAN_HIGHS;
}

/* First byte c in [p, end), or NULL (memchr's contract). */
static inline const char *st_scan_byte(const char *p, const char *end, char c) {
#if ST_SCAN_SIMD
  const v128_t vc = wasm_i8x16_splat(c);
  for (; end - p >= 16; p += 16) {
    uint32_t m = wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(p), vc));
    if (m) return p + __builtin_ctz(m);
  }
  for (; p < end; p++)
    if (*p == c) return p;
  return NULL;
#else
  return p < end ? (const char *)memchr(p, c, (size_t)(end - p)) : NULL;
#endif
}

/* First byte that is a or b in [p, end), or end. */
static inline const char *st_scan_byte2(const char *p, const char *end, char a, char b) {
#if ST_SCAN_SIMD
  const v128_t va = wasm_i8x16_splat(a), vb = wasm_i8x16_splat(b);
  for (; end - p >= 16; p += 16) {
    v128_t v = wasm_v128_load(p);
    uint32_t m = wasm_i8x16_bitmask(wasm_v128_or(wasm_i8x16_eq(v, va), wasm_i8x16_eq(v, vb)));
    if (m) return p + __builtin_ctz(m);
  }
#else
  for (; end - p >= 8; p += 8) {
    uint64_t w = st_scan_load8(p);
    if (st_scan_has_byte(w, ST_SCAN_ONES * (unsigned char)a) |
        st_scan_has_byte(w, ST_SCAN_ONES * (unsigned char)b))
      break;
  }
#endif
  while (p < end && *p != a && *p != b) p++;
  return p;
}

/* First JSON structural byte of a skip ('"' '[' ']' '{' '}') in [p, end), or
 * end. Brackets and braces differ only in bit 0x20 ('[' 0x5B / '{' 0x7B,
 * ']' 0x5D / '}' 0x7D), so masking it out leaves two bytes to look for, plus
 * the quote. */
static inline const char *st_scan_structural(const char *p, const char *end) {
#if ST_SCAN_SIMD
  const v128_t q = wasm_i8x16_splat('"'), m20 = wasm_i8x16_splat((char)0xDF);
  const v128_t open = wasm_i8x16_splat(0x5B), close = wasm_i8x16_splat(0x5D);
  for (; end - p >= 16; p += 16) {
    v128_t v = wasm_v128_load(p), f = wasm_v128_and(v, m20);
    v128_t hit = wasm_v128_or(wasm_i8x16_eq(v, q),
                              wasm_v128_or(wasm_i8x16_eq(f, open), wasm_i8x16_eq(f, close)));
    uint32_t m = wasm_i8x16_bitmask(hit);
    if (m) return p + __builtin_ctz(m);
  }
#else
  for (; end - p >= 8; p += 8) {
    uint64_t w = st_scan_load8(p), f = w & (ST_SCAN_ONES * 0xDF);
    if (st_scan_has_byte(w, ST_SCAN_ONES * '"') | st_scan_has_byte(f, ST_SCAN_ONES * 0x5B) |
        st_scan_has_byte(f, ST_SCAN_ONES * 0x5D))
      break;
  }
#endif
  for (; p < end; p++) {
    unsigned c = (unsigned char)*p, f = c & 0xDF;
    if (c == '"' || f == 0x5B || f == 0x5D) break;
  }
  return p;
}

/* Length of the leading run of [p, p+n) that is ASCII without a backslash
 * (JSON string bytes usable as they are). */
static inline size_t st_scan_plain_ascii(const char *p, size_t n) {
  size_t i = 0;
#if ST_SCAN_SIMD
  const v128_t bs = wasm_i8x16_splat('\\');
  for (; i + 16 <= n; i += 16) {
    v128_t v = wasm_v128_load(p + i);
    /* bit 7 set (non-ASCII) or equal to '\\' */
    uint32_t m = wasm_i8x16_bitmask(wasm_v128_or(v, wasm_i8x16_eq(v, bs)));
    if (m) return i + (size_t)__builtin_ctz(m);
  }
#else
  for (; i + 8 <= n; i += 8) {
    uint64_t w = st_scan_load8(p + i);
    if ((w & ST_SCAN_HIGHS) | st_scan_has_byte(w, ST_SCAN_ONES * '\\')) break;
  }
#endif
  while (i < n && (unsigned char)p[i] < 0x80 && p[i] != '\\') i++;
  return i;
}

/* 1 if c occurs in [p, end) (short strings: no library call natively). */
static inline int st_scan_contains(const char *p, const char *end, char c) {
#if ST_SCAN_SIMD
  return st_scan_byte(p, end, c) != NULL;
#else
  for (; end - p >= 8; p += 8)
    if (st_scan_has_byte(st_scan_load8(p), ST_SCAN_ONES * (unsigned char)c)) return 1;
  for (; p < end; p++)
    if (*p == c) return 1;
  return 0;
#endif
}

/* 1 if the n bytes at a and b are equal (memcmp(a, b, n) == 0; musl's
 * memcmp in wasm compares byte by byte). */
static inline int st_scan_equal(const char *a, const char *b, size_t n) {
#if ST_SCAN_SIMD
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    if (wasm_v128_any_true(wasm_v128_xor(wasm_v128_load(a + i), wasm_v128_load(b + i)))) return 0;
  for (; i + 8 <= n; i += 8)
    if (st_scan_load8(a + i) != st_scan_load8(b + i)) return 0;
  for (; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
#else
  return n == 0 || memcmp(a, b, n) == 0;
#endif
}

/* Number of bytes c in [p, end). */
static inline size_t st_scan_count(const char *p, const char *end, char c) {
  size_t k = 0;
#if ST_SCAN_SIMD
  const v128_t vc = wasm_i8x16_splat(c);
  for (; end - p >= 16; p += 16)
    k += (size_t)__builtin_popcount(wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(p), vc)));
  for (; p < end; p++) k += *p == c;
#else
  while (p < end) {
    const char *q = memchr(p, c, (size_t)(end - p));
    if (!q) break;
    k++;
    p = q + 1;
  }
#endif
  return k;
}

/* Last byte c in [p, end), or NULL. */
static inline const char *st_scan_last_byte(const char *p, const char *end, char c) {
#if ST_SCAN_SIMD
  const v128_t vc = wasm_i8x16_splat(c);
  for (; end - p >= 16; end -= 16) {
    uint32_t m = wasm_i8x16_bitmask(wasm_i8x16_eq(wasm_v128_load(end - 16), vc));
    if (m) return end - 16 + (31 - __builtin_clz(m));
  }
#endif
  while (end > p)
    if (*--end == c) return end;
  return NULL;
}

/* Skips the inside of a JSON array/object 16 bytes at a time, strings
 * included, while the blocks hold no backslash (escapes are left to the
 * caller's byte-wise scan). *depth is the bracket depth (brackets outside
 * strings counted from *p on), *in_string whether *p lies inside a string.
 * Returns 1 with *p just past the bracket that brings *depth to 0, else 0
 * with *p at the first block it did not take (a backslash in it, or fewer
 * than 16 bytes left) and the state updated to there. The portable build
 * has no such path: it returns 0 at once and the caller scans as before.
 *
 * Per block: bit masks of quotes, backslashes and brackets; the bytes inside
 * strings are the prefix XOR of the quote mask (each quote toggles), carried
 * from block to block; brackets outside strings are taken in order, '['
 * and '{' (bit 0x02 set) opening, ']' and '}' closing. */
static inline int st_scan_skip_blocks(const char **pp, const char *end, uint64_t *depth,
                                      int *in_string) {
#if ST_SCAN_SIMD
  const char *p = *pp;
  const v128_t q = wasm_i8x16_splat('"'), bs = wasm_i8x16_splat('\\');
  const v128_t m20 = wasm_i8x16_splat((char)0xDF), open = wasm_i8x16_splat(0x5B),
               close = wasm_i8x16_splat(0x5D);
  uint32_t carry = *in_string ? 0xFFFFu : 0;
  uint64_t d = *depth;
  for (; end - p >= 16; p += 16) {
    v128_t v = wasm_v128_load(p), f = wasm_v128_and(v, m20);
    if (wasm_v128_any_true(wasm_i8x16_eq(v, bs))) break;
    uint32_t quotes = wasm_i8x16_bitmask(wasm_i8x16_eq(v, q));
    uint32_t brackets =
        wasm_i8x16_bitmask(wasm_v128_or(wasm_i8x16_eq(f, open), wasm_i8x16_eq(f, close)));
    uint32_t inside = quotes;
    inside ^= inside << 1;
    inside ^= inside << 2;
    inside ^= inside << 4;
    inside ^= inside << 8;
    inside = (inside ^ carry) & 0xFFFFu;
    for (uint32_t b = brackets & ~inside; b; b &= b - 1) {
      int i = __builtin_ctz(b);
      if (p[i] & 0x02) {
        d++;
      } else if (--d == 0) {
        *pp = p + i + 1;
        *depth = 0;
        *in_string = 0;
        return 1;
      }
    }
    carry = inside & 0x8000u ? 0xFFFFu : 0;
  }
  *pp = p;
  *depth = d;
  *in_string = carry != 0;
  return 0;
#else
  (void)pp, (void)end, (void)depth, (void)in_string;
  return 0;
#endif
}

#endif
