/* strtab.h: string interning. Every name/category in a trace is stored once
 * and referred to by a 32-bit id; id 0 is always the empty string.
 * Strings are byte ranges (may contain NUL), not C strings.
 *
 *   st_strtab *t = st_strtab_create(&alloc);
 *   uint32_t id = st_strtab_intern(t, "fusion", 6);  // ST_STR_NONE on OOM
 *   size_t n; const char *s = st_strtab_get(t, id, &n);
 *   st_strtab_destroy(t);
 */
#ifndef STRATA_STRTAB_H
#define STRATA_STRTAB_H

#include "base.h"

#define ST_STR_EMPTY 0u
#define ST_STR_NONE UINT32_MAX /* allocation failure */

typedef struct st_strtab st_strtab;

st_strtab *st_strtab_create(const st_alloc *a);
void st_strtab_destroy(st_strtab *t);
uint32_t st_strtab_intern(st_strtab *t, const char *s, size_t len);
/* Returns a pointer valid for the table's lifetime (stored NUL-terminated
 * too, for convenience); len may be NULL. Unknown id -> "" */
const char *st_strtab_get(const st_strtab *t, uint32_t id, size_t *len);
uint32_t st_strtab_count(const st_strtab *t);
size_t st_strtab_bytes(const st_strtab *t); /* memory held */

#endif
