/* test_utf8.c: st_utf8_len (core/base/utf8.h): valid 1-4 byte sequences and
 * their boundaries; overlong forms, surrogates, code points past U+10FFFF,
 * bad lead and continuation bytes, sequences cut by the end of the input. */
#include "check.h"
#include "utf8.h"

static size_t len_of(const char *s, size_t n) { return st_utf8_len((const unsigned char *)s, n); }
#define LEN(lit) len_of(lit, sizeof lit - 1)

static void test_valid(void) {
  CHECK_EQ_INT(LEN("A"), 1);
  CHECK_EQ_INT(LEN("\x7F"), 1);
  CHECK_EQ_INT(LEN("\xC2\x80"), 2);         /* U+0080 */
  CHECK_EQ_INT(LEN("\xC3\xA9"), 2);         /* U+00E9 */
  CHECK_EQ_INT(LEN("\xDF\xBF"), 2);         /* U+07FF */
  CHECK_EQ_INT(LEN("\xE0\xA0\x80"), 3);     /* U+0800 */
  CHECK_EQ_INT(LEN("\xE2\x82\xAC"), 3);     /* U+20AC */
  CHECK_EQ_INT(LEN("\xED\x9F\xBF"), 3);     /* U+D7FF */
  CHECK_EQ_INT(LEN("\xEE\x80\x80"), 3);     /* U+E000 */
  CHECK_EQ_INT(LEN("\xEF\xBF\xBD"), 3);     /* U+FFFD */
  CHECK_EQ_INT(LEN("\xF0\x90\x80\x80"), 4); /* U+10000 */
  CHECK_EQ_INT(LEN("\xF0\x9F\x98\x80"), 4); /* U+1F600 */
  CHECK_EQ_INT(LEN("\xF4\x8F\xBF\xBF"), 4); /* U+10FFFF */
  /* only the first sequence counts */
  CHECK_EQ_INT(LEN("\xC3\xA9xyz"), 2);
  CHECK_EQ_INT(LEN("a\xC3\xA9"), 1);
}

static void test_overlong(void) {
  CHECK_EQ_INT(LEN("\xC0\x80"), 0);         /* U+0000 in 2 bytes */
  CHECK_EQ_INT(LEN("\xC1\xBF"), 0);         /* U+007F in 2 bytes */
  CHECK_EQ_INT(LEN("\xE0\x80\x80"), 0);     /* U+0000 in 3 bytes */
  CHECK_EQ_INT(LEN("\xE0\x9F\xBF"), 0);     /* U+07FF in 3 bytes */
  CHECK_EQ_INT(LEN("\xF0\x80\x80\x80"), 0); /* U+0000 in 4 bytes */
  CHECK_EQ_INT(LEN("\xF0\x8F\xBF\xBF"), 0); /* U+FFFF in 4 bytes */
}

static void test_surrogates(void) {
  CHECK_EQ_INT(LEN("\xED\xA0\x80"), 0); /* U+D800 */
  CHECK_EQ_INT(LEN("\xED\xAF\xBF"), 0); /* U+DBFF */
  CHECK_EQ_INT(LEN("\xED\xB0\x80"), 0); /* U+DC00 */
  CHECK_EQ_INT(LEN("\xED\xBF\xBF"), 0); /* U+DFFF */
}

static void test_out_of_range(void) {
  CHECK_EQ_INT(LEN("\xF4\x90\x80\x80"), 0); /* U+110000 */
  CHECK_EQ_INT(LEN("\xF5\x80\x80\x80"), 0);
  CHECK_EQ_INT(LEN("\xF7\xBF\xBF\xBF"), 0);
  CHECK_EQ_INT(LEN("\xF8\x88\x80\x80\x80"), 0); /* old 5-byte form */
  CHECK_EQ_INT(LEN("\xFC\x84\x80\x80\x80\x80"), 0);
  CHECK_EQ_INT(LEN("\xFE"), 0);
  CHECK_EQ_INT(LEN("\xFF"), 0);
}

static void test_bad_bytes(void) {
  CHECK_EQ_INT(LEN("\x80"), 0); /* lone continuation bytes */
  CHECK_EQ_INT(LEN("\xBF"), 0);
  CHECK_EQ_INT(LEN("\xC3"
                   "A"),
               0); /* continuation missing */
  CHECK_EQ_INT(LEN("\xE2\x82"
                   "A"),
               0);
  CHECK_EQ_INT(LEN("\xF0\x9F\x98"
                   "A"),
               0);
  CHECK_EQ_INT(LEN("\xE2\xC3\xA9"), 0); /* a new lead where a continuation belongs */
}

static void test_truncated(void) {
  CHECK_EQ_INT(len_of("\xC3\xA9", 1), 0);
  CHECK_EQ_INT(len_of("\xE2\x82\xAC", 1), 0);
  CHECK_EQ_INT(len_of("\xE2\x82\xAC", 2), 0);
  CHECK_EQ_INT(len_of("\xF0\x9F\x98\x80", 1), 0);
  CHECK_EQ_INT(len_of("\xF0\x9F\x98\x80", 2), 0);
  CHECK_EQ_INT(len_of("\xF0\x9F\x98\x80", 3), 0);
  CHECK_EQ_INT(len_of("\xF0\x9F\x98\x80", 4), 4);
}

int main(void) {
  RUN(test_valid);
  RUN(test_overlong);
  RUN(test_surrogates);
  RUN(test_out_of_range);
  RUN(test_bad_bytes);
  RUN(test_truncated);
  return check_report();
}
