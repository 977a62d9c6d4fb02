/* The trace set (core/set/traceset.h): handles that go stale when their
 * file closes and new generations for reused slots; batches of the
 * profile fixtures (tests/fixtures/profile: Kineto ranks with absolute
 * clocks, a plain run without) merged under unique groups at their clocks'
 * offsets; set_offset and align with normalised offsets and per-part
 * deltas; the batch-end retries when the caller's view does not fit (the
 * last files left out and named; the previous files kept with their
 * handles; nothing kept when even they no longer fit); failed and damaged
 * loads; unmerged sets; the list and stats JSON. Expected values are
 * derived from the fixtures' text (ts / dur in us, baseTimeNanoseconds). */
#include "check.h"
#include "test_util.h"

#include "traceset.h"

#define PROFILE "tests/fixtures/profile/"
#define BASE_NS 1700000000000000000LL /* the ranks' baseTimeNanoseconds */

/* Loads path into the open batch under `name`, pushed in 7-byte chunks;
 * the handle (id 0 on failure) with *err. */
static st_trace_handle load(st_traceset *s, const char *path, const char *name, st_error *err) {
  size_t n = 0;
  unsigned char *data = tu_read_file(path, &n);
  CHECK(data != NULL);
  st_error e;
  st_trace_handle h = {0};
  if (st_traceset_load_begin(s, name) == ST_OK && data) {
    for (size_t i = 0; i < n; i += 7) st_traceset_load_push(s, data + i, n - i < 7 ? n - i : 7);
    h = st_traceset_load_finish(s, &e);
    if (err) *err = e;
  }
  free(data);
  return h;
}

static st_trace_handle load_ok(st_traceset *s, const char *file) {
  st_error e;
  char path[256];
  snprintf(path, sizeof path, PROFILE "%s", file);
  st_trace_handle h = load(s, path, file, &e);
  CHECK(h.id != 0);
  CHECK_EQ_INT(e.code, ST_OK);
  return h;
}

/* Opens a batch in s and loads rank0, rank1 and run_a (the first n) into
 * hs[0, n). */
static void load_ranks(st_traceset *s, uint32_t n, st_trace_handle *hs) {
  static const char *const files[3] = {"rank0.pt.trace.json", "rank1.pt.trace.json", "run_a.json"};
  CHECK_EQ_INT(st_traceset_batch_begin(s), ST_OK);
  for (uint32_t k = 0; k < n; k++) hs[k] = load_ok(s, files[k]);
}

/* What the caller builds on a view, failing on demand: the first
 * `fail_first` calls fail, and so does every call for a view of more than
 * `max_parts` files (0: no limit). */
typedef struct hook {
  int calls, drops, fail_first;
  uint32_t max_parts;
  uint32_t parts_seen[8];
  const st_trace *built; /* the view of the last successful call */
} hook;

static st_code build_view(void *ud, const st_traceset *s, st_trace *view, st_error *err) {
  hook *h = ud;
  uint32_t parts = st_traceset_count(s);
  CHECK(view == st_traceset_view(s));
  if (h->calls < 8) h->parts_seen[h->calls] = parts;
  h->calls++;
  if (h->calls <= h->fail_first || (h->max_parts && parts > h->max_parts))
    return st_error_set(err, ST_ERR_NOMEM, 0, "out of memory building the level-of-detail index");
  h->built = view;
  return ST_OK;
}

static void drop_view(void *ud) {
  hook *h = ud;
  h->drops++;
  h->built = NULL;
}

static uint32_t end_batch(st_traceset *s, hook *h, st_traceset_report *r) {
  st_traceset_end_desc d = {build_view, drop_view, h};
  return st_traceset_batch_end(s, &d, r);
}

static void check_counts(const st_traceset_report *r, uint32_t loaded, uint32_t shown,
                         uint32_t dropped) {
  CHECK_EQ_INT(r->loaded, loaded);
  CHECK_EQ_INT(r->shown, shown);
  CHECK_EQ_INT(r->dropped, dropped);
}

static st_traceset_file info(const st_traceset *s, st_trace_handle h) {
  st_traceset_file f;
  CHECK(st_traceset_get(s, h, &f));
  return f;
}

/* The closed handles, in order (desc.on_close). */
typedef struct closes {
  uint32_t n, ids[16];
} closes;
static void on_close(void *user, st_trace_handle h) {
  closes *c = user;
  if (c->n < 16) c->ids[c->n] = h.id;
  c->n++;
}

/* ---- handles ------------------------------------------------------------ */

static void test_handles(void) {
  closes c = {0};
  st_traceset_desc d = {0};
  d.capacity = 2;
  d.on_close = on_close;
  d.user = &c;
  st_traceset *s = st_traceset_create(&d);
  hook h = {0};
  CHECK(s != NULL);
  CHECK_EQ_INT(st_traceset_load_begin(s, "x"), ST_ERR_ARG); /* no batch open */
  CHECK_EQ_INT(st_traceset_batch_begin(s), ST_OK);
  CHECK_EQ_INT(st_traceset_batch_begin(s), ST_ERR_ARG); /* one at a time */
  st_trace_handle a = load_ok(s, "rank0.pt.trace.json");
  CHECK_EQ_INT(a.id, 0 | 1u << 16); /* slot 0, generation 1 */
  st_traceset_file f = info(s, a);
  CHECK_EQ_INT(f.shown_index, UINT32_MAX); /* in the batch: not shown yet */
  CHECK_EQ_INT(f.load_order, 1);
  CHECK_EQ_INT(end_batch(s, &h, NULL), 1);
  CHECK_EQ_INT(info(s, a).shown_index, 0);
  CHECK_EQ_INT(st_traceset_at(s, 0).id, a.id);
  CHECK_EQ_INT(st_traceset_at(s, 1).id, 0);
  CHECK_EQ_INT(st_traceset_slot(s, a), 0);
  CHECK_EQ_INT(h.drops, 0); /* nothing was shown before */

  /* a second batch replaces it: the new file takes slot 1 (slot 0 is still
   * open while the batch loads), then slot 0 closes */
  CHECK_EQ_INT(st_traceset_batch_begin(s), ST_OK);
  st_trace_handle b = load_ok(s, "rank1.pt.trace.json");
  CHECK_EQ_INT(b.id, 1 | 1u << 16);
  st_error e;
  st_trace_handle full = load(s, PROFILE "run_a.json", "run_a.json", &e); /* capacity 2 */
  CHECK_EQ_INT(full.id, 0);
  CHECK_EQ_INT(e.code, ST_ERR_LIMIT);
  CHECK_EQ_STR(e.msg, "too many traces open (2)");
  CHECK(st_traceset_valid(s, a)); /* until the batch ends */
  CHECK_EQ_INT(end_batch(s, &h, NULL), 1);
  CHECK_EQ_INT(h.drops, 1);
  CHECK(!st_traceset_valid(s, a));
  CHECK_EQ_INT(st_traceset_slot(s, a), UINT32_MAX);
  CHECK(!st_traceset_get(s, a, &f));
  CHECK(f.trace == NULL && f.name == NULL);
  CHECK_EQ_INT(st_traceset_set_load_figures(s, a, 1, 2), ST_ERR_ARG);
  CHECK_EQ_INT(c.n, 1);
  CHECK_EQ_INT(c.ids[0], a.id);

  /* slot 0 again: a new generation, the old handle stays stale */
  CHECK_EQ_INT(st_traceset_batch_begin(s), ST_OK);
  st_trace_handle a2 = load_ok(s, "run_a.json");
  CHECK_EQ_INT(a2.id, 0 | 2u << 16);
  CHECK(st_traceset_valid(s, a2) && !st_traceset_valid(s, a));
  st_traceset_batch_cancel(s); /* dropped: what is shown stays */
  CHECK(!st_traceset_valid(s, a2));
  CHECK(st_traceset_valid(s, b));
  CHECK_EQ_INT(c.n, 2);
  CHECK_EQ_INT(c.ids[1], a2.id);
  CHECK_EQ_INT(st_traceset_count(s), 1);
  CHECK(!st_traceset_valid(s, (st_trace_handle){0}));
  CHECK(!st_traceset_valid(s, (st_trace_handle){1 | 2u << 16})); /* slot 1 is at generation 1 */
  CHECK(!st_traceset_valid(s, (st_trace_handle){5 | 1u << 16})); /* beyond the capacity */
  st_traceset_destroy(s);
  CHECK_EQ_INT(c.n, 3);
  CHECK_EQ_INT(c.ids[2], b.id);
  CHECK(st_traceset_create(&(st_traceset_desc){.capacity = 70000}) == NULL);
}

/* ---- the caller's bytes kept with each file (desc.data_size) ----------------- */

typedef struct data_seen {
  st_traceset *s;
  uint32_t n;
  int first[4]; /* the first byte of each closed file's bytes, read in on_close */
} data_seen;
static void on_close_data(void *user, st_trace_handle h) {
  data_seen *d = user;
  const uint8_t *p = st_traceset_data(d->s, h); /* still there during on_close */
  if (d->n < 4) d->first[d->n] = p ? p[0] : -1;
  d->n++;
}

static void test_file_data(void) {
  data_seen seen = {0};
  st_traceset_desc d = {0};
  d.capacity = 2;
  d.data_size = 24;
  d.on_close = on_close_data;
  d.user = &seen;
  st_traceset *s = seen.s = st_traceset_create(&d);
  hook h = {0};
  CHECK(s != NULL);
  CHECK_EQ_INT(st_traceset_batch_begin(s), ST_OK);
  st_trace_handle a = load_ok(s, "rank0.pt.trace.json");
  uint8_t *pa = st_traceset_data(s, a);
  CHECK(pa != NULL && (uintptr_t)pa % _Alignof(max_align_t) == 0);
  int zero = 1;
  for (int i = 0; pa && i < 24; i++) zero &= pa[i] == 0;
  CHECK(zero); /* zero when the file opens */
  if (pa) memset(pa, 7, 24);
  CHECK_EQ_INT(end_batch(s, &h, NULL), 1);
  CHECK_EQ_INT(st_traceset_batch_begin(s), ST_OK);
  st_trace_handle b = load_ok(s, "rank1.pt.trace.json");
  uint8_t *pb = st_traceset_data(s, b);
  CHECK(pb != NULL && pb != pa && pb[0] == 0);
  CHECK_EQ_INT(end_batch(s, &h, NULL), 1); /* a closes */
  CHECK_EQ_INT(seen.n, 1);
  CHECK_EQ_INT(seen.first[0], 7);
  CHECK(st_traceset_data(s, a) == NULL); /* stale */
  /* slot 0 again: its bytes zero again */
  CHECK_EQ_INT(st_traceset_batch_begin(s), ST_OK);
  st_trace_handle a2 = load_ok(s, "run_a.json");
  uint8_t *p2 = st_traceset_data(s, a2);
  CHECK(p2 == pa && p2 && p2[0] == 0 && p2[23] == 0);
  st_traceset_destroy(s);
  CHECK_EQ_INT(seen.n, 3);
  /* none asked for: NULL for an open file */
  st_traceset *plain = st_traceset_create(NULL);
  CHECK_EQ_INT(st_traceset_batch_begin(plain), ST_OK);
  st_trace_handle c = load_ok(plain, "run_a.json");
  CHECK(c.id && st_traceset_data(plain, c) == NULL);
  st_traceset_destroy(plain);
  CHECK(st_traceset_create(&(st_traceset_desc){.data_size = SIZE_MAX}) == NULL);
}

/* ---- a batch of three, merged ---------------------------------------------- */

static void test_merge_three(void) {
  st_traceset *s = st_traceset_create(NULL);
  hook h = {0};
  st_trace_handle hs[3];
  load_ranks(s, 3, hs);
  st_trace_handle r0 = hs[0], r1 = hs[1], ra = hs[2];
  st_traceset_report rep;
  CHECK_EQ_INT(end_batch(s, &h, &rep), 3);
  check_counts(&rep, 3, 3, 0);
  CHECK_EQ_STR(rep.error, "");
  CHECK_EQ_STR(rep.dropped_text, "");
  CHECK_EQ_INT(h.calls, 1);
  st_trace *v = st_traceset_view(s);
  CHECK(v != NULL && h.built == v);
  uint32_t np = 0;
  const st_trace_part *parts = st_trace_parts(v, &np);
  CHECK_EQ_INT(np, 3);
  const char *groups[3] = {"rank 0", "rank 1", "run_a"};
  /* rank 0 starts at base + 500 us, rank 1 at base + 750 us: 250 us apart;
   * run_a has no absolute time and starts with the earliest */
  const int64_t offs[3] = {0, 250000, 0};
  for (uint32_t k = 0; k < 3 && parts; k++) {
    st_traceset_file f = info(s, hs[k]);
    CHECK_EQ_INT(st_traceset_at(s, k).id, hs[k].id);
    CHECK_EQ_INT(f.shown_index, k);
    CHECK_EQ_STR(f.group, groups[k]);
    size_t len;
    CHECK_EQ_STR(st_strtab_get(st_trace_strings(v), parts[k].name, &len), groups[k]);
    CHECK(parts[k].trace == f.trace);
    CHECK_EQ_INT(f.offset_ns, offs[k]);
    CHECK_EQ_INT(parts[k].offset_ns, offs[k]);
    CHECK(st_trace_strings(f.trace) == st_trace_strings(v)); /* one shared table */
  }
  st_traceset_file f0 = info(s, r0), f1 = info(s, r1), fa = info(s, ra);
  CHECK_EQ_INT(f0.group_source, ST_GROUP_RANK);
  CHECK_EQ_INT(fa.group_source, ST_GROUP_FILE);
  CHECK_EQ_INT(f0.clock.kind, ST_CLOCK_EPOCH);
  CHECK_EQ_INT(f0.clock.start_ns, BASE_NS + 500000);
  CHECK_EQ_INT(f1.clock.start_ns, BASE_NS + 750000);
  CHECK_EQ_INT(fa.clock.kind, ST_CLOCK_NONE);
  CHECK_EQ_STR(f0.name, "rank0.pt.trace.json");
  CHECK(strstr(f0.metadata_json, "\"baseTimeNanoseconds\"") != NULL);
  CHECK_EQ_INT(f1.stats->events, 4);
  CHECK(f0.args != NULL);
  /* rank 0 spans 500..700 us, rank 1 750..1000 us at +250 us: 500 us */
  CHECK_EQ_INT(st_trace_duration_ns(v), 500000);
  st_traceset_destroy(s);
}

/* Group names given (a profile manifest's): used instead of the rule, in
 * the view's part names too; a repeat gets " #c", control characters
 * become spaces, a long name is cut on a character boundary, "" goes
 * back to the rule, a stale handle is refused. */
static void test_given_groups(void) {
  st_traceset *s = st_traceset_create(NULL);
  hook h = {0};
  st_trace_handle hs[3];
  load_ranks(s, 3, hs);
  char longname[400];
  memset(longname, 'a', sizeof longname);
  /* two é at bytes 252..255: the second crosses the cut at 255 */
  memcpy(longname + ST_TRACESET_GROUP_CAP - 4, "\xC3\xA9\xC3\xA9", 4);
  longname[sizeof longname - 1] = 0;
  CHECK_EQ_INT(st_traceset_set_group(s, hs[0], "node\n1 gpu"), ST_OK);
  CHECK_EQ_INT(st_traceset_set_group(s, hs[1], "node 1 gpu"), ST_OK);
  CHECK_EQ_INT(st_traceset_set_group(s, hs[2], longname), ST_OK);
  st_traceset_report rep;
  CHECK_EQ_INT(end_batch(s, &h, &rep), 3);
  CHECK_EQ_STR(info(s, hs[0]).group, "node 1 gpu");
  CHECK_EQ_STR(info(s, hs[1]).group, "node 1 gpu #2");
  const char *g2 = info(s, hs[2]).group;
  /* 'a' x 252 and the first é: 254 bytes */
  CHECK_EQ_INT(strlen(g2), ST_TRACESET_GROUP_CAP - 2);
  CHECK(memcmp(g2 + ST_TRACESET_GROUP_CAP - 4, "\xC3\xA9", 2) == 0);
  size_t len;
  const st_trace_part *parts = st_trace_parts(st_traceset_view(s), NULL);
  CHECK_EQ_STR(st_strtab_get(st_trace_strings(st_traceset_view(s)), parts[1].name, &len),
               "node 1 gpu #2");
  st_traceset_destroy(s);
  s = st_traceset_create(NULL);
  load_ranks(s, 2, hs);
  CHECK_EQ_INT(st_traceset_set_group(s, hs[0], "x"), ST_OK);
  CHECK_EQ_INT(st_traceset_set_group(s, hs[0], ""), ST_OK);
  CHECK_EQ_INT(st_traceset_set_group(s, (st_trace_handle){0}, "x"), ST_ERR_ARG);
  CHECK_EQ_INT(end_batch(s, &h, &rep), 2);
  CHECK_EQ_STR(info(s, hs[0]).group, "rank 0");
  CHECK_EQ_STR(info(s, hs[1]).group, "rank 1");
  st_traceset_destroy(s);
}

/* Two files without absolute time start together; the same group twice
 * gets the file name appended. */
static void test_start_together(void) {
  st_traceset *s = st_traceset_create(NULL);
  st_traceset_batch_begin(s);
  st_trace_handle a = load_ok(s, "run_a.json");
  st_trace_handle b = load_ok(s, "run_b.json");
  st_error e;
  st_trace_handle a2 = load(s, PROFILE "run_a.json", "other/run_a.json", &e);
  CHECK_EQ_INT(st_traceset_batch_end(s, NULL, NULL), 3);
  CHECK_EQ_INT(info(s, a).offset_ns, 0);
  CHECK_EQ_INT(info(s, b).offset_ns, 0);
  CHECK_EQ_INT(info(s, a2).offset_ns, 0);
  CHECK_EQ_STR(info(s, a).group, "run_a (run_a.json)");
  CHECK_EQ_STR(info(s, b).group, "run_b");
  CHECK_EQ_STR(info(s, a2).group, "run_a (run_a.json) #2");
  st_traceset_destroy(s);
}

/* ---- offsets -------------------------------------------------------------- */

/* rank0 + rank1 shown, offsets 0 and 250 us. */
static st_traceset *two_ranks(st_trace_handle *r0, st_trace_handle *r1) {
  st_traceset *s = st_traceset_create(NULL);
  st_trace_handle hs[2];
  load_ranks(s, 2, hs);
  *r0 = hs[0];
  *r1 = hs[1];
  CHECK_EQ_INT(st_traceset_batch_end(s, NULL, NULL), 2);
  return s;
}

static void test_set_offset(void) {
  st_trace_handle r0, r1;
  st_traceset *s = two_ranks(&r0, &r1);
  int64_t deltas[2] = {7, 7};
  /* rank 0 to 400 us: normalised, rank 1 (at 250) becomes 0 and rank 0 150 */
  CHECK_EQ_INT(st_traceset_set_offset(s, r0, 400000, deltas), ST_OK);
  CHECK_EQ_INT(info(s, r0).offset_ns, 150000);
  CHECK_EQ_INT(info(s, r1).offset_ns, 0);
  CHECK_EQ_INT(deltas[0], 150000);
  CHECK_EQ_INT(deltas[1], -250000);
  const st_trace_part *p = st_trace_parts(st_traceset_view(s), NULL);
  CHECK_EQ_INT(p[0].offset_ns, 150000);
  CHECK_EQ_INT(p[1].offset_ns, 0);
  /* rank 0's events moved with it: its first event (init) at scene 150 us */
  const st_row *rows = st_trace_rows(st_traceset_view(s), NULL);
  CHECK_EQ_INT(rows[p[0].row_base].start[0], 150000);
  CHECK_EQ_INT(st_traceset_set_offset(s, r1, 150000, NULL), ST_OK); /* together again */
  CHECK_EQ_INT(info(s, r0).offset_ns, 0);
  CHECK_EQ_INT(info(s, r1).offset_ns, 0);
  /* refusals: nothing moves */
  CHECK_EQ_INT(st_traceset_set_offset(s, r1, INT64_MAX / 2, deltas), ST_ERR_ARG);
  CHECK_EQ_INT(st_traceset_set_offset(s, (st_trace_handle){0}, 5, deltas), ST_ERR_ARG);
  CHECK_EQ_INT(info(s, r1).offset_ns, 0);
  st_traceset_destroy(s);
  /* one file shown: no merged view to move */
  s = st_traceset_create(NULL);
  st_traceset_batch_begin(s);
  st_trace_handle one = load_ok(s, "run_a.json");
  st_traceset_batch_end(s, NULL, NULL);
  CHECK_EQ_INT(st_traceset_set_offset(s, one, 1000, deltas), ST_ERR_ARG);
  st_traceset_destroy(s);
}

/* The (row, index) of the first event named `name` in part k of the view. */
static st_sel_span span_of(const st_trace *v, uint32_t k, const char *name) {
  uint32_t nr;
  const st_row *rows = st_trace_rows(v, &nr);
  for (uint32_t r = 0; r < nr; r++)
    for (uint32_t i = 0; i < rows[r].count && st_trace_part_of_row(v, r) == k; i++) {
      size_t n;
      const char *s = st_strtab_get(st_trace_strings(v), rows[r].name[i], &n);
      if (n == strlen(name) && !memcmp(s, name, n)) return (st_sel_span){r, i, i + 1};
    }
  CHECK(!"event not found");
  return (st_sel_span){0, 0, 0};
}

static void test_align(void) {
  st_trace_handle r0, r1;
  st_traceset *s = two_ranks(&r0, &r1);
  st_trace *v = st_traceset_view(s);
  /* ProfilerStep#5: rank 0 at 600 us (scene 100), rank 1 at 900 us (its
   * 150 us, scene 250 + 150 = 400): rank 1 moves 300 us earlier, to -50,
   * normalised: rank 0 at 50, rank 1 at 0 */
  st_sel_span sel[2] = {span_of(v, 0, "ProfilerStep#5"), span_of(v, 1, "ProfilerStep#5")};
  int64_t deltas[2];
  CHECK_EQ_INT(st_traceset_align_events(s, sel, 2, deltas), 2);
  CHECK_EQ_INT(info(s, r0).offset_ns, 50000);
  CHECK_EQ_INT(info(s, r1).offset_ns, 0);
  CHECK_EQ_INT(deltas[0], 50000);
  CHECK_EQ_INT(deltas[1], -250000);
  const st_row *rows = st_trace_rows(v, NULL);
  CHECK_EQ_INT(rows[sel[0].row].start[sel[0].lo], 150000);
  CHECK_EQ_INT(rows[sel[1].row].start[sel[1].lo], 150000);
  /* each file's earliest selected event counts: rank 0's init (scene 50)
   * and ProfilerStep#4 of rank 1 (its 10 us, scene 10): rank 1 moves to
   * 40, normalised: rank 0 at 10, rank 1 at 0 */
  st_sel_span more[3] = {span_of(v, 0, "ProfilerStep#5"), span_of(v, 0, "init"),
                         span_of(v, 1, "ProfilerStep#4")};
  CHECK_EQ_INT(st_traceset_align_events(s, more, 3, deltas), 2);
  CHECK_EQ_INT(info(s, r0).offset_ns, 10000);
  CHECK_EQ_INT(info(s, r1).offset_ns, 0);
  CHECK_EQ_INT(deltas[0], -40000);
  CHECK_EQ_INT(deltas[1], 0);
  /* one file with a selection: nothing to align */
  CHECK_EQ_INT(st_traceset_align_events(s, sel, 1, deltas), 0);
  st_sel_span bad = {sel[0].row, 99, 100};
  CHECK_EQ_INT(st_traceset_align_events(s, &bad, 1, deltas), 0);
  CHECK_EQ_INT(info(s, r0).offset_ns, 10000);
  st_traceset_destroy(s);
}

/* ---- the view does not fit ----------------------------------------------- */

static void test_drop_last_files(void) {
  st_traceset *s = st_traceset_create(NULL);
  hook h = {0};
  h.max_parts = 1; /* only one file's view fits */
  st_trace_handle hs[3];
  load_ranks(s, 3, hs);
  st_trace_handle r0 = hs[0], r1 = hs[1], ra = hs[2];
  st_traceset_report rep;
  CHECK_EQ_INT(end_batch(s, &h, &rep), 1);
  check_counts(&rep, 3, 1, 2);
  CHECK_EQ_INT(h.calls, 3);
  CHECK_EQ_INT(h.parts_seen[0], 3);
  CHECK_EQ_INT(h.parts_seen[1], 2);
  CHECK_EQ_INT(h.parts_seen[2], 1);
  CHECK_EQ_STR(rep.dropped_text,
               "run_a.json: not shown: out of memory building the level-of-detail index of 3 files "
               "together (after its 15 events, 1.5 kB read)\n"
               "rank1.pt.trace.json: not shown: out of memory building the level-of-detail index "
               "of 2 files together (after its 4 events, 610 bytes read)\n");
  CHECK_EQ_STR(rep.error, "");
  CHECK(!st_traceset_valid(s, r1) && !st_traceset_valid(s, ra));
  CHECK_EQ_INT(st_traceset_count(s), 1);
  st_traceset_file f = info(s, r0);
  CHECK(st_traceset_view(s) == f.trace); /* one file: its own model */
  CHECK(h.built == f.trace);
  CHECK_EQ_STR(f.group, "rank 0");
  CHECK_EQ_INT(f.offset_ns, 0);
  st_traceset_destroy(s);
}

static void test_keep_previous(void) {
  st_trace_handle r0, r1;
  st_traceset *s = two_ranks(&r0, &r1);
  st_traceset_set_offset(s, r1, 100000, NULL);
  st_trace *before = st_traceset_view(s);
  hook h = {0};
  h.fail_first = 2; /* the batch's two tries fail, the old view builds again */
  st_traceset_batch_begin(s);
  st_trace_handle a = load_ok(s, "run_a.json");
  st_trace_handle b = load_ok(s, "run_b.json");
  st_traceset_report rep;
  CHECK_EQ_INT(end_batch(s, &h, &rep), 0);
  check_counts(&rep, 2, 0, 0);
  CHECK_EQ_INT(rep.restored, 1);
  CHECK_EQ_STR(rep.error, "out of memory building the level-of-detail index for run_a.json "
                          "(after its 15 events, 1.5 kB read)");
  CHECK_EQ_STR(rep.dropped_text, "");
  CHECK_EQ_INT(h.drops, 1); /* the caller's part of the view shown, once */
  CHECK_EQ_INT(h.calls, 3);
  CHECK_EQ_INT(h.parts_seen[2], 2);
  CHECK(!st_traceset_valid(s, a) && !st_traceset_valid(s, b));
  CHECK_EQ_INT(st_traceset_count(s), 2);
  CHECK_EQ_INT(st_traceset_at(s, 0).id, r0.id);
  CHECK_EQ_INT(st_traceset_at(s, 1).id, r1.id);
  CHECK_EQ_INT(info(s, r0).offset_ns, 0);
  CHECK_EQ_INT(info(s, r1).offset_ns, 100000);
  CHECK_EQ_STR(info(s, r1).group, "rank 1");
  st_trace *v = st_traceset_view(s);
  CHECK(v != NULL && v != before && h.built == v);
  uint32_t np = 0;
  const st_trace_part *p = st_trace_parts(v, &np);
  CHECK_EQ_INT(np, 2);
  CHECK_EQ_INT(p[1].offset_ns, 100000);

  /* again, and the old view no longer fits either: nothing is shown */
  hook g = {0};
  g.fail_first = 3;
  st_traceset_batch_begin(s);
  load_ok(s, "run_a.json");
  CHECK_EQ_INT(end_batch(s, &g, &rep), 0);
  CHECK_EQ_INT(g.drops, 1);
  CHECK_EQ_INT(g.calls, 2);
  CHECK_EQ_INT(rep.restored, 0);
  CHECK_EQ_STR(rep.error, "out of memory building the level-of-detail index for run_a.json "
                          "(after its 15 events, 1.5 kB read)");
  CHECK_EQ_INT(st_traceset_count(s), 0);
  CHECK(st_traceset_view(s) == NULL);
  CHECK(!st_traceset_valid(s, r0) && !st_traceset_valid(s, r1));
  /* and the next batch shows normally */
  st_traceset_batch_begin(s);
  load_ok(s, "run_b.json");
  CHECK_EQ_INT(st_traceset_batch_end(s, NULL, NULL), 1);
  st_traceset_destroy(s);
}

/* ---- loads that fail ----------------------------------------------------------- */

static void test_failed_loads(void) {
  st_trace_handle r0, r1;
  st_traceset *s = two_ranks(&r0, &r1);
  hook h = {0};
  /* a batch in which nothing loads changes nothing */
  st_traceset_batch_begin(s);
  st_error e, direct;
  st_trace_handle bad = load(s, "tests/fixtures/not_trace.png", "not_trace.png", &e);
  CHECK_EQ_INT(bad.id, 0);
  size_t n = 0;
  unsigned char *png = tu_read_file("tests/fixtures/not_trace.png", &n);
  st_stats st;
  st_trace *t = tu_load(png, n, 7, "not_trace.png", &direct, &st, NULL, 0);
  CHECK(t == NULL);
  free(png);
  CHECK_EQ_INT(e.code, direct.code); /* the loader's own diagnosis */
  CHECK_EQ_INT(e.code, ST_ERR_FORMAT);
  CHECK_EQ_STR(e.msg, direct.msg);
  st_traceset_report rep;
  CHECK_EQ_INT(end_batch(s, &h, &rep), 0);
  CHECK_EQ_INT(rep.loaded, 0);
  CHECK_EQ_INT(h.calls + h.drops, 0);
  CHECK(st_traceset_valid(s, r0) && st_traceset_valid(s, r1));
  CHECK_EQ_INT(st_traceset_count(s), 2);

  /* a failed file among good ones: the batch goes on without it */
  st_traceset_batch_begin(s);
  st_trace_handle a = load_ok(s, "run_a.json");
  CHECK_EQ_INT(load(s, "tests/fixtures/empty_file.json", "empty_file.json", &e).id, 0);
  CHECK_EQ_INT(e.code, ST_ERR_EMPTY);
  /* a damaged file is kept with what was read before the damage */
  st_trace_handle cut = load(s, "tests/fixtures/syntax_error.json", "cut.json", &e);
  CHECK(cut.id != 0);
  CHECK_EQ_INT(e.code, ST_ERR_JSON);
  CHECK_EQ_INT(e.offset, 102);
  /* a load given up by the front end (a read error) */
  st_traceset_load_begin(s, "gone.json");
  st_traceset_load_push(s, "[{", 2);
  st_traceset_load_abort(s);
  CHECK_EQ_INT(st_traceset_load_push(s, "x", 1), ST_ERR_ARG);
  CHECK_EQ_INT(st_traceset_load_finish(s, &e).id, 0);
  CHECK_EQ_STR(e.msg, "no load in progress");
  CHECK_EQ_INT(end_batch(s, &h, &rep), 2);
  CHECK_EQ_INT(rep.loaded, 2);
  CHECK_EQ_INT(h.drops, 1);
  CHECK(!st_traceset_valid(s, r0));
  CHECK_EQ_INT(st_traceset_at(s, 0).id, a.id);
  CHECK_EQ_INT(st_traceset_at(s, 1).id, cut.id);
  st_traceset_destroy(s);
}

/* ---- unmerged sets ---------------------------------------------------------------- */

static void test_unmerged(void) {
  st_traceset_desc d = {0};
  d.unmerged = 1;
  st_traceset *s = st_traceset_create(&d);
  st_trace_handle hs[2];
  load_ranks(s, 2, hs);
  st_trace_handle r0 = hs[0], r1 = hs[1];
  hook h = {0};
  CHECK_EQ_INT(end_batch(s, &h, NULL), 2);
  CHECK_EQ_INT(h.calls, 0);
  CHECK(st_traceset_view(s) == NULL);
  st_traceset_file f0 = info(s, r0), f1 = info(s, r1);
  CHECK(st_trace_strings(f0.trace) != st_trace_strings(f1.trace)); /* each its own */
  CHECK_EQ_INT(f1.offset_ns, 250000);                              /* placed */
  CHECK_EQ_STR(f1.group, "rank 1");
  CHECK_EQ_INT(st_trace_shift_ns(f1.trace), 0); /* never moved */
  CHECK_EQ_INT(st_traceset_set_offset(s, r1, 0, NULL), ST_ERR_ARG);
  st_traceset_destroy(s);
}

/* ---- JSON ------------------------------------------------------------------------ */

static char *stats_text(const st_stats *st) {
  size_t n = st_stats_json(st, NULL, 0) + 1;
  char *t = malloc(n);
  st_stats_json(st, t, n);
  return t;
}

static void test_json(void) {
  st_traceset *s = st_traceset_create(NULL);
  char buf[8192];
  CHECK_EQ_INT(st_traceset_stats_json(s, 1, 2, buf, sizeof buf), 4);
  CHECK_EQ_STR(buf, "null");
  CHECK_EQ_INT(st_traceset_list_json(s, buf, sizeof buf), 2);
  CHECK_EQ_STR(buf, "[]");
  st_trace_handle hs[3];
  load_ranks(s, 3, hs);
  st_trace_handle r0 = hs[0], r1 = hs[1], ra = hs[2];
  st_traceset_set_load_figures(s, r0, 1.5, 1000);
  st_traceset_set_load_figures(s, r1, 2.25, 3000);
  st_traceset_set_load_figures(s, ra, 4, 2000);
  st_traceset_batch_end(s, NULL, NULL);
  st_traceset_set_offset(s, r1, 250500, NULL);

  st_traceset_list_json(s, buf, sizeof buf);
  CHECK_EQ_STR(buf, "[{\"handle\":65536,\"name\":\"rank0.pt.trace.json\",\"group\":\"rank 0\","
                    "\"events\":3,\"offset_us\":0,\"format\":\"chrome-json\"},"
                    "{\"handle\":65537,\"name\":\"rank1.pt.trace.json\",\"group\":\"rank 1\","
                    "\"events\":4,\"offset_us\":250.5,\"format\":\"chrome-json\"},"
                    "{\"handle\":65538,\"name\":\"run_a.json\",\"group\":\"run_a\","
                    "\"events\":15,\"offset_us\":0,\"format\":\"chrome-json\"}]");

  /* totals: the sums of the files' own stats (3 + 4 + 15 events of 499 +
   * 610 + 1458 bytes; ts from rank 0's 500 us to run_a's 1300 us) */
  st_stats sum;
  st_traceset_totals(s, &sum);
  st_stats one[3] = {*info(s, r0).stats, *info(s, r1).stats, *info(s, ra).stats};
  CHECK_EQ_INT(sum.events, 22);
  CHECK_EQ_INT(sum.events, one[0].events + one[1].events + one[2].events);
  CHECK_EQ_INT(sum.bytes_in, 2567);
  CHECK_EQ_INT(sum.bytes_decoded, 2567);
  CHECK_EQ_INT(sum.slices, 19);
  CHECK_EQ_INT(sum.phases['X'], 19);
  CHECK_EQ_INT(sum.phases['M'], 3);
  CHECK_EQ_INT(sum.processes, 3);
  CHECK_EQ_INT(sum.threads, 4);
  CHECK_EQ_INT(sum.ts_min_ns, 500000);
  CHECK_EQ_INT(sum.ts_max_ns, 1300000);
  CHECK_EQ_STR(sum.format, "chrome-json");
  CHECK(sum.load_ms == 7.75);
  CHECK_EQ_INT(sum.heap_bytes, 3000);

  /* the JSON: the totals with the given load_ms / heap, then each file's own */
  size_t need = st_traceset_stats_json(s, 12.5, 99, buf, sizeof buf);
  sum.load_ms = 12.5;
  sum.heap_bytes = 99;
  char *head = stats_text(&sum), *t[3];
  char want[8192];
  for (int k = 0; k < 3; k++) t[k] = stats_text(&one[k]);
  snprintf(want, sizeof want, "%.*s,\"traces\":[%s,%s,%s]}", (int)strlen(head) - 1, head, t[0],
           t[1], t[2]);
  CHECK_EQ_STR(buf, want);
  CHECK_EQ_INT(need, strlen(want));
  CHECK(strstr(buf, "\"events\":22,") != NULL);
  /* snprintf-shaped: cut, NUL-terminated, the same length needed */
  char small[40];
  CHECK_EQ_INT(st_traceset_stats_json(s, 12.5, 99, small, sizeof small), need);
  CHECK(strlen(small) == sizeof small - 1 && !memcmp(small, want, sizeof small - 1));
  free(head);
  for (int k = 0; k < 3; k++) free(t[k]);
  st_traceset_destroy(s);

  /* one file: its own stats with the given figures; samples summed */
  s = st_traceset_create(NULL);
  st_traceset_batch_begin(s);
  st_error e;
  st_trace_handle v = load(s, "tests/fixtures/samples_v8.json", "v8.json", &e);
  st_traceset_batch_end(s, NULL, NULL);
  st_stats own = *info(s, v).stats;
  own.load_ms = 3;
  own.heap_bytes = 4;
  head = stats_text(&own);
  st_traceset_stats_json(s, 3, 4, buf, sizeof buf);
  CHECK_EQ_STR(buf, head);
  free(head);
  CHECK(own.samples > 0);
  st_traceset_batch_begin(s);
  load(s, "tests/fixtures/samples_v8.json", "v8.json", &e);
  load(s, "tests/fixtures/samples_v8.json", "v8.json", &e);
  st_traceset_batch_end(s, NULL, NULL);
  st_traceset_totals(s, &sum);
  CHECK_EQ_INT(sum.samples, 2 * own.samples);
  CHECK_EQ_INT(sum.stack_frames, 2 * own.stack_frames);
  st_traceset_destroy(s);
}

int main(void) {
  RUN(test_handles);
  RUN(test_file_data);
  RUN(test_merge_three);
  RUN(test_given_groups);
  RUN(test_start_together);
  RUN(test_set_offset);
  RUN(test_align);
  RUN(test_drop_last_files);
  RUN(test_keep_previous);
  RUN(test_failed_loads);
  RUN(test_unmerged);
  RUN(test_json);
  return check_report();
}
