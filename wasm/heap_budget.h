/* heap_budget.h: a test hook that makes the page run out of memory at a
 * chosen point. st_heap_budget_install() puts a counting allocator in an
 * st_alloc (the app's: every model, index and view made after it uses it);
 * st_heap_budget_set(bytes) then refuses what would take the bytes those
 * objects hold past `bytes` (0: no limit). Objects made before the install
 * keep the allocator they were made with and are not counted.
 * st_heap_budget_at_view(more) sets the budget later, when the next batch's
 * view (merge, level-of-detail index, ui) starts being built: the bytes held
 * then plus `more`, so a test can fail that stage whatever the load's peak.
 *
 *   st_heap_budget_install(&app->alloc);
 *   st_heap_budget_set(st_heap_budget_live() + (8u << 20)); // 8 MB more
 */
#ifndef STRATA_WASM_HEAP_BUDGET_H
#define STRATA_WASM_HEAP_BUDGET_H

#include <stdint.h>

#include "base.h"

void st_heap_budget_install(st_alloc *a);
void st_heap_budget_set(uint64_t budget);
uint64_t st_heap_budget_live(void);
void st_heap_budget_at_view(uint64_t more);
void st_heap_budget_view_begins(void); /* called by the app before it builds a view */

#endif
