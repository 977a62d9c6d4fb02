/* test_args_search.c: the streaming "in args" search (core/args_search.h)
 * and its match set (st_find_add_srcs): matches in nested args, keys and
 * literals; escapes decoded (\", \n, \u00e9, surrogate pairs); case
 * folding; nothing outside "args" (names, cat, other members) matches; a
 * needle spanning chunk boundaries (every input fed in 1-byte chunks too);
 * gzip input; candidates that are not events (M records) dropped by the
 * mapping; XSpace / Perfetto refused with a clear message. */
#include "args_search.h"
#include "check.h"
#include "load.h"
#include "query.h"

#include <stdlib.h>
#include <zlib.h>

static const char *k_trace =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"needle thread\"}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5,\"name\":\"needle_name\",\"cat\":\"needle\"},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"name\":\"a\",\"args\":{\"x\":{\"deep\":[1,{\"y\":\"has NeEdLe inside\"}]}}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"name\":\"b\",\"args\":{\"q\":\"ne\\u0065dle escaped\"}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5,\"name\":\"c\",\"args\":{\"q\":\"no match here\"},\"id\":\"needle\"},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":5,\"name\":\"d\",\"args\":{\"needle_key\":1}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":50,\"dur\":5,\"name\":\"e\",\"args\":{\"s\":\"caf\\u00e9 \\\"quoted\\\" line\\nnext \\ud83d\\ude00\"}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":60,\"dur\":5,\"name\":\"f\",\"args\":{\"n\":123456789,\"t\":true}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":70,\"dur\":5,\"name\":\"g\",\"args\":\"needle as a string\"},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":80,\"dur\":5,\"name\":\"h\",\"args\":{\"a\":\"b\"},\"argsx\":\"needle\"}\n"
    "],\"metadata\":{\"needle\":[{\"args\":{\"k\":\"needle\"}}]}}\n";

/* Searches data in chunks of `chunk` bytes; returns the hit count, fills srcs. */
static size_t run(const void *data, size_t len, size_t chunk, const char *needle, uint64_t *srcs,
                  size_t cap) {
  st_error err;
  memset(&err, 0, sizeof err);
  st_args_search *s = st_args_search_create(NULL, ST_ARGS_JSON, needle, strlen(needle), &err);
  CHECK(s != NULL);
  if (!s) return 0;
  const uint8_t *p = data;
  for (size_t off = 0; off < len; off += chunk) {
    size_t n = len - off < chunk ? len - off : chunk;
    CHECK(st_args_search_push(s, p + off, n, &err) == ST_OK);
  }
  CHECK(st_args_search_finish(s, &err) == ST_OK);
  size_t nh;
  const uint64_t *h = st_args_search_hits(s, &nh);
  for (size_t i = 0; i < nh && i < cap; i++) srcs[i] = h[i];
  CHECK(st_args_search_decoded(s) > 0);
  st_args_search_destroy(s);
  return nh;
}

/* offset of the object holding the event named `name` ("name":"<name>") */
static uint64_t obj_of(const char *name) {
  char key[64];
  snprintf(key, sizeof key, "\"name\":\"%s\"", name);
  const char *p = strstr(k_trace, key);
  while (p > k_trace && *p != '{') p--;
  return (uint64_t)(p - k_trace);
}

static void check_same(const void *data, size_t len, const char *needle, size_t want,
                       const char *const *names) {
  uint64_t a[16], b[16], c[16];
  size_t na = run(data, len, len, needle, a, 16);
  size_t nb = run(data, len, 1, needle, b, 16);
  size_t nc = run(data, len, 7, needle, c, 16);
  CHECK_EQ_INT(na, want);
  CHECK_EQ_INT(nb, want);
  CHECK_EQ_INT(nc, want);
  for (size_t i = 0; i < want && i < 16; i++) {
    CHECK(a[i] == b[i] && a[i] == c[i]);
    if (names && names[i]) CHECK_EQ_INT(a[i], obj_of(names[i]));
  }
}

static void test_matching(void) {
  size_t n = strlen(k_trace);
  /* M record's args match (dropped later by the mapping); nested; escaped; a string args;
   * the object in metadata's array is a candidate too (not an event either) */
  check_same(k_trace, n, "needle", 6,
             (const char *const[]){"thread_name", "a", "b", "d", "g", NULL});
  check_same(k_trace, n, "NEEDLE INSIDE", 1, (const char *const[]){"a"});
  check_same(k_trace, n, "café", 1, (const char *const[]){"e"});
  check_same(k_trace, n, "\"quoted\" line\nnext", 1, (const char *const[]){"e"});
  check_same(k_trace, n, "\xF0\x9F\x98\x80", 1, (const char *const[]){"e"});
  check_same(k_trace, n, "3456", 1, (const char *const[]){"f"});
  check_same(k_trace, n, "true", 1, (const char *const[]){"f"});
  check_same(k_trace, n, "tid", 0, NULL);         /* keys outside args */
  check_same(k_trace, n, "\"X\"", 0, NULL);       /* "ph":"X" is not args */
  check_same(k_trace, n, "\"b\"", 0, NULL);       /* quotes are not part of tokens */
  check_same(k_trace, n, "a\":\"b", 0, NULL);     /* no spanning tokens */
  check_same(k_trace, n, "needle_name", 0, NULL); /* names are not args */
  check_same(k_trace, n, "u00e9", 0, NULL);       /* escapes are decoded */
  /* KMP restarts: overlapping prefixes */
  const char *t2 = "[{\"args\":{\"k\":\"aaab\"}},{\"args\":{\"k\":\"abab\"}},{\"args\":[\"aab\"]}]";
  check_same(t2, strlen(t2), "aab", 2, NULL);
  check_same(t2, strlen(t2), "bab", 1, NULL);
}

static st_trace *load(const void *data, size_t len, st_args_kind *kind) {
  st_load_desc desc;
  memset(&desc, 0, sizeof desc);
  st_loader *l = st_loader_create(&desc);
  CHECK(st_loader_push(l, data, len) == ST_OK);
  st_error err;
  st_trace *t = st_loader_finish(l, &err);
  st_argsrc *as = st_loader_take_args_source(l);
  *kind = st_argsrc_kind(as);
  st_argsrc_destroy(as);
  st_loader_destroy(l);
  return t;
}

/* name search + args search on the loaded trace; returns the match count */
static uint64_t search(const st_trace *t, st_args_kind kind, const void *data, size_t len,
                       size_t chunk, const char *needle) {
  st_find *f = st_find_create(NULL, t);
  CHECK(st_find_set(f, needle, strlen(needle)) == ST_OK);
  st_error err;
  memset(&err, 0, sizeof err);
  st_args_search *s = st_args_search_create(NULL, kind, needle, strlen(needle), &err);
  CHECK(s != NULL);
  const uint8_t *p = data;
  for (size_t off = 0; off < len; off += chunk)
    CHECK(st_args_search_push(s, p + off, len - off < chunk ? len - off : chunk, &err) == ST_OK);
  CHECK(st_args_search_finish(s, &err) == ST_OK);
  size_t nh;
  const uint64_t *h = st_args_search_hits(s, &nh);
  CHECK(st_find_add_srcs(f, h, nh) == ST_OK);
  CHECK(st_find_in_args(f));
  uint64_t count = st_find_count(f);
  /* stepping visits exactly count matches */
  st_event_ref r = ST_REF_NONE, next;
  uint64_t steps = 0;
  while (st_find_step(f, r, +1, 0, &next)) {
    CHECK(st_find_is_match(f, next.row, next.index));
    r = next;
    steps++;
  }
  CHECK_EQ_INT(steps, count);
  st_args_search_destroy(s);
  st_find_destroy(f);
  return count;
}

static size_t gzip(const char *in, size_t n, uint8_t *out, size_t cap) {
  z_stream z;
  memset(&z, 0, sizeof z);
  CHECK(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
  size_t r = z.total_out;
  deflateEnd(&z);
  return r;
}

static void test_match_set(void) {
  size_t n = strlen(k_trace);
  st_args_kind kind;
  st_trace *t = load(k_trace, n, &kind);
  CHECK(t != NULL && kind == ST_ARGS_JSON);
  /* names: needle_name; args: a, b, d, g (the M record is not an event) */
  CHECK_EQ_INT(search(t, kind, k_trace, n, n, "needle"), 5);
  CHECK_EQ_INT(search(t, kind, k_trace, n, 1, "needle"), 5);
  CHECK_EQ_INT(search(t, kind, k_trace, n, 3, "has needle"), 1);
  CHECK_EQ_INT(search(t, kind, k_trace, n, n, "nothing at all"), 0);
  uint8_t gz[4096];
  size_t gn = gzip(k_trace, n, gz, sizeof gz);
  CHECK_EQ_INT(search(t, kind, gz, gn, gn, "needle"), 5);
  CHECK_EQ_INT(search(t, kind, gz, gn, 1, "needle"), 5);
  CHECK_EQ_INT(search(t, kind, gz, gn, 5, "café"), 1);
  st_trace_destroy(t);
}

static void test_refused(void) {
  st_error err;
  memset(&err, 0, sizeof err);
  CHECK(st_args_search_create(NULL, ST_ARGS_XPLANE, "x", 1, &err) == NULL);
  CHECK(err.code == ST_ERR_FORMAT);
  CHECK_EQ_STR(err.msg, "args search is not available for xplane traces");
  CHECK(st_args_search_create(NULL, ST_ARGS_PERFETTO, "x", 1, &err) == NULL);
  CHECK_EQ_STR(err.msg, "args search is not available for perfetto traces");
  CHECK(st_args_search_create(NULL, ST_ARGS_JSON, "", 0, &err) == NULL);
  CHECK(err.code == ST_ERR_ARG);
  /* a corrupt gzip stream is an error */
  st_args_search *s = st_args_search_create(NULL, ST_ARGS_JSON, "x", 1, &err);
  const uint8_t bad[] = {0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 0xFF, 0xFF, 0xFF, 0xFF};
  st_code c = st_args_search_push(s, bad, sizeof bad, &err);
  if (c == ST_OK) c = st_args_search_finish(s, &err);
  CHECK(c == ST_ERR_GZIP);
  st_args_search_destroy(s);
  /* no active search: nothing to add to */
  st_args_kind kind;
  st_trace *t = load(k_trace, strlen(k_trace), &kind);
  st_find *f = st_find_create(NULL, t);
  uint64_t one = 0;
  CHECK(st_find_add_srcs(f, &one, 1) == ST_ERR_ARG);
  st_find_destroy(f);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_matching);
  RUN(test_match_set);
  RUN(test_refused);
  return check_report();
}
