/* test_import_perfetto.c: Perfetto TrackEvent protobuf -> model, one test
 * per mapping rule (import_perfetto.h), on traces encoded in memory
 * (pb_enc.h) and loaded in several chunk sizes; the corpus file; hostile
 * inputs. */
#include "check.h"
#include "import_perfetto.h"
#include "load.h"
#include "pb_enc.h"
#include "test_util.h"
#include "view.h"

#include <stdlib.h>
#include <zlib.h>

/* ---- building a trace ------------------------------------------------------- */
static void packet(enc *trace, const enc *pk) { enc_msg(trace, 1, pk); }

static void desc(enc *trace, uint64_t uuid, uint64_t parent, const char *name, int kind,
                 int64_t pid, int64_t tid) {
  enc pk = {0}, d = {0}, sub = {0};
  enc_u(&d, 1, uuid);
  if (parent) enc_u(&d, 5, parent);
  if (name) enc_str(&d, 2, name);
  if (kind == 1) { /* process */
    enc_i(&sub, 1, pid);
    enc_str(&sub, 6, "procname");
    enc_msg(&d, 3, &sub);
  } else if (kind == 2) { /* thread */
    enc_i(&sub, 1, pid);
    enc_i(&sub, 2, tid);
    enc_str(&sub, 5, "threadname");
    enc_msg(&d, 4, &sub);
  } else if (kind == 3) { /* counter, x10, incremental when tid != 0 */
    enc_u(&sub, 4, 10);
    if (tid) enc_u(&sub, 5, 1);
    enc_msg(&d, 8, &sub);
  }
  enc_u(&pk, 10, 1);
  enc_msg(&pk, 60, &d);
  packet(trace, &pk);
  enc_free(&pk);
  enc_free(&d);
  enc_free(&sub);
}

/* A TrackEvent packet. name: literal (or NULL), iid: interned (0 = none). */
static void tev(enc *trace, uint32_t seq, uint64_t ts, int type, uint64_t track, const char *name,
                uint64_t iid, const enc *extra, uint32_t flags) {
  enc pk = {0}, e = {0};
  enc_u(&pk, 8, ts);
  enc_u(&pk, 10, seq);
  if (flags) enc_u(&pk, 13, flags);
  enc_u(&e, 9, (uint64_t)type);
  if (track) enc_u(&e, 11, track);
  if (name) enc_str(&e, 23, name);
  if (iid) enc_u(&e, 10, iid);
  if (extra) enc_raw(&e, extra->p, extra->n);
  enc_msg(&pk, 11, &e);
  packet(trace, &pk);
  enc_free(&pk);
  enc_free(&e);
}

static void build(enc *t) {
  enc pk = {0}, x = {0}, y = {0}, z = {0};
  memset(t, 0, sizeof *t);
  /* seq 1: cleared + interned names/categories */
  enc_u(&pk, 10, 1);
  enc_u(&pk, 13, 1);
  enc_u(&y, 1, 1);
  enc_str(&y, 2, "interned_name");
  enc_msg(&x, 2, &y);
  enc_reset(&y);
  enc_u(&y, 1, 5);
  enc_str(&y, 2, "cat5");
  enc_msg(&x, 1, &y);
  enc_msg(&pk, 12, &x);
  packet(t, &pk);
  enc_reset(&pk);
  enc_reset(&x);
  enc_reset(&y);
  desc(t, 100, 0, "proc track", 1, 42, 0);
  desc(t, 101, 100, NULL, 2, 42, 7);
  desc(t, 102, 100, "custom under proc", 0, 0, 0);
  desc(t, 103, 100, "mem", 3, 0, 0);
  desc(t, 104, 100, "delta", 3, 0, 1);
  desc(t, 200, 0, "root", 0, 0, 0);
  desc(t, 201, 200, "child", 0, 0, 0);
  /* slices on the thread: outer [1000, 1500], inner (interned) [1100, 1200] */
  enc_u(&x, 3, 5); /* category iid 5 */
  enc_str(&x, 22, "lit");
  enc_fixed64(&x, 47, 9); /* flow 9 starts */
  tev(t, 1, 1000, 1, 101, "outer", 0, &x, 2);
  enc_reset(&x);
  tev(t, 1, 1100, 1, 101, NULL, 1, NULL, 2);
  enc_fixed64(&x, 48, 9); /* flow 9 ends on the END of inner: one arrow outer -> inner */
  tev(t, 1, 1200, 2, 101, NULL, 0, &x, 0);
  enc_reset(&x);
  tev(t, 1, 1500, 2, 101, NULL, 0, NULL, 0);
  enc_fixed64(&x, 47, 9); /* terminated: a new chain, no arrow */
  tev(t, 1, 1600, 3, 102, "instant", 0, &x, 0);
  enc_reset(&x);
  /* counters: x10 multiplier; incremental accumulates; extra values */
  enc_u(&x, 30, 5);
  enc_u(&x, 31, 104);
  enc_u(&x, 12, 2);
  tev(t, 1, 1000, 4, 103, NULL, 0, &x, 0);
  enc_reset(&x);
  enc_double(&x, 44, 2.5);
  enc_u(&x, 31, 104);
  enc_u(&x, 12, 3);
  tev(t, 1, 2000, 4, 103, NULL, 0, &x, 0);
  enc_reset(&x);
  /* custom tree without a process: unclosed BEGIN, unmatched END */
  tev(t, 1, 1000, 1, 201, "never closed", 0, NULL, 0);
  tev(t, 1, 1100, 2, 200, NULL, 0, NULL, 0);
  /* seq 2: defaults give the track */
  enc_u(&pk, 10, 2);
  enc_u(&pk, 13, 1);
  enc_u(&y, 11, 101);
  enc_msg(&x, 11, &y);
  enc_msg(&pk, 59, &x);
  packet(t, &pk);
  enc_reset(&pk);
  enc_reset(&x);
  enc_reset(&y);
  tev(t, 2, 3000, 3, 0, "defaulted", 0, NULL, 2);
  /* seq 3: needs incremental state but never cleared: skipped */
  tev(t, 3, 3000, 3, 101, "skipped", 0, NULL, 2);
  /* an android_log packet: not shown, counted */
  enc_bytes(&pk, 39, "\x0a\x00", 2);
  enc_u(&pk, 10, 4);
  packet(t, &pk);
  enc_reset(&pk);
  /* a clock snapshot: REALTIME 1e6 == BOOTTIME 4000; an event in REALTIME */
  enc_u(&y, 1, 1);
  enc_u(&y, 2, 1000000);
  enc_msg(&x, 1, &y);
  enc_reset(&y);
  enc_u(&y, 1, 6);
  enc_u(&y, 2, 4000);
  enc_msg(&x, 1, &y);
  enc_reset(&y);
  enc_msg(&pk, 6, &x);
  enc_u(&pk, 10, 5);
  packet(t, &pk);
  enc_reset(&pk);
  enc_reset(&x);
  {
    enc e = {0};
    enc_u(&pk, 8, 1000100);
    enc_u(&pk, 58, 1);
    enc_u(&pk, 10, 5);
    enc_u(&e, 9, 3);
    enc_u(&e, 11, 102);
    enc_str(&e, 23, "realtime");
    enc_msg(&pk, 11, &e);
    packet(t, &pk);
    enc_reset(&pk);
    enc_free(&e);
  }
  /* compressed_packets: one INSTANT inside */
  tev(&z, 1, 5000, 3, 102, "compressed", 0, NULL, 0);
  {
    uLongf n = compressBound(z.n);
    uint8_t *c = malloc(n);
    compress(c, &n, z.p, z.n);
    enc_bytes(&pk, 50, c, n);
    enc_u(&pk, 10, 1);
    packet(t, &pk);
    free(c);
  }
  enc_free(&pk);
  enc_free(&x);
  enc_free(&y);
  enc_free(&z);
}

typedef struct result {
  st_trace *t;
  st_error err;
  st_stats stats;
  char json[8192], meta[1024];
} result;

static void load(const uint8_t *p, size_t n, size_t chunk, const char *name, result *r) {
  r->t = tu_load(p, n, chunk, name, &r->err, &r->stats, r->meta, sizeof r->meta);
  r->stats.load_ms = 0;
  st_stats_json(&r->stats, r->json, sizeof r->json);
}

static void test_stats_and_chunking(void) {
  enc t;
  build(&t);
  result ref;
  load(t.p, t.n, t.n, "t.perfetto-trace", &ref);
  CHECK(ref.t != NULL);
  CHECK_EQ_INT(ref.err.code, ST_OK);
  CHECK_EQ_STR(ref.stats.format, "perfetto-proto");
  CHECK_EQ_INT(ref.stats.events, 25); /* packets, the compressed one's inner packet too */
  CHECK_EQ_INT(ref.stats.phases['B'], 3);
  CHECK_EQ_INT(ref.stats.phases['E'], 3);
  CHECK_EQ_INT(ref.stats.phases['i'], 4);
  CHECK_EQ_INT(ref.stats.phases['C'], 2);
  CHECK_EQ_INT(ref.stats.slices, 3); /* 2 pairs + 1 unclosed */
  CHECK_EQ_INT(ref.stats.instants, 4);
  CHECK_EQ_INT(ref.stats.counter_samples, 4);
  CHECK_EQ_INT(ref.stats.flows, 1);
  CHECK_EQ_INT(ref.stats.processes, 2); /* pid 42, the "root" tree */
  CHECK_EQ_INT(ref.stats.threads, 3);   /* thread 7, custom under proc, child */
  CHECK(tu_warned(&ref.stats, "unmatched_end", 1));
  CHECK(tu_warned(&ref.stats, "unclosed_slice", 1));
  CHECK(tu_warned(&ref.stats, "perfetto_incremental_state_invalid", 1));
  CHECK(tu_warned(&ref.stats, "perfetto_packets_not_shown", 1));
  CHECK(strstr(ref.meta, "\"packets\": 1, \"kinds\": {\"android_log\": 1}") != NULL);
  size_t chunks[] = {1, 3, 17, 256};
  for (size_t k = 0; k < 4; k++) {
    result r;
    load(t.p, t.n, chunks[k], k == 1 ? "noext" : "t.pftrace", &r);
    CHECK_EQ_STR(r.json, ref.json);
    st_trace_destroy(r.t);
  }
  st_trace_destroy(ref.t);
  enc_free(&t);
}

static void test_mapping(void) {
  enc t;
  build(&t);
  result r;
  load(t.p, t.n, 9, "t.perfetto-trace", &r);
  const st_trace *tr = r.t;
  CHECK(tr != NULL);
  if (!tr) return;
  uint32_t np, nr;
  const st_process *procs = st_trace_processes(tr, &np);
  const st_row *rows = st_trace_rows(tr, &nr);
  CHECK_EQ_INT(np, 2);
  /* the root tree's process comes first, named after the root */
  CHECK_EQ_STR(tu_str(tr, procs[0].name), "root");
  CHECK_EQ_INT(procs[1].pid, 42);
  CHECK_EQ_STR(tu_str(tr, procs[1].name), "procname");
  const st_track *th = tu_track_named(tr, "threadname 7");
  CHECK(th && th->key == 7 && th->row_count == 2);
  if (th) {
    const st_row *r0 = &rows[th->first_row], *r1 = &rows[th->first_row + 1];
    int64_t o = st_trace_origin_ns(tr);
    CHECK_EQ_INT(o, 1000);
    CHECK_EQ_INT(r0->count, 2); /* outer + the defaulted instant at 3000 */
    CHECK_EQ_STR(tu_str(tr, r0->name[0]), "outer");
    CHECK_EQ_STR(tu_str(tr, r0->cat[0]), "cat5,lit");
    CHECK_EQ_INT(r0->dur[0], 500);
    CHECK_EQ_STR(tu_str(tr, r0->name[1]), "defaulted");
    CHECK_EQ_STR(tu_str(tr, r1->name[0]), "interned_name");
    CHECK_EQ_INT(r1->start[0], 100);
    CHECK_EQ_INT(r1->dur[0], 100);
    /* src of a slice: its BEGIN packet's tag in the input */
    CHECK_EQ_INT(t.p[r0->src[0]], 0x0A);
  }
  const st_track *cu = tu_track_named(tr, "custom under proc");
  CHECK(cu && procs[1].first_track <= (uint32_t)(cu - st_trace_tracks(tr, &nr)));
  if (cu) {
    const st_row *row = &rows[cu->first_row];
    CHECK_EQ_INT(row->count, 3); /* instant, realtime, compressed */
    CHECK(row->flags[0] & ST_EV_INSTANT);
    CHECK_EQ_STR(tu_str(tr, row->name[1]), "realtime");
    CHECK_EQ_INT(row->start[1], 4100 - 1000); /* REALTIME 1000100 -> BOOTTIME 4100 */
    CHECK_EQ_STR(tu_str(tr, row->name[2]), "compressed");
  }
  const st_track *child = tu_track_named(tr, "child");
  CHECK(child != NULL);
  if (child) {
    CHECK_EQ_INT(child->process, 0);
    CHECK(rows[child->first_row].flags[0] & ST_EV_UNFINISHED);
  }
  uint32_t nc;
  const st_counter *cs = st_trace_counters(tr, &nc);
  const st_track *mem = tu_track_named(tr, "mem"), *delta = tu_track_named(tr, "delta");
  CHECK(mem && delta);
  if (mem && delta) {
    const st_counter *m = &cs[mem->counter], *d = &cs[delta->counter];
    CHECK_EQ_INT(m->count, 2);
    CHECK(m->value[0] == 50 && m->value[1] == 25); /* x10 */
    CHECK_EQ_INT(d->count, 2);
    CHECK(d->value[0] == 20 && d->value[1] == 50); /* x10, accumulated */
  }
  st_trace_destroy(r.t);
  enc_free(&t);
}

static void test_hostile(void) {
  enc t;
  build(&t);
  result r;
  /* cut inside a packet: the earlier packets stay, open slices close */
  load(t.p, t.n - 3, 64, "t.perfetto-trace", &r);
  CHECK(r.t != NULL);
  CHECK_EQ_INT(r.err.code, ST_ERR_TRUNCATED);
  CHECK(strstr(r.err.msg, "inside a packet") != NULL);
  st_trace_destroy(r.t);
  /* a packet whose track_event length runs past the packet */
  enc pk = {0}, tr = {0};
  enc_u(&pk, 10, 1);
  enc_tag(&pk, 11, 2);
  enc_varint(&pk, 50);
  enc_raw(&pk, "\x48\x03", 2);
  enc_msg(&tr, 1, &pk);
  load(tr.p, tr.n, 1, "t.perfetto-trace", &r);
  CHECK(r.t == NULL);
  CHECK_EQ_INT(r.err.code, ST_ERR_PROTO);
  CHECK_EQ_INT(r.err.offset, 2 + 2 + 1);
  CHECK(strstr(r.err.msg, "claims 50 bytes") != NULL);
  /* an 11-byte varint timestamp */
  enc_reset(&pk);
  enc_reset(&tr);
  enc_tag(&pk, 8, 0);
  enc_raw(&pk, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11);
  enc_msg(&tr, 1, &pk);
  load(tr.p, tr.n, 3, "t.perfetto-trace", &r);
  CHECK_EQ_INT(r.err.code, ST_ERR_PROTO);
  CHECK_EQ_INT(r.err.offset, 3);
  /* a packet over the 64 MiB cap */
  load((const uint8_t *)"\x0a\x80\x80\x80\x40", 5, 1, "t.perfetto-trace", &r);
  CHECK_EQ_INT(r.err.code, ST_ERR_LIMIT);
  /* corrupt compressed_packets: the offset of the compressed field */
  enc_reset(&pk);
  enc_reset(&tr);
  enc_u(&pk, 10, 1);
  enc_bytes(&pk, 50, "\x78\x9c\xff\xff", 4);
  enc_msg(&tr, 1, &pk);
  load(tr.p, tr.n, 5, "t.perfetto-trace", &r);
  CHECK_EQ_INT(r.err.code, ST_ERR_GZIP);
  CHECK_EQ_INT(r.err.offset, 4);
  /* huge counts: 100000 packed flow ids in one event, 20000 BEGINs on one
   * track left open: linear, no error */
  enc_reset(&tr);
  enc ids = {0}, e = {0};
  for (int i = 0; i < 100000; i++) {
    uint64_t v = (uint64_t)i;
    uint8_t b[8];
    for (int k = 0; k < 8; k++) b[k] = (uint8_t)(v >> (8 * k));
    enc_raw(&ids, b, 8);
  }
  enc_bytes(&e, 47, ids.p, ids.n);
  tev(&tr, 1, 10, 3, 7, "many flows", 0, &e, 0);
  tev(&tr, 1, 11, 3, 7, "many flows", 0, &e, 0);
  for (int i = 0; i < 20000; i++) tev(&tr, 1, 100 + (uint64_t)i, 1, 7, "deep", 0, NULL, 0);
  load(tr.p, tr.n, 65536, "t.perfetto-trace", &r);
  CHECK(r.t != NULL && r.err.code == ST_OK);
  CHECK_EQ_INT(r.stats.flows, 100000);
  CHECK_EQ_INT(r.stats.slices, 20000);
  st_trace_destroy(r.t);
  enc_free(&ids);
  enc_free(&e);
  enc_free(&pk);
  enc_free(&tr);
  enc_free(&t);
}

static void test_corpus(void) {
  size_t n;
  unsigned char *p = tu_read_file(STRATA_CORPUS_DIR "/perfetto__nested_tracks.perfetto-trace", &n);
  if (!p) return;
  result r;
  load(p, n, 4096, "nested_tracks.perfetto-trace", &r);
  CHECK(r.t != NULL);
  CHECK_EQ_INT(r.err.code, ST_OK);
  CHECK_EQ_INT(r.stats.events, 4092);
  CHECK_EQ_INT(r.stats.slices, 1364);
  CHECK_EQ_INT(r.stats.flows, 1360);
  CHECK_EQ_INT(r.stats.warning_count, 0);
  const st_track *l1 = tu_track_named(r.t, "L1 Track 01");
  CHECK(l1 != NULL);
  if (l1) {
    uint32_t np;
    const st_process *procs = st_trace_processes(r.t, &np);
    CHECK_EQ_STR(tu_str(r.t, procs[l1->process].name), "L1 Track 01");
    /* depth-first: the root's own track, then L2 Track 02, L3 Track 03 */
    CHECK_EQ_STR(tu_str(r.t, l1[1].name), "L2 Track 02");
    CHECK_EQ_STR(tu_str(r.t, l1[2].name), "L3 Track 03");
    /* labels indent by their level in the tree, as ui.perfetto.dev nests them */
    CHECK_EQ_INT(l1[0].indent, 0);
    CHECK_EQ_INT(l1[1].indent, 1);
    CHECK_EQ_INT(l1[2].indent, 2);
    const st_track *l5 = tu_track_named(r.t, "L5 Track 05");
    CHECK(l5 != NULL && l5->indent == 4);
  }
  st_trace_destroy(r.t);
  free(p);
}

/* Tracks whose descriptor never arrived (a Chrome trace's lost sequences)
 * are gathered in one process after the named ones, "N tracks without a
 * descriptor", that the layout shows collapsed; their events are kept. */
static void test_undescribed_gathered(void) {
  enc t = {0};
  desc(&t, 100, 0, "Browser", 1, 42, 0);
  desc(&t, 101, 100, NULL, 2, 42, 7);
  tev(&t, 1, 1000, 3, 101, "named", 0, NULL, 0);
  for (int k = 0; k < 5; k++)
    tev(&t, 1, 2000 + (uint64_t)k, 3, 541 + (uint64_t)k, "lost", 0, NULL, 0);
  result r;
  load(t.p, t.n, 7, "t.pftrace", &r);
  const st_trace *tr = r.t;
  CHECK(tr != NULL);
  if (tr) {
    uint32_t np;
    const st_process *ps = st_trace_processes(tr, &np);
    CHECK_EQ_INT(np, 2);
    CHECK_EQ_STR(tu_str(tr, ps[0].name), "procname"); /* the named process first */
    CHECK_EQ_STR(tu_str(tr, ps[1].name), "5 tracks without a descriptor");
    CHECK_EQ_INT(ps[1].track_count, 5);
    CHECK(ps[1].sort_index >= ST_PROCESS_SORT_FOLDED);
    st_layout *lay = st_layout_create(NULL, tr);
    CHECK(lay && !st_layout_collapsed(lay, 0) && st_layout_collapsed(lay, 1));
    st_layout_destroy(lay);
    CHECK(tu_src_named(tr, "lost") != UINT64_MAX);
  }
  st_trace_destroy(r.t);
  enc_free(&t);
}

int main(void) {
  RUN(test_stats_and_chunking);
  RUN(test_mapping);
  RUN(test_undescribed_gathered);
  RUN(test_hostile);
  RUN(test_corpus);
  return check_report();
}
