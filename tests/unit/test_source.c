/* test_source.c: compression sniffing and streaming inflate (source.c), and
 * the JSON scanning pieces (json_scan.c): exact decimals, string decoding,
 * structural skipping, the resumable skipper. */
#include "check.h"
#include "json_scan.h"
#include "source.h"
#include "test_util.h"

#include <stdlib.h>
#include <zlib.h>

/* ---- a sink that collects the decoded bytes ------------------------------- */
typedef struct collect {
  unsigned char *data;
  size_t len, cap;
  size_t calls;
} collect;

static st_code collect_sink(void *ud, const uint8_t *p, size_t n) {
  collect *c = ud;
  if (c->len + n > c->cap) {
    c->cap = (c->len + n) * 2;
    c->data = realloc(c->data, c->cap);
  }
  memcpy(c->data + c->len, p, n);
  c->len += n;
  c->calls++;
  return ST_OK;
}

/* Runs the source over input in chunks of `chunk` bytes. */
static st_code run_source(const unsigned char *in, size_t n, size_t chunk, collect *c,
                          st_source_info *info, st_error *err) {
  st_source *s = st_source_create(NULL, collect_sink, c);
  st_code code = ST_OK;
  for (size_t i = 0; i < n && code == ST_OK; i += chunk)
    code = st_source_push(s, in + i, n - i < chunk ? n - i : chunk, err);
  if (code == ST_OK) code = st_source_finish(s, err);
  *info = *st_source_get_info(s);
  st_source_destroy(s);
  return code;
}

static char *make_text(size_t n) {
  char *t = malloc(n);
  for (size_t i = 0; i < n; i++) t[i] = (char)('a' + (i * 7 + i / 13) % 26);
  return t;
}

static void test_sniff(void) {
  CHECK_EQ_INT(st_source_sniff(0x1F, 0x8B), ST_COMPRESSION_GZIP);
  CHECK_EQ_INT(st_source_sniff(0x78, 0x9C), ST_COMPRESSION_ZLIB);
  CHECK_EQ_INT(st_source_sniff(0x78, 0x01), ST_COMPRESSION_ZLIB);
  CHECK_EQ_INT(st_source_sniff(0x78, 0xDA), ST_COMPRESSION_ZLIB);
  CHECK_EQ_INT(st_source_sniff('{', '"'), ST_COMPRESSION_NONE);
  CHECK_EQ_INT(st_source_sniff('[', '{'), ST_COMPRESSION_NONE);
  CHECK_EQ_INT(st_source_sniff(0x0A, 0x18), ST_COMPRESSION_NONE);
  CHECK_EQ_INT(st_source_sniff(0x78, 0x9D), ST_COMPRESSION_NONE); /* fails the %31 check */
  CHECK_EQ_INT(st_source_sniff(0x1F, -1), ST_COMPRESSION_UNKNOWN);
  CHECK_EQ_INT(st_source_sniff('[', -1), ST_COMPRESSION_NONE);
}

static void test_plain_passthrough(void) {
  const char *text = "[{\"ph\":\"X\"}]";
  size_t chunks[] = {1, 2, 3, 100};
  for (size_t k = 0; k < 4; k++) {
    collect c = {0};
    st_source_info info;
    st_error err;
    CHECK_EQ_INT(run_source((const unsigned char *)text, strlen(text), chunks[k], &c, &info, &err),
                 ST_OK);
    CHECK_EQ_INT(c.len, strlen(text));
    CHECK(c.len == strlen(text) && memcmp(c.data, text, c.len) == 0);
    CHECK_EQ_INT(info.compression, ST_COMPRESSION_NONE);
    CHECK_EQ_INT(info.bytes_in, strlen(text));
    free(c.data);
  }
  /* one byte only: decided at finish */
  collect c = {0};
  st_source_info info;
  st_error err;
  CHECK_EQ_INT(run_source((const unsigned char *)"[", 1, 1, &c, &info, &err), ST_OK);
  CHECK_EQ_INT(c.len, 1);
  free(c.data);
}

static void test_gzip_and_zlib(void) {
  size_t n = 1000000, gz_n, zl_n;
  char *text = make_text(n);
  unsigned char *gz = tu_deflate(text, n, 31, &gz_n);
  unsigned char *zl = tu_deflate(text, n, 15, &zl_n);
  size_t chunks[] = {1, 7, 4096, 1 << 20};
  for (size_t k = 0; k < 4; k++) {
    collect c = {0};
    st_source_info info;
    st_error err;
    CHECK_EQ_INT(run_source(gz, gz_n, chunks[k], &c, &info, &err), ST_OK);
    CHECK(c.len == n && memcmp(c.data, text, n) == 0);
    CHECK_EQ_INT(info.compression, ST_COMPRESSION_GZIP);
    CHECK_EQ_INT(info.members, 1);
    CHECK_EQ_INT(info.bytes_out, n);
    free(c.data);
    memset(&c, 0, sizeof c);
    CHECK_EQ_INT(run_source(zl, zl_n, chunks[k], &c, &info, &err), ST_OK);
    CHECK(c.len == n && memcmp(c.data, text, n) == 0);
    CHECK_EQ_INT(info.compression, ST_COMPRESSION_ZLIB);
    free(c.data);
  }
  free(gz);
  free(zl);
  free(text);
}

static void test_gzip_members_and_garbage(void) {
  const char *a = "[{\"name\":\"a\"},", *b = "{\"name\":\"b\"}]";
  size_t na, nb;
  unsigned char *ga = tu_deflate(a, strlen(a), 31, &na);
  unsigned char *gb = tu_deflate(b, strlen(b), 31, &nb);
  unsigned char buf[1024];
  memcpy(buf, ga, na);
  memcpy(buf + na, gb, nb);
  size_t chunks[] = {1, 2, 5, 1024};
  for (size_t k = 0; k < 4; k++) {
    collect c = {0};
    st_source_info info;
    st_error err;
    CHECK_EQ_INT(run_source(buf, na + nb, chunks[k], &c, &info, &err), ST_OK);
    CHECK_EQ_INT(info.members, 2);
    CHECK(c.len == strlen(a) + strlen(b) && memcmp(c.data, a, strlen(a)) == 0 &&
          memcmp(c.data + strlen(a), b, strlen(b)) == 0);
    CHECK_EQ_INT(info.trailing_garbage, 0);
    free(c.data);
  }
  /* trailing zeros after the last member: ignored and reported */
  memset(buf + na, 0, 8);
  collect c = {0};
  st_source_info info;
  st_error err;
  CHECK_EQ_INT(run_source(buf, na + 8, 3, &c, &info, &err), ST_OK);
  CHECK_EQ_INT(c.len, strlen(a));
  CHECK_EQ_INT(info.trailing_garbage, 8);
  CHECK_EQ_INT(info.trailing_offset, na);
  free(c.data);
  /* a lone 0x1F after a member */
  buf[na] = 0x1F;
  memset(&c, 0, sizeof c);
  CHECK_EQ_INT(run_source(buf, na + 1, 1, &c, &info, &err), ST_OK);
  CHECK_EQ_INT(info.trailing_garbage, 1);
  free(c.data);
  free(ga);
  free(gb);
}

static void test_gzip_errors(void) {
  size_t n = 200000, gz_n;
  char *text = make_text(n);
  unsigned char *gz = tu_deflate(text, n, 31, &gz_n);
  /* truncated: an error at finish, after the decodable prefix was delivered */
  collect c = {0};
  st_source_info info;
  st_error err;
  memset(&err, 0, sizeof err);
  CHECK_EQ_INT(run_source(gz, gz_n / 2, 4096, &c, &info, &err), ST_ERR_GZIP);
  CHECK(c.len > 0 && c.len < n);
  CHECK(strstr(err.msg, "truncated gzip") != NULL);
  CHECK_EQ_INT(err.offset, gz_n / 2);
  free(c.data);
  /* corrupt block data */
  unsigned char *bad = malloc(gz_n);
  memcpy(bad, gz, gz_n);
  for (size_t i = 40; i < 60; i++) bad[i] ^= 0xA5;
  memset(&c, 0, sizeof c);
  memset(&err, 0, sizeof err);
  st_code code = run_source(bad, gz_n, 1000, &c, &info, &err);
  CHECK_EQ_INT(code, ST_ERR_GZIP);
  CHECK(strstr(err.msg, "corrupt gzip data") != NULL);
  CHECK(err.offset >= 10 && err.offset < gz_n);
  free(c.data);
  /* bad CRC in the trailer */
  memcpy(bad, gz, gz_n);
  bad[gz_n - 6] ^= 1;
  memset(&c, 0, sizeof c);
  CHECK_EQ_INT(run_source(bad, gz_n, 1 << 16, &c, &info, &err), ST_ERR_GZIP);
  CHECK_EQ_INT(c.len, n);
  free(c.data);
  free(bad);
  free(gz);
  free(text);
}

/* ---- json_scan ---------------------------------------------------------- */

static int64_t ns_of(const char *s) {
  int64_t v = -12345;
  if (!st_json_decimal_scaled(s, strlen(s), 3, &v)) return -999999;
  return v;
}

static void test_decimal(void) {
  CHECK_EQ_INT(ns_of("0"), 0);
  CHECK_EQ_INT(ns_of("12"), 12000);
  CHECK_EQ_INT(ns_of("12.5"), 12500);
  CHECK_EQ_INT(ns_of("-12.5"), -12500);
  CHECK_EQ_INT(ns_of("1.0004"), 1000);
  CHECK_EQ_INT(ns_of("1.0005"), 1001); /* half away from zero */
  CHECK_EQ_INT(ns_of("-1.0005"), -1001);
  CHECK_EQ_INT(ns_of("0.0004999"), 0);
  CHECK_EQ_INT(ns_of("1.5e3"), 1500000);
  CHECK_EQ_INT(ns_of("25E-1"), 2500);
  CHECK_EQ_INT(ns_of("1e-9"), 0);
  CHECK_EQ_INT(ns_of("000123.000"), 123000);
  /* beyond 2^53 keeps every digit (a double would not) */
  CHECK_EQ_INT(ns_of("1735632360000000.123"), 1735632360000000123LL);
  CHECK_EQ_INT(ns_of("9007199254740993"), 9007199254740993000LL);
  CHECK_EQ_INT(ns_of("9223372036854775.807"), INT64_MAX);
  CHECK_EQ_INT(ns_of("9223372036854775.808"), -999999); /* overflow */
  CHECK_EQ_INT(ns_of("1e300"), -999999);
  CHECK_EQ_INT(ns_of("0e300"), 0);
  CHECK_EQ_INT(ns_of(""), -999999);
  CHECK_EQ_INT(ns_of("-"), -999999);
  CHECK_EQ_INT(ns_of("abc"), -999999);
  CHECK_EQ_INT(ns_of("12x"), -999999);
  CHECK_EQ_INT(ns_of("1e"), -999999);
  int64_t k;
  CHECK(st_json_int_key("18446744073709551615", 20, &k) && k == -1); /* uint64 wraps */
  CHECK(st_json_int_key("-5", 2, &k) && k == -5);
  CHECK(st_json_int_key("3735928559", 10, &k) && k == 3735928559LL);
  CHECK(!st_json_int_key("18446744073709551616", 20, &k));
  double d;
  CHECK(st_json_double("0.25", 4, &d) && d == 0.25);
  CHECK(!st_json_double("0.25x", 5, &d));
}

static void test_unescape(void) {
  char out[128];
  const char *in = "a\\u00e9\\ud83d\\ude00\\ud800x\\u0000\\\"\\n\\/";
  size_t n = st_json_unescape(in, strlen(in), out);
  const char want[] = "a\xC3\xA9\xF0\x9F\x98\x80\xEF\xBF\xBDx\0\"\n/";
  CHECK_EQ_INT(n, sizeof want - 1);
  CHECK(memcmp(out, want, sizeof want - 1) == 0);
  /* invalid UTF-8 bytes become U+FFFD; valid multi-byte kept */
  const char raw[] = "x\xFF\xC3\xA9\xED\xA0\x80";
  n = st_json_unescape(raw, sizeof raw - 1, out);
  const char want2[] = "x\xEF\xBF\xBD\xC3\xA9\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD";
  CHECK_EQ_INT(n, sizeof want2 - 1);
  CHECK(memcmp(out, want2, sizeof want2 - 1) == 0);
  CHECK(st_json_plain_utf8("abc \xC3\xA9", 6));
  CHECK(!st_json_plain_utf8("a\\n", 3));
  CHECK(!st_json_plain_utf8("\xFF", 1));
  /* a lone low surrogate, a truncated \u */
  n = st_json_unescape("\\udc00\\u12", 10, out);
  CHECK_EQ_INT(n, 8); /* U+FFFD, U+FFFD, then "12" */
}

static void test_strings_and_skip(void) {
  const char *s = "ab\\\"c\\\\\" tail";
  const char *close;
  int esc;
  CHECK_EQ_INT(st_json_string(s, s + strlen(s), &close, &esc), ST_JSON_OK);
  CHECK_EQ_INT(close - s, 7);
  CHECK(esc);
  const char *open_s = "abc";
  CHECK_EQ_INT(st_json_string(open_s, open_s + 3, &close, &esc), ST_JSON_INCOMPLETE);
  const char *v = "{\"a\":[1,2,{\"b\":\"}]\"}],\"c\":null} rest";
  const char *out;
  CHECK_EQ_INT(st_json_skip_value(v, v + strlen(v), &out), ST_JSON_OK);
  CHECK_EQ_INT(out - v, (long long)strlen(v) - 5);
  for (size_t cut = 0; cut < strlen(v) - 5; cut++)
    CHECK_EQ_INT(st_json_skip_value(v, v + cut, &out), ST_JSON_INCOMPLETE);
  static const char num[] = "123,", lit[] = "trux", close_b[] = "}";
  CHECK_EQ_INT(st_json_skip_value(num, num + 4, &out), ST_JSON_OK);
  CHECK_EQ_INT(out - num, 3);
  CHECK_EQ_INT(st_json_skip_value(num, num + 3, &out), ST_JSON_INCOMPLETE);
  CHECK_EQ_INT(st_json_skip_value(lit, lit + 3, &out), ST_JSON_INCOMPLETE);
  CHECK_EQ_INT(st_json_skip_value(lit, lit + 4, &out), ST_JSON_BAD);
  CHECK_EQ_INT(st_json_skip_value(close_b, close_b + 1, &out), ST_JSON_BAD);
  /* the resumable skipper gives the same end over any split */
  size_t full = strlen(v) - 5;
  for (size_t split = 1; split < full; split++) {
    st_json_skipper sk = {0};
    const char *o1;
    st_json_status a = st_json_skipper_run(&sk, v, v + split, &o1);
    CHECK_EQ_INT(a, ST_JSON_INCOMPLETE);
    st_json_status b = st_json_skipper_run(&sk, v + split, v + strlen(v), &o1);
    CHECK_EQ_INT(b, ST_JSON_OK);
    CHECK_EQ_INT(o1 - v, full);
  }
  st_json_skipper sk = {0};
  const char *str = "\"a\\\"b\" ,";
  CHECK_EQ_INT(st_json_skipper_run(&sk, str, str + strlen(str), &out), ST_JSON_OK);
  CHECK_EQ_INT(out - str, 6);
  st_json_skipper sk2 = {0};
  CHECK_EQ_INT(st_json_skipper_run(&sk2, num, num + 3, &out), ST_JSON_BAD);
}

int main(void) {
  RUN(test_sniff);
  RUN(test_plain_passthrough);
  RUN(test_gzip_and_zlib);
  RUN(test_gzip_members_and_garbage);
  RUN(test_gzip_errors);
  RUN(test_decimal);
  RUN(test_unescape);
  RUN(test_strings_and_skip);
  return check_report();
}
