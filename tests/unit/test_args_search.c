/* test_args_search.c: the streaming "in args" search (core/import/args/args_search.h)
 * and its match set (st_find_add_srcs): matches in nested args, keys and
 * literals; escapes decoded (\", \n, \u00e9, surrogate pairs); case
 * folding; nothing outside "args" (names, cat, other members) matches; a
 * needle spanning chunk boundaries (every input fed in 1-byte chunks too);
 * gzip input; candidates that are not events (M records) dropped by the
 * mapping; a hit only in an E event's args maps to its B/E slice;
 * st_args_search_create (kind only) refuses XSpace / Perfetto.
 * XSpace and Perfetto through st_args_search_create_for: fixtures encoded
 * here (pb_enc.h) with a needle only in one event's stat / debug
 * annotation value (whole, 1-byte and 7-byte chunks, gzip'd; a packet with
 * a padded length prefix, as protozero writes them), and the corpus XSpace file
 * against a brute force over every event's decoded args. */
#include "args_search.h"
#include "check.h"
#include "load.h"
#include "pb_enc.h"
#include "query.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

static const char *k_trace =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"needle "
    "thread\"}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5,\"name\":\"needle_name\",\"cat\":"
    "\"needle\"},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"name\":\"a\",\"args\":{\"x\":{"
    "\"deep\":[1,{\"y\":\"has NeEdLe inside\"}]}}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,\"name\":\"b\",\"args\":{\"q\":"
    "\"ne\\u0065dle escaped\"}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5,\"name\":\"c\",\"args\":{\"q\":\"no "
    "match here\"},\"id\":\"needle\"},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":40,\"dur\":5,\"name\":\"d\",\"args\":{\"needle_key\":"
    "1}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":50,\"dur\":5,\"name\":\"e\",\"args\":{\"s\":"
    "\"caf\\u00e9 \\\"quoted\\\" line\\nnext \\ud83d\\ude00\"}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":60,\"dur\":5,\"name\":\"f\",\"args\":{\"n\":"
    "123456789,\"t\":true}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":70,\"dur\":5,\"name\":\"g\",\"args\":\"needle as a "
    "string\"},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":80,\"dur\":5,\"name\":\"h\",\"args\":{\"a\":\"b\"},"
    "\"argsx\":\"needle\"}\n"
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

/* B/E slices: a hit in the E's args (the E is no model event: its src is
 * in no row) maps to the slice its B opened; nested pairs, a pair whose B
 * and E both match (counted once), async b/e too. */
static const char *k_be =
    "[\n"
    "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1,\"name\":\"outer\",\"args\":{\"k\":\"both\"}},\n"
    "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":2,\"name\":\"inner\"},\n"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":3,\"args\":{\"only_end\":\"Quokkafinch\"}},\n"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,\"name\":\"x\",\"args\":{\"k\":\"both\"}}"
    ",\n"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":9,\"args\":{\"k\":\"both\",\"loss\":0.5}},\n"
    "{\"ph\":\"b\",\"pid\":1,\"tid\":1,\"ts\":5,\"name\":\"req\",\"cat\":\"c\",\"id\":7},\n"
    "{\"ph\":\"e\",\"pid\":1,\"tid\":1,\"ts\":8,\"name\":\"req\",\"cat\":\"c\",\"id\":7,"
    "\"args\":{\"status\":\"Wombatdone\"}}\n"
    "]\n";

/* the single match of needle in k_be: its name ("" if not exactly one) */
static const char *be_match(const st_trace *t, st_args_kind kind, const char *needle,
                            uint64_t *count) {
  size_t n = strlen(k_be);
  *count = search(t, kind, k_be, n, n, needle);
  CHECK_EQ_INT(search(t, kind, k_be, n, 1, needle), *count);
  st_find *f = st_find_create(NULL, t);
  st_find_set(f, needle, strlen(needle));
  st_args_search *s = st_args_search_create(NULL, kind, needle, strlen(needle), NULL);
  st_args_search_push(s, k_be, n, NULL);
  st_args_search_finish(s, NULL);
  size_t nh;
  const uint64_t *h = st_args_search_hits(s, &nh);
  st_find_add_srcs(f, h, nh);
  st_event_ref r;
  const char *name = "";
  if (st_find_count(f) == 1 && st_find_step(f, ST_REF_NONE, +1, 0, &r)) {
    const st_row *rows = st_trace_rows(t, NULL);
    name = st_strtab_get(st_trace_strings(t), rows[r.row].name[r.index], NULL);
  }
  st_args_search_destroy(s);
  st_find_destroy(f);
  return name;
}

static void test_begin_end(void) {
  st_args_kind kind;
  st_trace *t = load(k_be, strlen(k_be), &kind);
  CHECK(t != NULL && kind == ST_ARGS_JSON);
  uint64_t count;
  CHECK_EQ_STR(be_match(t, kind, "quokkafinch", &count), "inner"); /* only on inner's E */
  CHECK_EQ_INT(count, 1);
  CHECK_EQ_STR(be_match(t, kind, "LOSS", &count), "outer");     /* only on outer's E */
  CHECK_EQ_STR(be_match(t, kind, "wombatdone", &count), "req"); /* an async e */
  CHECK_EQ_INT(count, 1);
  be_match(t, kind, "both", &count); /* outer (B and E: once) and x */
  CHECK_EQ_INT(count, 2);
  be_match(t, kind, "absent", &count);
  CHECK_EQ_INT(count, 0);
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

/* ---- XSpace and Perfetto ------------------------------------------------ */

/* args pass over data in chunks; hits into srcs (cap), returns the count */
static size_t pb_run(const tu_args_trace *r, const void *data, size_t len, size_t chunk,
                     const char *needle, uint64_t *srcs, size_t cap, uint64_t *skipped) {
  st_error err;
  memset(&err, 0, sizeof err);
  st_args_search *s = st_args_search_create_for(NULL, r->as, r->t, needle, strlen(needle), &err);
  CHECK(s != NULL);
  if (!s) return 0;
  const uint8_t *p = data;
  for (size_t off = 0; off < len; off += chunk)
    CHECK(st_args_search_push(s, p + off, len - off < chunk ? len - off : chunk, &err) == ST_OK);
  CHECK(st_args_search_finish(s, &err) == ST_OK);
  size_t nh;
  const uint64_t *h = st_args_search_hits(s, &nh);
  for (size_t i = 0; i < nh && i < cap; i++) srcs[i] = h[i];
  for (size_t i = 1; i < nh; i++) CHECK(h[i - 1] < h[i]);
  if (skipped) *skipped = st_args_search_skipped(s);
  st_args_search_destroy(s);
  return nh;
}

/* the same search in chunks of len, 1 and 7 bytes: want hits, the first at want_src */
static void pb_check(const tu_args_trace *r, const void *data, size_t len, const char *needle,
                     size_t want, uint64_t want_src) {
  uint64_t a[8] = {0}, b[8] = {0}, c[8] = {0};
  CHECK_EQ_INT(pb_run(r, data, len, len, needle, a, 8, NULL), want);
  CHECK_EQ_INT(pb_run(r, data, len, 1, needle, b, 8, NULL), want);
  CHECK_EQ_INT(pb_run(r, data, len, 7, needle, c, 8, NULL), want);
  if (want) CHECK(a[0] == want_src && b[0] == want_src && c[0] == want_src);
}

static void xp_stat_meta(enc *plane, uint64_t id, const char *name) {
  enc v = {0}, e = {0};
  enc_u(&v, 1, id);
  enc_str(&v, 2, name);
  enc_u(&e, 1, id);
  enc_msg(&e, 2, &v);
  enc_msg(plane, 5, &e);
  enc_free(&v);
  enc_free(&e);
}

static void xp_event_meta(enc *plane, uint64_t id, const char *name, const char *disp) {
  enc em = {0}, entry = {0};
  enc_u(&em, 1, id);
  enc_str(&em, 2, name);
  if (disp) enc_str(&em, 4, disp);
  enc_u(&entry, 1, id);
  enc_msg(&entry, 2, &em);
  enc_msg(plane, 4, &entry);
  enc_free(&em);
  enc_free(&entry);
}

/* two planes; the needle "Zebra" is only in the str stat of event "op.b" */
static void xspace2(enc *out) {
  enc plane = {0}, line = {0}, ev = {0}, st = {0};
  for (int pi = 0; pi < 2; pi++) {
    enc_reset(&plane);
    enc_reset(&line);
    enc_u(&plane, 1, (uint64_t)pi + 1);
    enc_str(&plane, 2, pi ? "/device:GPU:1" : "/device:GPU:0");
    enc_u(&line, 1, 1);
    enc_str(&line, 2, "XLA Ops");
    enc_u(&line, 3, 1000);
    for (int ei = 0; ei < 3; ei++) {
      enc_reset(&ev);
      enc_u(&ev, 1, (uint64_t)(pi * 3 + ei + 1));
      enc_u(&ev, 2, (uint64_t)ei * 10000);
      enc_u(&ev, 3, 5000);
      enc_reset(&st), enc_u(&st, 1, 1), enc_u(&st, 3, (uint64_t)ei), enc_msg(&ev, 4, &st);
      enc_reset(&st), enc_u(&st, 1, 2);
      enc_str(&st, 5, pi == 1 && ei == 1 ? "a zEBRA crossing" : "plain text");
      enc_msg(&ev, 4, &st);
      enc_msg(&line, 4, &ev);
    }
    enc_msg(&plane, 3, &line);
    static const char *const names[] = {"op.a", "op.b", "op.c"};
    for (int ei = 0; ei < 3; ei++) {
      char nm[32];
      snprintf(nm, sizeof nm, "%s%s", names[ei], pi ? "" : "0");
      xp_event_meta(&plane, (uint64_t)(pi * 3 + ei + 1), nm, NULL);
    }
    xp_stat_meta(&plane, 1, "step");
    xp_stat_meta(&plane, 2, "label");
    enc_msg(out, 1, &plane);
  }
  enc_str(out, 4, "host0");
  enc_free(&plane), enc_free(&line), enc_free(&ev), enc_free(&st);
}

static void test_xplane(void) {
  enc x = {0};
  xspace2(&x);
  tu_args_trace r = tu_load_args(x.p, x.n, "t.xplane.pb");
  CHECK(r.t && r.as);
  CHECK_EQ_INT(st_argsrc_kind(r.as), ST_ARGS_XPLANE);
  uint64_t want = tu_src_named(r.t, "op.b");
  CHECK(want != UINT64_MAX);
  pb_check(&r, x.p, x.n, "zebra", 1, want);
  pb_check(&r, x.p, x.n, "ZEBRA CROSS", 1, want);
  pb_check(&r, x.p, x.n, "label", 6, tu_src_named(r.t, "op.a0")); /* a stat name (key) */
  pb_check(&r, x.p, x.n, "op.b", 0, 0);                           /* names are not args */
  pb_check(&r, x.p, x.n, "nothing", 0, 0);
  uint8_t gz[4096];
  size_t gn = gzip((const char *)x.p, x.n, gz, sizeof gz);
  pb_check(&r, gz, gn, "zebra", 1, want);
  /* the match set: names or args */
  st_find *f = st_find_create(NULL, r.t);
  CHECK(st_find_set(f, "zebra", 5) == ST_OK);
  CHECK_EQ_INT(st_find_count(f), 0);
  uint64_t h[8];
  size_t n = pb_run(&r, x.p, x.n, x.n, "zebra", h, 8, NULL);
  CHECK(st_find_add_srcs(f, h, n) == ST_OK);
  CHECK_EQ_INT(st_find_count(f), 1);
  st_find_destroy(f);
  /* kind only: still refused (no args source) */
  st_error err;
  CHECK(st_args_search_create_for(NULL, r.as, NULL, "x", 1, &err) == NULL);
  CHECK(err.code == ST_ERR_FORMAT);
  tu_unload_args(&r);
  enc_free(&x);
}

static void pf_packet(enc *out, enc *pk, int padded) {
  if (!padded) {
    enc_msg(out, 1, pk);
  } else { /* protozero style: a 4-byte length prefix */
    enc_tag(out, 1, 2);
    uint8_t l[4] = {(uint8_t)(0x80 | (pk->n & 0x7F)), (uint8_t)(0x80 | (pk->n >> 7 & 0x7F)),
                    (uint8_t)(0x80 | (pk->n >> 14 & 0x7F)), (uint8_t)(pk->n >> 21 & 0x7F)};
    enc_raw(out, l, 4);
    enc_raw(out, pk->p, pk->n);
  }
  enc_reset(pk);
}

/* slices "s1".."s4" on one track; "Zebra" only in s3's debug annotation
 * value (in a packet with a padded length prefix); s2's annotation name is
 * the interned "stripes" */
static void perfetto2(enc *out) {
  enc pk = {0}, te = {0}, a = {0}, td = {0}, id = {0}, e = {0};
  enc_u(&pk, 10, 1);
  enc_u(&pk, 13, 1);
  enc_u(&e, 1, 1), enc_str(&e, 2, "stripes"), enc_msg(&id, 3, &e);
  enc_msg(&pk, 12, &id);
  enc_u(&td, 1, 77);
  enc_str(&td, 2, "track");
  enc_msg(&pk, 60, &td);
  pf_packet(out, &pk, 0);
  static const char *const names[] = {"s1", "s2", "s3", "s4"};
  for (int i = 0; i < 4; i++) {
    enc_u(&pk, 10, 1), enc_u(&pk, 13, 2), enc_u(&pk, 8, (uint64_t)(1000 + i * 1000));
    enc_reset(&te), enc_u(&te, 9, 3), enc_u(&te, 11, 77), enc_str(&te, 23, names[i]);
    enc_reset(&a);
    if (i == 1)
      enc_u(&a, 1, 1), enc_i(&a, 4, 7); /* interned name "stripes" */
    else
      enc_str(&a, 10, "k"), enc_str(&a, 6, i == 2 ? "big Zebra here" : "horse");
    enc_msg(&te, 4, &a);
    enc_msg(&pk, 11, &te);
    pf_packet(out, &pk, i == 2);
  }
  enc_free(&pk), enc_free(&te), enc_free(&a), enc_free(&td), enc_free(&id), enc_free(&e);
}

static void test_perfetto(void) {
  enc p = {0};
  perfetto2(&p);
  tu_args_trace r = tu_load_args(p.p, p.n, "t.perfetto-trace");
  CHECK(r.t && r.as);
  CHECK_EQ_INT(st_argsrc_kind(r.as), ST_ARGS_PERFETTO);
  uint64_t s3 = tu_src_named(r.t, "s3");
  CHECK(s3 != UINT64_MAX);
  pb_check(&r, p.p, p.n, "zebra", 1, s3);
  pb_check(&r, p.p, p.n, "STRIPES", 1, tu_src_named(r.t, "s2")); /* an interned key */
  pb_check(&r, p.p, p.n, "horse", 2, tu_src_named(r.t, "s1"));
  pb_check(&r, p.p, p.n, "s3", 0, 0);
  uint8_t gz[4096];
  size_t gn = gzip((const char *)p.p, p.n, gz, sizeof gz);
  pb_check(&r, gz, gn, "zebra", 1, s3);
  uint64_t skipped = 1, h[4];
  CHECK_EQ_INT(pb_run(&r, p.p, p.n, 3, "zebra", h, 4, &skipped), 1);
  CHECK_EQ_INT(skipped, 0);
  tu_unload_args(&r);
  enc_free(&p);
}

/* a SLICE_BEGIN / SLICE_END pair "work": "koala" only in the END's debug
 * annotation; the pass reports the END, which the model ties to the slice */
static void test_perfetto_begin_end(void) {
  enc p = {0}, pk = {0}, te = {0}, a = {0}, td = {0};
  enc_u(&pk, 10, 1), enc_u(&pk, 13, 1);
  enc_u(&td, 1, 77), enc_str(&td, 2, "track"), enc_msg(&pk, 60, &td);
  pf_packet(&p, &pk, 0);
  enc_u(&pk, 10, 1), enc_u(&pk, 13, 2), enc_u(&pk, 8, 1000);
  enc_u(&te, 9, 1), enc_u(&te, 11, 77), enc_str(&te, 23, "work");
  enc_reset(&a), enc_str(&a, 10, "k"), enc_str(&a, 6, "emu"), enc_msg(&te, 4, &a);
  enc_msg(&pk, 11, &te);
  pf_packet(&p, &pk, 0);
  enc_u(&pk, 10, 1), enc_u(&pk, 8, 2000);
  enc_reset(&te), enc_u(&te, 9, 2), enc_u(&te, 11, 77);
  enc_reset(&a), enc_str(&a, 10, "k"), enc_str(&a, 6, "koala"), enc_msg(&te, 4, &a);
  enc_msg(&pk, 11, &te);
  pf_packet(&p, &pk, 0);
  tu_args_trace r = tu_load_args(p.p, p.n, "t.perfetto-trace");
  CHECK(r.t && r.as);
  uint64_t work = tu_src_named(r.t, "work"), end = st_trace_end_src_of(r.t, work);
  CHECK(work != UINT64_MAX && end != UINT64_MAX);
  pb_check(&r, p.p, p.n, "koala", 1, end); /* only on the END */
  pb_check(&r, p.p, p.n, "emu", 1, work);
  tu_unload_args(&r);
  enc_free(&p), enc_free(&pk), enc_free(&te), enc_free(&a), enc_free(&td);
}

/* corpus XSpace: the pass finds exactly the events whose decoded args
 * contain the needle (brute force: every event's args via the query
 * dialogue over the whole file, case-insensitive substring) */
static int cmp_src(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int has_ci(const char *h, size_t n, const char *nd) {
  size_t m = strlen(nd);
  for (size_t i = 0; i + m <= n; i++) {
    size_t k = 0;
    while (k < m && (h[i + k] | 0x20) == (nd[k] | 0x20)) k++;
    if (k == m) return 1;
  }
  return 0;
}

static void test_corpus_xplane(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/xprof__34.83.195.179_6003.xplane.pb", STRATA_CORPUS_DIR);
  size_t n = 0;
  uint8_t *buf = tu_read_file(path, &n);
  if (!buf) {
    printf("  (skipped: %s not found)\n", path);
    return;
  }
  tu_args_trace r = tu_load_args(buf, n, path);
  CHECK(r.t && r.as);
  static const char *const needles[] = {"correlation", "MakeTensorFromProto", "size:4"};
  for (int ni = 0; ni < 3; ni++) {
    uint64_t skipped = 0;
    size_t nh = pb_run(&r, buf, n, 1u << 16, needles[ni], NULL, 0, &skipped);
    CHECK_EQ_INT(skipped, 0);
    /* brute force over unique srcs */
    uint32_t nr;
    const st_row *rows = st_trace_rows(r.t, &nr);
    size_t total = 0;
    for (uint32_t i = 0; i < nr; i++) total += rows[i].count;
    uint64_t *srcs = malloc(total * sizeof *srcs);
    CHECK(srcs != NULL);
    size_t k = 0;
    for (uint32_t i = 0; i < nr; i++)
      for (uint32_t e = 0; e < rows[i].count; e++) srcs[k++] = rows[i].src[e];
    qsort(srcs, k, sizeof *srcs, cmp_src);
    size_t want = 0;
    for (size_t i = 0; i < k; i++) {
      if (i && srcs[i] == srcs[i - 1]) continue;
      st_error err;
      st_args_span rd;
      st_args_query *q = st_args_query_begin(r.as, srcs[i], &rd, &err);
      CHECK(q != NULL);
      int more = 1;
      while (q && more) {
        size_t from = rd.offset < n ? (size_t)rd.offset : n;
        size_t len = rd.length < n - from ? (size_t)rd.length : n - from;
        if (st_args_query_push(q, buf + from, len, &more, &rd, &err) != ST_OK) break;
      }
      CHECK(!more);
      size_t tl;
      const char *text = st_args_query_result(q, &tl, NULL);
      want += (size_t)has_ci(text, tl, needles[ni]);
      st_args_query_end(q);
    }
    printf("  corpus xplane: \"%s\": %zu events\n", needles[ni], nh);
    CHECK(nh > 0);
    CHECK_EQ_INT(nh, want);
    free(srcs);
  }
  tu_unload_args(&r);
  free(buf);
}

int main(void) {
  RUN(test_matching);
  RUN(test_match_set);
  RUN(test_begin_end);
  RUN(test_refused);
  RUN(test_xplane);
  RUN(test_perfetto);
  RUN(test_perfetto_begin_end);
  RUN(test_corpus_xplane);
  return check_report();
}
