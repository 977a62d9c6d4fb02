/* test_grow.c: the core's one growable array (core/base/base.h): st_grow,
 * st_grow_from and st_grow32 double from their first capacity to hold what
 * is asked, keep the contents, and refuse (array and capacity intact) an
 * allocation that fails or a capacity past their type. */
#include "base.h"
#include "check.h"

#include <stdlib.h>

static int fail_; /* 1: the allocator refuses */
static void *failing(void *ud, void *ptr, size_t size) {
  (void)ud;
  if (!size) {
    free(ptr);
    return NULL;
  }
  return fail_ ? NULL : realloc(ptr, size);
}

static void test_doubling(void) {
  st_alloc a = {0};
  void *p = NULL;
  size_t cap = 0;
  CHECK(st_grow(&a, &p, &cap, 1, sizeof(int)));
  CHECK_EQ_INT(cap, 16); /* st_grow's first capacity */
  for (int i = 0; i < 16; i++) ((int *)p)[i] = i;
  CHECK(st_grow(&a, &p, &cap, 17, sizeof(int)));
  CHECK_EQ_INT(cap, 32);
  CHECK(st_grow(&a, &p, &cap, 100, sizeof(int))); /* doubled until it holds 100 */
  CHECK_EQ_INT(cap, 128);
  CHECK(st_grow(&a, &p, &cap, 128, sizeof(int))); /* already there */
  CHECK_EQ_INT(cap, 128);
  for (int i = 0; i < 16; i++) CHECK_EQ_INT(((int *)p)[i], i);
  st_free(&a, p);

  p = NULL;
  cap = 0;
  CHECK(st_grow_from(&a, &p, &cap, 1, 1, 4096));
  CHECK_EQ_INT(cap, 4096);
  CHECK(st_grow_from(&a, &p, &cap, 5000, 1, 4096));
  CHECK_EQ_INT(cap, 8192);
  st_free(&a, p);

  uint32_t c32 = 0;
  p = NULL;
  CHECK(st_grow32(&a, &p, &c32, 1, 8, 4));
  CHECK_EQ_INT(c32, 4);
  CHECK(st_grow32(&a, &p, &c32, 5, 8, 4));
  CHECK_EQ_INT(c32, 8);
  st_free(&a, p);
}

static void test_refusals(void) {
  st_alloc a = {failing, NULL};
  fail_ = 0;
  void *p = NULL;
  size_t cap = 0;
  CHECK(st_grow(&a, &p, &cap, 16, 1));
  void *keep = p;
  fail_ = 1;
  CHECK(!st_grow(&a, &p, &cap, 17, 1)); /* the allocation fails: intact */
  CHECK(p == keep && cap == 16);
  fail_ = 0;
  CHECK(!st_grow(&a, &p, &cap, SIZE_MAX, 1));     /* no doubling reaches it */
  CHECK(!st_grow(&a, &p, &cap, SIZE_MAX / 2, 4)); /* bytes overflow size_t */
  CHECK(p == keep && cap == 16);
  st_free(&a, p);

  uint32_t c32 = 0x80000000u; /* as if: a 32-bit count at half its range */
  void *q = NULL;
  CHECK(!st_grow32(&a, &q, &c32, (size_t)0x80000000u + 1, 1, 16)); /* past UINT32_MAX */
  CHECK(q == NULL && c32 == 0x80000000u);
}

int main(void) {
  RUN(test_doubling);
  RUN(test_refusals);
  return check_report();
}
