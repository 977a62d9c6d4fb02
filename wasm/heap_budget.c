/* heap_budget.c: the count of the page's allocations and its import peaks,
 * and a byte budget on them, so a test can make the wasm heap "full" at a
 * chosen point without loading gigabytes (see heap_budget.h). Counts the
 * usable size of every block its allocator hands out and takes back;
 * refuses an allocation or growth that would take the count past the
 * budget, as malloc does when the 4 GB heap is full.
 */
#include "heap_budget.h"

#include <malloc.h>
#include <stdlib.h>

static void *budget_fn(void *ud, void *ptr, size_t size) {
  st_heap_budget *b = ud;
  size_t old = ptr ? malloc_usable_size(ptr) : 0;
  if (size == 0) {
    free(ptr);
    b->live = b->live > old ? b->live - old : 0;
    return NULL;
  }
  if (b->budget && size > old && b->live + (size - old) > b->budget) return NULL;
  void *p = realloc(ptr, size);
  if (!p) return NULL;
  size_t now = malloc_usable_size(p);
  b->live = (b->live > old ? b->live - old : 0) + now;
  if (b->live > b->peak) b->peak = b->live;
  return p;
}

void st_heap_budget_install(st_heap_budget *b, st_alloc *a) {
  a->fn = budget_fn;
  a->ud = b;
  b->installed = 1;
}

void st_heap_budget_set(st_heap_budget *b, uint64_t budget) {
  b->budget = budget;
  b->at_view = 0;
}

void st_heap_budget_at_view(st_heap_budget *b, uint64_t more) { b->at_view = more + 1; }

void st_heap_budget_view_begins(st_heap_budget *b) {
  if (b->importing) b->import_peak = b->peak - b->base, b->importing = 0;
  if (!b->at_view) return;
  b->budget = b->live + b->at_view - 1;
  b->at_view = 0;
}

uint64_t st_heap_budget_live(const st_heap_budget *b) { return b->live; }

void st_heap_budget_load_begins(st_heap_budget *b, int batch) {
  if (b->in_batch && !batch) return; /* one of the batch's loads */
  b->in_batch = batch;
  b->importing = 1;
  b->base = b->peak = b->live;
}

void st_heap_budget_batch_ends(st_heap_budget *b) { b->in_batch = 0; }

uint64_t st_heap_budget_import_peak(const st_heap_budget *b) { return b->import_peak; }
