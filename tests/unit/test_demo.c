/* test_demo.c: the demo generator: deterministic per seed, well-formed JSON
 * structure (balanced, object form, ns display unit), the expected processes
 * and lines, event count close to the target, chunked writes, abort. */
#include "check.h"
#include "demo.h"

#include <stdlib.h>

typedef struct cap {
  char *data;
  size_t len, cap;
  size_t chunks, max_chunk;
  int fail_after; /* > 0: fail on that chunk */
} cap;

static int collect(void *ud, const void *p, size_t n) {
  cap *c = ud;
  c->chunks++;
  if (n > c->max_chunk) c->max_chunk = n;
  if (c->fail_after && (int)c->chunks >= c->fail_after) return 1;
  if (c->len + n + 1 > c->cap) {
    size_t nc = (c->len + n + 1) * 2;
    char *d = realloc(c->data, nc);
    if (!d) return 1;
    c->data = d;
    c->cap = nc;
  }
  memcpy(c->data + c->len, p, n);
  c->len += n;
  c->data[c->len] = 0;
  return 0;
}

static uint64_t fnv(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
  return h;
}

static size_t count_of(const char *s, const char *needle) {
  size_t n = 0, k = strlen(needle);
  for (const char *p = s; (p = strstr(p, needle)) != NULL; p += k) n++;
  return n;
}

/* Balanced braces/brackets outside strings, no control characters inside
 * strings, and the number of objects at depth 2 (the event list). */
static int structure_ok(const char *s, size_t n, size_t *events) {
  int depth = 0, in_str = 0;
  *events = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (in_str) {
      if ((unsigned char)c < 0x20) return 0;
      if (c == '\\')
        i++;
      else if (c == '"')
        in_str = 0;
      continue;
    }
    if (c == '"')
      in_str = 1;
    else if (c == '{' || c == '[') {
      if (c == '{' && depth == 2) (*events)++;
      depth++;
    } else if (c == '}' || c == ']') {
      if (--depth < 0) return 0;
    }
  }
  return depth == 0 && !in_str;
}

static void test_deterministic(void) {
  cap a = {0}, b = {0}, c = {0};
  st_demo_desc d = {.seed = 7, .target_events = 5000};
  CHECK_EQ_INT(st_demo_write(&d, collect, &a), ST_OK);
  CHECK_EQ_INT(st_demo_write(&d, collect, &b), ST_OK);
  d.seed = 8;
  CHECK_EQ_INT(st_demo_write(&d, collect, &c), ST_OK);
  CHECK(a.len > 0);
  CHECK_EQ_INT(a.len, b.len);
  CHECK(fnv(a.data, a.len) == fnv(b.data, b.len));
  CHECK(fnv(a.data, a.len) != fnv(c.data, c.len));
  free(a.data);
  free(b.data);
  free(c.data);
}

static void test_structure(void) {
  cap a = {0};
  CHECK_EQ_INT(st_demo_write(NULL, collect, &a), ST_OK); /* NULL desc: defaults */
  CHECK(a.max_chunk <= 64 * 1024);
  CHECK(a.chunks > 1);
  size_t events = 0;
  CHECK(structure_ok(a.data, a.len, &events));
  CHECK(strncmp(a.data, "{\"displayTimeUnit\":\"ns\"", 23) == 0);
  CHECK(strstr(a.data, "\"traceEvents\":[") != NULL);
  CHECK(a.len > 6 && strcmp(a.data + a.len - 6, "\n{}]}\n") == 0); /* XLA's sentinel */
  /* default target: ST_DEMO_EVENTS, within 5% */
  CHECK(events > ST_DEMO_EVENTS * 95 / 100 && events < ST_DEMO_EVENTS * 105 / 100);
  const char *must[] = {"\"/host:CPU\"",
                        "\"/device:GPU:0\"",
                        "\"/device:GPU:1\"",
                        "\"python3\"",
                        "\"tf_pjrt_thread\"",
                        "\"tf_XLATfrtCpuClient\"",
                        "\"Steps\"",
                        "\"XLA Modules\"",
                        "\"XLA Ops\"",
                        "\"Stream #7(Compute)\"",
                        "\"Stream #13(MemcpyH2D)\"",
                        "\"Stream #14(MemcpyD2H)\"",
                        "\"process_sort_index\"",
                        "\"jit_train_step",
                        "\"train_step 1\"",
                        "\"long_name\":\"%fusion.",
                        "\"flops\":\"",
                        "\"bytes_accessed\":\"",
                        "\"source\":\"",
                        "\"Memory usage (GB)\"",
                        "\"ph\":\"i\"",
                        "\"ph\":\"C\""};
  for (size_t i = 0; i < sizeof must / sizeof must[0]; i++) {
    if (!strstr(a.data, must[i])) fprintf(stderr, "missing %s\n", must[i]);
    CHECK(strstr(a.data, must[i]) != NULL);
  }
  CHECK_EQ_INT(count_of(a.data, "\"ph\":\"B\""), count_of(a.data, "\"ph\":\"E\""));
  CHECK(count_of(a.data, "\"ph\":\"B\"") > 10);
  CHECK_EQ_INT(count_of(a.data, "\"pid\":701") > 0, 1);
  free(a.data);
}

static void test_sizes(void) {
  const uint64_t targets[] = {1000, 3000, 20000, 200000};
  for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++) {
    cap a = {0};
    st_demo_desc d = {.seed = 3, .target_events = targets[k], .gpus = k == 1 ? 4 : 0};
    CHECK_EQ_INT(st_demo_write(&d, collect, &a), ST_OK);
    size_t events = 0;
    CHECK(structure_ok(a.data, a.len, &events));
    double ratio = (double)events / (double)targets[k];
    if (ratio < 0.9 || ratio > 1.1)
      fprintf(stderr, "target %llu: %zu events\n", (unsigned long long)targets[k], events);
    CHECK(ratio >= 0.9 && ratio <= 1.1);
    if (k == 1) CHECK(strstr(a.data, "\"/device:GPU:3\"") != NULL);
    free(a.data);
  }
}

static void test_abort(void) {
  cap a = {.fail_after = 2};
  st_demo_desc d = {.target_events = 100000};
  CHECK_EQ_INT(st_demo_write(&d, collect, &a), ST_ERR_ARG);
  CHECK_EQ_INT(a.chunks, 2); /* stops writing after the failure */
  free(a.data);
  CHECK_EQ_INT(st_demo_write(&d, NULL, NULL), ST_ERR_ARG);
}

int main(void) {
  RUN(test_deterministic);
  RUN(test_structure);
  RUN(test_sizes);
  RUN(test_abort);
  return check_report();
}
