/* test_flow_keys.c: Chrome flow identities stay apart however they reach
 * the builder (chrome_semantics.c writes most into the 64-bit key whole and
 * maps the rest: ids of 2^48 and up, negative ids, (cat, name) pairs past
 * the 16383 classes). Every case puts the producers of two identities
 * next to each other in time, then their consumers: two identities merged
 * into one would chain the second producer to the first consumer and
 * leave the second consumer unmatched, so the exact arrows are checked. */
#include "check.h"

#include "load.h"

#include <stdlib.h>

static int g_failed_load;

static st_trace *load_text(const char *json, size_t n, st_stats *stats) {
  st_load_desc d;
  memset(&d, 0, sizeof d);
  st_loader *l = st_loader_create(&d);
  st_error e;
  st_loader_push(l, json, n);
  st_trace *t = st_loader_finish(l, &e);
  if (!t) g_failed_load++;
  *stats = *st_loader_stats(l);
  st_loader_destroy(l);
  return t;
}

static uint64_t warn_count(const st_stats *s, const char *kind) {
  for (uint32_t i = 0; i < s->warning_count; i++)
    if (!strcmp(s->warnings[i].kind, kind)) return s->warnings[i].count;
  return 0;
}

/* "from>to" names of every flow in st_trace_flows order. */
static char *flow_names(const st_trace *t) {
  uint32_t nf;
  const st_flow *f = st_trace_flows(t, &nf);
  const st_row *rows = st_trace_rows(t, NULL);
  const st_strtab *s = st_trace_strings(t);
  size_t cap = (size_t)nf * 40 + 1, at = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  buf[0] = 0;
  for (uint32_t i = 0; i < nf; i++) {
    size_t na, nb;
    const char *a = st_strtab_get(s, rows[f[i].from_row].name[f[i].from_index], &na);
    const char *b = st_strtab_get(s, rows[f[i].to_row].name[f[i].to_index], &nb);
    at += (size_t)snprintf(buf + at, cap - at, "%s%.*s>%.*s", i ? " " : "", (int)na, a, (int)nb, b);
  }
  return buf;
}

/* Each case: a pair of identities as JSON members (cat, name, id). */
typedef struct pair_case {
  const char *a, *b;
} pair_case;

static void test_forms(void) {
  static const pair_case cases[] = {
      {"\"cat\":\"c\",\"name\":\"n\",\"id\":7", "\"cat\":\"c\",\"name\":\"m\",\"id\":7"},
      {"\"cat\":\"c\",\"name\":\"n\",\"id\":7", "\"cat\":\"d\",\"name\":\"n\",\"id\":7"},
      {"\"cat\":\"c\",\"name\":\"n\",\"id\":7", "\"cat\":\"c\",\"name\":\"n\",\"id\":\"7\""},
      {"\"cat\":\"c\",\"name\":\"n\",\"id\":5",
       "\"cat\":\"c\",\"name\":\"n\",\"id\":281474976710661"},
      {"\"cat\":\"c\",\"name\":\"n\",\"id\":0",
       "\"cat\":\"c\",\"name\":\"n\",\"id\":281474976710656"},
      {"\"cat\":\"c\",\"name\":\"n\",\"id\":3", "\"cat\":\"c\",\"name\":\"n\",\"id\":-3"},
      {"\"cat\":\"c\",\"name\":\"n\",\"id\":-3", "\"cat\":\"c\",\"name\":\"n\",\"id\":-4"},
      {"\"cat\":\"c\",\"name\":\"n\",\"id\":9223372036854775807",
       "\"cat\":\"c\",\"name\":\"n\",\"id\":140737488355327"},
      {"\"cat\":\"\",\"name\":\"\",\"id\":1", "\"cat\":\"c\",\"name\":\"n\",\"id\":1"},
  };
  char json[2048];
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    /* S1 S2 at 10, 20; F1 F2 at 30, 40; points inside them (f binds to its enclosing slice) */
    snprintf(json, sizeof json,
             "[{\"ph\":\"X\",\"name\":\"S1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
             "{\"ph\":\"X\",\"name\":\"S2\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5},"
             "{\"ph\":\"X\",\"name\":\"F1\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5},"
             "{\"ph\":\"X\",\"name\":\"F2\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":5},"
             "{\"ph\":\"s\",%s,\"pid\":1,\"tid\":1,\"ts\":11},"
             "{\"ph\":\"f\",\"bp\":\"e\",%s,\"pid\":1,\"tid\":1,\"ts\":31},"
             "{\"ph\":\"s\",%s,\"pid\":1,\"tid\":1,\"ts\":21},"
             "{\"ph\":\"f\",\"bp\":\"e\",%s,\"pid\":1,\"tid\":1,\"ts\":41}]",
             cases[c].a, cases[c].a, cases[c].b, cases[c].b);
    st_stats st;
    st_trace *t = load_text(json, strlen(json), &st);
    CHECK(t != NULL);
    if (!t) continue;
    char *names = flow_names(t);
    if (!names || strcmp(names, "S1>F1 S2>F2"))
      printf("case %zu: %s | %s -> %s\n", c, cases[c].a, cases[c].b, names ? names : "?");
    CHECK_EQ_STR(names ? names : "", "S1>F1 S2>F2");
    CHECK_EQ_INT(warn_count(&st, "unmatched_flow"), 0);
    free(names);
    st_trace_destroy(t);
  }
}

/* v2 bind_ids against each other (big ones against their low 48 bits)
 * and against a v1 flow with the first one's id: producers S1 S2 S3, then
 * consumers F1 F2 F3. */
static void test_v2(void) {
  static const char *const ids[][2] = {
      {"7", "8"}, /* and a v1 flow with id 7 */
      {"9007199254740993", "1"},
      {"281474976710656", "0"},
      {"-1", "1"},
  };
  char json[2048];
  for (size_t c = 0; c < sizeof ids / sizeof ids[0]; c++) {
    snprintf(json, sizeof json,
             "[{\"ph\":\"X\",\"name\":\"S1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
             "\"bind_id\":%s,\"flow_out\":true},"
             "{\"ph\":\"X\",\"name\":\"S2\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,"
             "\"bind_id\":%s,\"flow_out\":true},"
             "{\"ph\":\"X\",\"name\":\"F1\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5,"
             "\"bind_id\":%s,\"flow_in\":true},"
             "{\"ph\":\"X\",\"name\":\"F2\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":5,"
             "\"bind_id\":%s,\"flow_in\":true},"
             "{\"ph\":\"X\",\"name\":\"S3\",\"pid\":1,\"tid\":1,\"ts\":25,\"dur\":5},"
             "{\"ph\":\"X\",\"name\":\"F3\",\"pid\":1,\"tid\":1,\"ts\":45,\"dur\":5},"
             "{\"ph\":\"s\",\"cat\":\"\",\"name\":\"\",\"id\":%s,\"pid\":1,\"tid\":1,\"ts\":26},"
             "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"\",\"name\":\"\",\"id\":%s,\"pid\":1,\"tid\":1,"
             "\"ts\":46}]",
             ids[c][0], ids[c][1], ids[c][0], ids[c][1], ids[c][0], ids[c][0]);
    st_stats st;
    st_trace *t = load_text(json, strlen(json), &st);
    CHECK(t != NULL);
    if (!t) continue;
    char *names = flow_names(t);
    if (!names || strcmp(names, "S1>F1 S2>F2 S3>F3"))
      printf("v2 case %zu: %s / %s -> %s\n", c, ids[c][0], ids[c][1], names ? names : "?");
    CHECK_EQ_STR(names ? names : "", "S1>F1 S2>F2 S3>F3");
    free(names);
    st_trace_destroy(t);
  }
}

/* 17000 (cat, name) pairs with the same id: the first 16383 get a class
 * of their own, the rest are mapped; all producers come first, then all
 * consumers in the same order, so any two identities taken for one would
 * show. */
static void test_many_pairs(void) {
  enum { N = 17000 };
  size_t cap = (size_t)N * 4 * 96 + 16, at = 0;
  char *json = malloc(cap);
  CHECK(json != NULL);
  if (!json) return;
  at += (size_t)snprintf(json + at, cap - at, "[");
  for (int k = 0; k < N; k++) {
    long s = 10L * k, f = 10L * (N + k);
    at += (size_t)snprintf(
        json + at, cap - at,
        "%s{\"ph\":\"X\",\"name\":\"S%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":5},"
        "{\"ph\":\"X\",\"name\":\"F%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":5},"
        "{\"ph\":\"s\",\"cat\":\"c\",\"name\":\"n%d\",\"id\":42,\"pid\":1,\"tid\":1,\"ts\":%ld},"
        "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"c\",\"name\":\"n%d\",\"id\":42,\"pid\":1,\"tid\":1,"
        "\"ts\":%ld}",
        k ? "," : "", k, s, k, f, k, s + 1, k, f + 1);
  }
  at += (size_t)snprintf(json + at, cap - at, "]");
  CHECK(at < cap);
  st_stats st;
  st_trace *t = load_text(json, at, &st);
  free(json);
  CHECK(t != NULL);
  if (!t) return;
  uint32_t nf;
  const st_flow *fl = st_trace_flows(t, &nf);
  CHECK_EQ_INT(nf, N);
  CHECK_EQ_INT(warn_count(&st, "unmatched_flow"), 0);
  const st_row *rows = st_trace_rows(t, NULL);
  const st_strtab *s = st_trace_strings(t);
  int wrong = 0;
  for (uint32_t i = 0; i < nf; i++) {
    size_t na, nb;
    const char *a = st_strtab_get(s, rows[fl[i].from_row].name[fl[i].from_index], &na);
    const char *b = st_strtab_get(s, rows[fl[i].to_row].name[fl[i].to_index], &nb);
    if (na != nb || na < 2 || a[0] != 'S' || b[0] != 'F' || memcmp(a + 1, b + 1, na - 1)) wrong++;
  }
  CHECK_EQ_INT(wrong, 0);
  st_trace_destroy(t);
}

int main(void) {
  RUN(test_forms);
  RUN(test_v2);
  RUN(test_many_pairs);
  CHECK_EQ_INT(g_failed_load, 0);
  return check_report();
}
