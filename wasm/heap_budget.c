/* heap_budget.c: a byte budget on the page's allocations, so a test can make
 * the wasm heap "full" at a chosen point without loading gigabytes (see
 * heap_budget.h). Counts the usable size of every block its allocator hands
 * out and takes back; refuses an allocation or growth that would take the
 * count past the budget, as malloc does when the 4 GB heap is full.
 */
#include "heap_budget.h"

#include <malloc.h>
#include <stdlib.h>

static uint64_t g_live;    /* bytes of the blocks handed out and not freed */
static uint64_t g_budget;  /* 0: none */
static uint64_t g_at_view; /* > 0: at the next view build, budget = live + this - 1 */

static void *budget_fn(void *ud, void *ptr, size_t size) {
  (void)ud;
  size_t old = ptr ? malloc_usable_size(ptr) : 0;
  if (size == 0) {
    free(ptr);
    g_live = g_live > old ? g_live - old : 0;
    return NULL;
  }
  if (g_budget && size > old && g_live + (size - old) > g_budget) return NULL;
  void *p = realloc(ptr, size);
  if (!p) return NULL;
  size_t now = malloc_usable_size(p);
  g_live = (g_live > old ? g_live - old : 0) + now;
  return p;
}

void st_heap_budget_install(st_alloc *a) {
  a->fn = budget_fn;
  a->ud = NULL;
}

void st_heap_budget_set(uint64_t budget) {
  g_budget = budget;
  g_at_view = 0;
}

void st_heap_budget_at_view(uint64_t more) { g_at_view = more + 1; }

void st_heap_budget_view_begins(void) {
  if (!g_at_view) return;
  g_budget = g_live + g_at_view - 1;
  g_at_view = 0;
}

uint64_t st_heap_budget_live(void) { return g_live; }
