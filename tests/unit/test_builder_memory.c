/* test_builder_memory.c: the trace builder's memory diet (core/model/trace.c,
 * trace_stage.c, trace_internal.h): the staging records round-trip every
 * value exactly (extremes too), the sorts the finish uses are right and
 * stable, staging costs well under the model's 33 bytes per event, the
 * finish peaks near the model's own size, and an allocation failure
 * anywhere in a load is reported at the byte where the load stopped, and a
 * flow-heavy JSON load, importer included, stays near the model. */
#include "check.h"
#include "demo.h"
#include "load.h"
#include "trace_internal.h"

#include <stdlib.h>

/* ---- a counting allocator that can fail from the n-th call on ---------------- */
typedef struct heap {
  size_t cur, peak;
  long calls, fail_at; /* fail_at < 0: never */
} heap;

static void *counting(void *ud, void *ptr, size_t size) {
  heap *h = ud;
  size_t old = 0;
  char *base = ptr ? (char *)ptr - 16 : NULL;
  if (base) memcpy(&old, base, sizeof old);
  if (size == 0) {
    free(base);
    h->cur -= old;
    return NULL;
  }
  if (h->fail_at >= 0 && h->calls >= h->fail_at) return NULL;
  h->calls++;
  char *nb = realloc(base, size + 16);
  if (!nb) return NULL;
  memcpy(nb, &size, sizeof size);
  h->cur = h->cur - old + size;
  if (h->cur > h->peak) h->peak = h->cur;
  return nb + 16;
}

/* ---- 1. record codecs ---------------------------------------------------------- */

static void test_varints(void) {
  static const uint64_t v[] = {0,
                               1,
                               127,
                               128,
                               16383,
                               16384,
                               UINT32_MAX,
                               UINT64_MAX,
                               1ull << 63,
                               (1ull << 63) - 1,
                               0x123456789abcdefull};
  uint8_t buf[16];
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    uint64_t got = 1;
    uint8_t *end = put_uv(buf, v[i]);
    CHECK(end - buf <= 10);
    CHECK(get_uv(buf, &got) == end);
    CHECK(got == v[i]);
    CHECK(unzz(zz(v[i])) == v[i]);
    CHECK(unzz(zz(0 - v[i])) == 0 - v[i]);
  }
  CHECK_EQ_INT(zz(0), 0);
  CHECK_EQ_INT(zz((uint64_t)-1), 1); /* small negative deltas stay small */
  CHECK_EQ_INT(zz(1), 2);
}

/* Events with extreme fields through one stream: decoded exactly, in order. */
static void test_event_records(void) {
  st_alloc a = {0};
  tstream s = {0};
  tev prev = {0};
  enum { N = 5000 };
  static tev want[N];
  srand(3);
  const int64_t starts[] = {INT64_MIN, INT64_MAX, 0, -1, 1};
  for (int i = 0; i < N; i++) {
    tev e;
    e.start = i < 5 ? (uint64_t)starts[i] : prev.start + (uint64_t)(rand() % 2000 - 500);
    e.dur = i % 7 == 0 ? (uint64_t)INT64_MAX : (uint64_t)(rand() % 100000);
    e.src = i % 11 == 0 ? UINT64_MAX >> 8 : prev.src + (uint64_t)(rand() % 700);
    e.name = i % 13 == 0 ? UINT32_MAX : (uint32_t)(rand() % 4);
    e.cat = i % 17 == 0 ? UINT32_MAX : (uint32_t)(rand() % 2);
    e.flags = (uint8_t)(i % 19 == 0 ? 0xFF : rand() % 16);
    want[i] = e;
    uint8_t *p = ts_reserve(&s, &a, EV_REC_MAX);
    CHECK(p != NULL);
    if (!p) return;
    ts_commit(&s, tev_put(p, &prev, &e));
  }
  /* typical records are small: here ~7 bytes each */
  size_t bytes = 0, k = 0;
  tev e = {0};
  int same = 1;
  for (uint32_t q = 0; q < s.count; q++) {
    bytes += s.blk[q]->used;
    CHECK(s.blk[q]->used <= s.blk[q]->cap && s.blk[q]->cap <= TS_BLOCK_MAX);
    for (const uint8_t *p = s.blk[q]->data, *end = p + s.blk[q]->used; p < end; k++) {
      p = tev_get(p, &e);
      if (k < N)
        same &= e.start == want[k].start && e.dur == want[k].dur && e.src == want[k].src &&
                e.name == want[k].name && e.cat == want[k].cat && e.flags == want[k].flags;
    }
  }
  CHECK_EQ_INT(k, N);
  CHECK(same);
  CHECK(bytes < (size_t)N * 12);
  st_tstream_free(&s, &a);
  CHECK(s.blk == NULL && s.count == 0);
}

/* Flow points and counter samples round-trip too. */
static void test_point_and_sample_records(void) {
  st_alloc a = {0};
  tstream s = {0}, cs = {0};
  tpoint prev = {0};
  uint64_t prev_ts = 0;
  for (uint32_t i = 0; i < 3000; i++) {
    tpoint e = {i % 5 == 0 ? UINT64_MAX - i : i * 3,
                i % 7 == 0 ? UINT64_MAX : (uint64_t)i * 100,
                (uint64_t)(i % 3 == 0 ? INT64_MIN + i : (int64_t)i * 1000 - 5),
                i * 2,
                (uint8_t)(1 + i % 7),
                (uint8_t)(i % 3)};
    uint8_t *p = ts_reserve(&s, &a, PT_REC_MAX);
    ts_commit(&s, tpt_put(p, &prev, &e));
    double v = i % 4 == 0 ? -1e308 : i * 0.5;
    p = ts_reserve(&cs, &a, CS_REC_MAX);
    ts_commit(&cs, tcs_put(p, &prev_ts, i % 9 == 0 ? INT64_MAX : (int64_t)i - 1000, v));
  }
  tpoint e = {0};
  uint32_t k = 0;
  int same = 1;
  for (uint32_t q = 0; q < s.count; q++)
    for (const uint8_t *p = s.blk[q]->data, *end = p + s.blk[q]->used; p < end; k++) {
      p = tpt_get(p, &e);
      same &= e.key == (k % 5 == 0 ? UINT64_MAX - k : k * 3) &&
              e.src == (k % 7 == 0 ? UINT64_MAX : (uint64_t)k * 100) &&
              e.ts == (uint64_t)(k % 3 == 0 ? INT64_MIN + k : (int64_t)k * 1000 - 5) &&
              e.id == k * 2 && e.role == 1 + k % 7 && e.bind == k % 3;
    }
  CHECK_EQ_INT(k, 3000);
  CHECK(same);
  uint64_t ts = 0;
  k = 0;
  for (uint32_t q = 0; q < cs.count; q++)
    for (const uint8_t *p = cs.blk[q]->data, *end = p + cs.blk[q]->used; p < end; k++) {
      double v;
      p = tcs_get(p, &ts, &v);
      same &= (int64_t)ts == (k % 9 == 0 ? INT64_MAX : (int64_t)k - 1000) &&
              v == (k % 4 == 0 ? -1e308 : k * 0.5);
    }
  CHECK_EQ_INT(k, 3000);
  CHECK(same);
  st_tstream_free(&s, &a);
  st_tstream_free(&cs, &a);
}

/* ---- 2. sorts ------------------------------------------------------------------ */

typedef struct kv {
  int key, seq;
} kv;
static int kv_less(const kv *a, const kv *b) { return a->key < b->key; }
ST_DEFINE_MERGE_SORT(sort_kv, kv, kv_less)
/* the context form: keys compared through a table (here: the key negated) */
static int kv_less_by(const int *sign, const kv *a, const kv *b) {
  return *sign * a->key < *sign * b->key;
}
ST_DEFINE_MERGE_SORT_CTX(sort_kv_by, kv, const int *, kv_less_by)

static int int_less(const void *ctx, uint32_t a, uint32_t b) {
  const int *k = ctx;
  return k[a] < k[b];
}

/* The merge sort (runs, in-order copies), its in-place form when there is
 * no tmp (an allocation failed), its context form and the index sort:
 * sorted and stable on random, locally shuffled, reversed and sorted input
 * of many sizes (compared with a plain insertion sort). */
static void test_sorts(void) {
  srand(5);
  for (int round = 0; round < 400; round++) {
    size_t n = (size_t)(round < 100 ? round : rand() % 3000);
    int shape = round % 4, range = round % 3 == 0 ? 4 : 1000;
    kv *v = malloc((n + 1) * sizeof *v), *tmp = malloc((n + 1) * sizeof *tmp),
       *ref = malloc((n + 1) * sizeof *ref);
    int *keys = malloc((n + 1) * sizeof *keys);
    uint32_t *idx = malloc((n + 1) * sizeof *idx), *itmp = malloc((n + 1) * sizeof *itmp);
    for (size_t i = 0; i < n; i++) {
      int key = shape == 0   ? rand() % range
                : shape == 1 ? (int)i + rand() % 40 /* local disorder */
                : shape == 2 ? (int)(n - i)
                             : (int)i / 3;
      v[i] = (kv){key, (int)i};
      keys[i] = key;
      idx[i] = (uint32_t)i;
    }
    kv *w = malloc((n + 1) * sizeof *w), *r = malloc((n + 1) * sizeof *r);
    memcpy(w, v, n * sizeof *v);
    memcpy(r, v, n * sizeof *v);
    memcpy(ref, v, n * sizeof *v);
    for (size_t i = 1; i < n; i++) { /* stable reference */
      kv x = ref[i];
      size_t j = i;
      for (; j > 0 && ref[j - 1].key > x.key; j--) ref[j] = ref[j - 1];
      ref[j] = x;
    }
    sort_kv(v, tmp, n);
    sort_kv(w, NULL, n);
    int minus = -1;
    sort_kv_by(&minus, r, tmp, n); /* descending keys, equal keys in their order */
    st_tsort_idx(idx, itmp, n, int_less, keys);
    int same = 1, desc = 1;
    for (size_t i = 0; i < n; i++)
      same &= v[i].key == ref[i].key && v[i].seq == ref[i].seq && (int)idx[i] == ref[i].seq &&
              w[i].key == ref[i].key && w[i].seq == ref[i].seq;
    for (size_t i = 1; i < n; i++)
      desc &= r[i - 1].key > r[i].key || (r[i - 1].key == r[i].key && r[i - 1].seq < r[i].seq);
    CHECK(same);
    CHECK(desc);
    free(w);
    free(r);
    free(v);
    free(tmp);
    free(ref);
    free(keys);
    free(idx);
    free(itmp);
  }
}

/* ---- 3. memory ----------------------------------------------------------------- */

/* A flow-heavy trace through the builder API, like an importer adds it:
 * 4 big tracks, one with B/E-style nesting added out of order, flows
 * between two of them, counters. Staging stays under 16 bytes per event;
 * the finish peaks under 48 bytes per event and within 25% of the
 * finished model's heap (the model: 38 bytes per event here, with end
 * srcs for 40% of the events). */
static void test_memory_bound(void) {
  heap h = {0, 0, 0, -1};
  st_alloc a = {counting, &h};
  st_builder *b = st_builder_create(&a);
  uint32_t p = st_builder_process(b, 1);
  uint32_t ops = st_builder_track(b, p, ST_TRACK_SLICES, 1, 0);
  uint32_t ker = st_builder_track(b, p, ST_TRACK_SLICES, 2, 0);
  uint32_t py = st_builder_track(b, p, ST_TRACK_SLICES, 3, 0);
  uint32_t mem = st_builder_track(b, p, ST_TRACK_COUNTER, 4, 0);
  enum { N = 60000 };
  uint64_t src = 0, events = 0;
  int64_t t = 1000000;
  for (int i = 0; i < N; i++) {
    int64_t d = 2000 + (i * 7919) % 30000;
    uint32_t name = (uint32_t)(i % 200);
    CHECK(st_builder_slice(b, ops, t, d, name, 0, src += 300, 0) == ST_OK);
    CHECK(st_builder_slice(b, ker, t + 500, d - 700, name + 200, 1, src += 300, 0) == ST_OK);
    if (i % 2 == 0) {
      CHECK(st_builder_flow(b, (uint64_t)i, ST_FLOW_OUT, ST_FLOW_BIND_ENCLOSING, ops, t, src) ==
            ST_OK);
      CHECK(st_builder_flow(b, (uint64_t)i, ST_FLOW_IN | ST_FLOW_END, ST_FLOW_BIND_ENCLOSING, ker,
                            t + 600, src + 1) == ST_OK);
    }
    /* a parent and its child, the child added first (as B/E closes) */
    CHECK(st_builder_slice(b, py, t + 100, d / 2, 400, 2, src += 300, ST_EV_HAS_END) == ST_OK);
    CHECK(st_builder_end_src(b, src, src + 10) == ST_OK);
    CHECK(st_builder_slice(b, py, t, d, 401, 2, src += 300, ST_EV_HAS_END) == ST_OK);
    CHECK(st_builder_end_src(b, src, src + 10) == ST_OK);
    CHECK(st_builder_counter(b, mem, t, (double)(i % 50)) == ST_OK);
    events += 5;
    t += d + 1000;
  }
  size_t staged = h.cur;
  h.peak = h.cur;
  st_error err;
  st_trace *tr = st_builder_finish(b, &err);
  CHECK(tr != NULL);
  if (!tr) return;
  uint32_t nf;
  st_trace_flows(tr, &nf);
  CHECK_EQ_INT(nf, N / 2);
  CHECK_EQ_INT(st_trace_event_count(tr), events);
  size_t model = h.cur;
  printf("staged %.1f bytes/event, finish peak %.1f, model %.1f\n", (double)staged / events,
         (double)h.peak / events, (double)model / events);
  CHECK(staged < events * 16);
  CHECK(h.peak < events * 48);
  CHECK(h.peak <= model + model / 4);
  st_trace_destroy(tr);
  CHECK_EQ_INT(h.cur, 0);
}

/* ---- 4. allocation failures name where the load stopped ------------------------ */

static int contains(const char *s, const char *w) { return strstr(s, w) != NULL; }

static int write_mem(void *ud, const void *data, size_t len) {
  char **pp = ud;
  size_t cur = *pp ? strlen(*pp) : 0;
  char *n = realloc(*pp, cur + len + 1);
  if (!n) return 1;
  memcpy(n + cur, data, len);
  n[cur + len] = 0;
  *pp = n;
  return 0;
}

/* The loader over `text` in 4 KiB pushes, every allocation from the
 * fail_at-th on failing. Returns the trace (NULL on failure, err set). */
static st_trace *load_failing(const char *text, size_t n, long fail_at, st_error *err, int *made,
                              uint64_t *events) {
  heap h = {0, 0, 0, fail_at};
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.alloc = (st_alloc){counting, &h};
  d.file_name = "gen.json";
  memset(err, 0, sizeof *err);
  st_loader *l = st_loader_create(&d);
  *made = l != NULL;
  if (!l) return NULL;
  for (size_t i = 0; i < n; i += 4096)
    if (st_loader_push(l, text + i, n - i < 4096 ? n - i : 4096) != ST_OK) break;
  st_trace *t = st_loader_finish(l, err);
  *events = st_loader_stats(l)->events;
  st_loader_destroy(l);
  if (t) st_trace_destroy(t);
  CHECK_EQ_INT(h.cur, 0); /* nothing leaks */
  return t;
}

static void test_nomem_offsets(void) {
  char *text = NULL;
  st_demo_desc dd = {.seed = 2, .target_events = 3000, .flows = 1, .lean = 1};
  CHECK_EQ_INT(st_demo_write(&dd, write_mem, &text), ST_OK);
  if (!text) return;
  size_t n = strlen(text);
  /* how many allocations a good load makes */
  st_error err;
  int made;
  heap h = {0, 0, 0, -1};
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.alloc = (st_alloc){counting, &h};
  st_loader *l = st_loader_create(&d);
  st_loader_push(l, text, n);
  st_trace *t = st_loader_finish(l, &err);
  CHECK(t != NULL && err.code == ST_OK);
  st_trace_destroy(t);
  st_loader_destroy(l);
  long total = h.calls;
  CHECK(total > 50);
  int in_builder = 0, in_import = 0, ok_loads = 0;
  for (long k = 0; k <= total + 1; k++) {
    uint64_t events;
    st_trace *r = load_failing(text, n, k, &err, &made, &events);
    if (!made) continue;
    if (r || err.code == ST_OK) {
      ok_loads++;
      continue;
    }
    char line[400];
    st_load_error_line(&err, "gen.json", line, sizeof line);
    CHECK_EQ_INT(err.code, ST_ERR_NOMEM);
    if (contains(err.msg, "building the trace model")) {
      /* the model did not fit: the whole input was read */
      in_builder++;
      CHECK_EQ_INT(err.offset, n);
      CHECK(contains(line, "after reading the whole input"));
    } else if (err.offset > 0) {
      in_import++;
      CHECK(err.offset <= n);
    } else {
      /* byte 0 only when no event was read yet */
      CHECK(contains(err.msg, "out of memory"));
      CHECK_EQ_INT(events, 0);
    }
  }
  printf("%ld allocation points: %d failures while building the model, %d while importing, "
         "%d loads unaffected\n",
         total, in_builder, in_import, ok_loads);
  CHECK(in_builder > 10);
  CHECK(in_import > 10);
  free(text);
}

/* ---- 5. the importer's part of the peak ---------------------------------------- */

/* The whole load of a flow-heavy JSON trace (strata-gen --lean --flows,
 * 2e5 events, ~36k arrows), the importer's part included: the flow
 * identities reach the builder as keys, so the importer keeps no entry per
 * flow (with a map of them, 40 bytes per event were resident at the end of
 * the input and the load peaked at 48). */
static void test_import_peak_flows(void) {
  char *text = NULL;
  st_demo_desc dd = {.seed = 3, .target_events = 200000, .flows = 1, .lean = 1};
  CHECK_EQ_INT(st_demo_write(&dd, write_mem, &text), ST_OK);
  if (!text) return;
  size_t n = strlen(text);
  heap h = {0, 0, 0, -1};
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.alloc = (st_alloc){counting, &h};
  st_loader *l = st_loader_create(&d);
  for (size_t i = 0; i < n; i += 1u << 20)
    CHECK(st_loader_push(l, text + i, n - i < (1u << 20) ? n - i : (1u << 20)) == ST_OK);
  size_t read = h.cur;
  st_error err;
  st_trace *t = st_loader_finish(l, &err);
  CHECK(t != NULL && err.code == ST_OK);
  uint64_t events = st_loader_stats(l)->events;
  uint32_t nf = 0;
  if (t) st_trace_flows(t, &nf);
  printf("%llu events, %u arrows: %.1f bytes/event resident when the input is read, peak %.1f\n",
         (unsigned long long)events, nf, (double)read / events, (double)h.peak / events);
  CHECK(events > 190000 && nf > 30000);
  CHECK(read < events * 28);
  CHECK(h.peak < events * 36);
  st_trace_destroy(t);
  st_loader_destroy(l);
  CHECK_EQ_INT(h.cur, 0);
  free(text);
}

int main(void) {
  RUN(test_varints);
  RUN(test_event_records);
  RUN(test_point_and_sample_records);
  RUN(test_sorts);
  RUN(test_memory_bound);
  RUN(test_import_peak_flows);
  RUN(test_nomem_offsets);
  return check_report();
}
