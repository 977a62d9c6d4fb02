/* test_import_perfetto_system.c: Perfetto system traces -> model, on traces
 * encoded in memory from the protos (pb_enc.h; field numbers as in
 * import_perfetto.h / perfetto_ftrace.c): a process tree, ftrace bundles
 * with plain FtraceEvents on two CPUs (out of time order between bundles),
 * a compact_sched bundle, atrace prints, counters, packets not shown; then
 * clocks (several domains, an incremental sequence clock, defaults,
 * primary_trace_clock) with exact expected times; details on selection;
 * hostile bundles. */
#include "check.h"
#include "import_perfetto.h"
#include "load.h"
#include "pb_enc.h"
#include "perfetto_clock.h"
#include "test_util.h"

#include <stdlib.h>

/* ---- encoding ------------------------------------------------------------------ */
static void packet(enc *trace, const enc *pk) { enc_msg(trace, 1, pk); }

/* FtraceEvent {1 ts, 2 pid, <kind> body} appended to bundle b (field 2) */
static void fevent(enc *b, uint64_t ts, uint32_t pid, uint32_t kind, const enc *body) {
  enc e = {0};
  enc_u(&e, 1, ts);
  enc_u(&e, 2, pid);
  enc_msg(&e, kind, body);
  enc_msg(b, 2, &e);
  enc_free(&e);
}

static void ev_switch(enc *b, uint64_t ts, const char *pcomm, uint32_t ppid, int64_t pstate,
                      const char *ncomm, uint32_t npid, uint32_t nprio) {
  enc s = {0};
  enc_str(&s, 1, pcomm);
  enc_u(&s, 2, ppid);
  enc_u(&s, 3, 120);
  enc_i(&s, 4, pstate);
  enc_str(&s, 5, ncomm);
  enc_u(&s, 6, npid);
  enc_u(&s, 7, nprio);
  fevent(b, ts, ppid, 4, &s);
  enc_free(&s);
}

static void ev_print(enc *b, uint64_t ts, uint32_t tid, const char *buf) {
  enc s = {0};
  enc_u(&s, 1, 0xffffffff81000000ull);
  enc_str(&s, 2, buf);
  fevent(b, ts, tid, 3, &s);
  enc_free(&s);
}

static void ev_waking(enc *b, uint64_t ts, const char *comm, uint32_t pid, uint32_t cpu) {
  enc s = {0};
  enc_str(&s, 1, comm);
  enc_u(&s, 2, pid);
  enc_u(&s, 3, 120);
  enc_u(&s, 4, 1);
  enc_u(&s, 5, cpu);
  fevent(b, ts, 0, 20, &s);
  enc_free(&s);
}

static void ev_two(enc *b, uint64_t ts, uint32_t kind, uint64_t v1, uint64_t v2) {
  enc s = {0};
  enc_u(&s, 1, v1);
  enc_u(&s, 2, v2);
  fevent(b, ts, 0, kind, &s);
  enc_free(&s);
}

static void bundle_packet(enc *t, uint32_t cpu, enc *events) {
  enc b = {0}, pk = {0};
  enc_u(&b, 1, cpu);
  enc_raw(&b, events->p, events->n);
  enc_msg(&pk, 1, &b);
  enc_u(&pk, 10, 5);
  packet(t, &pk);
  enc_free(&b);
  enc_free(&pk);
  enc_reset(events);
}

static void packed(enc *m, uint32_t num, const uint64_t *v, size_t n) {
  enc p = {0};
  for (size_t i = 0; i < n; i++) enc_varint(&p, v[i]);
  enc_msg(m, num, &p);
  enc_free(&p);
}

/* The system trace of the tests: see test_system for what it shows. */
static void build_system(enc *t) {
  enc pk = {0}, m = {0}, sub = {0}, ev = {0};
  memset(t, 0, sizeof *t);
  /* ProcessTree: process 100 "/system/bin/app" (threads app 100, worker 101) */
  enc_u(&sub, 1, 100);
  enc_u(&sub, 2, 1);
  enc_str(&sub, 3, "/system/bin/app");
  enc_str(&sub, 3, "--flag");
  enc_msg(&m, 1, &sub);
  enc_reset(&sub);
  enc_u(&sub, 1, 101);
  enc_str(&sub, 2, "worker");
  enc_u(&sub, 3, 100);
  enc_msg(&m, 2, &sub);
  enc_reset(&sub);
  enc_msg(&pk, 2, &m);
  packet(t, &pk);
  enc_reset(&pk);
  enc_reset(&m);
  /* CPU 0 */
  ev_switch(&ev, 1000, "swapper/0", 0, 0, "app", 100, 120);
  ev_print(&ev, 1500, 100, "B|100|draw\n");
  ev_print(&ev, 1800, 100, "C|100|queue|3\n");
  ev_print(&ev, 2000, 100, "E|100\n");
  ev_switch(&ev, 2500, "app", 100, 1, "worker", 101, 110);
  ev_switch(&ev, 4000, "worker", 101, 2, "swapper/0", 0, 120);
  bundle_packet(t, 0, &ev);
  /* CPU 1: earlier events than CPU 0's last, in a later bundle */
  enc_u(&sub, 1, 102);
  enc_str(&sub, 2, "kid");
  enc_u(&sub, 3, 0x10000 | 0x100); /* CLONE_THREAD | CLONE_VM */
  fevent(&ev, 900, 101, 235, &sub);
  enc_reset(&sub);
  ev_waking(&ev, 2600, "app", 100, 1);
  ev_switch(&ev, 2700, "swapper/1", 0, 0, "app", 100, 120);
  ev_switch(&ev, 3000, "app", 100, 256, "swapper/1", 0, 120);
  ev_two(&ev, 3100, 11, 1800000, 1); /* cpu_frequency 1.8 GHz on CPU 1 */
  ev_two(&ev, 3200, 13, 1, 1);       /* cpu_idle state 1 on CPU 1 */
  ev_two(&ev, 3300, 45, 1, 2);       /* block_rq_issue: not shown */
  bundle_packet(t, 1, &ev);
  /* CPU 2: compact_sched */
  {
    enc cs = {0}, b = {0};
    uint64_t sts[] = {1100, 400}, sst[] = {0, 1}, spid[] = {102, 0}, sprio[] = {120, 120},
             scomm[] = {0, 1};
    uint64_t wts[] = {1050}, wpid[] = {102}, wcpu[] = {2}, wprio[] = {120}, wcomm[] = {0};
    enc_str(&cs, 5, "kid");
    enc_str(&cs, 5, "swapper/2");
    packed(&cs, 1, sts, 2);
    packed(&cs, 2, sst, 2);
    packed(&cs, 3, spid, 2);
    packed(&cs, 4, sprio, 2);
    packed(&cs, 6, scomm, 2);
    packed(&cs, 7, wts, 1);
    packed(&cs, 8, wpid, 1);
    packed(&cs, 9, wcpu, 1);
    packed(&cs, 10, wprio, 1);
    packed(&cs, 11, wcomm, 1);
    enc_u(&b, 1, 2);
    enc_msg(&b, 4, &cs);
    enc_msg(&pk, 1, &b);
    enc_u(&pk, 10, 5);
    packet(t, &pk);
    enc_reset(&pk);
    enc_free(&cs);
    enc_free(&b);
  }
  /* packets strata does not show */
  for (int i = 0; i < 2; i++) {
    enc_bytes(&pk, 39, "\x0a\x00", 2);
    packet(t, &pk);
    enc_reset(&pk);
  }
  enc_bytes(&pk, 56, "\x08\x01", 2);
  packet(t, &pk);
  enc_free(&pk);
  enc_free(&m);
  enc_free(&sub);
  enc_free(&ev);
}

/* "start+dur name;..." of a track's row 0, times from the trace origin
 * (unfinished slices: "start+end name") */
static void row_text(const st_trace *t, const char *track, char *out, size_t cap) {
  out[0] = 0;
  const st_track *tr = tu_track_named(t, track);
  if (!tr || !tr->row_count) {
    snprintf(out, cap, "(no track %s)", track);
    return;
  }
  uint32_t nr;
  const st_row *r = &st_trace_rows(t, &nr)[tr->first_row];
  size_t n = 0;
  for (uint32_t i = 0; i < r->count && n < cap; i++)
    n += (size_t)snprintf(out + n, cap - n, "%s%lld+%s%lld %s", i ? ";" : "",
                          (long long)r->start[i], (r->flags[i] & ST_EV_UNFINISHED) ? "end" : "",
                          (r->flags[i] & ST_EV_UNFINISHED) ? 0LL : (long long)r->dur[i],
                          tu_str(t, r->name[i]));
  if (n >= cap) out[cap - 1] = 0;
  for (char *p = out; (p = strstr(p, "+end0")) != NULL;) memmove(p + 4, p + 5, strlen(p + 5) + 1);
}

/* ---- tests ------------------------------------------------------------------- */

static void test_system(void) {
  enc t;
  build_system(&t);
  st_error err;
  st_stats stats;
  char meta[1024];
  st_trace *tr = tu_load(t.p, t.n, 7, "sys.pftrace", &err, &stats, meta, sizeof meta);
  CHECK(tr != NULL);
  CHECK_EQ_INT(err.code, ST_OK);
  if (!tr) return;
  CHECK_EQ_INT(st_trace_origin_ns(tr), 900);
  char row[1024];
  /* CPU tracks: who ran when, "comm tid" per thread; the idle task draws nothing */
  row_text(tr, "CPU 0", row, sizeof row);
  CHECK_EQ_STR(row, "100+1500 app 100;1600+1500 worker 101");
  row_text(tr, "CPU 1", row, sizeof row);
  CHECK_EQ_STR(row, "1800+300 app 100");
  row_text(tr, "CPU 2", row, sizeof row); /* compact_sched */
  CHECK_EQ_STR(row, "200+400 kid 102");
  /* thread states, from both CPUs' events in time order */
  row_text(tr, "app 100 state", row, sizeof row);
  CHECK_EQ_STR(row, "100+1500 Running;1600+100 Sleeping;1700+100 Runnable;1800+300 Running;"
                    "2100+end Runnable (Preempted)");
  row_text(tr, "worker 101 state", row, sizeof row);
  CHECK_EQ_STR(row, "1600+1500 Running;3100+end Uninterruptible Sleep");
  row_text(tr, "kid 102 state", row, sizeof row);
  CHECK_EQ_STR(row, "0+200 Runnable;200+400 Running;600+end Sleeping");
  /* atrace: a slice on the thread's track, a counter in its process */
  row_text(tr, "app 100", row, sizeof row);
  CHECK_EQ_STR(row, "600+500 draw");
  uint32_t np, nt, nc;
  const st_process *ps = st_trace_processes(tr, &np);
  const st_track *ts = st_trace_tracks(tr, &nt);
  const st_counter *cs = st_trace_counters(tr, &nc);
  const st_track *q = tu_track_named(tr, "queue");
  CHECK(q && q->kind == ST_TRACK_COUNTER);
  if (q) {
    CHECK_EQ_INT(cs[q->counter].count, 1);
    CHECK(cs[q->counter].value[0] == 3.0);
    CHECK_EQ_INT(ps[q->process].pid, 100);
  }
  const st_track *fq = tu_track_named(tr, "CPU 1 frequency"),
                 *id = tu_track_named(tr, "CPU 1 idle");
  CHECK(fq && id && fq->kind == ST_TRACK_COUNTER);
  if (fq && id) {
    CHECK(cs[fq->counter].value[0] == 1800000.0 && cs[fq->counter].ts[0] == 2200);
    CHECK(cs[id->counter].value[0] == 1.0);
  }
  /* sections: CPUs first, then the process named by its cmdline; its
   * counter, then threads by name: app, kid (a thread of 100 by
   * CLONE_THREAD from worker), worker */
  CHECK_EQ_INT(np, 2);
  CHECK_EQ_STR(tu_str(tr, ps[0].name), "CPUs");
  CHECK_EQ_STR(tu_str(tr, ps[1].name), "/system/bin/app");
  CHECK_EQ_INT(ps[1].pid, 100);
  const char *want[] = {"queue", "app 100 state", "app 100", "kid 102 state", "worker 101 state"};
  CHECK_EQ_INT(ps[1].track_count, 5);
  for (uint32_t i = 0; i < 5 && i < ps[1].track_count; i++)
    CHECK_EQ_STR(tu_str(tr, ts[ps[1].first_track + i].name), want[i]);
  const char *cpus[] = {"CPU 0", "CPU 1", "CPU 2", "CPU 1 frequency", "CPU 1 idle"};
  CHECK_EQ_INT(ps[0].track_count, 5);
  for (uint32_t i = 0; i < 5 && i < ps[0].track_count; i++)
    CHECK_EQ_STR(tu_str(tr, ts[ps[0].first_track + i].name), cpus[i]);
  /* not shown: said per kind, and in the warnings */
  CHECK(strstr(meta, "\"packets\": 3, \"kinds\": {\"android_log\": 2, \"heap_graph\": 1}") != NULL);
  CHECK(strstr(meta, "\"ftrace_events\": 1") != NULL);
  CHECK(strstr(meta, "\"nothing_shown\": false") != NULL);
  CHECK(tu_warned(&stats, "perfetto_packets_not_shown", 3));
  CHECK_EQ_INT(stats.processes, 1);
  CHECK_EQ_INT(stats.slices, 5); /* 4 CPU slices, 1 atrace B/E */
  CHECK_EQ_INT(stats.counter_samples, 3);
  /* the same picture whatever the chunking */
  st_error e2;
  st_stats s2;
  st_trace *t2 = tu_load(t.p, t.n, t.n, "sys.pftrace", &e2, &s2, NULL, 0);
  char row2[1024];
  row_text(t2, "app 100 state", row2, sizeof row2);
  row_text(tr, "app 100 state", row, sizeof row);
  CHECK_EQ_STR(row, row2);
  st_trace_destroy(t2);
  st_trace_destroy(tr);
  enc_free(&t);
}

static void test_details(void) {
  enc t;
  build_system(&t);
  tu_args_trace r = tu_load_args(t.p, t.n, "sys.pftrace");
  CHECK(r.t && r.as);
  if (!r.t || !r.as) return;
  const st_track *c0 = tu_track_named(r.t, "CPU 0"), *c2 = tu_track_named(r.t, "CPU 2");
  const st_track *st = tu_track_named(r.t, "app 100 state");
  CHECK(c0 && c2 && st);
  if (!c0 || !c2 || !st) return;
  uint32_t nr;
  const st_row *rows = st_trace_rows(r.t, &nr);
  /* CPU 0's first slice: app ran, then slept (ended by the switch to worker) */
  const st_row *row = &rows[c0->first_row];
  char *a = tu_args_of(r.as, t.p, t.n, row->src[0], st_trace_end_src(r.t, c0->first_row, 0));
  CHECK_EQ_STR(a, "{\"thread\":\"app\",\"tid\":100,\"process\":\"/system/bin/app\",\"pid\":100,"
                  "\"priority\":120,\"end_state\":\"Sleeping\"}");
  free(a);
  a = tu_args_of(r.as, t.p, t.n, row->src[1], st_trace_end_src(r.t, c0->first_row, 1));
  CHECK_EQ_STR(a, "{\"thread\":\"worker\",\"tid\":101,\"process\":\"/system/bin/app\",\"pid\":100,"
                  "\"priority\":110,\"end_state\":\"Uninterruptible Sleep\"}");
  free(a);
  /* compact_sched: the same details from the columns */
  row = &rows[c2->first_row];
  a = tu_args_of(r.as, t.p, t.n, row->src[0], st_trace_end_src(r.t, c2->first_row, 0));
  CHECK_EQ_STR(a, "{\"thread\":\"kid\",\"tid\":102,\"process\":\"/system/bin/app\",\"pid\":100,"
                  "\"priority\":120,\"end_state\":\"Sleeping\"}");
  free(a);
  /* a thread state that starts at a switch out: the leaving thread and its state */
  row = &rows[st->first_row];
  a = tu_args_of(r.as, t.p, t.n, row->src[1], UINT64_MAX);
  CHECK_EQ_STR(a, "{\"thread\": \"app\", \"tid\": 100, \"process\": \"/system/bin/app\", \"pid\": "
                  "100, \"state\": \"Sleeping\"}");
  free(a);
  /* ... and one that starts at a waking */
  a = tu_args_of(r.as, t.p, t.n, row->src[2], UINT64_MAX);
  CHECK_EQ_STR(a, "{\"thread\": \"app\", \"tid\": 100, \"process\": \"/system/bin/app\", \"pid\": "
                  "100, \"priority\": 120, \"woken_on_cpu\": 1}");
  free(a);
  tu_unload_args(&r);
  enc_free(&t);
}

/* A TrackEvent instant at raw ts in clock `clock` (0: none) on sequence seq. */
static void tev_clock(enc *t, uint32_t seq, uint64_t ts, uint32_t clock, const char *name) {
  enc pk = {0}, e = {0};
  enc_u(&pk, 8, ts);
  if (clock) enc_u(&pk, 58, clock);
  enc_u(&pk, 10, seq);
  enc_u(&e, 9, 3);
  enc_u(&e, 11, 1);
  enc_str(&e, 23, name);
  enc_msg(&pk, 11, &e);
  packet(t, &pk);
  enc_free(&pk);
  enc_free(&e);
}

/* ClockSnapshot on seq: n (clock, value, incremental, unit) */
static void snapshot(enc *t, uint32_t seq, const uint64_t (*c)[4], int n) {
  enc pk = {0}, s = {0}, k = {0};
  for (int i = 0; i < n; i++) {
    enc_u(&k, 1, c[i][0]);
    enc_u(&k, 2, c[i][1]);
    if (c[i][2]) enc_u(&k, 3, 1);
    if (c[i][3]) enc_u(&k, 4, c[i][3]);
    enc_msg(&s, 1, &k);
    enc_reset(&k);
  }
  enc_msg(&pk, 6, &s);
  enc_u(&pk, 10, seq);
  packet(t, &pk);
  enc_free(&pk);
  enc_free(&s);
  enc_free(&k);
}

static void test_clocks(void) {
  enc t = {0}, pk = {0}, d = {0}, x = {0};
  /* a custom track 1 for the instants */
  enc_u(&d, 1, 1);
  enc_str(&d, 2, "clocks");
  enc_msg(&pk, 60, &d);
  packet(&t, &pk);
  enc_reset(&pk);
  /* BOOTTIME 10000 = MONOTONIC 5000 = REALTIME 1e9; later BOOTTIME 20000 =
   * MONOTONIC 14000 (1000 ns suspended) = REALTIME 1e9 + 10000; sequence 7's
   * clock 64 (incremental, in us) reads 5 us at MONOTONIC 5000 */
  const uint64_t s1[3][4] = {{6, 10000, 0, 0}, {3, 5000, 0, 0}, {1, 1000000000, 0, 0}};
  const uint64_t s2[3][4] = {{6, 20000, 0, 0}, {3, 14000, 0, 0}, {1, 1000010000, 0, 0}};
  const uint64_t s3[2][4] = {{64, 5, 1, 1000}, {3, 5000, 0, 0}};
  snapshot(&t, 1, s1, 3);
  snapshot(&t, 1, s2, 3);
  snapshot(&t, 7, s3, 2);
  tev_clock(&t, 1, 30000, 0, "boottime");      /* no clock id: the trace clock */
  tev_clock(&t, 1, 6000, 3, "mono early");     /* snapshot 1: 11000 */
  tev_clock(&t, 1, 14500, 3, "mono late");     /* snapshot 2: 20500 */
  tev_clock(&t, 1, 1000, 3, "mono before");    /* before both: the first, 6000 */
  tev_clock(&t, 1, 1000005000, 1, "realtime"); /* snapshot 1: 15000 */
  tev_clock(&t, 7, 1, 64, "seq +1us");         /* 6 us = MONO 6000 -> 11000 */
  {
    /* a packet of sequence 7 that shows nothing still advances its
     * incremental clock: +3 us */
    enc e = {0};
    enc_u(&e, 8, 3);
    enc_u(&e, 58, 64);
    enc_u(&e, 10, 7);
    enc_bytes(&e, 39, "\x0a\x00", 2);
    packet(&t, &e);
    enc_free(&e);
  }
  tev_clock(&t, 7, 7, 64, "seq +10us");        /* 6 + 3 + 7 us = MONO 16000 -> 22000 */
  tev_clock(&t, 1, 500, 200, "unknown clock"); /* no snapshot: dropped */
  tev_clock(&t, 9, 3, 64, "seq 9 clock 64");   /* another sequence's 64: dropped */
  /* sequence 8: TracePacketDefaults say MONOTONIC */
  enc_u(&x, 58, 3);
  enc_msg(&pk, 59, &x);
  enc_u(&pk, 10, 8);
  enc_u(&pk, 13, 1);
  packet(&t, &pk);
  enc_reset(&pk);
  tev_clock(&t, 8, 14200, 0, "defaults mono"); /* snapshot 2: 20200 */
  st_error err;
  st_stats stats;
  st_trace *tr = tu_load(t.p, t.n, 5, "clk.pftrace", &err, &stats, NULL, 0);
  CHECK(tr != NULL);
  if (tr) {
    char row[1024];
    CHECK_EQ_INT(st_trace_origin_ns(tr), 6000);
    row_text(tr, "clocks", row, sizeof row);
    CHECK_EQ_STR(row, "0+0 mono before;5000+0 mono early;5000+0 seq +1us;9000+0 realtime;"
                      "14200+0 defaults mono;14500+0 mono late;16000+0 seq +10us;24000+0 boottime");
    CHECK(tu_warned(&stats, "perfetto_clock_not_converted", 2));
    st_trace_destroy(tr);
  }
  /* primary_trace_clock MONOTONIC (TraceConfig.builtin_data_sources): the
   * ftrace BOOTTIME timestamps are converted to it */
  enc u = {0}, b = {0}, ev = {0}, bd = {0};
  enc_reset(&x);
  enc_u(&x, 5, 3);
  enc_reset(&pk);
  enc_msg(&b, 20, &x);
  enc_msg(&pk, 33, &b);
  packet(&u, &pk);
  enc_reset(&pk);
  snapshot(&u, 1, s1, 3);
  ev_switch(&ev, 12000, "swapper/0", 0, 0, "a", 50, 120);
  ev_switch(&ev, 13000, "a", 50, 1, "swapper/0", 0, 120);
  enc_u(&bd, 1, 0);
  enc_raw(&bd, ev.p, ev.n);
  enc_msg(&pk, 1, &bd);
  packet(&u, &pk);
  tr = tu_load(u.p, u.n, 3, "mono.pftrace", &err, &stats, NULL, 0);
  CHECK(tr != NULL);
  if (tr) {
    CHECK_EQ_INT(st_trace_origin_ns(tr), 7000); /* BOOTTIME 12000 -> MONOTONIC 7000 */
    char row[256];
    row_text(tr, "CPU 0", row, sizeof row);
    CHECK_EQ_STR(row, "0+1000 a 50");
    st_trace_destroy(tr);
  }
  enc_free(&t);
  enc_free(&u);
  enc_free(&pk);
  enc_free(&d);
  enc_free(&x);
  enc_free(&b);
  enc_free(&ev);
  enc_free(&bd);
}

static void test_clock_graph(void) {
  st_pclock *pc = st_pclock_create(NULL);
  st_pclock_entry a[2] = {{6, 100, 1, 0}, {3, 50, 1, 0}};
  st_pclock_entry b[2] = {{3, 40, 1, 0}, {9, 1000, 1, 0}};
  st_pclock_entry back[2] = {{6, 90, 1, 0}, {3, 60, 1, 0}}; /* BOOTTIME went backwards */
  CHECK_EQ_INT(st_pclock_snapshot(pc, a, 2), ST_OK);
  CHECK_EQ_INT(st_pclock_snapshot(pc, b, 2), ST_OK);
  CHECK_EQ_INT(st_pclock_snapshot(pc, back, 2), ST_OK);
  CHECK_EQ_INT(st_pclock_rejected(pc), 1);
  int64_t v = 0;
  CHECK(st_pclock_convert(pc, 9, 1010, 6, &v)); /* 9 -> 3 -> 6: two hops */
  CHECK_EQ_INT(v, 1010 - 1000 + 40 - 50 + 100);
  CHECK(st_pclock_convert(pc, 6, 100, 9, &v)); /* and back */
  CHECK_EQ_INT(v, 1000 + 10);
  CHECK(!st_pclock_convert(pc, 9, 1, 77, &v)); /* unknown clock */
  /* an incremental clock without a snapshot has no base */
  st_pclock_entry inc[2] = {{st_pclock_seq_id(3, 64), 7, 10, 1}, {6, 500, 1, 0}};
  CHECK(st_pclock_to_ns(pc, 42, 5, &v) && v == 5);
  CHECK_EQ_INT(st_pclock_snapshot(pc, inc, 2), ST_OK);
  CHECK(st_pclock_to_ns(pc, st_pclock_seq_id(3, 64), 2, &v) && v == 90);
  CHECK(st_pclock_to_ns(pc, st_pclock_seq_id(3, 64), 1, &v) && v == 100);
  CHECK(st_pclock_convert(pc, st_pclock_seq_id(3, 64), 100, 6, &v) && v == 530);
  CHECK(st_pclock_bytes(pc) > 0);
  st_pclock_destroy(pc);
}

/* A packet at ts holding message m as field num (sequence 1). */
static void ts_packet(enc *t, uint64_t ts, uint32_t num, const enc *m) {
  enc pk = {0};
  enc_u(&pk, 8, ts);
  enc_u(&pk, 10, 1);
  enc_msg(&pk, num, m);
  packet(t, &pk);
  enc_free(&pk);
}

static void frame(enc *t, uint64_t ts, uint32_t kind, int64_t cookie, int64_t token, uint32_t pid) {
  enc f = {0}, m = {0};
  enc_i(&f, 1, cookie);
  if (kind != 5) {
    enc_i(&f, 2, token);
    enc_u(&f, kind <= 2 ? 3 : 4, pid);
  }
  enc_msg(&m, kind, &f);
  ts_packet(t, ts, 76, &m);
  enc_free(&f);
  enc_free(&m);
}

static void track_desc(enc *t, uint64_t uuid, uint64_t parent, const char *name, int order,
                       int rank) {
  enc pk = {0}, d = {0};
  enc_u(&d, 1, uuid);
  if (parent) enc_u(&d, 5, parent);
  enc_str(&d, 2, name);
  if (order) enc_u(&d, 11, (uint64_t)order);
  if (rank) enc_i(&d, 12, rank);
  enc_msg(&pk, 60, &d);
  packet(t, &pk);
  enc_free(&pk);
  enc_free(&d);
}

/* FrameTimeline, ProcessStats, SysStats, atrace S/F/I, task_rename, child_ordering */
static void build_more(enc *t_out) {
  enc t = {0}, ev = {0}, m = {0}, sub = {0};
  /* FrameTimeline: expected / actual display frames of pid 100 */
  frame(&t, 5000, 1, 1, 42, 100);
  frame(&t, 6000, 2, 2, 42, 100);
  frame(&t, 9000, 5, 1, 0, 0);
  frame(&t, 10000, 5, 2, 0, 0);
  frame(&t, 10000, 5, 99, 0, 0); /* an end without a start */
  /* ProcessStats: rss 2048 kB, oom_score_adj -100 */
  enc_u(&sub, 1, 100);
  enc_u(&sub, 3, 2048);
  enc_i(&sub, 10, -100);
  enc_msg(&m, 1, &sub);
  ts_packet(&t, 7000, 9, &m);
  enc_reset(&m);
  enc_reset(&sub);
  /* SysStats: MemTotal 4000000 kB */
  enc_u(&sub, 1, 1);
  enc_u(&sub, 2, 4000000);
  enc_msg(&m, 1, &sub);
  ts_packet(&t, 7000, 7, &m);
  enc_reset(&m);
  enc_reset(&sub);
  /* atrace async and instant; a thread renamed (no process tree names it) */
  ev_print(&ev, 2000, 100, "S|100|load|7\n");
  ev_print(&ev, 2500, 100, "I|100|mark\n");
  ev_print(&ev, 3000, 100, "F|100|load|7\n");
  ev_print(&ev, 3100, 100, "not atrace at all\n");
  enc_u(&sub, 1, 100);
  enc_str(&sub, 2, "old");
  enc_str(&sub, 3, "renamed");
  fevent(&ev, 1500, 100, 236, &sub);
  enc_reset(&sub);
  bundle_packet(&t, 0, &ev);
  /* track trees ordered by their parent's child_ordering */
  {
    /* an unnamed track under thread 100 (renamed below): labelled after it */
    enc pk = {0}, d = {0}, th = {0};
    enc_u(&d, 1, 50);
    enc_u(&th, 1, 100);
    enc_u(&th, 2, 100);
    enc_msg(&d, 4, &th);
    enc_msg(&pk, 60, &d);
    packet(&t, &pk);
    enc_reset(&pk);
    enc_reset(&d);
    enc_u(&d, 1, 51);
    enc_u(&d, 5, 50);
    enc_msg(&pk, 60, &d);
    packet(&t, &pk);
    enc_free(&pk);
    enc_free(&d);
    enc_free(&th);
  }
  track_desc(&t, 1, 0, "lex", 1, 0);
  track_desc(&t, 2, 1, "b", 0, 0);
  track_desc(&t, 3, 1, "a", 0, 0);
  track_desc(&t, 4, 0, "explicit", 3, 0);
  track_desc(&t, 5, 4, "first", 0, 9);
  track_desc(&t, 6, 4, "second", 0, -3);
  for (uint64_t u = 2; u <= 51; u++) {
    if (u == 4 || (u > 6 && u < 51)) continue;
    enc pk = {0}, e = {0};
    enc_u(&pk, 8, 4000);
    enc_u(&pk, 10, 1);
    enc_u(&e, 9, 3);
    enc_u(&e, 11, u);
    enc_str(&e, 23, "x");
    enc_msg(&pk, 11, &e);
    packet(&t, &pk);
    enc_free(&pk);
    enc_free(&e);
  }
  *t_out = t;
  enc_free(&ev);
  enc_free(&m);
  enc_free(&sub);
}

static void test_system_more(void) {
  enc t;
  build_more(&t);
  st_error err;
  st_stats stats;
  char meta[1024];
  st_trace *tr = tu_load(t.p, t.n, 11, "more.pftrace", &err, &stats, meta, sizeof meta);
  CHECK(tr != NULL);
  if (tr) {
    char row[512];
    CHECK_EQ_INT(st_trace_origin_ns(tr), 2000); /* the rename at 1500 draws nothing */
    row_text(tr, "Expected Timeline", row, sizeof row);
    CHECK_EQ_STR(row, "3000+4000 42");
    row_text(tr, "Actual Timeline", row, sizeof row);
    CHECK_EQ_STR(row, "4000+4000 42");
    row_text(tr, "load", row, sizeof row);
    CHECK_EQ_STR(row, "0+1000 load");
    /* thread 100's track (key = tid) holds the instant; the unnamed track
     * under thread 100 is labelled after it too, not "track 51" */
    const st_track *thr100 = NULL, *un = NULL;
    {
      uint32_t ntr, nrw;
      const st_track *all = st_trace_tracks(tr, &ntr);
      const st_row *rw = st_trace_rows(tr, &nrw);
      for (uint32_t q = 0; q < ntr; q++)
        if (!strcmp(tu_str(tr, all[q].name), "renamed 100"))
          *(all[q].key == 100 ? &thr100 : &un) = &all[q];
      CHECK(thr100 && un);
      if (thr100) CHECK_EQ_STR(tu_str(tr, rw[thr100->first_row].name[0]), "mark");
      if (un) CHECK_EQ_STR(tu_str(tr, rw[un->first_row].name[0]), "x");
    }
    CHECK(tu_track_named(tr, "track 51") == NULL);
    uint32_t nc, np, nt;
    const st_counter *cs = st_trace_counters(tr, &nc);
    const st_process *ps = st_trace_processes(tr, &np);
    const st_track *ts = st_trace_tracks(tr, &nt);
    const st_track *rss = tu_track_named(tr, "mem.rss"), *oom = tu_track_named(tr, "oom_score_adj");
    const st_track *tot = tu_track_named(tr, "mem.total");
    CHECK(rss && oom && tot);
    if (rss && oom && tot) {
      CHECK(cs[rss->counter].value[0] == 2048.0 * 1024);
      CHECK(cs[oom->counter].value[0] == -100.0);
      CHECK(cs[tot->counter].value[0] == 4000000.0 * 1024);
      CHECK_EQ_INT(ps[rss->process].pid, 100);
      CHECK_EQ_STR(tu_str(tr, ps[tot->process].name), "System");
    }
    /* the process without a cmdline is named after its main thread */
    CHECK_EQ_STR(tu_str(tr, ps[rss ? rss->process : 0].name), "renamed");
    /* child ordering: lexicographic a, b; explicit by rank: second (-3), first (9) */
    const st_track *a = tu_track_named(tr, "a"), *b = tu_track_named(tr, "b");
    const st_track *first = tu_track_named(tr, "first"), *second = tu_track_named(tr, "second");
    CHECK(a && b && first && second && a < b && second < first);
    (void)ts;
    (void)nt;
    CHECK(tu_warned(&stats, "perfetto_frame_end_without_start", 1));
    CHECK(tu_warned(&stats, "perfetto_atrace_unparsed", 0) == 0); /* a plain print is not atrace */
    CHECK(strstr(meta, "\"ftrace_events\": 1") != NULL);
    st_trace_destroy(tr);
  }
  enc_free(&t);
}

/* The counter track `name`: its samples as "ts=value;..." (values %.17g). */
static void counter_text(const st_trace *t, const char *name, char *out, size_t cap) {
  const st_track *tr = tu_track_named(t, name);
  out[0] = 0;
  if (!tr || tr->kind != ST_TRACK_COUNTER) {
    snprintf(out, cap, "(no counter %s)", name);
    return;
  }
  uint32_t nc;
  const st_counter *c = &st_trace_counters(t, &nc)[tr->counter];
  size_t n = 0;
  for (uint32_t i = 0; i < c->count && n < cap; i++)
    n += (size_t)snprintf(out + n, cap - n, "%s%lld=%.17g", i ? ";" : "", (long long)c->ts[i],
                          c->value[i]);
}

static const char *section_of(const st_trace *t, const char *track) {
  const st_track *tr = tu_track_named(t, track);
  uint32_t np;
  return tr ? tu_str(t, st_trace_processes(t, &np)[tr->process].name) : "(none)";
}

/* SysStats and ProcessStats beyond meminfo and /proc/pid/status: every
 * field is a counter where ui.perfetto.dev shows one, or counted as not
 * shown (buddy_info, disk_stat, fds, fields not known). */
/* The SysStats / ProcessStats trace of test_sys_stats_all. */
static void build_sys_stats(enc *t_out) {
  enc t = {0}, m = {0}, sub = {0}, sub2 = {0};
  /* a thread so the trace has a slice (origin 1000) */
  {
    enc ev = {0};
    ev_print(&ev, 1000, 300, "B|300|work\n");
    ev_print(&ev, 1500, 300, "E|300\n");
    bundle_packet(&t, 0, &ev);
    enc_free(&ev);
  }
  for (int s = 0; s < 2; s++) {
    uint64_t ts = 2000 + 1000 * (uint64_t)s;
    /* vmstat: nr_free_pages (1), pgfault (49), an unknown key (999) */
    uint64_t vm[3][2] = {{1, 5000 + (uint64_t)s}, {49, 77}, {999, 3}};
    for (int i = 0; i < 3; i++) {
      enc_u(&sub, 1, vm[i][0]);
      enc_u(&sub, 2, vm[i][1]);
      enc_msg(&m, 2, &sub);
      enc_reset(&sub);
    }
    /* cpu_stat of CPU 1: user 100 s, idle 7 ns; a CpuTimes without cpu_id */
    enc_u(&sub, 1, 1);
    enc_u(&sub, 2, 100000000000ull + (uint64_t)s);
    enc_u(&sub, 5, 7);
    enc_msg(&m, 3, &sub);
    enc_reset(&sub);
    enc_u(&sub, 2, 1);
    enc_msg(&m, 3, &sub);
    enc_reset(&sub);
    enc_u(&m, 4, 12345); /* num_forks */
    enc_u(&m, 5, 999);   /* num_irq_total */
    enc_u(&sub, 1, 33);  /* num_irq {irq 33, count 8} */
    enc_u(&sub, 2, 8);
    enc_msg(&m, 6, &sub);
    enc_reset(&sub);
    enc_u(&m, 7, 55);  /* num_softirq_total */
    enc_u(&sub, 1, 2); /* num_softirq {2, 4} */
    enc_u(&sub, 2, 4);
    enc_msg(&m, 8, &sub);
    enc_reset(&sub);
    enc_u(&m, 9, ts + 10);    /* collection_end_timestamp: not data */
    enc_str(&sub, 1, "gpu0"); /* devfreq gpu0: 600000 kHz */
    enc_u(&sub, 2, 600000);
    enc_msg(&m, 10, &sub);
    enc_reset(&sub);
    uint64_t khz[2] = {1800000, 2400000}; /* cpufreq_khz, packed: CPU 0, CPU 1 */
    packed(&m, 11, khz, 2);
    enc_str(&sub, 1, "Normal"); /* buddy_info: not shown */
    enc_msg(&m, 12, &sub);
    enc_reset(&sub);
    enc_str(&sub, 1, "sda"); /* disk_stat: not shown */
    enc_msg(&m, 13, &sub);
    enc_reset(&sub);
    enc_u(&sub, 1, 1); /* psi cpu.some 4242 ns */
    enc_u(&sub, 2, 4242);
    enc_msg(&m, 14, &sub);
    enc_reset(&sub);
    enc_str(&sub, 1, "thermal_zone0"); /* thermal: named by type */
    enc_u(&sub, 2, 45);
    enc_str(&sub, 3, "cpu-thermal");
    enc_msg(&m, 15, &sub);
    enc_reset(&sub);
    enc_u(&sub, 1, 0); /* cpuidle CPU 0: C1 250 us */
    enc_str(&sub2, 1, "C1");
    enc_u(&sub2, 2, 250);
    enc_msg(&sub, 2, &sub2);
    enc_reset(&sub2);
    enc_msg(&m, 16, &sub);
    enc_reset(&sub);
    enc_u(&m, 17, 300); /* gpufreq_mhz */
    enc_u(&m, 40, 1);   /* a field not known */
    ts_packet(&t, ts, 7, &m);
    enc_reset(&m);
  }
  /* ProcessStats of pid 300: smaps pss 64 kB, runtime user 20 ms, a thread
   * 301, an open file, a chrome footprint (not shown) */
  enc_u(&sub, 1, 300);
  enc_u(&sub, 17, 64);
  enc_u(&sub, 21, 20000000);
  enc_u(&sub2, 1, 301);
  enc_msg(&sub, 11, &sub2);
  enc_reset(&sub2);
  enc_u(&sub2, 1, 3);
  enc_str(&sub2, 2, "/dev/null");
  enc_msg(&sub, 15, &sub2);
  enc_reset(&sub2);
  enc_u(&sub, 13, 1000);
  enc_msg(&m, 1, &sub);
  enc_reset(&sub);
  ts_packet(&t, 2500, 9, &m);
  enc_reset(&m);

  *t_out = t;
  enc_free(&m);
  enc_free(&sub);
  enc_free(&sub2);
}

static void test_sys_stats_all(void) {
  enc t;
  build_sys_stats(&t);
  st_error err;
  st_stats stats;
  char meta[1024], c[256];
  st_trace *tr = tu_load(t.p, t.n, 13, "sysstats.pftrace", &err, &stats, meta, sizeof meta);
  CHECK(tr != NULL);
  if (tr) {
    CHECK_EQ_INT(st_trace_origin_ns(tr), 1000);
    counter_text(tr, "nr_free_pages", c, sizeof c);
    CHECK_EQ_STR(c, "1000=5000;2000=5001");
    counter_text(tr, "pgfault", c, sizeof c);
    CHECK_EQ_STR(c, "1000=77;2000=77");
    counter_text(tr, "vmstat.999", c, sizeof c);
    CHECK_EQ_STR(c, "1000=3;2000=3");
    CHECK_EQ_STR(section_of(tr, "nr_free_pages"), "System");
    counter_text(tr, "CPU 1 cpu.times.user_ns", c, sizeof c);
    CHECK_EQ_STR(c, "1000=100000000000;2000=100000000001");
    counter_text(tr, "CPU 1 cpu.times.idle_ns", c, sizeof c);
    CHECK_EQ_STR(c, "1000=7;2000=7");
    CHECK_EQ_STR(section_of(tr, "CPU 1 cpu.times.user_ns"), "CPUs");
    CHECK(tu_track_named(tr, "CPU 1 cpu.times.steal_ns") == NULL); /* not in the file */
    CHECK(tu_warned(&stats, "perfetto_cpu_times_without_cpu", 2));
    counter_text(tr, "num_forks", c, sizeof c);
    CHECK_EQ_STR(c, "1000=12345;2000=12345");
    counter_text(tr, "num_irq_total", c, sizeof c);
    CHECK_EQ_STR(c, "1000=999;2000=999");
    counter_text(tr, "num_irq (id: 33)", c, sizeof c);
    CHECK_EQ_STR(c, "1000=8;2000=8");
    counter_text(tr, "num_softirq_total", c, sizeof c);
    CHECK_EQ_STR(c, "1000=55;2000=55");
    counter_text(tr, "num_softirq (id: 2)", c, sizeof c);
    CHECK_EQ_STR(c, "1000=4;2000=4");
    counter_text(tr, "gpu0", c, sizeof c);
    CHECK_EQ_STR(c, "1000=600000;2000=600000");
    counter_text(tr, "CPU 0 frequency", c, sizeof c);
    CHECK_EQ_STR(c, "1000=1800000;2000=1800000");
    counter_text(tr, "CPU 1 frequency", c, sizeof c);
    CHECK_EQ_STR(c, "1000=2400000;2000=2400000");
    counter_text(tr, "psi.cpu.some", c, sizeof c);
    CHECK_EQ_STR(c, "1000=4242;2000=4242");
    counter_text(tr, "cpu-thermal", c, sizeof c);
    CHECK_EQ_STR(c, "1000=45;2000=45");
    counter_text(tr, "cpuidle0.C1", c, sizeof c);
    CHECK_EQ_STR(c, "1000=250;2000=250");
    counter_text(tr, "gpufreq", c, sizeof c);
    CHECK_EQ_STR(c, "1000=300;2000=300");
    counter_text(tr, "mem.smaps.pss", c, sizeof c);
    CHECK_EQ_STR(c, "1500=65536");
    counter_text(tr, "runtime.user_ns", c, sizeof c);
    CHECK_EQ_STR(c, "1500=20000000");
    const st_track *pss = tu_track_named(tr, "mem.smaps.pss");
    CHECK(pss != NULL);
    if (pss) CHECK_EQ_INT(st_trace_processes(tr, &(uint32_t){0})[pss->process].pid, 300);
    /* what is not shown, by part: 2 + 2 + 2 SysStats packets, 1 + 1 ProcessStats */
    CHECK(strstr(meta, "\"packets\": 8") != NULL);
    CHECK(strstr(meta, "\"sys_stats.buddy_info\": 2") != NULL);
    CHECK(strstr(meta, "\"sys_stats.disk_stat\": 2") != NULL);
    CHECK(strstr(meta, "\"sys_stats (other fields)\": 2") != NULL);
    CHECK(strstr(meta, "\"process_stats.fds\": 1") != NULL);
    CHECK(strstr(meta, "\"process_stats (other fields)\": 1") != NULL);
    st_trace_destroy(tr);
  }
  enc_free(&t);
}

static void test_nothing_shown(void) {
  enc t = {0}, pk = {0};
  for (int i = 0; i < 3; i++) {
    enc_bytes(&pk, 39, "\x0a\x00", 2);
    packet(&t, &pk);
    enc_reset(&pk);
  }
  st_error err;
  st_stats stats;
  char meta[512];
  st_trace *tr = tu_load(t.p, t.n, 4, "log.pftrace", &err, &stats, meta, sizeof meta);
  CHECK(strstr(meta, "\"packets\": 3, \"kinds\": {\"android_log\": 3}") != NULL);
  CHECK(strstr(meta, "\"nothing_shown\": true") != NULL);
  st_trace_destroy(tr);
  enc_free(&t);
  enc_free(&pk);
}

static void test_hostile(void) {
  /* compact_sched columns of different lengths, a bad comm index, a bundle
   * without cpu, a CPU past the limit, truncated packed data: warnings,
   * never a crash or a wrong slice */
  enc t = {0}, pk = {0}, b = {0}, cs = {0};
  uint64_t ts[] = {100, 10, 10}, pid[] = {5, 6}, st[] = {0, 0, 0}, prio[] = {1, 1, 1},
           comm[] = {0, 9, 0};
  enc_str(&cs, 5, "x");
  packed(&cs, 1, ts, 3);
  packed(&cs, 2, st, 3);
  packed(&cs, 3, pid, 2);
  packed(&cs, 4, prio, 3);
  packed(&cs, 6, comm, 3);
  enc_u(&b, 1, 0);
  enc_msg(&b, 4, &cs);
  enc_msg(&pk, 1, &b);
  packet(&t, &pk);
  enc_reset(&pk);
  enc_reset(&b);
  enc_bytes(&b, 2, "\x08\x01", 2); /* no cpu */
  enc_msg(&pk, 1, &b);
  packet(&t, &pk);
  enc_reset(&pk);
  enc_reset(&b);
  enc_u(&b, 1, 5000);
  enc_bytes(&b, 2, "\x08\x01", 2);
  enc_msg(&pk, 1, &b);
  packet(&t, &pk);
  enc_reset(&pk);
  enc_reset(&b);
  enc_u(&b, 1, 1);
  enc_bytes(&b, 4, "\x0a\x03\x80\x80\x80", 5); /* packed varint cut */
  enc_msg(&pk, 1, &b);
  packet(&t, &pk);
  st_error err;
  st_stats stats;
  st_trace *tr = tu_load(t.p, t.n, 3, "bad.pftrace", &err, &stats, NULL, 0);
  CHECK(err.code == ST_ERR_PROTO);
  CHECK(tu_warned(&stats, "perfetto_compact_sched_columns_differ", 1));
  CHECK(tu_warned(&stats, "perfetto_compact_sched_bad_comm_index", 1));
  CHECK(tu_warned(&stats, "perfetto_ftrace_bundle_without_cpu", 2));
  if (tr) {
    char row[256];
    row_text(tr, "CPU 0", row, sizeof row); /* two switches made it, the third had no pid */
    CHECK_EQ_STR(row, "0+10 x 5;10+end  6");
    st_trace_destroy(tr);
  }
  enc_free(&t);
  enc_free(&pk);
  enc_free(&b);
  enc_free(&cs);
}

/* TrackEvents on tracks whose descriptors come later in the file: held,
 * then placed where the descriptor says (a thread of process 42, a counter
 * with a unit), not in sections of their own labelled "track <uuid>". */
static void test_descriptor_after_events(void) {
  enc t = {0}, pk = {0}, e = {0}, d = {0}, sub = {0};
  const struct {
    uint64_t ts;
    int type;
    uint64_t uuid;
    const char *name;
    int64_t v;
  } evs[] = {{1000, 1, 77, "early", 0}, {1500, 2, 77, NULL, 0}, {1200, 4, 78, NULL, 5}};
  for (int i = 0; i < 3; i++) {
    enc_u(&pk, 8, evs[i].ts);
    enc_u(&pk, 10, 1);
    enc_u(&e, 9, (uint64_t)evs[i].type);
    enc_u(&e, 11, evs[i].uuid);
    if (evs[i].name) enc_str(&e, 23, evs[i].name);
    if (evs[i].type == 4) enc_i(&e, 30, evs[i].v);
    enc_msg(&pk, 11, &e);
    packet(&t, &pk);
    enc_reset(&pk);
    enc_reset(&e);
  }
  /* now the descriptors: 77 = thread 9 "late" of process 42; 78 = a counter x10 */
  enc_u(&d, 1, 77);
  enc_u(&sub, 1, 42);
  enc_u(&sub, 2, 9);
  enc_str(&sub, 5, "late");
  enc_msg(&d, 4, &sub);
  enc_msg(&pk, 60, &d);
  packet(&t, &pk);
  enc_reset(&pk);
  enc_reset(&d);
  enc_reset(&sub);
  enc_u(&d, 1, 78);
  enc_str(&d, 2, "gauge");
  enc_u(&sub, 4, 10);
  enc_msg(&d, 8, &sub);
  enc_msg(&pk, 60, &d);
  packet(&t, &pk);
  st_error err;
  st_stats stats;
  st_trace *tr = tu_load(t.p, t.n, 6, "late.pftrace", &err, &stats, NULL, 0);
  CHECK(tr != NULL);
  if (tr) {
    char row[256];
    row_text(tr, "late 9", row, sizeof row);
    CHECK_EQ_STR(row, "0+500 early");
    uint32_t np, nc;
    const st_process *ps = st_trace_processes(tr, &np);
    const st_counter *cs = st_trace_counters(tr, &nc);
    CHECK_EQ_INT(np, 2); /* a global counter is a section of its own, then process 42 */
    CHECK_EQ_STR(tu_str(tr, ps[0].name), "gauge");
    CHECK_EQ_INT(ps[1].pid, 42);
    const st_track *g = tu_track_named(tr, "gauge");
    CHECK(g && g->kind == ST_TRACK_COUNTER);
    if (g) CHECK(cs[g->counter].value[0] == 50.0);
    CHECK(tu_track_named(tr, "track 77") == NULL);
    const st_track *l9 = tu_track_named(tr, "late 9");
    CHECK(l9 && ps[l9->process].pid == 42 && l9->key == 9);
    for (uint32_t i = 0; i < np; i++) CHECK(strcmp(tu_str(tr, ps[i].name), "track 77") != 0);
    st_trace_destroy(tr);
  }
  enc_free(&t);
  enc_free(&pk);
  enc_free(&e);
  enc_free(&d);
  enc_free(&sub);
}

/* The system trace inside compressed_packets (TracePacket 50, zlib): the
 * same picture; its events' src is the compressed packet's, so details on
 * selection are not offered for them (no end src either). */
static void test_compressed(void) {
  enc t, outer = {0}, pk = {0};
  build_system(&t);
  size_t zn;
  unsigned char *z = tu_deflate(t.p, t.n, 15, &zn);
  enc_bytes(&pk, 50, z, zn);
  packet(&outer, &pk);
  free(z);
  st_error err;
  st_stats stats;
  st_trace *a = tu_load(t.p, t.n, 64, "plain.pftrace", &err, &stats, NULL, 0);
  st_trace *b = tu_load(outer.p, outer.n, 5, "z.pftrace", &err, &stats, NULL, 0);
  CHECK(a && b);
  if (a && b) {
    const char *tracks[] = {"CPU 0", "CPU 2", "app 100 state", "kid 102 state", "app 100"};
    for (int i = 0; i < 5; i++) {
      char ra[512], rb[512];
      row_text(a, tracks[i], ra, sizeof ra);
      row_text(b, tracks[i], rb, sizeof rb);
      CHECK_EQ_STR(ra, rb);
    }
    size_t npairs;
    st_trace_end_srcs(b, &npairs);
    CHECK_EQ_INT(npairs, 0);
  }
  st_trace_destroy(a);
  st_trace_destroy(b);
  enc_free(&t);
  enc_free(&outer);
  enc_free(&pk);
}

/* `test_import_perfetto_system --write-fixtures DIR` writes the traces these
 * tests build to DIR (tests/fixtures/perfetto_system*.pftrace: fuzz seeds). */
static int write_fixtures(const char *dir) {
  enc a, b, c;
  build_system(&a);
  build_more(&b);
  build_sys_stats(&c);
  char path[1024];
  int bad = 0;
  static const char *const suffix[] = {"", "_more", "_sysstats"};
  for (int k = 0; k < 3; k++) {
    snprintf(path, sizeof path, "%s/perfetto_system%s.pftrace", dir, suffix[k]);
    FILE *f = fopen(path, "wb");
    const enc *e = k == 2 ? &c : k ? &b : &a;
    bad |= !f || fwrite(e->p, 1, e->n, f) != e->n;
    if (f) bad |= fclose(f) != 0;
  }
  enc_free(&a);
  enc_free(&b);
  enc_free(&c);
  return bad;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--write-fixtures")) return write_fixtures(argv[2]);
  RUN(test_system);
  RUN(test_details);
  RUN(test_system_more);
  RUN(test_sys_stats_all);
  RUN(test_clocks);
  RUN(test_clock_graph);
  RUN(test_compressed);
  RUN(test_descriptor_after_events);
  RUN(test_nothing_shown);
  RUN(test_hostile);
  return check_report();
}
