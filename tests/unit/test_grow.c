/* test_grow.c: the core's one growable array (core/base/base.h): st_grow,
 * st_grow_from and st_grow32 double from their first capacity to hold what
 * is asked, keep the contents, and refuse (array and capacity intact) an
 * allocation that fails or a capacity past their type; st_grow_upto stops at
 * its limit; st_grow_each grows parallel arrays together. And the growth of
 * a table of indexes (core/base/slots.h): every entry is found again. */
#include "base.h"
#include "check.h"
#include "slots.h"

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

static void test_upto(void) {
  st_alloc a = {failing, NULL};
  fail_ = 0;
  void *p = NULL;
  size_t cap = 0;
  CHECK(st_grow_upto(&a, &p, &cap, 10, 1, 4096, 6000));
  CHECK_EQ_INT(cap, 4096);
  CHECK(st_grow_upto(&a, &p, &cap, 4097, 1, 4096, 6000)); /* doubled to 8192, cut to the limit */
  CHECK_EQ_INT(cap, 6000);
  CHECK(!st_grow_upto(&a, &p, &cap, 6001, 1, 4096, 6000)); /* past the limit: refused */
  CHECK_EQ_INT(cap, 6000);
  void *keep = p;
  CHECK(st_grow_upto(&a, &p, &cap, 6000, 1, 4096, 6000) && p == keep); /* already there */
  st_free(&a, p);
  p = NULL, cap = 0;
  CHECK(st_grow_upto(&a, &p, &cap, 3, 8, 4, SIZE_MAX)); /* no limit: st_grow_from */
  CHECK_EQ_INT(cap, 4);
  CHECK(!st_grow_upto(&a, &p, &cap, SIZE_MAX / 4, 8, 4, SIZE_MAX)); /* bytes overflow */
  CHECK_EQ_INT(cap, 4);
  st_free(&a, p);
}

static void test_each(void) {
  st_alloc a = {failing, NULL};
  fail_ = 0;
  int *x = NULL;
  double *y = NULL;
  size_t cap = 0;
  static const size_t elem[2] = {sizeof(int), sizeof(double)};
  for (int i = 0; i < 1000; i++) {
    void *v[2] = {x, y};
    int ok = st_grow_each(&a, v, elem, 2, &cap, (size_t)i + 1, 8, SIZE_MAX);
    x = v[0], y = v[1];
    CHECK(ok);
    x[i] = i, y[i] = i * 0.5;
  }
  CHECK_EQ_INT(cap, 1024); /* 8 doubled seven times */
  int same = 1;
  for (int i = 0; i < 1000; i++) same &= x[i] == i && y[i] == i * 0.5;
  CHECK(same);
  fail_ = 1; /* refused: the capacity stays, both arrays keep what they held */
  void *v[2] = {x, y};
  CHECK(!st_grow_each(&a, v, elem, 2, &cap, 1025, 8, SIZE_MAX));
  x = v[0], y = v[1];
  CHECK_EQ_INT(cap, 1024);
  CHECK(x[999] == 999 && y[999] == 999 * 0.5);
  fail_ = 0;
  CHECK(!st_grow_each(&a, v, elem, 2, &cap, 1025, 8, 1024)); /* past max */
  CHECK_EQ_INT(cap, 1024);
  st_free(&a, x);
  st_free(&a, y);
}

/* keys whose hashes collide a lot (every 4th key the same low bits) */
static uint32_t key_hash(const void *ctx, uint32_t i) { return ((const uint32_t *)ctx)[i] * 8u; }

static void test_slots(void) {
  st_alloc a = {failing, NULL};
  fail_ = 0;
  enum { N = 5000 };
  static uint32_t keys[N];
  uint32_t *slots = NULL, cap = 0;
  for (uint32_t n = 0; n < N; n++) {
    keys[n] = n * 2654435761u;
    CHECK(st_slots_make_room(&a, &slots, &cap, n, 64, key_hash, keys));
    CHECK(((uint64_t)n + 1) * 2 <= cap); /* at most half full */
    uint32_t h = key_hash(keys, n) & (cap - 1);
    while (slots[h]) h = (h + 1) & (cap - 1);
    slots[h] = n + 1;
  }
  CHECK_EQ_INT(cap, 16384);
  int found = 0;
  for (uint32_t n = 0; n < N; n++) { /* each entry is reached by probing from its hash */
    uint32_t h = key_hash(keys, n) & (cap - 1);
    while (slots[h] && slots[h] != n + 1) h = (h + 1) & (cap - 1);
    found += slots[h] == n + 1;
  }
  CHECK_EQ_INT(found, N);
  uint32_t *keep = slots;
  fail_ = 1;
  CHECK(!st_slots_make_room(&a, &slots, &cap, 8192, 64, key_hash, keys)); /* refused: intact */
  CHECK(slots == keep && cap == 16384);
  fail_ = 0;
  st_free(&a, slots);
}

int main(void) {
  RUN(test_doubling);
  RUN(test_refusals);
  RUN(test_upto);
  RUN(test_each);
  RUN(test_slots);
  return check_report();
}
