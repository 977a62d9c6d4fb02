/* test_chrome_range.c: the split import (core/import/chrome/chrome_range.h)
 * gives the model, stats, warnings and errors of a one-worker import, for
 * any task size: a generated trace with every phase strata reads and the
 * traps a split meets (B/E pairs, async, flows and metadata across task
 * boundaries, "},{" inside strings, escapes, missing commas, elements that
 * are not objects, pretty-printed lines), truncated and corrupt copies of
 * it, and every JSON trace of the corpus (the gzip ones inflated first).
 * Also checks that results were replayed (a split that always fell back to
 * the main thread's parse would pass the equality checks trivially), the
 * cut scan, the plan, and that malformed results are refused. */
#include "check.h"
#include "chrome_range.h"
#include "split_load.h"
#include "test_util.h"

#include <stdlib.h>

typedef struct outcome {
  st_trace *t;
  st_error err;
  st_stats stats;
  char json[8192];
  uint8_t digest[32];
} outcome;

static void finish_outcome(outcome *o) {
  /* after an error, bytes_in counts what was pushed before the loader
   * stopped taking bytes: a matter of chunking. Compared only without one. */
  if (o->err.code != ST_OK) o->stats.bytes_in = o->stats.bytes_decoded = 0;
  st_stats_json(&o->stats, o->json, sizeof o->json);
  memset(o->digest, 0, sizeof o->digest);
  if (o->t) st_trace_digest(o->t, o->digest);
}

static int same(const outcome *a, const outcome *b, const char *what, uint64_t tb) {
  int ok = (a->t != NULL) == (b->t != NULL) && !memcmp(a->digest, b->digest, 32) &&
           !strcmp(a->json, b->json) && a->err.code == b->err.code &&
           a->stats.bytes_in == b->stats.bytes_in && a->err.offset == b->err.offset &&
           a->err.line == b->err.line && a->err.column == b->err.column &&
           !strcmp(a->err.msg, b->err.msg);
  if (!ok) {
    fprintf(stderr,
            "%s, tasks of %llu bytes: differs from one worker\n  one:   %s | %s @%llu %u:%u\n"
            "  split: %s | %s @%llu %u:%u\n",
            what, (unsigned long long)tb, a->json, a->err.msg, (unsigned long long)a->err.offset,
            a->err.line, a->err.column, b->json, b->err.msg, (unsigned long long)b->err.offset,
            b->err.line, b->err.column);
    check_failures_++;
  }
  return ok;
}

/* One worker vs split in each task size; returns the bytes replayed by the
 * largest split that replayed anything. */
static uint64_t compare(const uint8_t *data, size_t n, const char *what, const uint64_t *sizes,
                        size_t nsizes) {
  outcome one;
  one.t = tu_load(data, n, 1 << 20, what, &one.err, &one.stats, NULL, 0);
  finish_outcome(&one);
  uint64_t best = 0;
  for (size_t i = 0; i < nsizes; i++) {
    outcome sp;
    uint64_t split = 0;
    sp.t = sl_load_split(data, n, sizes[i], what, &sp.err, &sp.stats, &split);
    finish_outcome(&sp);
    same(&one, &sp, what, sizes[i]);
    if (split > best) best = split;
    st_trace_destroy(sp.t);
  }
  st_trace_destroy(one.t);
  return best;
}

/* ---- a generated trace with every trap ------------------------------------ */

typedef struct sb {
  char *p;
  size_t n, cap;
} sb;

static void put(sb *b, const char *s) {
  size_t m = strlen(s);
  if (b->n + m + 1 > b->cap) {
    b->cap = (b->n + m + 1) * 2;
    b->p = realloc(b->p, b->cap);
  }
  memcpy(b->p + b->n, s, m + 1);
  b->n += m;
}

static uint32_t rnd(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* events: how many; object: 1 for {"traceEvents": [...], ...} */
static char *gen_trace(int events, int object, uint32_t seed, size_t *n) {
  sb b = {0};
  uint32_t s = seed;
  char e[512];
  put(&b, object ? "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"a\":[{\"x\":1},{\"y\":2}]},"
                   "\n\"traceEvents\": [\n"
                 : "[");
  int open_b[4] = {0};
  for (int i = 0; i < events; i++) {
    int tid = (int)(rnd(&s) % 4), pid = 1 + (int)(rnd(&s) % 2);
    long ts = 1000 + i * 10;
    const char *sep = i == 0 ? "" : (rnd(&s) % 97 == 0 ? " " : (rnd(&s) % 5 == 0 ? ",\n  " : ","));
    if (i > 0 && sep[0] == ' ')
      put(&b, " "); /* a missing comma */
    else
      put(&b, sep);
    switch (rnd(&s) % 16) {
    case 0:
      snprintf(e, sizeof e,
               "{\"ph\":\"B\",\"name\":\"b%d\",\"cat\":\"c\",\"pid\":%d,\"tid\":%d,\"ts\":%ld}",
               (int)(rnd(&s) % 5), pid, tid, ts);
      open_b[tid]++;
      break;
    case 1:
      snprintf(e, sizeof e, "{\"ph\":\"E\",\"pid\":%d,\"tid\":%d,\"ts\":%ld,\"args\":{\"r\":%d}}",
               pid, tid, ts, i);
      break;
    case 2:
      snprintf(e, sizeof e,
               "{\"ph\":\"b\",\"name\":\"as%d\",\"cat\":\"a\",\"id\":\"0x%x\",\"pid\":%d,"
               "\"tid\":%d,\"ts\":%ld}",
               (int)(rnd(&s) % 3), (unsigned)(rnd(&s) % 6), pid, tid, ts);
      break;
    case 3:
      snprintf(e, sizeof e,
               "{\"ph\":\"e\",\"name\":\"as%d\",\"cat\":\"a\",\"id\":\"0x%x\",\"pid\":%d,"
               "\"tid\":%d,\"ts\":%ld}",
               (int)(rnd(&s) % 3), (unsigned)(rnd(&s) % 6), pid, tid, ts);
      break;
    case 4:
      snprintf(e, sizeof e,
               "{\"ph\":\"%c\",\"name\":\"fl\",\"cat\":\"f\",\"id\":%u,\"pid\":%d,\"tid\":%d,"
               "\"ts\":%ld%s}",
               "stf"[rnd(&s) % 3], (unsigned)(rnd(&s) % 9), pid, tid, ts,
               rnd(&s) % 2 ? ",\"bp\":\"e\"" : "");
      break;
    case 5:
      snprintf(e, sizeof e,
               "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
               "\"args\":{\"name\":\"worker },{ %d\"}}",
               pid, tid, i % 7);
      break;
    case 6:
      snprintf(
          e, sizeof e,
          "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":%d,\"ts\":%ld,\"args\":{\"a\":%u,\"b\":\"%u\"}}",
          pid, ts, (unsigned)(rnd(&s) % 100), (unsigned)(rnd(&s) % 50));
      break;
    case 7:
      snprintf(e, sizeof e,
               "{\"ph\":\"i\",\"name\":\"mark\\\"q\\u00e9\",\"s\":\"%c\",\"pid\":%d,\"tid\":%d,"
               "\"ts\":%ld}",
               "gpt"[rnd(&s) % 3], pid, tid, ts);
      break;
    case 8:
      snprintf(
          e, sizeof e,
          "{\"ph\":\"X\",\"name\":\"k},{\\\"ph\\\":\\\"X\\\"},{%d\",\"cat\":\"gpu\",\"pid\":%d,"
          "\"tid\":%d,\"ts\":%ld,\"dur\":%u,\"args\":{\"s\":\"},{\",\"n\":[{},{}]}}",
          i % 11, pid, tid, ts, (unsigned)(rnd(&s) % 30));
      break;
    case 9:
      snprintf(e, sizeof e,
               "{\"ph\":\"X\",\"name\":\"f%d\",\"pid\":%d,\"tid\":%d,\"ts\":%ld,\"dur\":5,"
               "\"bind_id\":%u,\"flow_out\":true%s}",
               i % 3, pid, tid, ts, (unsigned)(rnd(&s) % 5),
               rnd(&s) % 2 ? ",\"flow_in\":true" : "");
      break;
    case 10: snprintf(e, sizeof e, "%s", rnd(&s) % 2 ? "42" : "\"not an event },{ \""); break;
    case 11:
      snprintf(e, sizeof e,
               "{\"ph\":\"%c\",\"name\":\"leg\",\"id\":%u,\"pid\":%d,\"tid\":%d,\"ts\":%ld,"
               "\"args\":{\"step\":\"st%d\"}}",
               "STpF"[rnd(&s) % 4], (unsigned)(rnd(&s) % 4), pid, tid, ts, i % 4);
      break;
    case 12:
      snprintf(e, sizeof e,
               "{\"ph\":\"P\",\"name\":\"s\",\"pid\":%d,\"tid\":%d,\"ts\":%ld,\"sf\":%u}", pid, tid,
               ts, (unsigned)(rnd(&s) % 3));
      break;
    case 13:
      snprintf(e, sizeof e,
               "{\"ph\":\"n\",\"name\":\"inst\",\"cat\":\"a\",\"id2\":{\"local\":\"0x%x\"},"
               "\"pid\":%d,\"tid\":\"t%d\",\"ts\":%ld}",
               (unsigned)(rnd(&s) % 4), pid, tid, ts);
      break;
    case 14:
      snprintf(e, sizeof e,
               "{\n    \"ph\": \"X\",\n    \"name\": \"pretty\",\n    \"pid\": %d,\n    \"tid\": "
               "%d,\n    \"ts\": %ld.5,\n    \"dur\": \"3.25\"\n  }",
               pid, tid, ts);
      break;
    default:
      snprintf(e, sizeof e,
               "{\"ph\":\"X\",\"name\":\"op%d\",\"cat\":\"cpu\",\"pid\":%d,\"tid\":%d,\"ts\":%ld,"
               "\"dur\":%u,\"args\":{\"i\":%d}}",
               (int)(rnd(&s) % 40), pid, tid, ts, (unsigned)(rnd(&s) % 9), i);
      break;
    }
    put(&b, e);
  }
  (void)open_b;
  put(&b, object ? "\n],\n\"stackFrames\":{\"0\":{\"name\":\"main\"},\"1\":{\"name\":\"f\","
                   "\"parent\":\"0\"},\"2\":{\"name\":\"g\",\"parent\":\"1\"}},"
                   "\"otherData\":{\"v\":\"},{\"}}\n"
                 : "]");
  *n = b.n;
  return b.p;
}

static const uint64_t k_sizes[] = {1, 7, 64, 500, 4096, 65536, 1000003};
#define NSIZES (sizeof k_sizes / sizeof k_sizes[0])

static void test_generated(void) {
  for (int object = 0; object < 2; object++) {
    size_t n;
    char *t = gen_trace(6000, object, 7u + (uint32_t)object, &n);
    uint64_t split =
        compare((const uint8_t *)t, n, object ? "gen-object" : "gen-array", k_sizes, NSIZES);
    /* most of the input came from results in some split */
    if (split < n / 2) {
      fprintf(stderr, "gen: only %llu of %zu bytes replayed\n", (unsigned long long)split, n);
      check_failures_++;
    }
    /* and in tasks of the sizes a real plan makes (relative to the input),
     * nearly all of it: each task is replayed where the one before ended.
     * Also the first one of the object form, whose cut lands in the
     * metadata list before traceEvents (a trap of this trace, as Kineto's
     * deviceProperties list is): the main thread catches up inside it. */
    const uint64_t big[] = {n / 8, n / 3};
    for (int i = 0; i < 2; i++) {
      split = compare((const uint8_t *)t, n, "gen-big-tasks", &big[i], 1);
      if (split < n - n / 50) {
        fprintf(stderr, "gen: tasks of %llu: only %llu of %zu bytes replayed\n",
                (unsigned long long)big[i], (unsigned long long)split, n);
        check_failures_++;
      }
    }
    free(t);
  }
}

/* truncated at many points, and a syntax error in the middle */
static void test_damaged(void) {
  size_t n;
  char *t = gen_trace(3000, 1, 99, &n);
  const uint64_t sizes[] = {64, 4096, 65536};
  for (int i = 1; i <= 9; i++) {
    size_t cut = n * (size_t)i / 10 + (size_t)i;
    compare((const uint8_t *)t, cut, "truncated", sizes, 3);
  }
  char *bad = malloc(n);
  memcpy(bad, t, n);
  for (int i = 1; i <= 5; i++) {
    size_t at = n * (size_t)i / 6;
    char keep = bad[at];
    bad[at] = (char)(i % 2 ? '#' : '}');
    compare((const uint8_t *)bad, n, "corrupt", sizes, 3);
    bad[at] = keep;
  }
  free(bad);
  free(t);
}

/* compressed: the front end inflates, the decoded bytes are split; stats
 * (compressed, bytes_in, trailing garbage) and gzip errors as one worker */
static void compare_gz(const uint8_t *raw, size_t n, const char *what) {
  outcome one;
  one.t = tu_load(raw, n, 1 << 20, what, &one.err, &one.stats, NULL, 0);
  finish_outcome(&one);
  const uint64_t sizes[] = {97, 65536, 1000003};
  for (size_t i = 0; i < 3; i++) {
    outcome sp;
    uint64_t split = 0;
    int ok = 0;
    sp.t = sl_load_split_gz(raw, n, sizes[i], what, &sp.err, &sp.stats, &split, &ok);
    if (!ok) break; /* not JSON inside: one worker it is */
    finish_outcome(&sp);
    same(&one, &sp, what, sizes[i]);
    st_trace_destroy(sp.t);
  }
  /* through the cutter (tasks of at least ST_RANGE_SLACK): as the CLI does */
  const uint64_t cut_sizes[] = {ST_RANGE_SLACK, 3 * ST_RANGE_SLACK + 7};
  for (size_t i = 0; i < 2; i++) {
    outcome sp;
    uint64_t split = 0;
    int ok = 0;
    sp.t = sl_load_split_cut(raw, n, cut_sizes[i], what, &sp.err, &sp.stats, &split, &ok);
    if (!ok) break;
    finish_outcome(&sp);
    same(&one, &sp, what, cut_sizes[i]);
    st_trace_destroy(sp.t);
  }
  st_trace_destroy(one.t);
}

static void test_gzip(void) {
  size_t n, gn;
  char *t = gen_trace(12000, 1, 5, &n); /* ~900 KB: several tasks of the cutter's least */
  unsigned char *gz = tu_deflate(t, n, 31, &gn);
  compare_gz(gz, gn, "gen.json.gz");
  { /* the cutter's tasks were replayed, not parsed on the main thread */
    st_error err;
    st_stats st;
    uint64_t split = 0;
    int ok = 0;
    st_trace *tr = sl_load_split_cut(gz, gn, ST_RANGE_SLACK, "gen.json.gz", &err, &st, &split, &ok);
    CHECK(ok && tr && n > 3 * ST_RANGE_SLACK);
    if (split < n - ST_RANGE_SLACK - n / 50) {
      fprintf(stderr, "cutter: only %llu of %zu bytes replayed\n", (unsigned long long)split, n);
      check_failures_++;
    }
    st_trace_destroy(tr);
  }
  size_t zn;
  unsigned char *zl = tu_deflate(t, n, 15, &zn);
  compare_gz(zl, zn, "gen.json.zlib");
  free(zl);
  /* cut short, corrupt in the middle, garbage after the end */
  compare_gz(gz, gn / 2, "cut.json.gz");
  unsigned char keep = gz[gn / 3];
  gz[gn / 3] ^= 0x5A;
  compare_gz(gz, gn, "corrupt.json.gz");
  gz[gn / 3] = keep;
  unsigned char *tail = malloc(gn + 7);
  memcpy(tail, gz, gn);
  memcpy(tail + gn, "garbage", 7);
  compare_gz(tail, gn + 7, "trailing.json.gz");
  free(tail);
  free(gz);
  free(t);
}

static void test_corpus(void) {
  const char *const *files = tu_corpus_json;
  const uint64_t sizes[] = {97, 4096, 65536, 1000003};
  int seen = 0;
  uint64_t replayed = 0;
  for (size_t c = 0; c < TU_CORPUS_JSON_N; c++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", STRATA_CORPUS_DIR, files[c]);
    size_t n;
    unsigned char *data = tu_read_file(path, &n);
    if (!data) continue;
    seen++;
    if (n >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
      compare_gz(data, n, files[c]); /* as a front end splits a .gz */
      size_t m = 0;
      unsigned char *plain = tu_inflate_all(data, n, &m);
      free(data);
      data = plain;
      n = m;
    }
    CHECK(st_load_splittable(data, n < 64 ? n : 64) ==
          (strstr(files[c], "cpuprofile") == NULL || (n && data[0] == '{')));
    replayed += compare(data, n, files[c], sizes, 4);
    free(data);
  }
  printf("corpus files checked: %d, bytes replayed in their biggest splits: %llu\n", seen,
         (unsigned long long)replayed);
  if (seen) CHECK(replayed > 0);
}

static void test_cut_and_plan(void) {
  /* the task starts at the first element after "},"; none in a string-free
   * run without one */
  const char *t = "[{\"a\":1},\n {\"b\":2}, {\"c\":3}]";
  size_t rlen;
  size_t n = strlen(t);
  uint8_t *r = st_chrome_range_parse(NULL, (const uint8_t *)t, n, 0, n, n, &rlen);
  st_range_info ri;
  CHECK(r && st_range_info_read(r, rlen, &ri));
  CHECK_EQ_INT(ri.start, (uint64_t)(strchr(t, '\n') + 2 - t));
  CHECK_EQ_INT(ri.status, ST_RANGE_LIST_END);
  CHECK_EQ_INT(ri.stop, n - 1);
  CHECK_EQ_INT(ri.records, 2);
  CHECK_EQ_INT(ri.newlines, 0); /* counted from the start on */
  /* malformed results are refused, never read past their end */
  CHECK(!st_range_info_read(r, rlen - 1, &ri));
  r[0] ^= 1;
  CHECK(!st_range_info_read(r, rlen, &ri));
  free(r);
  r = st_chrome_range_parse(NULL, (const uint8_t *)"[1,2,3]", 7, 0, 7, 7, &rlen);
  CHECK(r && st_range_info_read(r, rlen, &ri) && ri.status == ST_RANGE_NO_START);
  free(r);
  uint64_t tb;
  CHECK_EQ_INT(st_range_plan((uint64_t)1 << 30, 1, &tb), 0);
  CHECK_EQ_INT(st_range_plan(ST_RANGE_MIN_SPLIT - 1, 8, &tb), 0);
  uint32_t k = st_range_plan((uint64_t)1 << 30, 2, &tb);
  CHECK(k > 0 && tb * k >= ((uint64_t)1 << 30) && tb * (k - 1) < ((uint64_t)1 << 30));
  /* the loader refuses a result that is not one */
  st_loader *l = st_loader_create(NULL);
  uint8_t junk[200] = {0};
  CHECK(st_loader_apply(l, junk, sizeof junk, NULL, 0) == ST_ERR_ARG);
  st_loader_destroy(l);
  CHECK(!st_load_splittable("\x1f\x8b\x08", 3));
  CHECK(st_load_splittable(" \n[", 3));
  CHECK(!st_load_splittable("\x0a\x05", 2));
}

int main(void) {
  RUN(test_cut_and_plan);
  RUN(test_generated);
  RUN(test_damaged);
  RUN(test_gzip);
  RUN(test_corpus);
  return check_report();
}
