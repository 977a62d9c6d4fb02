/* test_json_out.c: the JSON text writer (core/base/json_out.h): string
 * escaping under each flag, the bounded mode's truncation and measuring,
 * the growing mode's buffer (reuse, NUL, allocation failure), numbers. */
#include "check.h"
#include "json_out.h"

#include <stdlib.h>

/* The text of one string written with flags into a bounded buffer. */
static const char *esc(const char *s, size_t n, unsigned flags) {
  static char buf[256];
  st_jout o = {.buf = buf, .cap = sizeof buf};
  st_jout_str_as(&o, s, n, flags);
  st_jout_end(&o);
  return buf;
}
#define ESC(lit, flags) esc(lit, sizeof lit - 1, flags)

static void test_always_escaped(void) {
  for (unsigned f = 0; f < 4; f++) {
    CHECK_EQ_STR(ESC("a\"b\\c", f), "\"a\\\"b\\\\c\"");
    CHECK_EQ_STR(ESC("\t\n\x01\x1f", f), "\"\\u0009\\u000a\\u0001\\u001f\"");
    CHECK_EQ_STR(ESC("a\0b", f), "\"a\\u0000b\"");
    CHECK_EQ_STR(ESC("/ ~ plain", f), "\"/ ~ plain\"");
    CHECK_EQ_STR(ESC("", f), "\"\"");
  }
}

static void test_flags(void) {
  /* 0x7f: escaped only with ST_JESC_DEL */
  CHECK_EQ_STR(ESC("x\x7fy", 0), "\"x\x7fy\"");
  CHECK_EQ_STR(ESC("x\x7fy", ST_JESC_UTF8), "\"x\x7fy\"");
  CHECK_EQ_STR(ESC("x\x7fy", ST_JESC_DEL), "\"x\\u007fy\"");
  /* invalid UTF-8: kept without ST_JESC_UTF8, U+FFFD per byte with it */
  CHECK_EQ_STR(ESC("a\xff\xfez", 0), "\"a\xff\xfez\"");
  CHECK_EQ_STR(ESC("a\xff\xfez", ST_JESC_UTF8), "\"a\xEF\xBF\xBD\xEF\xBF\xBDz\"");
  CHECK_EQ_STR(ESC("cut\xe4\xb8", ST_JESC_UTF8), "\"cut\xEF\xBF\xBD\xEF\xBF\xBD\"");
  CHECK_EQ_STR(ESC("\xed\xa0\x80", ST_JESC_UTF8), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
  /* valid UTF-8 passes either way */
  CHECK_EQ_STR(ESC("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80", ST_JESC_UTF8),
               "\"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\"");
  CHECK_EQ_STR(ESC("caf\xc3\xa9", 0), "\"caf\xc3\xa9\"");
  /* st_jout_str: both flags */
  char buf[64];
  st_jout o = {.buf = buf, .cap = sizeof buf};
  st_jout_str(&o, "\x7f\xff", 2);
  st_jout_end(&o);
  CHECK_EQ_STR(buf, "\"\\u007f\xEF\xBF\xBD\"");
  /* st_jout_esc: no quotes */
  o = (st_jout){.buf = buf, .cap = sizeof buf};
  st_jout_esc(&o, "a\"\n", 3, 0);
  st_jout_end(&o);
  CHECK_EQ_STR(buf, "a\\\"\\u000a");
}

static void test_bounded(void) {
  char buf[8];
  st_jout o = {.buf = buf, .cap = sizeof buf};
  st_jout_lit(&o, "[");
  st_jout_str(&o, "abcdef\n", 7);
  st_jout_lit(&o, "]");
  CHECK_EQ_INT(o.len, 1 + 14 + 1); /* counts the whole text */
  CHECK_EQ_INT(st_jout_end(&o), 16);
  CHECK_EQ_STR(buf, "[\"abcde"); /* cut at cap - 1 */
  st_jout m = {0};               /* measures only */
  st_jout_str_as(&m, "a\"\x01", 3, 0);
  CHECK_EQ_INT(m.len, 2 + 1 + 2 + 6);
  CHECK(m.buf == NULL);
}

static void test_growing(void) {
  st_jout o = {.grow = 1}; /* NULL alloc: the default */
  st_jout_put(&o, "", 0);
  CHECK(o.buf != NULL && o.len == 0 && o.buf[0] == 0);
  for (int i = 0; i < 1000; i++) st_jout_str(&o, "ab\"", 3);
  CHECK_EQ_INT(o.len, 1000 * 6);
  CHECK(o.cap > o.len && o.buf[o.len] == 0);
  CHECK(memcmp(o.buf, "\"ab\\\"\"\"ab", 9) == 0);
  CHECK(!o.nomem);
  /* a second text reuses the buffer */
  char *keep = o.buf;
  size_t cap = o.cap;
  o.len = 0;
  st_jout_i64(&o, -42);
  CHECK(o.buf == keep && o.cap == cap);
  CHECK_EQ_STR(o.buf, "-42");
  st_free(NULL, o.buf);
}

static int allow_; /* allocations the failing allocator still grants */
static void *failing(void *ud, void *ptr, size_t size) {
  if (size == 0) {
    free(ptr);
    return NULL;
  }
  if (allow_ <= 0) return NULL;
  allow_--;
  return realloc(ptr, size);
}

static void test_growing_nomem(void) {
  st_alloc a = {failing, NULL};
  allow_ = 1; /* the first 256 bytes, then nothing */
  st_jout o = {.grow = 1, .alloc = &a};
  st_jout_lit(&o, "{\"k\":");
  size_t before = o.len;
  char big[300];
  memset(big, 'x', sizeof big);
  st_jout_str(&o, big, sizeof big);
  CHECK(o.nomem);
  st_jout_lit(&o, "}"); /* dropped: sticky */
  CHECK(o.len >= before && o.len < 256 && o.buf[o.len] == 0);
  CHECK(o.buf[o.len - 1] != '}');
  st_free(&a, o.buf);
}

static void test_numbers(void) {
  char buf[128];
  st_jout o = {.buf = buf, .cap = sizeof buf};
  st_jout_u64(&o, UINT64_MAX);
  st_jout_lit(&o, " ");
  st_jout_us(&o, 1234567);
  st_jout_lit(&o, " ");
  st_jout_us(&o, -500);
  st_jout_lit(&o, " ");
  st_jout_fixed(&o, 2.50, 3);
  st_jout_lit(&o, " ");
  st_jout_fixed(&o, -0.0001, 2);
  st_jout_lit(&o, " ");
  st_jout_sig(&o, 1.0 / 3.0, 3);
  st_jout_lit(&o, " ");
  st_jout_fixed(&o, NAN, 2);
  st_jout_end(&o);
  CHECK_EQ_STR(buf, "18446744073709551615 1234.567 -0.5 2.5 0 0.333 null");
  /* the digits written by hand: the edges of st_jout_us's decimals, the
   * extremes of the integers */
  o = (st_jout){.buf = buf, .cap = sizeof buf};
  const int64_t us[] = {0, 5, 50, 510, 501, -1000, 1001, INT64_MIN, INT64_MAX};
  for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
    st_jout_us(&o, us[i]);
    st_jout_lit(&o, " ");
  }
  st_jout_i64(&o, INT64_MIN);
  st_jout_lit(&o, " ");
  st_jout_i64(&o, 0);
  st_jout_end(&o);
  CHECK_EQ_STR(buf, "0 0.005 0.05 0.51 0.501 -1 1.001 -9223372036854775.808 "
                    "9223372036854775.807 -9223372036854775808 0");
}

int main(void) {
  RUN(test_always_escaped);
  RUN(test_flags);
  RUN(test_bounded);
  RUN(test_growing);
  RUN(test_growing_nomem);
  RUN(test_numbers);
  return check_report();
}
