/* test_import_xplane.c: XSpace -> model, one test per mapping rule
 * (import_xplane.h), on XSpaces encoded in memory (pb_enc.h), loaded
 * through the loader in several chunk sizes; plus the corpus file and
 * hostile inputs. */
#include "check.h"
#include "import_xplane.h"
#include "load.h"
#include "pb_enc.h"
#include "test_util.h"

#include <stdlib.h>

/* ---- building an XSpace ---------------------------------------------------- */
enum { ST_STEP = 1, ST_FLOW = 2, ST_ASYNC = 3, ST_FLOPS = 4, ST_REFD = 5 };

static void stat_meta(enc *plane, uint64_t id, const char *name) {
  enc entry = {0}, m = {0};
  enc_u(&m, 1, id);
  enc_str(&m, 2, name);
  enc_u(&entry, 1, id);
  enc_msg(&entry, 2, &m);
  enc_msg(plane, 5, &entry);
  enc_free(&entry);
  enc_free(&m);
}

static void event_meta(enc *plane, uint64_t id, const char *name, const char *disp,
                       const enc *stats) {
  enc entry = {0}, m = {0};
  enc_u(&m, 1, id);
  enc_str(&m, 2, name);
  if (disp) enc_str(&m, 4, disp);
  if (stats) enc_raw(&m, stats->p, stats->n);
  enc_u(&entry, 1, id);
  enc_msg(&entry, 2, &m);
  enc_msg(plane, 4, &entry);
  enc_free(&entry);
  enc_free(&m);
}

/* An XEvent: offset/duration in ps; stats (already-encoded field-4 XStats). */
static void event(enc *line, uint64_t mid, int64_t off_ps, int64_t dur_ps, const enc *stats) {
  enc e = {0};
  enc_u(&e, 1, mid);
  enc_i(&e, 2, off_ps);
  if (dur_ps) enc_i(&e, 3, dur_ps);
  if (stats) enc_raw(&e, stats->p, stats->n);
  enc_msg(line, 4, &e);
  enc_free(&e);
}

static void xstat_u(enc *out, uint64_t mid, uint64_t v) {
  enc s = {0};
  enc_u(&s, 1, mid);
  enc_u(&s, 3, v);
  enc_msg(out, 4, &s);
  enc_free(&s);
}
static void xstat_str(enc *out, uint32_t field, uint64_t mid, const char *v) {
  enc s = {0};
  enc_u(&s, 1, mid);
  enc_str(&s, 5, v);
  enc_msg(out, field, &s);
  enc_free(&s);
}
static void xstat_d(enc *out, uint64_t mid, double v) {
  enc s = {0};
  enc_u(&s, 1, mid);
  enc_double(&s, 2, v);
  enc_msg(out, 4, &s);
  enc_free(&s);
}

/* line header fields in proto order around the events (display fields last,
 * as protobuf writes them) */
static void line(enc *plane, int64_t id, const char *name, int64_t ts_ns, const enc *events,
                 int64_t display_id, const char *display_name) {
  enc l = {0};
  if (id) enc_i(&l, 1, id);
  enc_str(&l, 2, name);
  enc_i(&l, 3, ts_ns);
  if (events) enc_raw(&l, events->p, events->n);
  if (display_id) enc_i(&l, 10, display_id);
  if (display_name) enc_str(&l, 11, display_name);
  enc_msg(plane, 3, &l);
  enc_free(&l);
}

typedef struct space {
  enc bytes;
  size_t plane_at[4], plane_len[4]; /* payload offsets of the planes */
} space;

static void add_plane(space *sp, int i, const enc *plane) {
  enc_tag(&sp->bytes, 1, 2);
  enc_varint(&sp->bytes, plane->n);
  sp->plane_at[i] = sp->bytes.n;
  sp->plane_len[i] = plane->n;
  enc_raw(&sp->bytes, plane->p, plane->n);
}

static void build(space *sp) {
  memset(sp, 0, sizeof *sp);
  enc p = {0}, evs = {0}, st = {0};
  /* plane 0: /host:CPU; lines out of name order; metadata after lines as a
   * protobuf writer emits them */
  enc_str(&p, 2, "/host:CPU");
  event(&evs, 10, 0, 10000, NULL);  /* [0, 10 ns) parent */
  event(&evs, 11, 9500, 500, NULL); /* child ends with the parent (ps) */
  event(&evs, 12, 20000, 0, NULL);  /* instant */
  xstat_str(&st, 4, ST_STEP, "step 7");
  event(&evs, 10, 30000, 1000, &st); /* renamed by step_name */
  enc_reset(&st);
  line(&p, 5, "b_thread", 1000, &evs, 0, NULL);
  enc_reset(&evs);
  event(&evs, 10, 1500, 2999, NULL); /* 1001.5 .. 1004.499 ns -> 1001 + 3 */
  line(&p, 7, "a_thread", 1000, &evs, 0, NULL);
  enc_reset(&evs);
  line(&p, 9, "empty", 1000, NULL, 0, NULL); /* no events: no track */
  stat_meta(&p, ST_STEP, "step_name");
  stat_meta(&p, ST_FLOW, "flow");
  stat_meta(&p, ST_ASYNC, "_a");
  stat_meta(&p, ST_FLOPS, "flops");
  stat_meta(&p, ST_REFD, "referenced string");
  event_meta(&p, 10, "long.full.name", "short", NULL);
  event_meta(&p, 11, "child", NULL, NULL);
  xstat_str(&st, 5, ST_FLOPS, "per-type");
  event_meta(&p, 12, "marker", NULL, &st);
  enc_reset(&st);
  add_plane(sp, 0, &p);
  enc_reset(&p);
  /* plane 1: /device:GPU:2 (id 2 -> pid 3): stream, derived line (negative
   * id = 0xdeadbeef), display id/name, flows, async, counters, aggregates */
  enc_u(&p, 1, 2);
  enc_str(&p, 2, "/device:GPU:2");
  xstat_u(&st, ST_FLOW, (77ull << 2) | 2);
  xstat_d(&st, ST_FLOPS, 1.5);
  event(&evs, 20, 0, 5000, &st);
  enc_reset(&st);
  xstat_u(&st, ST_FLOW, (77ull << 2) | 1);
  event(&evs, 20, 6000, 1000, &st);
  enc_reset(&st);
  xstat_u(&st, ST_FLOW, (88ull << 2) | 3);
  xstat_u(&st, ST_ASYNC, 1);
  event(&evs, 20, 8000, 1000, &st); /* async */
  enc_reset(&st);
  {
    enc agg = {0}, e = {0};
    enc_u(&e, 1, 20);
    enc_u(&e, 5, 12); /* num_occurrences */
    enc_msg(&agg, 4, &e);
    enc_raw(&evs, agg.p, agg.n);
    enc_free(&agg);
    enc_free(&e);
  }
  event(&evs, 99, 9000, 100, NULL); /* unknown metadata */
  line(&p, 10, "Stream #10", 2000, &evs, 0, NULL);
  enc_reset(&evs);
  event(&evs, 21, 0, 1000, NULL);
  line(&p, -559038737, "Steps", 2000, &evs, 0, NULL);
  enc_reset(&evs);
  event(&evs, 20, 0, 1000, NULL);
  line(&p, 11, "raw name", 2000, &evs, 12, "Stream #12(Compute)");
  enc_reset(&evs);
  xstat_d(&st, ST_FLOPS, 3.0);
  event(&evs, 22, 0, 0, &st);
  enc_reset(&st);
  xstat_d(&st, ST_FLOPS, 4.0);
  xstat_u(&st, ST_STEP + 100, 0); /* unknown stat: not numeric-counted */
  event(&evs, 22, 5000, 0, &st);
  enc_reset(&st);
  line(&p, 13, "_counters_", 2000, &evs, 0, NULL);
  line(&p, 14, "counters_cpu", 2000, &evs, 0, NULL); /* skipped: 2 events */
  enc_reset(&evs);
  stat_meta(&p, ST_FLOW, "flow");
  stat_meta(&p, ST_ASYNC, "_a");
  stat_meta(&p, ST_FLOPS, "flops");
  event_meta(&p, 20, "kernel", NULL, NULL);
  event_meta(&p, 21, "step", NULL, NULL);
  event_meta(&p, 22, "mem", NULL, NULL);
  add_plane(sp, 1, &p);
  enc_reset(&p);
  /* plane 2: metadata, not drawn */
  enc_str(&p, 2, "/host:metadata");
  event(&evs, 1, 0, 10, NULL);
  line(&p, 1, "x", 0, &evs, 0, NULL);
  enc_reset(&evs);
  add_plane(sp, 2, &p);
  enc_str(&sp->bytes, 3, "a warning");
  enc_str(&sp->bytes, 4, "myhost");
  enc_free(&p);
  enc_free(&evs);
  enc_free(&st);
}

/* ---- loading ------------------------------------------------------------------ */
typedef struct result {
  st_trace *t;
  st_error err;
  st_stats stats;
  char json[8192], meta[1024];
} result;

static void load(const uint8_t *p, size_t n, size_t chunk, const char *name, result *r) {
  r->t = tu_load(p, n, chunk, name, &r->err, &r->stats, r->meta, sizeof r->meta);
  st_stats_json(&r->stats, r->json, sizeof r->json);
}

static int has_warning(const st_stats *s, const char *kind, uint64_t count) {
  for (uint32_t i = 0; i < s->warning_count; i++)
    if (!strcmp(s->warnings[i].kind, kind)) return s->warnings[i].count == count;
  return 0;
}

static const char *str(const st_trace *t, uint32_t id) {
  return st_strtab_get(st_trace_strings(t), id, NULL);
}

static const st_process *find_proc(const st_trace *t, int64_t pid) {
  uint32_t n;
  const st_process *p = st_trace_processes(t, &n);
  for (uint32_t i = 0; i < n; i++)
    if (p[i].pid == pid) return &p[i];
  return NULL;
}

static void test_stats_and_chunking(void) {
  space sp;
  build(&sp);
  result ref;
  load(sp.bytes.p, sp.bytes.n, sp.bytes.n, "t.xplane.pb", &ref);
  CHECK(ref.t != NULL);
  CHECK_EQ_INT(ref.err.code, ST_OK);
  CHECK_EQ_STR(ref.stats.format, "xplane");
  /* 4 + 1 host; 5 + 1 + 1 + 2 + 2 GPU; 1 metadata */
  CHECK_EQ_INT(ref.stats.events, 17);
  CHECK_EQ_INT(ref.stats.slices, 5 + 3 + 1 + 1); /* host 5, GPU: 3 stream, step, #12 */
  CHECK_EQ_INT(ref.stats.async_slices, 1);
  CHECK_EQ_INT(ref.stats.instants, 1);
  CHECK_EQ_INT(ref.stats.counter_samples, 2);
  CHECK_EQ_INT(ref.stats.flows, 1);
  CHECK_EQ_INT(ref.stats.processes, 2);
  CHECK_EQ_INT(ref.stats.threads, 5); /* a, b, #10, Steps, #12 */
  CHECK_EQ_INT(ref.stats.phases['X'], 10);
  CHECK_EQ_INT(ref.stats.phases['C'], 2);
  CHECK(has_warning(&ref.stats, "xplane_aggregate_events_skipped", 1));
  CHECK(has_warning(&ref.stats, "xplane_unknown_event_metadata", 1));
  CHECK(has_warning(&ref.stats, "xplane_counters_line_skipped", 1));
  CHECK(has_warning(&ref.stats, "xplane_plane_not_drawn", 1));
  CHECK(has_warning(&ref.stats, "xplane_space_warning", 1));
  CHECK(strstr(ref.meta, "\"hostnames\": [\"myhost\"]") != NULL);
  CHECK(strstr(ref.meta, "\"warnings\": [\"a warning\"]") != NULL);
  /* same stats in any chunking; also without the name hint (content sniff) */
  size_t chunks[] = {1, 2, 7, 64, 1000};
  for (size_t k = 0; k < 5; k++) {
    result r;
    load(sp.bytes.p, sp.bytes.n, chunks[k], k == 2 ? "noext" : "t.xplane.pb", &r);
    r.stats.load_ms = ref.stats.load_ms;
    st_stats_json(&r.stats, r.json, sizeof r.json);
    CHECK_EQ_STR(r.json, ref.json);
    st_trace_destroy(r.t);
  }
  st_trace_destroy(ref.t);
  enc_free(&sp.bytes);
}

static void test_processes_tracks_times(void) {
  space sp;
  build(&sp);
  result r;
  load(sp.bytes.p, sp.bytes.n, 5, "t.xplane.pb", &r);
  const st_trace *t = r.t;
  CHECK(t != NULL);
  if (!t) return;
  uint32_t np, nt, nr;
  const st_process *procs = st_trace_processes(t, &np);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_row *rows = st_trace_rows(t, &nr);
  CHECK_EQ_INT(np, 2);
  /* devices first (sort = pid): GPU:2 is pid 3, host 701 */
  CHECK_EQ_INT(procs[0].pid, 3);
  CHECK_EQ_STR(str(t, procs[0].name), "/device:GPU:2");
  CHECK_EQ_INT(procs[1].pid, 701);
  CHECK_EQ_STR(str(t, procs[1].name), "/host:CPU");
  CHECK_EQ_STR(str(t, procs[1].labels), "myhost");
  /* GPU tracks: streams by id, then derived lines (0xdeadbeef) */
  const st_process *g = find_proc(t, 3), *h = find_proc(t, 701);
  const char *gpu_order[] = {"Stream #10", "Stream #12(Compute)", "Steps"};
  int k = 0;
  for (uint32_t i = g->first_track; i < g->first_track + g->track_count; i++) {
    if (tracks[i].kind != ST_TRACK_SLICES) continue;
    if (k < 3) CHECK_EQ_STR(str(t, tracks[i].name), gpu_order[k]);
    if (k == 2) CHECK_EQ_INT(tracks[i].key, 3735928559LL);
    k++;
  }
  CHECK_EQ_INT(k, 3);
  /* host threads in name order */
  CHECK_EQ_STR(str(t, tracks[h->first_track].name), "a_thread");
  CHECK_EQ_INT(tracks[h->first_track].key, 7);
  CHECK_EQ_STR(str(t, tracks[h->first_track + 1].name), "b_thread");
  /* times: origin = first start = line 1000 ns + 0 ps */
  int64_t origin = st_trace_origin_ns(t);
  CHECK_EQ_INT(origin, 1000);
  const st_track *a = &tracks[h->first_track], *b = &tracks[h->first_track + 1];
  const st_row *ra = &rows[a->first_row];
  CHECK_EQ_INT(ra->count, 1);
  CHECK_EQ_INT(ra->start[0], 1);              /* 1001.5 ns floored */
  CHECK_EQ_INT(ra->dur[0], 3);                /* end 1004.499 floored to 1004 */
  CHECK_EQ_STR(str(t, ra->name[0]), "short"); /* display name */
  /* b: parent at depth 0, child nested at depth 1 (not an overlap) */
  CHECK_EQ_INT(b->row_count, 2);
  const st_row *b0 = &rows[b->first_row], *b1 = &rows[b->first_row + 1];
  CHECK_EQ_INT(b0->count, 3);
  CHECK_EQ_INT(b1->count, 1);
  CHECK_EQ_STR(str(t, b1->name[0]), "child");
  CHECK_EQ_INT(b1->start[0], 9);
  CHECK_EQ_INT(b1->dur[0], 1); /* 9.5 -> 9, end 10 */
  CHECK(!(b1->flags[0] & ST_EV_OVERLAP));
  CHECK_EQ_STR(str(t, b0->name[1]), "marker");
  CHECK(b0->flags[1] & ST_EV_INSTANT);
  CHECK_EQ_STR(str(t, b0->name[2]), "step 7"); /* step_name */
  /* src: the XEvent record's tag (field 4, LEN = 0x22) in the input */
  CHECK_EQ_INT(sp.bytes.p[b0->src[0]], 0x22);
  /* args on selection, through the loader's args source (argsrc.h; the
   * decoding itself is tested in test_argsrc.c): an event's stats, its
   * metadata's display name as long_name, a step_name stat */
  tu_args_trace at = tu_load_args(sp.bytes.p, sp.bytes.n, "t.xplane.pb");
  CHECK(at.t && at.as);
  char *args = tu_args_of(at.as, sp.bytes.p, sp.bytes.n, b0->src[1], UINT64_MAX);
  CHECK_EQ_STR(args, "{\"flops\": \"per-type\"}");
  free(args);
  args = tu_args_of(at.as, sp.bytes.p, sp.bytes.n, ra->src[0], UINT64_MAX);
  CHECK_EQ_STR(args, "{\"long_name\": \"long.full.name\"}");
  free(args);
  args = tu_args_of(at.as, sp.bytes.p, sp.bytes.n, b0->src[2], UINT64_MAX);
  CHECK_EQ_STR(args, "{\"long_name\": \"long.full.name\", \"step_name\": \"step 7\"}");
  free(args);
  args = tu_args_of(at.as, sp.bytes.p, sp.bytes.n, 3, UINT64_MAX); /* not an event */
  CHECK_EQ_STR(args, "(error)");
  free(args);
  tu_unload_args(&at);
  /* GPU: async track, counter series named like the event */
  int async = 0, counters = 0;
  uint32_t nc;
  const st_counter *cs = st_trace_counters(t, &nc);
  for (uint32_t i = g->first_track; i < g->first_track + g->track_count; i++) {
    if (tracks[i].kind == ST_TRACK_ASYNC) async++;
    if (tracks[i].kind == ST_TRACK_COUNTER) {
      counters++;
      CHECK_EQ_STR(str(t, tracks[i].name), "mem flops");
      CHECK_EQ_INT(cs[tracks[i].counter].count, 2);
      CHECK(cs[tracks[i].counter].max == 4.0);
    }
  }
  CHECK_EQ_INT(async, 1);
  CHECK_EQ_INT(counters, 1);
  st_trace_destroy(r.t);
  enc_free(&sp.bytes);
}

static void test_hostile(void) {
  space sp;
  build(&sp);
  result r;
  /* cut inside the second plane: the first plane's events stay */
  size_t cut = sp.plane_at[1] + 10;
  load(sp.bytes.p, cut, 3, "t.xplane.pb", &r);
  CHECK(r.t != NULL);
  CHECK_EQ_INT(r.err.code, ST_ERR_TRUNCATED);
  CHECK(strstr(r.err.msg, "inside a plane") != NULL);
  CHECK_EQ_INT(r.stats.events, 5);
  st_trace_destroy(r.t);
  /* a wire error deep inside plane 0: a LEN whose length runs past its
   * message; the offset is absolute */
  uint8_t *bad = malloc(sp.bytes.n);
  memcpy(bad, sp.bytes.p, sp.bytes.n);
  /* b_thread's line: 08 05 12 08 "b_thread" 18 e8 07, then its first event
   * 22 <len>: make that length 127 */
  size_t at = 0;
  for (size_t i = 0; i + 8 <= sp.bytes.n; i++)
    if (!memcmp(sp.bytes.p + i, "b_thread", 8)) at = i + 8 + 3 + 1;
  CHECK_EQ_INT(bad[at - 1], 0x22);
  bad[at] = 0x7F;
  load(bad, sp.bytes.n, 4096, "t.xplane.pb", &r);
  CHECK(r.t == NULL);
  CHECK_EQ_INT(r.err.code, ST_ERR_PROTO);
  CHECK(strstr(r.err.msg, "claims 127 bytes") != NULL);
  CHECK_EQ_INT(r.err.offset, at);
  st_trace_destroy(r.t);
  free(bad);
  /* a plane claiming 2^40 bytes */
  load((const uint8_t *)"\x0a\x80\x80\x80\x80\x80\x20\x08\x01", 9, 1, "t.xplane.pb", &r);
  CHECK(r.t == NULL);
  CHECK_EQ_INT(r.err.code, ST_ERR_LIMIT);
  CHECK_EQ_INT(r.err.offset, 1);
  /* ten thousand empty lines and a million-entry-looking packed field are
   * only bytes: linear, no error */
  enc p = {0}, s2 = {0};
  enc_str(&p, 2, "/host:CPU");
  for (int i = 0; i < 10000; i++) line(&p, i + 1, "t", 0, NULL, 0, NULL);
  enc_msg(&s2, 1, &p);
  load(s2.p, s2.n, 65536, "t.xplane.pb", &r);
  CHECK(r.t != NULL && r.err.code == ST_OK);
  CHECK_EQ_INT(r.stats.threads, 0);
  st_trace_destroy(r.t);
  enc_free(&p);
  enc_free(&s2);
  enc_free(&sp.bytes);
}

static void test_corpus(void) {
  size_t n;
  unsigned char *p = tu_read_file(STRATA_CORPUS_DIR "/xprof__34.83.195.179_6003.xplane.pb", &n);
  if (!p) return;
  result r;
  load(p, n, 65536, "34.83.195.179_6003.xplane.pb", &r);
  CHECK(r.t != NULL);
  CHECK_EQ_INT(r.stats.events, 23128);
  CHECK_EQ_INT(r.stats.processes, 4);
  CHECK_EQ_INT(r.stats.threads, 37);
  const st_process *gpu4 = find_proc(r.t, 5), *host = find_proc(r.t, 701);
  CHECK(gpu4 && host);
  if (gpu4 && host) {
    CHECK_EQ_STR(str(r.t, gpu4->name), "/device:GPU:4");
    CHECK_EQ_STR(str(r.t, host->labels), "34.83.195.179:6003");
    uint32_t nt;
    const st_track *tr = st_trace_tracks(r.t, &nt);
    CHECK_EQ_STR(str(r.t, tr[host->first_track].name), "collective_ops/1737528048");
    CHECK_EQ_STR(str(r.t, tr[gpu4->first_track].name), "Stream #63(MemcpyH2D)");
  }
  st_trace_destroy(r.t);
  free(p);
  p = tu_read_file(STRATA_CORPUS_DIR "/xprof-head__tpu_inference_2.xplane.pb", &n);
  if (!p) return;
  load(p, n, 65536, "tpu_inference_2.xplane.pb", &r);
  CHECK(r.t == NULL);
  CHECK_EQ_INT(r.err.code, ST_ERR_LIMIT);
  CHECK_EQ_INT(r.err.offset, 1);
  CHECK(strstr(r.err.msg, "corrupt") != NULL);
  free(p);
}

int main(void) {
  RUN(test_stats_and_chunking);
  RUN(test_processes_tracks_times);
  RUN(test_hostile);
  RUN(test_corpus);
  return check_report();
}
