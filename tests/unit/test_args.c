/* test_args.c: extracting an event's args as compact JSON: plain and nested
 * values, escapes kept, invalid UTF-8 and lone surrogates replaced, control
 * characters escaped, deep nesting capped without recursion, the output
 * bound (cut strings, dropped members, still valid), hostile and truncated
 * input; merging a B/E pair's args (st_args_merge: the E wins on a
 * duplicate key, escapes decoded in keys, the bound, hostile input).
 * Validity is checked by feeding the output back in: valid compact JSON
 * comes out unchanged. */
#include "chrome_args.h"
#include "check.h"

#include <stdlib.h>

static char g_out[1 << 16];

static st_code ex(const char *json, size_t cap, int *cut) {
  st_error err;
  return st_args_extract(json, strlen(json), g_out, cap, NULL, cut, &err);
}

/* Wraps s as {"args":s} and extracts again: must round-trip exactly. */
static int roundtrips(const char *s) {
  size_t n = strlen(s);
  char *in = malloc(n + 16), *out = malloc(n + 256);
  memcpy(in, "{\"args\":", 8);
  memcpy(in + 8, s, n);
  memcpy(in + 8 + n, "}", 2);
  int cut = 0;
  st_code c = st_args_extract(in, n + 9, out, n + 256, NULL, &cut, NULL);
  int ok = c == ST_OK && !cut && !strcmp(out, s);
  if (!ok) fprintf(stderr, "not a fixed point: %s -> %s\n", s, out);
  free(in);
  free(out);
  return ok;
}

static void test_plain(void) {
  int cut;
  CHECK(ex("{\"name\":\"x\",\"ph\":\"X\",\"args\":{\"a\": 1, \"b\" : [true, null, -2.5e3], "
           "\"c\":{\"d\":\"e\"}}}",
           sizeof g_out, &cut) == ST_OK);
  CHECK_EQ_STR(g_out, "{\"a\":1,\"b\":[true,null,-2.5e3],\"c\":{\"d\":\"e\"}}");
  CHECK(!cut);
  /* args first, and followed by other keys and the next event */
  CHECK(ex("{\"args\":{\"k\":\"v\"},\"name\":\"x\"},{\"name\":\"y\"", sizeof g_out, &cut) == ST_OK);
  CHECK_EQ_STR(g_out, "{\"k\":\"v\"}");
  /* no args */
  CHECK(ex("{\"name\":\"x\",\"nested\":{\"args\":{\"no\":1}}}", sizeof g_out, &cut) == ST_OK);
  CHECK_EQ_STR(g_out, "{}");
  /* args that are not an object are shown as they are */
  CHECK(ex("{\"args\":\"text\"}", sizeof g_out, &cut) == ST_OK);
  CHECK_EQ_STR(g_out, "\"text\"");
  /* an escaped key still counts */
  CHECK(ex("{\"\\u0061rgs\":{\"z\":0}}", sizeof g_out, &cut) == ST_OK);
  CHECK_EQ_STR(g_out, "{\"z\":0}");
  /* leading whitespace */
  CHECK(ex(" \n\t{ \"args\" : [ ] }", sizeof g_out, &cut) == ST_OK);
  CHECK_EQ_STR(g_out, "[]");
  CHECK(roundtrips("{\"a\":1,\"b\":[true,null,-2.5e3],\"c\":{\"d\":\"e\"}}"));
}

static void test_strings(void) {
  int cut;
  /* escapes kept as written; valid pairs kept; lone surrogates replaced */
  CHECK(ex("{\"args\":{\"s\":\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\\ud800x\\udc00\"}}",
           sizeof g_out, &cut) == ST_OK);
  CHECK_EQ_STR(g_out, "{\"s\":\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\\ufffdx\\ufffd\"}");
  /* raw control characters escaped, invalid UTF-8 replaced, valid kept */
  CHECK(ex("{\"args\":{\"s\":\"t\x01\tb \xff\xfe caf\xc3\xa9 \xe2\x82 \xed\xa0\x80\"}}",
           sizeof g_out, &cut) == ST_OK);
  CHECK_EQ_STR(g_out, "{\"s\":\"t\\u0001\\u0009b \xef\xbf\xbd\xef\xbf\xbd caf\xc3\xa9 "
                      "\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}");
  CHECK(roundtrips(g_out));
  /* a bad escape is malformed JSON */
  st_error err;
  CHECK(st_args_extract("{\"args\":{\"s\":\"\\q\"}}", 19, g_out, sizeof g_out, NULL, &cut, &err) ==
        ST_ERR_JSON);
  CHECK_EQ_STR(g_out, "{}");
  CHECK(err.code == ST_ERR_JSON && err.offset > 0);
}

static void test_depth(void) {
  int cut;
  /* deeper than the cap: the deep part becomes "…" */
  char buf[512];
  size_t n = 0;
  n += (size_t)sprintf(buf, "{\"args\":");
  for (int i = 0; i < 40; i++) buf[n++] = '[';
  buf[n++] = '1';
  for (int i = 0; i < 40; i++) buf[n++] = ']';
  buf[n++] = '}';
  buf[n] = 0;
  CHECK(ex(buf, sizeof g_out, &cut) == ST_OK);
  size_t opens = 0;
  while (g_out[opens] == '[') opens++;
  CHECK_EQ_INT(opens, ST_ARGS_MAX_DEPTH);
  CHECK(strstr(g_out, "\"\xE2\x80\xA6\"") != NULL);
  CHECK(roundtrips(g_out));
  /* hostile: a million opening brackets (skipped or capped without recursion) */
  size_t big = 1000000;
  char *h = malloc(big + 32);
  memcpy(h, "{\"x\":", 5);
  memset(h + 5, '[', big);
  h[5 + big] = 0;
  CHECK(ex(h, sizeof g_out, &cut) == ST_ERR_TRUNCATED);
  CHECK_EQ_STR(g_out, "{}");
  memcpy(h, "{\"args\":", 8);
  memset(h + 8, '{', big - 3);
  h[5 + big] = 0;
  CHECK(ex(h, sizeof g_out, &cut) != ST_OK);
  memset(h + 8, '[', big - 3);
  CHECK(ex(h, sizeof g_out, &cut) == ST_ERR_TRUNCATED);
  free(h);
}

static void test_bounded(void) {
  int cut;
  /* a long string (an HLO dump) is cut with an ellipsis, the JSON stays valid */
  size_t big = 200000;
  char *in = malloc(big + 64);
  int n = sprintf(in, "{\"args\":{\"a\":1,\"hlo\":\"");
  memset(in + n, 'x', big);
  strcpy(in + n + big, "\",\"z\":2}}");
  CHECK(ex(in, 4096, &cut) == ST_OK);
  CHECK(cut);
  CHECK(strlen(g_out) < 4096);
  CHECK(!strncmp(g_out, "{\"a\":1,\"hlo\":\"xxx", 17));
  CHECK(strstr(g_out, "x\xE2\x80\xA6\"}") != NULL);
  CHECK(roundtrips(g_out));
  /* with room it is all there */
  char *out = malloc(big + 256);
  size_t len = 0;
  CHECK(st_args_extract(in, strlen(in), out, big + 256, &len, &cut, NULL) == ST_OK);
  CHECK(!cut && len == big + 22);
  free(out);
  /* many members: the ones that do not fit are dropped whole */
  size_t k = (size_t)sprintf(in, "{\"args\":{");
  for (int i = 0; i < 2000; i++)
    k += (size_t)sprintf(in + k, "%s\"key%d\":[%d,%d]", i ? "," : "", i, i, i);
  strcpy(in + k, "}}");
  for (size_t cap = 64; cap < 2000; cap += 37) {
    CHECK(ex(in, cap, &cut) == ST_OK);
    CHECK(cut && strlen(g_out) < cap);
    CHECK(roundtrips(g_out));
  }
  /* a too-small buffer is an argument error */
  char tiny[8];
  CHECK(st_args_extract("{}", 2, tiny, sizeof tiny, NULL, &cut, NULL) == ST_ERR_ARG);
  free(in);
}

static void test_hostile(void) {
  int cut;
  const char *bad[] = {"",
                       "[1]",
                       "\"args\"",
                       "{\"args\"",
                       "{\"args\":",
                       "{\"args\":{",
                       "{\"args\":{\"a\"",
                       "{\"args\":{\"a\":}",
                       "{\"args\":[1,]}",
                       "{\"args\":tru}",
                       "{\"args\":-}",
                       "{\"args\":{\"a\":1 \"b\":2}}",
                       "{\"x\" 1}",
                       "{\"args\":[\"\\u12\"]}",
                       "{\"args\":\"abc"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    st_code c = ex(bad[i], sizeof g_out, &cut);
    CHECK(c == ST_ERR_JSON || c == ST_ERR_TRUNCATED);
    CHECK_EQ_STR(g_out, "{}");
  }
  /* an object without args that ends early is truncated, one that ends is fine */
  CHECK(ex("{\"name\":\"x\"", sizeof g_out, &cut) == ST_ERR_TRUNCATED);
  CHECK(ex("{}", sizeof g_out, &cut) == ST_OK);
  /* random bytes: never crashes, output always valid */
  srand(3);
  char buf[300];
  const char alphabet[] = "{}[]\":,\\u0123456789abcdefnrtl \x80\xc3\xff\x01-+.eE";
  int bad_out = 0;
  for (int it = 0; it < 20000; it++) {
    size_t n = (size_t)(rand() % 60);
    memcpy(buf, "{\"args\":", 8);
    for (size_t k = 0; k < n; k++) buf[8 + k] = alphabet[rand() % (int)(sizeof alphabet - 1)];
    buf[8 + n] = 0;
    st_code c = st_args_extract(buf, 8 + n, g_out, 64 + (size_t)(rand() % 64), NULL, &cut, NULL);
    if (c == ST_OK && !roundtrips(g_out)) bad_out++;
  }
  CHECK_EQ_INT(bad_out, 0);
}

/* ---- st_args_merge: a B/E slice's args --------------------------------- */

static char g_merged[1 << 16];

static st_code merge_cap(const char *b, const char *e, size_t cap, int *cut) {
  st_error err;
  size_t n = 0;
  st_code c = st_args_merge(NULL, b, strlen(b), e, strlen(e), g_merged, cap, &n, cut, &err);
  CHECK_EQ_INT(n, strlen(g_merged));
  return c;
}

static const char *merge(const char *b, const char *e) {
  int cut = 1;
  CHECK_EQ_INT(merge_cap(b, e, sizeof g_merged, &cut), ST_OK);
  CHECK(!cut);
  return g_merged;
}

static void test_merge(void) {
  /* E wins on a duplicate key; B-only keys (B's order) then the E's */
  CHECK_EQ_STR(merge("{\"a\":1,\"b\":2,\"c\":3}", "{\"b\":\"E\",\"d\":4}"),
               "{\"a\":1,\"c\":3,\"b\":\"E\",\"d\":4}");
  CHECK_EQ_STR(merge("{}", "{\"x\":1}"), "{\"x\":1}");                 /* B without args */
  CHECK_EQ_STR(merge("{\"x\":1}", "{}"), "{\"x\":1}");                 /* E without args */
  CHECK_EQ_STR(merge("{\"x\":{\"y\":1}}", "{}"), "{\"x\":{\"y\":1}}"); /* b as it is */
  CHECK_EQ_STR(merge("{}", "{}"), "{}");
  /* only top-level keys are merged: a nested object is replaced whole */
  CHECK_EQ_STR(merge("{\"n\":{\"a\":1,\"b\":2}}", "{\"n\":{\"b\":3}}"), "{\"n\":{\"b\":3}}");
  /* keys compared with escapes decoded */
  CHECK_EQ_STR(merge("{\"\\u0061\":1,\"k\":2}", "{\"a\":9}"), "{\"k\":2,\"a\":9}");
  CHECK_EQ_STR(merge("{\"a\\nb\":1}", "{\"a\\u000ab\":2}"), "{\"a\\u000ab\":2}");
  CHECK_EQ_STR(merge("{\"\\ud83d\\ude00\":1}", "{\"\xF0\x9F\x98\x80\":2}"),
               "{\"\xF0\x9F\x98\x80\":2}");
  CHECK_EQ_STR(merge("{\"caf\\u00e9\":1}", "{\"caf\xC3\xA9\":2}"), "{\"caf\xC3\xA9\":2}");
  CHECK_EQ_STR(merge("{\"\\\"q\\\\\":1}", "{\"\\u0022q\\u005c\":2}"), "{\"\\u0022q\\u005c\":2}");
  CHECK_EQ_STR(merge("{\"ab\":1}", "{\"a\":2}"), "{\"ab\":1,\"a\":2}"); /* prefixes differ */
  /* a duplicate inside E stays as written (JSON.parse keeps the last) */
  CHECK_EQ_STR(merge("{\"a\":1}", "{\"a\":2,\"a\":3}"), "{\"a\":2,\"a\":3}");
  /* values copied as they are, brackets inside strings included */
  CHECK_EQ_STR(merge("{\"n\":{\"a\":[1,{\"b\":\"}\"}]},\"s\":\"x\\\"y\"}", "{\"m\":\"{[\"}"),
               "{\"n\":{\"a\":[1,{\"b\":\"}\"}]},\"s\":\"x\\\"y\",\"m\":\"{[\"}");
  /* blanks between tokens (XSpace / Perfetto results) */
  CHECK_EQ_STR(merge(" { \"a\" : 1 , \"b\": \"x\" } ", "{\"b\": 2, \"c\": [1, 2]}"),
               "{\"a\":1,\"b\":2,\"c\":[1, 2]}");
  /* not objects: e wins, unless it is {} */
  CHECK_EQ_STR(merge("{\"a\":1}", "[1,2]"), "[1,2]");
  CHECK_EQ_STR(merge("\"s\"", "{\"a\":1}"), "{\"a\":1}");
  CHECK_EQ_STR(merge("[1]", "{}"), "[1]");
  CHECK_EQ_STR(merge("5", " \"e\" "), "\"e\"");
  /* every output above is valid compact JSON */
  CHECK(roundtrips("{\"a\":1,\"c\":3,\"b\":\"E\",\"d\":4}"));

  /* malformed input, bad arguments */
  int cut;
  const char *bad[][2] = {{"{\"a\":}", "{\"b\":1}"},
                          {"{\"a\":1", "{\"b\":1}"},
                          {"{\"a\":1}", "{\"b\" 1}"},
                          {"{\"a\":1}", "{\"b\":1,}"},
                          {"", "{}"},
                          {"{}", " "},
                          {"{\"a\":1}", "{\"b"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(merge_cap(bad[i][0], bad[i][1], sizeof g_merged, &cut), ST_ERR_JSON);
    CHECK_EQ_STR(g_merged, "{}");
  }
  char tiny[63];
  CHECK(st_args_merge(NULL, "{}", 2, "{}", 2, tiny, sizeof tiny, NULL, NULL, NULL) == ST_ERR_ARG);
  CHECK(st_args_merge(NULL, NULL, 2, "{}", 2, g_merged, 64, NULL, NULL, NULL) == ST_ERR_ARG);

  /* the bound: members that do not fit are dropped, the rest stays valid */
  char b[200], e[200];
  snprintf(b, sizeof b, "{\"k1\":\"%040d\",\"k2\":\"%040d\"}", 1, 2);
  snprintf(e, sizeof e, "{\"k3\":\"%040d\"}", 3);
  CHECK_EQ_INT(merge_cap(b, e, 64, &cut), ST_OK);
  CHECK(cut && strlen(g_merged) < 64 && roundtrips(g_merged));
  CHECK(strstr(g_merged, "k1") && !strstr(g_merged, "k2") && !strstr(g_merged, "k3"));
  CHECK_EQ_INT(merge_cap(b, e, strlen(b) + strlen(e) + 3, &cut), ST_OK);
  CHECK(!cut);
  CHECK_EQ_INT(
      merge_cap("[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24]", "{}", 64, &cut),
      ST_OK);
  CHECK(cut && !strcmp(g_merged, "{}"));
}

/* Many keys, half of them shared: each key once, the E's value for the
 * shared ones; and random args (via st_args_extract: valid) always merge
 * into valid JSON. */
static void test_merge_many(void) {
  size_t cap = 1 << 20;
  char *b = malloc(cap), *e = malloc(cap), *out = malloc(cap);
  size_t nb = 0, ne = 0;
  b[nb++] = '{';
  e[ne++] = '{';
  for (int i = 0; i < 4000; i++) {
    nb += (size_t)snprintf(b + nb, cap - nb, "%s\"k%d\":\"b%d\"", i ? "," : "", i, i);
    ne += (size_t)snprintf(e + ne, cap - ne, "%s\"k%d\":\"e%d\"", i ? "," : "", i + 2000, i + 2000);
  }
  b[nb++] = '}';
  e[ne++] = '}';
  size_t n = 0;
  int cut = 1;
  CHECK(st_args_merge(NULL, b, nb, e, ne, out, cap, &n, &cut, NULL) == ST_OK && !cut);
  CHECK(roundtrips(out));
  int keys = 0, evals = 0;
  for (const char *p = out; (p = strstr(p, "\"k")); p++) keys++;
  for (const char *p = out; (p = strstr(p, ":\"e")); p++) evals++;
  CHECK_EQ_INT(keys, 6000);
  CHECK_EQ_INT(evals, 4000);
  CHECK(strstr(out, "\"k1999\":\"b1999\"") && strstr(out, "\"k2000\":\"e2000\"") &&
        !strstr(out, "\"k2000\":\"b2000\""));
  /* random: never crashes; valid in, valid out */
  srand(5);
  const char alphabet[] = "{}[]\":,\\u0061abe0123 \x80\xc3";
  char in[200], x[4][256];
  int bad_out = 0;
  for (int it = 0; it < 20000; it++) {
    for (int k = 0; k < 2; k++) {
      size_t m = (size_t)(rand() % 40);
      memcpy(in, "{\"args\":", 8);
      for (size_t j = 0; j < m; j++) in[8 + j] = alphabet[rand() % (int)(sizeof alphabet - 1)];
      in[8 + m] = 0;
      if (rand() % 2) /* valid objects sharing keys now and then */
        snprintf(in, sizeof in, "{\"args\":{\"a\":%d,\"b%c\":[%d]}}", rand() % 9, 'a' + rand() % 3,
                 k);
      if (st_args_extract(in, strlen(in), x[k], sizeof x[k], NULL, NULL, NULL) != ST_OK)
        strcpy(x[k], "{}");
      /* the raw bytes too: any input is read safely */
      st_args_merge(NULL, in, strlen(in), in + 8, strlen(in + 8), x[2], 64 + rand() % 64, NULL,
                    NULL, NULL);
    }
    st_code c = st_args_merge(NULL, x[0], strlen(x[0]), x[1], strlen(x[1]), x[3], sizeof x[3], NULL,
                              &cut, NULL);
    if (c != ST_OK || !roundtrips(x[3])) bad_out++;
  }
  CHECK_EQ_INT(bad_out, 0);
  free(b);
  free(e);
  free(out);
}

int main(void) {
  RUN(test_plain);
  RUN(test_strings);
  RUN(test_depth);
  RUN(test_bounded);
  RUN(test_hostile);
  RUN(test_merge);
  RUN(test_merge_many);
  return check_report();
}
