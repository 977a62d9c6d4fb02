/* search.h: find events by name over the whole trace, for the page's
 * window.strata.search(). A plain pass over the interned names and then the
 * rows: O(strings + events), no index. Stands in until core/ has a query
 * module (DESIGN.md: `query`), which should replace it.
 */
#ifndef STRATA_WASM_SEARCH_H
#define STRATA_WASM_SEARCH_H

#include "trace.h"

/* Events (slices, async slices, instants) whose name contains `text`,
 * ASCII case-insensitively. Empty or NULL text matches nothing. */
uint64_t st_search_count(const st_trace *t, const char *text);

#endif
