/* test_import_chrome.c: Chrome JSON semantics, fixture by fixture (one edge
 * case per file in tests/fixtures), checked on the stats and on the model
 * the builder produced; every fixture must give identical results whatever
 * the chunk size. */
#include "check.h"
#include "load.h"
#include "test_util.h"

#include <stdlib.h>

#define FIX STRATA_SOURCE_DIR "/tests/fixtures/"

typedef struct loaded {
  st_trace *trace;
  st_error err;
  st_stats stats;
  char json[8192];
  char meta[4096];
} loaded;

static void load_mem(const unsigned char *data, size_t n, size_t chunk, loaded *out) {
  out->trace = tu_load(data, n, chunk, NULL, &out->err, &out->stats, out->meta, sizeof out->meta);
  st_stats_json(&out->stats, out->json, sizeof out->json);
}

/* Loads a fixture in several chunk sizes; all must agree. */
static loaded *load_fixture(const char *name) {
  char path[512];
  snprintf(path, sizeof path, FIX "%s", name);
  size_t n = 0;
  unsigned char *data = tu_read_file(path, &n);
  if (!data) {
    fprintf(stderr, "cannot read %s\n", path);
    check_failures_++;
    return NULL;
  }
  loaded *ref = calloc(1, sizeof *ref);
  load_mem(data, n, n ? n : 1, ref);
  size_t chunks[] = {1, 2, 3, 17, 64, 4096};
  for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
    loaded *other = calloc(1, sizeof *other);
    load_mem(data, n, chunks[k], other);
    if (strcmp(other->json, ref->json) != 0 || other->err.code != ref->err.code ||
        other->err.offset != ref->err.offset || strcmp(other->meta, ref->meta) != 0) {
      fprintf(stderr, "%s: chunk %zu differs:\n  %s\n  %s\n", name, chunks[k], ref->json,
              other->json);
      check_failures_++;
    }
    st_trace_destroy(other->trace);
    free(other);
  }
  free(data);
  return ref;
}

static void release(loaded *l) {
  if (!l) return;
  st_trace_destroy(l->trace);
  free(l);
}

static int has_warning(const st_stats *s, const char *kind, uint64_t count) {
  for (uint32_t i = 0; i < s->warning_count; i++)
    if (strcmp(s->warnings[i].kind, kind) == 0) return s->warnings[i].count == count;
  return count == 0;
}

/* Finds the event named `name` (bytes, may hold NUL) in the rows. */
typedef struct found {
  int ok;
  int64_t start_abs, dur;
  uint8_t flags;
  uint64_t src;
  const st_track *track;
} found;

static found find_event(const st_trace *t, const char *name, size_t len) {
  found f = {0};
  uint32_t nrows, ntracks;
  const st_row *rows = st_trace_rows(t, &nrows);
  const st_track *tracks = st_trace_tracks(t, &ntracks);
  const st_strtab *st = st_trace_strings(t);
  for (uint32_t r = 0; r < nrows; r++)
    for (uint32_t i = 0; i < rows[r].count; i++) {
      size_t n;
      const char *s = st_strtab_get(st, rows[r].name[i], &n);
      if (n == len && memcmp(s, name, len) == 0) {
        f.ok = 1;
        f.start_abs = rows[r].start[i] + st_trace_origin_ns(t);
        f.dur = rows[r].dur[i];
        f.flags = rows[r].flags[i];
        f.src = rows[r].src[i];
        f.track = &tracks[rows[r].track];
        return f;
      }
    }
  return f;
}
#define FIND(t, lit) find_event((t), (lit), sizeof(lit) - 1)

static const char *str_of(const st_trace *t, uint32_t id) {
  return st_strtab_get(st_trace_strings(t), id, NULL);
}

static void test_array_basic(void) {
  loaded *l = load_fixture("array_basic.json");
  if (!l) return;
  CHECK(l->trace != NULL);
  CHECK_EQ_INT(l->err.code, ST_OK);
  CHECK_EQ_INT(l->stats.events, 8);
  CHECK_EQ_INT(l->stats.phases['X'], 1);
  CHECK_EQ_INT(l->stats.phases[128], 1); /* the {} sentinel */
  CHECK_EQ_INT(l->stats.slices, 2);
  CHECK_EQ_INT(l->stats.instants, 1);
  CHECK_EQ_INT(l->stats.counter_samples, 1);
  CHECK_EQ_INT(l->stats.processes, 1);
  CHECK_EQ_INT(l->stats.threads, 1);
  CHECK_EQ_INT(l->stats.ts_min_ns, 100000);
  CHECK_EQ_INT(l->stats.ts_max_ns, 150000);
  found f = FIND(l->trace, "outer");
  CHECK(f.ok);
  CHECK_EQ_INT(f.start_abs, 100000);
  CHECK_EQ_INT(f.dur, 50000);
  CHECK_EQ_INT(f.src, 149); /* byte offset of the event's '{' */
  CHECK_EQ_STR(str_of(l->trace, f.track->name), "Worker");
  found in = FIND(l->trace, "inner");
  CHECK(in.ok && in.dur == 10000 && (in.flags & ST_EV_HAS_END));
  uint32_t np;
  const st_process *p = st_trace_processes(l->trace, &np);
  CHECK(np >= 1 && strcmp(str_of(l->trace, p[0].name), "Main") == 0);
  release(l);
}

static void test_object_keys(void) {
  loaded *l = load_fixture("object_keys_any_order.json");
  if (!l) return;
  CHECK(l->trace != NULL);
  CHECK_EQ_INT(l->err.code, ST_OK);
  CHECK_EQ_INT(l->stats.events, 1);
  /* stackFrames and samples are read (core/import/chrome/chrome_samples.h): one sample of frame
   * "main" */
  CHECK_EQ_INT(l->stats.samples, 1);
  CHECK_EQ_INT(l->stats.stack_frames, 1);
  CHECK(has_warning(&l->stats, "system_trace_events_ignored", 1));
  CHECK_EQ_STR(l->meta, "{\"metadata\":{\"highres-ticks\":true,\"clock-domain\":\"LINUX_CLOCK_"
                        "MONOTONIC\"},\"otherData\":{\"version\":\"1.2\"},\"displayTimeUnit\":"
                        "\"ns\",\"powerTraceAsString\":\"\"}");
  release(l);
}

/* A top-level value of the wrong kind is one warning however the bytes
 * arrive: a value longer than the importer's window is read again as more
 * bytes come, and was counted again each time (found by fuzz_chrome_split).
 * Values of 20,000 digits, pushed whole and in chunks of 1 to 4096 bytes. */
static void test_top_level_warnings_once(void) {
  enum { DIGITS = 20000 };
  char *doc = malloc(4 * DIGITS + 512);
  CHECK(doc != NULL);
  if (!doc) return;
  for (int pass = 0; pass < 2; pass++) {
    size_t n = 0;
    static const char *const keys[] = {"samples", "stackFrames", "systemTraceEvents"};
    doc[n++] = '{';
    for (int k = 0; k < (pass ? 1 : 3); k++) {
      n += (size_t)sprintf(doc + n, "\"%s\":", pass ? "traceEvents" : keys[k]);
      for (int i = 0; i < DIGITS; i++) doc[n++] = (char)('1' + i % 9);
      doc[n++] = ',';
    }
    /* an event list after them (under another key when traceEvents is the number) */
    n += (size_t)sprintf(
        doc + n, "\"%s\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]}",
        pass ? "x" : "traceEvents");
    size_t chunks[] = {n, 1, 7, 4096};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
      loaded *l = calloc(1, sizeof *l);
      load_mem((const unsigned char *)doc, n, chunks[c], l);
      if (pass) {
        CHECK(l->err.code != ST_OK); /* no event list: not a trace */
        CHECK(has_warning(&l->stats, "trace_events_not_a_list", 1));
      } else {
        CHECK(has_warning(&l->stats, "samples_not_a_list", 1));
        CHECK(has_warning(&l->stats, "stack_frames_not_an_object", 1));
        CHECK(has_warning(&l->stats, "system_trace_events_ignored", 1));
      }
      st_trace_destroy(l->trace);
      free(l);
    }
  }
  free(doc);
}

static void test_truncation(void) {
  loaded *l = load_fixture("truncated_mid_event.json");
  if (l) {
    CHECK(l->trace != NULL);
    CHECK_EQ_INT(l->err.code, ST_OK); /* array form: a cut list is allowed */
    CHECK_EQ_INT(l->stats.events, 2);
    CHECK(has_warning(&l->stats, "truncated", 1));
    CHECK_EQ_INT(l->stats.warnings[0].first_offset, 109);
    release(l);
  }
  l = load_fixture("truncated_trailing_comma.json");
  if (l) {
    CHECK(l->trace && l->err.code == ST_OK && l->stats.events == 2);
    CHECK(has_warning(&l->stats, "truncated", 1));
    release(l);
  }
  l = load_fixture("trailing_comma_closed.json");
  if (l) {
    CHECK(l->trace && l->err.code == ST_OK && l->stats.events == 2);
    CHECK(has_warning(&l->stats, "truncated", 0));
    release(l);
  }
  l = load_fixture("object_truncated.json");
  if (l) {
    CHECK(l->trace != NULL); /* kept, with an error saying where it stopped */
    CHECK_EQ_INT(l->err.code, ST_ERR_TRUNCATED);
    CHECK_EQ_INT(l->stats.events, 2);
    CHECK_EQ_INT(l->err.offset, 122);
    CHECK_EQ_INT(l->err.line, 2);
    release(l);
  }
  l = load_fixture("object_cut_in_metadata.json");
  if (l) {
    CHECK(l->trace != NULL);
    CHECK_EQ_INT(l->err.code, ST_ERR_TRUNCATED);
    CHECK_EQ_STR(l->meta, "{}"); /* the cut value is dropped, the text stays valid */
    release(l);
  }
  l = load_fixture("syntax_error.json");
  if (l) {
    CHECK(l->trace != NULL);
    CHECK_EQ_INT(l->err.code, ST_ERR_JSON);
    CHECK_EQ_INT(l->stats.events, 1);
    CHECK_EQ_INT(l->err.offset, 102);
    CHECK_EQ_INT(l->err.line, 3);
    CHECK_EQ_INT(l->err.column, 31);
    release(l);
  }
  l = load_fixture("trailing_garbage.json");
  if (l) {
    CHECK(l->trace && l->err.code == ST_OK);
    CHECK(has_warning(&l->stats, "trailing_data", 1));
    release(l);
  }
}

static void test_strings(void) {
  loaded *l = load_fixture("strings_escapes.json");
  if (!l) return;
  CHECK(l->trace != NULL);
  CHECK_EQ_INT(l->stats.events, 7);
  CHECK_EQ_INT(l->stats.slices, 7);
  CHECK(FIND(l->trace, "emoji \xF0\x9F\x98\x80").ok);
  CHECK(FIND(l->trace, "lone \xEF\xBF\xBD hi").ok);
  CHECK(FIND(l->trace, "nul\0byte").ok);
  CHECK(FIND(l->trace, "quote \" back \\ slash / \t").ok);
  CHECK(FIND(l->trace, "raw\ttab").ok);
  CHECK(FIND(l->trace, "escaped key").ok); /* "n\u0061me" is "name" */
  CHECK(FIND(l->trace, "caf\xC3\xA9 \xE4\xB8\xAD").ok);
  release(l);
  l = load_fixture("invalid_utf8.json");
  if (!l) return;
  CHECK(FIND(l->trace, "bad \xEF\xBF\xBD\xEF\xBF\xBD utf8").ok);
  release(l);
}

static void test_pid_tid_strings(void) {
  loaded *l = load_fixture("string_pid_tid.json");
  if (!l) return;
  CHECK_EQ_INT(l->stats.processes, 2); /* "Spans" and 7 ("7" == 7) */
  CHECK_EQ_INT(l->stats.threads, 2);
  found a = FIND(l->trace, "a");
  CHECK(a.ok);
  CHECK_EQ_STR(str_of(l->trace, a.track->name), "PyTorch Profiler");
  uint32_t np;
  const st_process *p = st_trace_processes(l->trace, &np);
  int renamed = 0;
  for (uint32_t i = 0; i < np; i++)
    if (strcmp(str_of(l->trace, p[i].name), "Renamed") == 0) renamed = 1;
  CHECK(renamed); /* M process_name overrides the string pid's name */
  release(l);
}

static void test_timestamps(void) {
  loaded *l = load_fixture("timestamps.json");
  if (!l) return;
  found big = FIND(l->trace, "big");
  CHECK(big.ok);
  CHECK_EQ_INT(big.start_abs, 1735632360000000124LL); /* .1235 us rounds to 124 ns */
  CHECK_EQ_INT(big.dur, 1);                           /* 0.0005 us -> 1 ns */
  found frac = FIND(l->trace, "frac");
  CHECK(frac.ok && frac.start_abs == 123457 && frac.dur == 2500);
  found ex = FIND(l->trace, "exp");
  CHECK(ex.ok && ex.start_abs == 1500000 && ex.dur == 2500);
  found neg = FIND(l->trace, "neg");
  CHECK(neg.ok && neg.dur == 0);
  CHECK(!FIND(l->trace, "badts").ok);
  CHECK(!FIND(l->trace, "nots").ok);
  found nodur = FIND(l->trace, "nodur");
  CHECK(nodur.ok && (nodur.flags & ST_EV_UNFINISHED));
  CHECK(has_warning(&l->stats, "negative_duration", 1));
  CHECK(has_warning(&l->stats, "bad_timestamp", 1));
  CHECK(has_warning(&l->stats, "missing_ts", 1));
  CHECK(has_warning(&l->stats, "missing_dur", 1));
  CHECK_EQ_INT(l->stats.slices, 5);
  CHECK(strstr(l->json, "\"ts_max_us\":1735632360000000.125") != NULL);
  release(l);
}

static void test_begin_end(void) {
  loaded *l = load_fixture("begin_end.json");
  if (!l) return;
  /* B A, B B, E(X) closes B (mismatch), E closes A, E unmatched; open never
   * closes; late's E is before its B */
  CHECK_EQ_INT(l->stats.slices, 4);
  CHECK(has_warning(&l->stats, "end_name_mismatch", 1));
  CHECK(has_warning(&l->stats, "unmatched_end", 1));
  CHECK(has_warning(&l->stats, "unclosed_begin", 1));
  CHECK(has_warning(&l->stats, "negative_duration", 1));
  found b = FIND(l->trace, "B");
  CHECK(b.ok && b.dur == 1000);
  found a = FIND(l->trace, "A");
  CHECK(a.ok && a.dur == 3000);
  found open = FIND(l->trace, "open");
  CHECK(open.ok && (open.flags & ST_EV_UNFINISHED));
  release(l);
}

/* Offset of the text `needle` (an event's first bytes) in a fixture. */
static uint64_t offset_in(const char *fixture, const char *needle) {
  char path[512];
  snprintf(path, sizeof path, FIX "%s", fixture);
  size_t n = 0;
  unsigned char *data = tu_read_file(path, &n);
  const char *p = data ? strstr((const char *)data, needle) : NULL;
  uint64_t off = p ? (uint64_t)(p - (const char *)data) : UINT64_MAX;
  CHECK(p != NULL);
  free(data);
  return off;
}

/* The end event of each B/E (b/e, S/F) slice is kept: st_trace_end_src */
static uint64_t end_of(const st_trace *t, const char *name) {
  uint32_t nrows;
  const st_row *rows = st_trace_rows(t, &nrows);
  for (uint32_t r = 0; r < nrows; r++)
    for (uint32_t i = 0; i < rows[r].count; i++)
      if (!strcmp(str_of(t, rows[r].name[i]), name)) {
        uint64_t e = st_trace_end_src(t, r, i);
        CHECK(e == st_trace_end_src_of(t, rows[r].src[i]));
        return e;
      }
  CHECK(!"no such event");
  return 0;
}

static void test_end_srcs(void) {
  loaded *l = load_fixture("begin_end_args.json");
  if (l) {
    CHECK_EQ_INT(l->stats.slices, 3);
    found step = FIND(l->trace, "step"), inner = FIND(l->trace, "inner");
    CHECK(step.ok && step.src == 17 && (step.flags & ST_EV_HAS_END));
    CHECK(inner.ok && inner.src == 133 && (inner.flags & ST_EV_HAS_END));
    CHECK_EQ_INT(end_of(l->trace, "step"), 328); /* the second E closes step */
    CHECK_EQ_INT(end_of(l->trace, "inner"), 184);
    CHECK(end_of(l->trace, "op") == UINT64_MAX); /* an X */
    size_t n;
    st_trace_end_srcs(l->trace, &n);
    CHECK_EQ_INT(n, 2);
    release(l);
  }
  l = load_fixture("begin_end.json"); /* mismatched names still pair; unclosed: none */
  if (l) {
    CHECK_EQ_INT(end_of(l->trace, "B"),
                 offset_in("begin_end.json", "{\"name\":\"X\",\"ph\":\"E\""));
    CHECK(end_of(l->trace, "open") == UINT64_MAX);
    release(l);
  }
  l = load_fixture("async_nestable.json");
  if (l) {
    const char *f = "async_nestable.json";
    CHECK_EQ_INT(end_of(l->trace, "req"),
                 offset_in(f, "{\"name\":\"req\",\"cat\":\"net\",\"ph\":\"e\""));
    CHECK_EQ_INT(end_of(l->trace, "sub"),
                 offset_in(f, "{\"name\":\"sub\",\"cat\":\"net\",\"ph\":\"e\""));
    release(l);
  }
  l = load_fixture("async_legacy.json");
  if (l) {
    const char *f = "async_legacy.json";
    CHECK_EQ_INT(end_of(l->trace, "load"),
                 offset_in(f, "{\"name\":\"load\",\"cat\":\"x\",\"ph\":\"F\""));
    CHECK(end_of(l->trace, "parse") == UINT64_MAX); /* a T step */
    CHECK(end_of(l->trace, "other") == UINT64_MAX); /* never closed */
    release(l);
  }
  /* without B/E pairs the model keeps no table */
  l = load_fixture("array_basic.json");
  if (l) {
    size_t n = 9;
    st_trace_end_srcs(l->trace, &n);
    CHECK_EQ_INT(n, 1); /* array_basic has one B/E pair ("inner") */
    release(l);
  }
  l = load_fixture("instants.json");
  if (l) {
    size_t n = 9;
    CHECK(st_trace_end_srcs(l->trace, &n) == NULL && n == 0);
    release(l);
  }
}

static void test_async(void) {
  loaded *l = load_fixture("async_nestable.json");
  if (l) {
    CHECK_EQ_INT(l->stats.async_slices, 4); /* req, sub, loc (pid 1), loc (pid 2, unclosed) */
    CHECK_EQ_INT(l->stats.instants, 1);
    CHECK(has_warning(&l->stats, "unmatched_async_end", 1));
    CHECK(has_warning(&l->stats, "async_without_id", 1));
    CHECK(has_warning(&l->stats, "unclosed_async_begin", 1));
    found req = FIND(l->trace, "req");
    CHECK(req.ok && req.dur == 10000 && req.track->kind == ST_TRACK_ASYNC);
    CHECK(req.ok && strcmp(str_of(l->trace, req.track->name), "net") == 0);
    found sub = FIND(l->trace, "sub");
    CHECK(sub.ok && sub.dur == 2000);
    release(l);
  }
  l = load_fixture("async_legacy.json");
  if (l) {
    CHECK_EQ_INT(l->stats.async_slices, 5); /* load, parse, layout, s1, other (unclosed) */
    found load = FIND(l->trace, "load");
    CHECK(load.ok && load.dur == 30000);
    found parse = FIND(l->trace, "parse");
    CHECK(parse.ok && parse.start_abs == 110000 && parse.dur == 10000);
    found layout = FIND(l->trace, "layout");
    CHECK(layout.ok && layout.start_abs == 120000 && layout.dur == 10000);
    found s1 = FIND(l->trace, "s1");
    CHECK(s1.ok && s1.start_abs == 140000 && s1.dur == 10000);
    release(l);
  }
}

static void test_counters(void) {
  loaded *l = load_fixture("counters.json");
  if (!l) return;
  /* mem: 2 keys x 2; cpu[3]: 1; bad: 0; xprof: 2 rows x 2; one: 2 */
  CHECK_EQ_INT(l->stats.counter_samples, 11);
  CHECK(has_warning(&l->stats, "bad_counter_value", 1));
  uint32_t nt, nc;
  const st_track *tracks = st_trace_tracks(l->trace, &nt);
  const st_counter *cs = st_trace_counters(l->trace, &nc);
  const char *want[] = {"mem heap", "mem stack", "cpu[3]", "xprof 0", "xprof 1", "Bytes"};
  for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
    int ok = 0;
    for (uint32_t i = 0; i < nt; i++)
      if (tracks[i].kind == ST_TRACK_COUNTER &&
          strcmp(str_of(l->trace, tracks[i].name), want[w]) == 0)
        ok = 1;
    if (!ok) fprintf(stderr, "missing counter series %s\n", want[w]);
    CHECK(ok);
  }
  double sum = 0;
  for (uint32_t i = 0; i < nc; i++)
    for (uint32_t k = 0; k < cs[i].count; k++) sum += cs[i].value[k];
  CHECK(sum == 10 + 20 + 11 + 21 + 0.5 + 1 + 2 + 3 + 4 + 1 + 2);
  CHECK_EQ_INT(l->stats.ts_max_ns, 8000);
  release(l);
}

static void test_flows_instants_phases(void) {
  loaded *l = load_fixture("flows.json");
  if (l) {
    /* v1, chained in time order whatever the file order: s (in p) -> t (in
     * q) binds; t -> f (bp "e" at ts 5) has no enclosing slice; the
     * string-id "1" f is another identity (unmatched); v2: q consumes p */
    CHECK_EQ_INT(l->stats.flows, 2);
    CHECK(has_warning(&l->stats, "flow_unbound", 1));
    CHECK(has_warning(&l->stats, "unmatched_flow", 1));
    CHECK(has_warning(&l->stats, "flow_without_direction", 1));
    release(l);
  }
  l = load_fixture("instants.json");
  if (l) {
    CHECK_EQ_INT(l->stats.instants, 5);
    found g = FIND(l->trace, "g");
    CHECK(g.ok && g.track->kind == ST_TRACK_INSTANTS && g.track->key == -1);
    uint32_t np;
    const st_process *p = st_trace_processes(l->trace, &np);
    CHECK(g.ok && strcmp(str_of(l->trace, p[g.track->process].name), "Global") == 0);
    found pr = FIND(l->trace, "p");
    CHECK(pr.ok && pr.track->key == -1 && p[pr.track->process].pid == 1);
    found t = FIND(l->trace, "t");
    CHECK(t.ok && t.track->kind == ST_TRACK_INSTANTS && t.track->key == 1);
    CHECK(t.ok && (t.flags & ST_EV_INSTANT));
    release(l);
  }
  l = load_fixture("phases_misc.json");
  if (l) {
    CHECK_EQ_INT(l->stats.events, 14);                 /* 42 is not an event object */
    CHECK(has_warning(&l->stats, "skipped_phase", 8)); /* P is a sample now */
    CHECK_EQ_INT(l->stats.samples, 1);
    CHECK(has_warning(&l->stats, "unknown_phase", 1));
    CHECK(has_warning(&l->stats, "missing_ph", 2));
    CHECK(has_warning(&l->stats, "non_object_event", 1));
    CHECK_EQ_INT(l->stats.phases[128], 3);
    CHECK_EQ_INT(l->stats.phases_other, 1);
    CHECK(strstr(l->json, "\"phases\":{\"(\":1,\")\":1,\"D\":1,\"N\":1,\"O\":1,\"P\":1,\"V\":1,"
                          "\"Z\":1,\"c\":1,\"v\":1,\"\":3,\"other\":1}") != NULL);
    release(l);
  }
  l = load_fixture("bom.json");
  if (l) {
    CHECK(l->trace && l->stats.events == 1);
    release(l);
  }
  l = load_fixture("empty_array.json");
  if (l) {
    CHECK(l->trace && l->err.code == ST_OK && l->stats.events == 0);
    CHECK(strstr(l->json, "\"ts_min_us\":null") != NULL);
    release(l);
  }
}

int main(void) {
  RUN(test_array_basic);
  RUN(test_object_keys);
  RUN(test_truncation);
  RUN(test_top_level_warnings_once);
  RUN(test_strings);
  RUN(test_pid_tid_strings);
  RUN(test_timestamps);
  RUN(test_begin_end);
  RUN(test_end_srcs);
  RUN(test_async);
  RUN(test_counters);
  RUN(test_flows_instants_phases);
  return check_report();
}
