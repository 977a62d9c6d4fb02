/* heap_budget.h: the page's count of the app's heap, and a test hook that
 * makes the page run out of memory at a chosen point.
 *
 * The count: main.c gives the app this allocator when it makes it, so every
 * block the app holds is counted (its usable size). A load's import peak is
 * the most bytes held between st_heap_budget_load_begins (a load or a batch
 * starts) and the next view build (st_heap_budget_view_begins: the import is
 * over, the level-of-detail index comes next), less the bytes held at its
 * start: what importing the file took, comparable with the CLI's peak heap
 * (stats().import_peak_bytes; README "The import split across threads").
 *
 * The hook: st_heap_budget_install() makes an st_alloc count through b
 * (the app's, st_app_set_alloc: every model, index and view made after it
 * uses it); st_heap_budget_set(b, bytes) then refuses what would take the
 * bytes those objects hold past `bytes` (0: no limit). Objects made before
 * the install keep the allocator they were made with and are not counted.
 * st_heap_budget_at_view(b, more) sets the budget later, when the next
 * batch's view (merge, level-of-detail index, ui) starts being built (the
 * app's platform.view_begins calls st_heap_budget_view_begins): the bytes
 * held then plus `more`, so a test can fail that stage whatever the load's
 * peak.
 *
 *   st_heap_budget b = {0};
 *   st_alloc a; st_heap_budget_install(&b, &a); st_app_set_alloc(app, a);
 *   st_heap_budget_set(&b, st_heap_budget_live(&b) + (8u << 20)); // 8 MB more
 */
#ifndef STRATA_WASM_HEAP_BUDGET_H
#define STRATA_WASM_HEAP_BUDGET_H

#include <stdint.h>

#include "base.h"

typedef struct st_heap_budget {
  int installed;
  uint64_t live;        /* bytes of the blocks handed out and not freed */
  uint64_t budget;      /* 0: none */
  uint64_t at_view;     /* > 0: at the next view build, budget = live + this - 1 */
  uint64_t peak;        /* the most live bytes since the load began */
  uint64_t base;        /* live bytes when it began */
  uint64_t import_peak; /* the last finished import's peak - base */
  int importing;        /* a load began and its view is not built yet */
  int in_batch;         /* a batch is open: its loads are one import */
} st_heap_budget;

void st_heap_budget_install(st_heap_budget *b, st_alloc *a);
void st_heap_budget_set(st_heap_budget *b, uint64_t budget);
uint64_t st_heap_budget_live(const st_heap_budget *b);
void st_heap_budget_at_view(st_heap_budget *b, uint64_t more);
void st_heap_budget_view_begins(st_heap_budget *b);
/* A load starts (batch: a batch starts, its loads are one import). */
void st_heap_budget_load_begins(st_heap_budget *b, int batch);
void st_heap_budget_batch_ends(st_heap_budget *b);
uint64_t st_heap_budget_import_peak(const st_heap_budget *b);

#endif
