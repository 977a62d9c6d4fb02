/* test_load.c: the loading pipeline end to end: format/compression
 * sniffing, the one-line errors (code, offset, line/column), gzip and zlib
 * input through the loader, and every corpus file in many chunk sizes with
 * the event counts its README states. */
#include "check.h"
#include "load.h"
#include "test_util.h"

#include <stdlib.h>
#include <zlib.h>

typedef struct result {
  st_trace *trace;
  st_error err;
  st_stats stats;
  char json[8192];
} result;

static void load(const void *data, size_t n, size_t chunk, const char *name, result *r) {
  r->trace = tu_load(data, n, chunk, name, &r->err, &r->stats, NULL, 0);
  st_stats_json(&r->stats, r->json, sizeof r->json);
}

static void expect_error(const void *data, size_t n, const char *name, st_code code,
                         uint64_t offset, const char *msg_part) {
  size_t chunks[] = {1, 5, 1 << 20};
  for (size_t k = 0; k < 3; k++) {
    result r;
    load(data, n, chunks[k], name, &r);
    CHECK(r.trace == NULL);
    CHECK_EQ_INT(r.err.code, code);
    CHECK_EQ_INT(r.err.offset, offset);
    if (!strstr(r.err.msg, msg_part)) {
      fprintf(stderr, "%s: message \"%s\" lacks \"%s\"\n", name, r.err.msg, msg_part);
      check_failures_++;
    }
    st_trace_destroy(r.trace);
  }
}

static void test_not_traces(void) {
  expect_error("", 0, "empty.json", ST_ERR_EMPTY, 0, "empty");
  expect_error("\x89PNG\r\n\x1a\n", 8, "x.png", ST_ERR_FORMAT, 0,
               "expected '{' or '[' (found 0x89)");
  expect_error("<!DOCTYPE html>", 15, "x.html", ST_ERR_FORMAT, 0, "found 0x3C");
  /* a .pftrace that is no trace: the formats tried are named */
  expect_error(
      "junk, no trace", 14, "x.pftrace", ST_ERR_FORMAT, 0,
      "tried Chrome JSON (expected '{' or '[' (found 0x6A)), Perfetto and XPlane protobuf");
  expect_error("  \n hello", 9, "x.txt", ST_ERR_FORMAT, 4, "found 0x68");
  expect_error("   ", 3, "x.json", ST_ERR_FORMAT, 3, "only whitespace");
  expect_error("{\"head\":{},\"samples\":[1,2]}", 27, "a.cpuprofile", ST_ERR_FORMAT, 0,
               "no traceEvents");
  /* protobuf (tests/unit/test_import_*.c cover the importers) */
  expect_error("\x0a\x18\x50\x01", 4, "t.perfetto-trace", ST_ERR_TRUNCATED, 0,
               "input ended inside a packet");
  expect_error("\x0a\xef\xbf\xbd", 4, "t.xplane.pb", ST_ERR_TRUNCATED, 0,
               "input ended inside a plane header");
  expect_error("\x28\xb5\x2f\xfd\x00", 5, "t.zst", ST_ERR_FORMAT, 0, "zstd");
  expect_error("[garbage", 8, "g.json", ST_ERR_JSON, 1, "unexpected character");
  unsigned char rnd[4096];
  uint32_t x = 12345;
  for (size_t i = 0; i < sizeof rnd; i++) {
    x = x * 1103515245u + 12345u;
    rnd[i] = (unsigned char)(x >> 16);
  }
  rnd[0] = 0xC3; /* not gzip/zlib/JSON */
  expect_error(rnd, sizeof rnd, "random.bin", ST_ERR_FORMAT, 0, "found 0xC3");
}

static void test_compressed(void) {
  const char *a = "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},";
  const char *b = "{\"name\":\"b\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1}]";
  size_t na, nb, nz;
  unsigned char *ga = tu_deflate(a, strlen(a), 31, &na), *gb = tu_deflate(b, strlen(b), 31, &nb);
  unsigned char *two = malloc(na + nb);
  memcpy(two, ga, na);
  memcpy(two + na, gb, nb);
  size_t chunks[] = {1, 3, 1 << 20};
  for (size_t k = 0; k < 3; k++) {
    result r;
    load(two, na + nb, chunks[k], "two-members.json.gz", &r);
    CHECK(r.trace != NULL);
    CHECK_EQ_INT(r.err.code, ST_OK);
    CHECK_EQ_INT(r.stats.events, 2);
    CHECK(r.stats.compressed);
    CHECK_EQ_INT(r.stats.bytes_in, na + nb);
    CHECK_EQ_INT(r.stats.bytes_decoded, strlen(a) + strlen(b));
    st_trace_destroy(r.trace);
  }
  /* zlib stream */
  char both[512];
  snprintf(both, sizeof both, "%s%s", a, b);
  unsigned char *z = tu_deflate(both, strlen(both), 15, &nz);
  result r;
  load(z, nz, 7, "x.zlib", &r);
  CHECK(r.trace && r.stats.events == 2 && r.stats.compressed);
  st_trace_destroy(r.trace);
  /* only the first member: a cut gzip keeps what was decoded, with an error */
  load(two, na + nb / 2, 4, "cut.json.gz", &r);
  CHECK(r.trace != NULL);
  CHECK_EQ_INT(r.err.code, ST_ERR_GZIP);
  CHECK_EQ_INT(r.stats.events, 1);
  st_trace_destroy(r.trace);
  /* corrupt from the start: nothing usable */
  unsigned char bad[64];
  memcpy(bad, ga, 10);
  memset(bad + 10, 0xFF, sizeof bad - 10);
  load(bad, sizeof bad, 64, "bad.gz", &r);
  CHECK(r.trace == NULL);
  CHECK_EQ_INT(r.err.code, ST_ERR_GZIP);
  CHECK(strstr(r.err.msg, "corrupt gzip data") != NULL);
  st_trace_destroy(r.trace);
  free(z);
  free(two);
  free(ga);
  free(gb);
}

static void test_error_line(void) {
  st_error e;
  memset(&e, 0, sizeof e);
  st_error_set(&e, ST_ERR_JSON, 102, "JSON syntax error: x");
  e.line = 3;
  e.column = 31;
  char buf[256];
  st_load_error_line(&e, "t.json", buf, sizeof buf);
  CHECK_EQ_STR(buf, "t.json: JSON syntax error: x (at byte 102, line 3, column 31)");
  e.line = 0;
  st_load_error_line(&e, NULL, buf, sizeof buf);
  CHECK_EQ_STR(buf, "JSON syntax error: x (at byte 102)");
}

/* Each corpus file: same stats in every chunk size; counts as in README. */
typedef struct corpus_case {
  const char *file;
  long long events; /* -1: must be rejected */
} corpus_case;

static void test_corpus(void) {
  static const corpus_case cases[] = {
      {"catapult__async_begin_end.json", 35},
      {"catapult__flow.json", 5017},
      {"catapult__instance_counters.json", 12},
      {"catapult__nanoseconds.json", 16},
      {"catapult__nestable_async.json", 20},
      {"catapult__simple_trace_gz.gz", 35},
      {"catapult__thread_time_visualisation.json.gz", 47832},
      {"catapult__trace-with-bad-world-bounds.json", 10},
      {"cba__obj_export_file_writer.json", 826},
      {"fxprof__chrome-tracing.json.gz", 307},
      {"hta__benchmark_result_924719_1679055439_trace.json.gz", 4222},
      {"hta__control.json.gz", 109123},
      {"hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz", 220},
      {"hta__overlaid_critical_path_trace.json.gz", 1732},
      {"hta__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz", 2},
      {"lighthouse__cpu-profiler-m86.trace.json", 623},
      {"lighthouse__pid-change.json", 10252},
      {"perfetto__flow_events_json_v1.json", 10},
      {"perfetto__flow_events_json_v2.json", 8},
      {"perfetto__nested_tracks.perfetto-trace", 4092},
      {"speedscope__example.cpuprofile", -1},
      {"speedscope__multi-thread-with-samples.json", 4},
      {"speedscope__simple-partial-trailing-comma.json", 6},
      {"speedscope__simple-partial.json", 6},
      {"speedscope__too-many-end-events.json", 6},
      {"viztracer__gradient_descent.json", 24811},
      {"xprof-head__tpu_inference_2.xplane.pb", -1},
      {"xprof__34.83.195.179_6003.xplane.pb", 23128},
  };
  int seen = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", STRATA_CORPUS_DIR, cases[c].file);
    size_t n;
    unsigned char *data = tu_read_file(path, &n);
    if (!data) continue; /* corpus not present on this machine */
    seen++;
    result ref;
    load(data, n, n, cases[c].file, &ref);
    if (cases[c].events < 0) {
      CHECK(ref.trace == NULL);
      /* the corrupted xplane's first length prefix is 28 TB: over the cap */
      CHECK(ref.err.code == ST_ERR_FORMAT || ref.err.code == ST_ERR_LIMIT);
    } else {
      if (!ref.trace) fprintf(stderr, "%s: %s\n", cases[c].file, ref.err.msg);
      CHECK(ref.trace != NULL);
      CHECK_EQ_INT(ref.stats.events, cases[c].events);
      CHECK_EQ_INT(ref.stats.bytes_in, n);
    }
    /* chunking must not change anything; 1-byte chunks only on small files */
    size_t chunks[] = {1, 13, 4096, 65536};
    for (size_t k = 0; k < 4; k++) {
      if (chunks[k] == 1 && n > 200000) continue;
      result r;
      load(data, n, chunks[k], cases[c].file, &r);
      /* a refused file: same error (bytes_in stops where the loader gave up) */
      int same = ref.trace ? strcmp(r.json, ref.json) == 0 : strcmp(r.err.msg, ref.err.msg) == 0;
      if (!same || r.err.code != ref.err.code) {
        fprintf(stderr, "%s: chunk %zu differs\n", cases[c].file, chunks[k]);
        check_failures_++;
      }
      st_trace_destroy(r.trace);
    }
    st_trace_destroy(ref.trace);
    free(data);
  }
  printf("corpus files checked: %d\n", seen);
}

int main(void) {
  RUN(test_not_traces);
  RUN(test_compressed);
  RUN(test_error_line);
  RUN(test_corpus);
  return check_report();
}
