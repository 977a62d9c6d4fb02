/* search.c: name search (see search.h). First mark which interned names
 * contain the text (each distinct name is tested once), then count events
 * whose name id is marked. */
#include "search.h"

#include <stdlib.h>
#include <string.h>

static unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int contains(const char *s, size_t n, const char *text, size_t m) {
  if (m > n) return 0;
  for (size_t i = 0; i + m <= n; i++) {
    size_t j = 0;
    while (j < m && lower((unsigned char)s[i + j]) == lower((unsigned char)text[j])) j++;
    if (j == m) return 1;
  }
  return 0;
}

uint64_t st_search_count(const st_trace *t, const char *text) {
  if (!t || !text || !*text) return 0;
  size_t m = strlen(text);
  const st_strtab *strs = st_trace_strings(t);
  uint32_t nstr = st_strtab_count(strs);
  unsigned char *hit = calloc(nstr ? nstr : 1, 1);
  if (!hit) return 0;
  int any = 0;
  for (uint32_t id = 0; id < nstr; id++) {
    size_t n = 0;
    const char *s = st_strtab_get(strs, id, &n);
    hit[id] = (unsigned char)contains(s, n, text, m);
    any |= hit[id];
  }
  uint64_t count = 0;
  if (any) {
    uint32_t nrows = 0;
    const st_row *rows = st_trace_rows(t, &nrows);
    for (uint32_t r = 0; r < nrows; r++)
      for (uint32_t i = 0; i < rows[r].count; i++) {
        uint32_t id = rows[r].name[i];
        count += id < nstr && hit[id];
      }
  }
  free(hit);
  return count;
}
