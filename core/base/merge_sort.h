/* merge_sort.h: the core's one stable sort, written once (C11's qsort is
 * neither stable nor given a context, and the core's orders need both: a
 * sort by time keeps equal times in arrival order, a table's sort by a
 * column compares names through a string table).
 *
 *   ST_DEFINE_MERGE_SORT(name, T, less)
 *       static void name(T *v, T *tmp, size_t n)
 *       less(const T *a, const T *b): 1 when a goes before b
 *   ST_DEFINE_MERGE_SORT_CTX(name, T, C, less)
 *       static void name(C ctx, T *v, T *tmp, size_t n)
 *       less(C ctx, const T *a, const T *b)
 *
 * tmp holds n elements; tmp == NULL (its allocation failed) sorts in place
 * by insertion: slow, but correct without memory. Equal elements keep
 * their order. Already-sorted input (the common case: importers mostly
 * append in time order) costs O(n); runs of 32 are insertion-sorted first,
 * and a merge copies the parts of its two halves that are already in order
 * (local disorder, such as B/E slices recorded at their E, costs little
 * more than a copy per pass). Everything is static inline through the
 * macro, so less is inlined at each use. */
#ifndef STRATA_MERGE_SORT_H
#define STRATA_MERGE_SORT_H

#include <stddef.h>
#include <string.h>

#define ST_DEFINE_MERGE_SORT_CTX(name, T, C, less)                                                 \
  static void name(C ctx_, T *v, T *tmp, size_t n) {                                               \
    size_t i = 1;                                                                                  \
    while (i < n && !less(ctx_, &v[i], &v[i - 1])) i++;                                            \
    if (i >= n) return;                                                                            \
    size_t run = tmp ? 32 : n; /* no tmp: one insertion sort of it all */                          \
    for (size_t lo = 0; lo < n; lo += run) {                                                       \
      size_t hi = lo + run < n ? lo + run : n;                                                     \
      for (size_t k = lo + 1; k < hi; k++) {                                                       \
        T x = v[k];                                                                                \
        size_t j = k;                                                                              \
        for (; j > lo && less(ctx_, &x, &v[j - 1]); j--) v[j] = v[j - 1];                          \
        v[j] = x;                                                                                  \
      }                                                                                            \
    }                                                                                              \
    if (!tmp) return;                                                                              \
    T *src = v, *dst = tmp;                                                                        \
    for (size_t w = 32; w < n; w *= 2) {                                                           \
      for (size_t lo = 0; lo < n; lo += 2 * w) {                                                   \
        size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;                \
        size_t a = lo, b = mid, o = lo;                                                            \
        if (mid < hi) {                                                                            \
          /* left elements <= the right's first, and right elements >= the                         \
           * left's last, are already in place */                                                  \
          size_t x = lo, y = mid;                                                                  \
          while (x < y) {                                                                          \
            size_t m = x + (y - x) / 2;                                                            \
            if (less(ctx_, &src[mid], &src[m]))                                                    \
              y = m;                                                                               \
            else                                                                                   \
              x = m + 1;                                                                           \
          }                                                                                        \
          memcpy(dst + lo, src + lo, (x - lo) * sizeof(T));                                        \
          a = o = x;                                                                               \
          x = mid, y = hi;                                                                         \
          while (x < y) {                                                                          \
            size_t m = x + (y - x) / 2;                                                            \
            if (less(ctx_, &src[m], &src[mid - 1]))                                                \
              x = m + 1;                                                                           \
            else                                                                                   \
              y = m;                                                                               \
          }                                                                                        \
          memcpy(dst + x, src + x, (hi - x) * sizeof(T)); /* at its place */                       \
          hi = x;                                                                                  \
        }                                                                                          \
        while (a < mid && b < hi) dst[o++] = less(ctx_, &src[b], &src[a]) ? src[b++] : src[a++];   \
        while (a < mid) dst[o++] = src[a++];                                                       \
        while (b < hi) dst[o++] = src[b++];                                                        \
      }                                                                                            \
      T *sw = src;                                                                                 \
      src = dst;                                                                                   \
      dst = sw;                                                                                    \
    }                                                                                              \
    if (src != v) memcpy(v, src, n * sizeof(T));                                                   \
  }

#define ST_DEFINE_MERGE_SORT(name, T, less)                                                        \
  static inline int name##_less_(int ctx_, const T *a, const T *b) {                               \
    (void)ctx_;                                                                                    \
    return less(a, b);                                                                             \
  }                                                                                                \
  ST_DEFINE_MERGE_SORT_CTX(name##_ctx_, T, int, name##_less_)                                      \
  static void name(T *v, T *tmp, size_t n) { name##_ctx_(0, v, tmp, n); }

#endif
