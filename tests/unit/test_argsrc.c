/* test_argsrc.c: args on selection for every format (core/import/args/argsrc.h): the
 * loader's args source and the query dialogue, on fixtures encoded here
 * (pb_enc.h) and on the corpus; hostile srcs, short reads, huge lengths,
 * invalid UTF-8; a B/E slice's args (the B's and the E's merged). */
#include "argsrc.h"
#include "check.h"
#include "load.h"
#include "pb_enc.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs a query with reads served from buf (the decoded input); out gets
 * the result or "". Returns the code. */
static st_code query_end(const st_argsrc *as, const uint8_t *buf, size_t n, uint64_t src,
                         uint64_t end_src, char *out, size_t cap, int *steps) {
  st_error err;
  st_args_span rd;
  out[0] = 0;
  st_args_query *q = st_args_query_begin_end(as, src, end_src, &rd, &err);
  if (!q) return err.code;
  int more = 1, k = 0;
  st_code c = ST_OK;
  while (more && c == ST_OK) {
    size_t from = rd.offset < n ? (size_t)rd.offset : n;
    size_t len = rd.length < n - from ? (size_t)rd.length : n - from;
    c = st_args_query_push(q, buf + from, len, &more, &rd, &err);
    k++;
  }
  if (c == ST_OK) {
    size_t len;
    int cut;
    const char *s = st_args_query_result(q, &len, &cut);
    snprintf(out, cap, "%s", s);
  }
  if (steps) *steps = k;
  st_args_query_end(q);
  return c;
}

static st_code query(const st_argsrc *as, const uint8_t *buf, size_t n, uint64_t src, char *out,
                     size_t cap, int *steps) {
  return query_end(as, buf, n, src, UINT64_MAX, out, cap, steps);
}

/* ---- XSpace ------------------------------------------------------------- */

static void stat_meta(enc *plane, uint64_t id, const char *name) {
  enc v = {0}, e = {0};
  enc_u(&v, 1, id);
  enc_str(&v, 2, name);
  enc_u(&e, 1, id);
  enc_msg(&e, 2, &v);
  enc_msg(plane, 5, &e);
  enc_free(&v);
  enc_free(&e);
}

static void xspace(enc *out, const char *bad_text) {
  enc plane = {0}, line = {0}, ev = {0}, st = {0}, em = {0}, entry = {0};
  enc_u(&plane, 1, 3);
  enc_str(&plane, 2, "/device:GPU:3");
  /* one line with one event: stats uint, str (bad UTF-8), double, int, ref, internal */
  enc_u(&line, 1, 9);
  enc_str(&line, 2, "XLA Ops");
  enc_u(&line, 3, 1000);
  enc_u(&ev, 1, 7);
  enc_u(&ev, 2, 5000);
  enc_u(&ev, 3, 2000000);
  enc_reset(&st), enc_u(&st, 1, 2), enc_str(&st, 5, bad_text), enc_msg(&ev, 4, &st);
  enc_reset(&st), enc_u(&st, 1, 3), enc_double(&st, 2, 0.5), enc_msg(&ev, 4, &st);
  enc_reset(&st), enc_u(&st, 1, 4), enc_i(&st, 4, -42), enc_msg(&ev, 4, &st);
  enc_reset(&st), enc_u(&st, 1, 5), enc_u(&st, 7, 6), enc_msg(&ev, 4, &st);
  enc_reset(&st), enc_u(&st, 1, 8), enc_u(&st, 3, 1), enc_msg(&ev, 4, &st);
  enc_reset(&st), enc_u(&st, 1, 99), enc_u(&st, 3, 5), enc_msg(&ev, 4, &st);
  enc_msg(&line, 4, &ev);
  /* an event without metadata stats or display name */
  enc_reset(&ev);
  enc_u(&ev, 1, 11);
  enc_u(&ev, 2, 9000000);
  enc_u(&ev, 3, 1000);
  enc_msg(&line, 4, &ev);
  enc_msg(&plane, 3, &line);
  /* event metadata 7: display name, a uint stat (flops) */
  enc_u(&em, 1, 7);
  enc_str(&em, 2, "%fusion.1 = f32[8] fusion(...)");
  enc_str(&em, 4, "fusion.1");
  enc_reset(&st), enc_u(&st, 1, 1), enc_u(&st, 3, 1234567890123ull), enc_msg(&em, 5, &st);
  enc_u(&entry, 1, 7);
  enc_msg(&entry, 2, &em);
  enc_msg(&plane, 4, &entry);
  enc_reset(&em), enc_reset(&entry);
  enc_u(&em, 1, 11);
  enc_str(&em, 2, "copy.2");
  enc_u(&entry, 1, 11);
  enc_msg(&entry, 2, &em);
  enc_msg(&plane, 4, &entry);
  stat_meta(&plane, 1, "flops");
  stat_meta(&plane, 2, "long text");
  stat_meta(&plane, 3, "ratio");
  stat_meta(&plane, 4, "delta");
  stat_meta(&plane, 5, "source");
  stat_meta(&plane, 6, "file.py:12");
  stat_meta(&plane, 8, "_pt");
  enc_msg(out, 1, &plane);
  enc_str(out, 4, "host0");
  enc_free(&plane), enc_free(&line), enc_free(&ev), enc_free(&st), enc_free(&em), enc_free(&entry);
}

static void test_xplane(void) {
  enc x = {0};
  xspace(&x, "a\xFFz \"q\"");
  tu_args_trace r = tu_load_args(x.p, x.n, "t.xplane.pb");
  CHECK(r.t && r.as);
  CHECK_EQ_INT(st_argsrc_kind(r.as), ST_ARGS_XPLANE);
  char out[4096];
  int steps = 0;
  uint64_t src = tu_src_named(r.t, "fusion.1");
  CHECK(src != UINT64_MAX);
  CHECK_EQ_INT(query(r.as, x.p, x.n, src, out, sizeof out, &steps), ST_OK);
  CHECK_EQ_INT(steps, 2); /* the event record, then its metadata record */
  CHECK_EQ_STR(out, "{\"long_name\": \"%fusion.1 = f32[8] fusion(...)\", \"flops\": "
                    "\"1234567890123\", \"long text\": \"a\xEF\xBF\xBDz \\\"q\\\"\", \"ratio\": "
                    "\"0.5\", \"delta\": \"-42\", \"source\": \"file.py:12\", \"stat 99\": \"5\"}");
  src = tu_src_named(r.t, "copy.2");
  CHECK_EQ_INT(query(r.as, x.p, x.n, src, out, sizeof out, NULL), ST_OK);
  CHECK_EQ_STR(out, "{}");
  /* hostile srcs: outside every plane, inside a plane but not an event */
  CHECK_EQ_INT(query(r.as, x.p, x.n, x.n + 100, out, sizeof out, NULL), ST_ERR_ARG);
  CHECK_EQ_INT(query(r.as, x.p, x.n, 0, out, sizeof out, NULL), ST_ERR_ARG); /* the XSpace tag */
  CHECK(query(r.as, x.p, x.n, 3, out, sizeof out, NULL) != ST_OK);
  CHECK_EQ_STR(out, "");
  /* a short read (the file ends early) */
  src = tu_src_named(r.t, "fusion.1");
  CHECK_EQ_INT(query(r.as, x.p, (size_t)src + 3, src, out, sizeof out, NULL), ST_ERR_TRUNCATED);
  tu_unload_args(&r);
  enc_free(&x);
}

/* ---- Perfetto ----------------------------------------------------------- */

/* one InternedData entry {1 iid, 2 name} in table `field` of idata */
static void interned(enc *idata, uint32_t field, uint64_t iid, const char *s) {
  enc e = {0};
  enc_u(&e, 1, iid);
  enc_str(&e, 2, s);
  enc_msg(idata, field, &e);
  enc_free(&e);
}

static void packet(enc *out, enc *pk) {
  enc_msg(out, 1, pk);
  enc_reset(pk);
}

static void perfetto_trace(enc *out) {
  enc pk = {0}, te = {0}, a = {0}, b = {0}, td = {0}, id = {0};
  /* sequence 1: clear, names iid 1 = "alpha", strings iid 1 = "hello" */
  enc_u(&pk, 10, 1);
  enc_u(&pk, 13, 1);
  interned(&id, 3, 1, "alpha");
  interned(&id, 29, 1, "hello");
  enc_msg(&pk, 12, &id);
  enc_u(&td, 1, 77);
  enc_str(&td, 2, "track");
  enc_msg(&pk, 60, &td);
  packet(out, &pk);
  /* a slice with annotations */
  enc_u(&pk, 10, 1);
  enc_u(&pk, 13, 2);
  enc_u(&pk, 8, 1000);
  enc_u(&te, 9, 1), enc_u(&te, 11, 77), enc_str(&te, 23, "first");
  enc_reset(&a), enc_u(&a, 1, 1), enc_i(&a, 4, -5), enc_msg(&te, 4, &a);
  enc_reset(&a), enc_str(&a, 10, "s"), enc_u(&a, 17, 1), enc_msg(&te, 4, &a);
  enc_reset(&a), enc_str(&a, 10, "d");
  enc_reset(&b), enc_str(&b, 10, "x"), enc_u(&b, 2, 1), enc_msg(&a, 11, &b);
  enc_msg(&te, 4, &a);
  enc_reset(&a), enc_str(&a, 10, "arr");
  enc_reset(&b), enc_double(&b, 5, 1.5), enc_msg(&a, 12, &b);
  enc_reset(&b), enc_u(&b, 3, 1ull << 60), enc_msg(&a, 12, &b);
  enc_msg(&te, 4, &a);
  enc_reset(&a), enc_u(&a, 1, 9), enc_str(&a, 6, "bad\x01"), enc_msg(&te, 4, &a);
  enc_msg(&pk, 11, &te);
  packet(out, &pk);
  enc_u(&pk, 10, 1), enc_u(&pk, 8, 2000);
  enc_reset(&te), enc_u(&te, 9, 2), enc_u(&te, 11, 77), enc_msg(&pk, 11, &te);
  packet(out, &pk);
  /* sequence 1 cleared again: iid 1 now means "beta" */
  enc_u(&pk, 10, 1), enc_u(&pk, 13, 1);
  enc_reset(&id);
  interned(&id, 3, 1, "beta");
  enc_msg(&pk, 12, &id);
  packet(out, &pk);
  enc_u(&pk, 10, 1), enc_u(&pk, 13, 2), enc_u(&pk, 8, 3000);
  enc_reset(&te), enc_u(&te, 9, 3), enc_u(&te, 11, 77), enc_str(&te, 23, "second");
  enc_reset(&a), enc_u(&a, 1, 1), enc_u(&a, 2, 0), enc_msg(&te, 4, &a);
  enc_msg(&pk, 11, &te);
  packet(out, &pk);
  enc_free(&pk), enc_free(&te), enc_free(&a), enc_free(&b), enc_free(&td), enc_free(&id);
}

static void test_perfetto(void) {
  enc p = {0};
  perfetto_trace(&p);
  tu_args_trace r = tu_load_args(p.p, p.n, "t.perfetto-trace");
  CHECK(r.t && r.as);
  CHECK_EQ_INT(st_argsrc_kind(r.as), ST_ARGS_PERFETTO);
  char out[4096];
  int steps = 0;
  CHECK_EQ_INT(query(r.as, p.p, p.n, tu_src_named(r.t, "first"), out, sizeof out, &steps), ST_OK);
  CHECK_EQ_INT(steps, 1);
  CHECK_EQ_STR(out, "{\"alpha\": -5, \"s\": \"hello\", \"d\": {\"x\": true}, \"arr\": [1.5, "
                    "\"1152921504606846976\"], \"name_iid:9\": \"bad\\u0001\"}");
  CHECK_EQ_INT(query(r.as, p.p, p.n, tu_src_named(r.t, "second"), out, sizeof out, NULL), ST_OK);
  CHECK_EQ_STR(out, "{\"beta\": false}");
  /* not a packet; a packet that is not an event; a short read */
  CHECK(query(r.as, p.p, p.n, 1, out, sizeof out, NULL) != ST_OK);
  CHECK_EQ_INT(query(r.as, p.p, p.n, 0, out, sizeof out, NULL), ST_OK);
  CHECK_EQ_STR(out, "{}");
  CHECK_EQ_INT(query(r.as, p.p, 30, tu_src_named(r.t, "first"), out, sizeof out, NULL),
               ST_ERR_TRUNCATED);
  tu_unload_args(&r);
  enc_free(&p);
  /* hostile: a packet whose length prefix claims 2^40 bytes */
  st_argsrc *as = st_argsrc_create(NULL, ST_ARGS_PERFETTO);
  static const uint8_t huge[] = {0x0A, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x08};
  CHECK_EQ_INT(query(as, huge, sizeof huge, 0, out, sizeof out, NULL), ST_ERR_LIMIT);
  static const uint8_t long_varint[] = {0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  CHECK_EQ_INT(query(as, long_varint, sizeof long_varint, 0, out, sizeof out, NULL), ST_ERR_PROTO);
  /* deep nesting: dicts 40 levels down are cut with an ellipsis */
  enc deep = {0}, lvl = {0}, te = {0}, pk = {0}, tr = {0};
  enc_str(&lvl, 10, "leaf"), enc_u(&lvl, 3, 1);
  for (int i = 0; i < 40; i++) {
    enc nx = {0};
    enc_str(&nx, 10, "k");
    enc_msg(&nx, 11, &lvl);
    enc_free(&lvl);
    lvl = nx;
  }
  enc_msg(&te, 4, &lvl);
  enc_msg(&pk, 11, &te);
  enc_msg(&tr, 1, &pk);
  size_t len = 0;
  int cut = 0;
  st_error err;
  st_args_span rd;
  int more = 0;
  st_args_query *q = st_args_query_begin(as, 0, &rd, &err);
  CHECK_EQ_INT(st_args_query_push(q, tr.p, tr.n, &more, &rd, &err), ST_OK);
  const char *s = st_args_query_result(q, &len, &cut);
  CHECK(cut && strstr(s, "\xE2\x80\xA6") && s[len - 1] == '}');
  st_args_query_end(q);
  enc_free(&deep), enc_free(&lvl), enc_free(&te), enc_free(&pk), enc_free(&tr);
  st_argsrc_destroy(as);
}

/* interned text past the cap is not kept: names fall back to name_iid:N */
/* A SLICE_BEGIN / SLICE_END pair with debug annotations on both: the
 * slice's args are the BEGIN's merged with the END's (FORMATS.md 3.3), the
 * END winning on a duplicate name. */
static void test_perfetto_begin_end(void) {
  enc out = {0}, pk = {0}, te = {0}, a = {0}, td = {0}, id = {0};
  enc_u(&pk, 10, 1), enc_u(&pk, 13, 1);
  interned(&id, 3, 1, "k1");
  interned(&id, 3, 2, "k2");
  enc_msg(&pk, 12, &id);
  enc_u(&td, 1, 77), enc_str(&td, 2, "track"), enc_msg(&pk, 60, &td);
  packet(&out, &pk);
  enc_u(&pk, 10, 1), enc_u(&pk, 13, 2), enc_u(&pk, 8, 1000);
  enc_u(&te, 9, 1), enc_u(&te, 11, 77), enc_str(&te, 23, "work");
  enc_reset(&a), enc_u(&a, 1, 1), enc_i(&a, 4, 1), enc_msg(&te, 4, &a); /* k1 = 1 */
  enc_reset(&a), enc_u(&a, 1, 2), enc_i(&a, 4, 2), enc_msg(&te, 4, &a); /* k2 = 2 */
  enc_msg(&pk, 11, &te);
  packet(&out, &pk);
  enc_u(&pk, 10, 1), enc_u(&pk, 8, 2000);
  enc_reset(&te), enc_u(&te, 9, 2), enc_u(&te, 11, 77);
  enc_reset(&a), enc_u(&a, 1, 2), enc_str(&a, 6, "end"), enc_msg(&te, 4, &a); /* k2 = "end" */
  enc_reset(&a), enc_str(&a, 10, "k3"), enc_u(&a, 2, 1), enc_msg(&te, 4, &a); /* k3 = true */
  enc_msg(&pk, 11, &te);
  packet(&out, &pk);
  tu_args_trace r = tu_load_args(out.p, out.n, "t.perfetto-trace");
  CHECK(r.t && r.as);
  uint64_t src = tu_src_named(r.t, "work"), end = st_trace_end_src_of(r.t, src);
  CHECK(src != UINT64_MAX && end != UINT64_MAX && end > src);
  char res[1024];
  CHECK_EQ_INT(query_end(r.as, out.p, out.n, src, end, res, sizeof res, NULL), ST_OK);
  CHECK_EQ_STR(res, "{\"k1\":1,\"k2\":\"end\",\"k3\":true}");
  tu_unload_args(&r);
  enc_free(&out), enc_free(&pk), enc_free(&te), enc_free(&a), enc_free(&td), enc_free(&id);
}

static void test_perfetto_cap(void) {
  st_argsrc *as = st_argsrc_create(NULL, ST_ARGS_PERFETTO);
  CHECK_EQ_INT(st_argsrc_perfetto_clear(as, 5, 10), ST_OK);
  CHECK_EQ_INT(st_argsrc_perfetto_intern(as, 5, 0, 1, (const uint8_t *)"ok", 2), ST_OK);
  size_t big = ST_ARGSRC_TEXT_MAX;
  uint8_t *blob = calloc(1, big);
  CHECK_EQ_INT(st_argsrc_perfetto_intern(as, 5, 0, 2, blob, big), ST_OK);
  CHECK(st_argsrc_capped(as));
  CHECK(st_argsrc_bytes(as) < 2 * ST_ARGSRC_TEXT_MAX);
  free(blob);
  st_argsrc_destroy(as);
}

/* ---- JSON and the corpus ------------------------------------------------ */

static void test_json(void) {
  const char *j = "[{\"name\":\"a\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,"
                  "\"args\":{\"k\":[1,\"v\"]}}]";
  tu_args_trace r = tu_load_args(j, strlen(j), "t.json");
  CHECK_EQ_INT(st_argsrc_kind(r.as), ST_ARGS_JSON);
  char out[256];
  CHECK_EQ_INT(
      query(r.as, (const uint8_t *)j, strlen(j), tu_src_named(r.t, "a"), out, sizeof out, NULL),
      ST_OK);
  CHECK_EQ_STR(out, "{\"k\":[1,\"v\"]}");
  CHECK_EQ_INT(query(r.as, (const uint8_t *)j, 20, tu_src_named(r.t, "a"), out, sizeof out, NULL),
               ST_ERR_TRUNCATED);
  tu_unload_args(&r);
  CHECK(st_args_query_begin(NULL, 0, &(st_args_span){0, 0}, &(st_error){0}) == NULL);
}

/* B/E slices: the args of the B and of the E merged (E wins on a
 * duplicate key, B-only and E-only keys both kept), through the model's
 * end srcs; the E read after the B, each with its own reads (a large E
 * needs a second one); errors at the E fail the query. */
static void test_json_begin_end(void) {
  char *big = malloc(200000);
  int k = snprintf(big, 200000,
                   "[{\"name\":\"s\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1,"
                   "\"args\":{\"step\":1,\"shared\":\"from B\"}},\n"
                   "{\"name\":\"i\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":2},\n"
                   "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":3,\"args\":{\"only_end\":\"Q\"}},\n"
                   "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":9,\"args\":{\"shared\":\"from E\","
                   "\"blob\":\"");
  memset(big + k, 'x', 100000); /* the last E's args go past the first 64 KiB read */
  k += 100000;
  k += snprintf(big + k, 200000 - (size_t)k, "\",\"loss\":0.5}}]");
  const uint8_t *j = (const uint8_t *)big;
  size_t n = (size_t)k;
  tu_args_trace r = tu_load_args(j, n, "be.json");
  CHECK(r.t != NULL);
  uint64_t s = tu_src_named(r.t, "s"), i = tu_src_named(r.t, "i");
  uint64_t se = st_trace_end_src_of(r.t, s), ie = st_trace_end_src_of(r.t, i);
  CHECK_EQ_INT(ie, (uint64_t)(strstr(big, "{\"ph\":\"E\"") - big));
  CHECK_EQ_INT(se, (uint64_t)(strstr(big, "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":9") - big));
  char *out = malloc(1 << 20);
  int steps = 0;
  CHECK_EQ_INT(query_end(r.as, j, n, i, ie, out, 1 << 20, &steps), ST_OK);
  CHECK_EQ_STR(out, "{\"only_end\":\"Q\"}");
  CHECK_EQ_INT(steps, 2); /* one read for the B, one for the E */
  CHECK_EQ_INT(query_end(r.as, j, n, s, se, out, 1 << 20, &steps), ST_OK);
  CHECK(!strncmp(out, "{\"step\":1,\"shared\":\"from E\",\"blob\":\"xxx", 37));
  CHECK(strstr(out, "\",\"loss\":0.5}") && !strstr(out, "from B"));
  CHECK_EQ_INT(strlen(out), 100000 + 49);
  CHECK_EQ_INT(steps, 3); /* B, E (64 KiB), E again (1 MiB) */
  /* no end / the same event: the B's own args */
  CHECK_EQ_INT(query_end(r.as, j, n, s, UINT64_MAX, out, 1 << 20, NULL), ST_OK);
  CHECK_EQ_STR(out, "{\"step\":1,\"shared\":\"from B\"}");
  CHECK_EQ_INT(query_end(r.as, j, n, s, s, out, 1 << 20, &steps), ST_OK);
  CHECK_EQ_STR(out, "{\"step\":1,\"shared\":\"from B\"}");
  CHECK_EQ_INT(steps, 1);
  /* the E is unreadable (cut short; not an object): the query fails, result {} */
  CHECK_EQ_INT(query_end(r.as, j, se + 40, s, se, out, 1 << 20, NULL), ST_ERR_TRUNCATED);
  CHECK_EQ_INT(query_end(r.as, j, n, s, se + 1, out, 1 << 20, NULL), ST_ERR_JSON);
  st_error err;
  st_args_span rd;
  int more = 1;
  st_args_query *q = st_args_query_begin_end(r.as, i, se + 1, &rd, &err);
  while (q && more &&
         st_args_query_push(q, j + rd.offset, n - rd.offset < rd.length ? n - rd.offset : rd.length,
                            &more, &rd, &err) == ST_OK) {
  }
  size_t len;
  CHECK_EQ_STR(st_args_query_result(q, &len, NULL), "{}");
  CHECK_EQ_INT(len, 2);
  st_args_query_end(q);
  /* the page's path: the B's reads, then the E's, never more than 2 x 4 */
  q = st_args_query_begin_end(r.as, s, se, &rd, &err);
  CHECK(q && rd.offset == s);
  more = 1;
  int reads = 1, saw_end = 0;
  while (q && more) {
    size_t got = n - rd.offset < rd.length ? (size_t)(n - rd.offset) : (size_t)rd.length;
    CHECK_EQ_INT(st_args_query_push(q, j + rd.offset, got, &more, &rd, &err), ST_OK);
    if (more) reads++, saw_end |= rd.offset == se;
  }
  CHECK(saw_end && reads == 3 && reads <= 2 * ST_ARGS_QUERY_STEPS);
  int cut = 1;
  CHECK(strstr(st_args_query_result(q, &len, &cut), "\"loss\":0.5") && !cut);
  st_args_query_end(q);
  free(out);
  tu_unload_args(&r);
  free(big);
}

/* every event of the corpus files decodes */
static void test_corpus(void) {
  const char *files[] = {"xprof__34.83.195.179_6003.xplane.pb",
                         "perfetto__nested_tracks.perfetto-trace", "catapult__flow.json"};
  for (int i = 0; i < 3; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", STRATA_CORPUS_DIR, files[i]);
    size_t n = 0;
    uint8_t *data = tu_read_file(path, &n);
    if (!data) {
      fprintf(stderr, "skip %s (not found)\n", path);
      continue;
    }
    tu_args_trace r = tu_load_args(data, n, files[i]);
    CHECK(r.t && r.as);
    uint32_t nr;
    const st_row *rows = st_trace_rows(r.t, &nr);
    uint64_t ok = 0, bad = 0, with_args = 0;
    char out[1 << 16];
    for (uint32_t k = 0; k < nr; k++)
      for (uint32_t e = 0; e < rows[k].count; e++) {
        if (query(r.as, data, n, rows[k].src[e], out, sizeof out, NULL) == ST_OK) {
          ok++;
          with_args += strcmp(out, "{}") != 0;
        } else {
          bad++;
        }
      }
    CHECK_EQ_INT(bad, 0);
    CHECK(ok > 1000);
    if (i == 0) CHECK(with_args > 10000);
    tu_unload_args(&r);
    free(data);
  }
}

int main(void) {
  RUN(test_xplane);
  RUN(test_perfetto);
  RUN(test_perfetto_begin_end);
  RUN(test_perfetto_cap);
  RUN(test_json);
  RUN(test_json_begin_end);
  RUN(test_corpus);
  return check_report();
}
