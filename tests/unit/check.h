/* check.h: the unit tests' tiny harness. Each test file is one executable:
 *
 *   #include "check.h"
 *   static void test_thing(void) { CHECK(1 + 1 == 2); CHECK_EQ_INT(x, 3); }
 *   int main(void) { RUN(test_thing); return check_report(); }
 *
 * A failed CHECK prints file:line and the expression and the test goes on;
 * check_report() prints "N passed, N failed" and returns non-zero on failure. */
#ifndef STRATA_CHECK_H
#define STRATA_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures_;
static int check_tests_passed_, check_tests_failed_;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
      check_failures_++;                                                                           \
    }                                                                                              \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
  do {                                                                                             \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                                \
    if (check_a_ != check_b_) {                                                                    \
      fprintf(stderr, "%s:%d: CHECK_EQ_INT failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, \
              #a, #b, check_a_, check_b_);                                                         \
      check_failures_++;                                                                           \
    }                                                                                              \
  } while (0)

#define CHECK_EQ_STR(a, b)                                                                         \
  do {                                                                                             \
    const char *check_a_ = (a), *check_b_ = (b);                                                   \
    if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                               \
      fprintf(stderr, "%s:%d: CHECK_EQ_STR failed: %s == %s (\"%s\" vs \"%s\")\n", __FILE__,       \
              __LINE__, #a, #b, check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");   \
      check_failures_++;                                                                           \
    }                                                                                              \
  } while (0)

#define RUN(fn)                                                                                    \
  do {                                                                                             \
    int check_before_ = check_failures_;                                                           \
    fn();                                                                                          \
    if (check_failures_ == check_before_) {                                                        \
      check_tests_passed_++;                                                                       \
    } else {                                                                                       \
      check_tests_failed_++;                                                                       \
      fprintf(stderr, "FAIL %s\n", #fn);                                                           \
    }                                                                                              \
  } while (0)

static inline int check_report(void) {
  printf("%d passed, %d failed\n", check_tests_passed_, check_tests_failed_);
  return check_tests_failed_ ? 1 : 0;
}

#endif
