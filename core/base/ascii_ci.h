/* ascii_ci.h: ASCII case folding for the name filters and searches (event
 * search, the track filter, args search): bytes outside A-Z are compared as
 * they are, so UTF-8 text is matched byte for byte.
 *
 *   st_ascii_lower(c)                   c with A-Z folded to a-z
 *   st_contains_ci(hay, n, needle, m)   1 if needle[0..m) occurs in hay[0..n),
 *                                       case ignored; an empty needle always does
 */
#ifndef STRATA_ASCII_CI_H
#define STRATA_ASCII_CI_H

#include <stddef.h>

static inline unsigned char st_ascii_lower(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static inline int st_contains_ci(const char *hay, size_t n, const char *needle, size_t m) {
  if (m == 0) return 1;
  if (!hay || m > n) return 0;
  const unsigned char *s = (const unsigned char *)hay, *nd = (const unsigned char *)needle;
  unsigned char c0 = st_ascii_lower(nd[0]), c1 = c0 >= 'a' && c0 <= 'z' ? c0 - 32 : c0;
  for (size_t i = 0, last = n - m; i <= last; i++) {
    if (s[i] != c0 && s[i] != c1) continue; /* the first byte, both cases, without folding */
    size_t j = 1;
    while (j < m && st_ascii_lower(s[i + j]) == st_ascii_lower(nd[j])) j++;
    if (j == m) return 1;
  }
  return 0;
}

#endif
