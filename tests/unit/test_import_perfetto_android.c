/* test_import_perfetto_android.c: the Android system data of a Perfetto
 * trace (perfetto_android.c, atrace named tracks in perfetto_ftrace.c /
 * perfetto_sched.c), on the trace `strata-gen --perfetto-android` writes
 * (tools/gen/gen_perfetto.c lists its packets and values): every track's
 * name and section, every slice, instant and counter value against the
 * values the writer put in, the warnings, and what is not shown; then
 * hostile variants (unknown indices, bad times, truncated packets). */
#include "argsrc.h"
#include "check.h"
#include "gen_perfetto.h"
#include "import_perfetto.h"
#include "load.h"
#include "pb_enc.h"
#include "test_util.h"

#include <stdlib.h>

typedef struct buf {
  uint8_t *p;
  size_t n;
} buf;

static int sink(void *ud, const void *p, size_t n) {
  buf *b = ud;
  uint8_t *q = realloc(b->p, b->n + n);
  if (!q) return 1;
  memcpy(q + b->n, p, n);
  b->p = q;
  b->n += n;
  return 0;
}

/* every event of a track, row by row: "start+dur name" (absolute times;
 * "start! name" for an instant, "start+end name" unfinished), rows
 * separated by " | "; a counter: "ts=value;..." */
static void track_text(const st_trace *t, const char *name, char *out, size_t cap) {
  const st_track *tr = tu_track_named(t, name);
  int64_t o = st_trace_origin_ns(t);
  size_t n = 0;
  out[0] = 0;
  if (!tr) {
    snprintf(out, cap, "(no track %s)", name);
    return;
  }
  if (tr->kind == ST_TRACK_COUNTER) {
    uint32_t nc;
    const st_counter *c = &st_trace_counters(t, &nc)[tr->counter];
    for (uint32_t i = 0; i < c->count && n < cap; i++)
      n += (size_t)snprintf(out + n, cap - n, "%s%lld=%g", i ? ";" : "", (long long)(c->ts[i] + o),
                            c->value[i]);
    return;
  }
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  for (uint32_t k = 0; k < tr->row_count && n < cap; k++) {
    const st_row *r = &rows[tr->first_row + k];
    if (k) n += (size_t)snprintf(out + n, cap - n, " | ");
    for (uint32_t i = 0; i < r->count && n < cap; i++) {
      uint8_t f = r->flags[i];
      long long s = (long long)(r->start[i] + o);
      if (f & ST_EV_INSTANT)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld! %s", i ? ";" : "", s,
                              tu_str(t, r->name[i]));
      else if (f & ST_EV_UNFINISHED)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld+end %s", i ? ";" : "", s,
                              tu_str(t, r->name[i]));
      else
        n += (size_t)snprintf(out + n, cap - n, "%s%lld+%lld %s", i ? ";" : "", s,
                              (long long)r->dur[i], tu_str(t, r->name[i]));
    }
  }
}

#define CHECK_TRACK(t, name, want)                                                                 \
  do {                                                                                             \
    char got_[1024];                                                                               \
    track_text(t, name, got_, sizeof got_);                                                        \
    CHECK_EQ_STR(got_, want);                                                                      \
  } while (0)

/* the names of a section's tracks, in order, joined by ", " */
static void section_text(const st_trace *t, const char *section, char *out, size_t cap) {
  uint32_t np, nt;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *ts = st_trace_tracks(t, &nt);
  size_t n = 0;
  snprintf(out, cap, "(no section %s)", section);
  for (uint32_t i = 0; i < np; i++) {
    if (strcmp(tu_str(t, ps[i].name), section)) continue;
    out[0] = 0;
    for (uint32_t k = 0; k < ps[i].track_count && n < cap; k++)
      n += (size_t)snprintf(out + n, cap - n, "%s%s", k ? ", " : "",
                            tu_str(t, ts[ps[i].first_track + k].name));
  }
}

static void test_android(void) {
  buf b = {0};
  CHECK_EQ_INT(gen_perfetto_android_write(sink, &b), 0);
  st_error err;
  st_stats stats;
  char meta[1024];
  st_trace *t = tu_load(b.p, b.n, 5, "android.pftrace", &err, &stats, meta, sizeof meta);
  CHECK(t != NULL);
  CHECK_EQ_INT(err.code, ST_OK);
  if (!t) {
    free(b.p);
    return;
  }
  /* atrace G/H: one async track per (process, track name), paired by cookie;
   * N: instants on its track; a G that never ends runs to the end */
  CHECK_TRACK(t, "Wakelocks", "1000+500 WakeLock:foo | 1100+500 WakeLock:bar");
  CHECK_TRACK(t, "ScreenEvents", "1700! screen_on;1800! screen_off");
  CHECK_TRACK(t, "Jobs", "1900+end job1");
  CHECK(tu_warned(&stats, "perfetto_atrace_unparsed", 1)); /* G|500|Jobs|x|oops */
  /* device-wide: ScreenState counter, DeviceStateChanged instants */
  CHECK_TRACK(t, "ScreenState", "2100=2");
  CHECK_TRACK(t, "DeviceStateChanged", "2200! folded");
  /* suspend_resume: "action(val)" from start to end */
  CHECK_TRACK(t, "Suspend/Resume Latency", "2000+600 suspend_enter(3)");
  /* battery counters as trace_processor names them */
  CHECK_TRACK(t, "batt.charge_uah", "1000=4e+06;2000=3.999e+06;3000=3.998e+06");
  CHECK_TRACK(t, "batt.capacity_pct", "1000=80.5;2000=79.5;3000=78.5");
  CHECK_TRACK(t, "batt.current_ua", "1000=-500000;2000=-501000;3000=-502000");
  CHECK_TRACK(t, "batt.voltage_uv", "1000=3.9e+06;2000=3.9e+06;3000=3.9e+06");
  CHECK_TRACK(t, "batt.power_mw", "1000=1950;2000=1953;3000=1957"); /* |uA x uV| / 1e9, truncated */
  CHECK_TRACK(t, "batt.bms.charge_uah", "3500=4e+06");              /* 15e6 uWh / 3.75 V */
  CHECK_TRACK(t, "batt.bms.voltage_uv", "3500=3.75e+06");
  /* power rails: friendly name or power.<rail>_uws; cumulative energy at
   * the data's own time (ms since boot) */
  CHECK_TRACK(t, "power.rails.cpu.little", "1000000=1000;2000000=2500");
  CHECK_TRACK(t, "power.VSYS_PWR_CUSTOM_uws", "1000000=50;2000000=80");
  CHECK(tu_warned(&stats, "perfetto_power_rail_unknown_index", 1));
  /* entity state residency: ms in the state since boot */
  CHECK_TRACK(t, "Entity residency: Bluetooth is Idle", "2500=100;3500=150");
  CHECK_TRACK(t, "Entity residency: Bluetooth is Active", "2500=20;3500=30");
  /* statsd atoms: an instant per atom at its own time, named as atoms.proto
   * does when the atom is well known (10, 29), else atom_<id> */
  CHECK_TRACK(t, "Statsd Atoms",
              "4100! wakelock_state_changed;4200! screen_state_changed;4300! atom_100001");
  /* network: per interface and direction; a packet an instant, an
   * aggregated bundle one slice over its duration */
  /* named by the uid's package (packages_list), else uid=<uid> */
  CHECK_TRACK(t, "wlan0 Received",
              "5000! com.example.mail;5100! com.example.mail;5250! com.example.mail");
  CHECK_TRACK(t, "wlan0 Transmitted", "6000+400 uid=1000");
  CHECK_TRACK(t, "rmnet0 Transmitted", "7000! uid=0");
  /* sections: System, Power, Network first, then the process */
  uint32_t np;
  const st_process *ps = st_trace_processes(t, &np);
  CHECK_EQ_INT(np, 4);
  if (np == 4) {
    CHECK_EQ_STR(tu_str(t, ps[0].name), "System");
    CHECK_EQ_STR(tu_str(t, ps[1].name), "Power");
    CHECK_EQ_STR(tu_str(t, ps[2].name), "Network");
    CHECK_EQ_STR(tu_str(t, ps[3].name), "com.android.systemui");
    CHECK_EQ_INT(ps[3].pid, 500);
  }
  char sec[1024];
  section_text(t, "System", sec, sizeof sec);
  CHECK(strstr(sec, "Suspend/Resume Latency") && strstr(sec, "Statsd Atoms") &&
        strstr(sec, "ScreenState") && strstr(sec, "DeviceStateChanged"));
  section_text(t, "Power", sec, sizeof sec);
  CHECK(strstr(sec, "batt.charge_uah") && strstr(sec, "power.rails.cpu.little") &&
        strstr(sec, "Entity residency: Bluetooth is Active"));
  section_text(t, "com.android.systemui", sec, sizeof sec);
  CHECK(strstr(sec, "Wakelocks") && strstr(sec, "ScreenEvents") && strstr(sec, "Jobs"));
  /* what is not shown: the android_log packet only */
  char want[128];
  snprintf(want, sizeof want, "\"packets\": %d, \"kinds\": {\"android_log\": %d}",
           GEN_ANDROID_NOT_SHOWN, GEN_ANDROID_NOT_SHOWN);
  CHECK(strstr(meta, want) != NULL);
  CHECK(strstr(meta, "\"ftrace_events\": 1") != NULL); /* the unparsed print */
  CHECK(tu_warned(&stats, "perfetto_packets_not_shown", GEN_ANDROID_NOT_SHOWN));
  _Static_assert(GEN_ANDROID_NOT_SHOWN * 10 < GEN_ANDROID_PACKETS,
                 "the trace keeps < 10 % unshown");
  /* counts: 3 async slices + suspend + aggregated bundle, 3 N + 3 atoms +
   * 4 packets instants, ScreenState + 5 x 3 + 2 battery + 4 rail + 4
   * residency samples */
  CHECK_EQ_INT(stats.async_slices, 5);
  CHECK_EQ_INT(stats.instants, 10);
  CHECK_EQ_INT(stats.counter_samples, 1 + 15 + 2 + 4 + 4);
  /* the same whatever the chunking */
  st_error e2;
  st_stats s2;
  st_trace *t2 = tu_load(b.p, b.n, b.n, "android.pftrace", &e2, &s2, NULL, 0);
  CHECK(t2 != NULL);
  if (t2) CHECK_TRACK(t2, "Wakelocks", "1000+500 WakeLock:foo | 1100+500 WakeLock:bar");
  st_trace_destroy(t2);
  st_trace_destroy(t);
  free(b.p);
}

/* a statsd atom's args on selection: its id and fields */
static void test_atom_args(void) {
  buf b = {0};
  CHECK_EQ_INT(gen_perfetto_android_write(sink, &b), 0);
  tu_args_trace r = tu_load_args(b.p, b.n, "android.pftrace");
  CHECK(r.t && r.as);
  if (r.t && r.as) {
    const char *names[] = {"wakelock_state_changed", "screen_state_changed", "atom_100001"};
    const char *want[] = {"{\"atom_id\": 10, \"field_1\": 1}", "{\"atom_id\": 29, \"field_1\": 2}",
                          "{\"atom_id\": 100001, \"field_1\": 3}"};
    for (int i = 0; i < 3; i++) {
      uint64_t src = tu_src_named(r.t, names[i]);
      CHECK(src != UINT64_MAX);
      char *a = tu_args_of(r.as, b.p, b.n, src, UINT64_MAX);
      CHECK(a != NULL);
      if (a) CHECK_EQ_STR(a, want[i]);
      free(a);
    }
  }
  tu_unload_args(&r);
  free(b.p);
}

/* ---- hostile input ---------------------------------------------------------- */

static void packet(enc *trace, const enc *pk) { enc_msg(trace, 1, pk); }

static void test_hostile(void) {
  enc t = {0}, pk = {0}, m = {0}, sub = {0};
  st_error err;
  st_stats stats;
  /* a rail index past 256, an energy time past INT64_MAX ns, residency
   * of a state never described, a network bundle of an unknown context
   * with a time that overflows, an atom without a timestamp */
  enc_u(&sub, 1, 100000);
  enc_str(&sub, 2, "BIG");
  enc_msg(&m, 1, &sub);
  enc_reset(&sub);
  enc_u(&sub, 1, 3);
  enc_str(&sub, 2, "R3");
  enc_msg(&m, 1, &sub);
  enc_reset(&sub);
  enc_u(&sub, 1, 3);
  enc_u(&sub, 2, UINT64_MAX / 2);
  enc_u(&sub, 3, 9);
  enc_msg(&m, 2, &sub);
  enc_reset(&sub);
  enc_msg(&pk, 40, &m);
  enc_u(&pk, 8, 10);
  packet(&t, &pk);
  enc_reset(&pk);
  enc_reset(&m);
  enc_u(&sub, 1, 4);
  enc_u(&sub, 2, 4);
  enc_u(&sub, 3, 1);
  enc_msg(&m, 2, &sub);
  enc_reset(&sub);
  enc_msg(&pk, 91, &m);
  enc_u(&pk, 8, 20);
  packet(&t, &pk);
  enc_reset(&pk);
  enc_reset(&m);
  enc_u(&m, 1, 77);
  enc_varint(&sub, UINT64_MAX);
  enc_varint(&sub, 5);
  enc_msg(&m, 3, &sub);
  enc_reset(&sub);
  enc_msg(&pk, 92, &m);
  enc_u(&pk, 8, 30);
  packet(&t, &pk);
  enc_reset(&pk);
  enc_reset(&m);
  enc_u(&sub, 1, 1);
  enc_msg(&m, 1, &sub); /* an atom {1: 1}: atom_1, without a timestamp */
  enc_reset(&sub);
  enc_msg(&pk, 84, &m);
  enc_reset(&m);
  enc_u(&pk, 8, 40);
  packet(&t, &pk);
  enc_reset(&pk);
  st_trace *tr = tu_load(t.p, t.n, 3, "h.pftrace", &err, &stats, NULL, 0);
  CHECK(tr != NULL);
  CHECK_EQ_INT(err.code, ST_OK);
  CHECK(tu_warned(&stats, "perfetto_power_rail_bad_index", 1));
  CHECK(tu_warned(&stats, "perfetto_power_rail_bad_time", 1));
  CHECK(tu_warned(&stats, "perfetto_entity_state_unknown", 1));
  CHECK(tu_warned(&stats, "perfetto_network_context_unknown", 1));
  CHECK(tu_warned(&stats, "perfetto_network_packet_bad_time", 1));
  CHECK(tu_warned(&stats, "perfetto_statsd_atom_without_timestamp", 1));
  if (tr) {
    CHECK_TRACK(tr, "Statsd Atoms", "40! atom_1");
    CHECK_TRACK(tr, "power.R3_uws", ""); /* described, no valid sample */
    CHECK_TRACK(tr, " DIR_UNKNOWN", "35! uid=0");
  }
  st_trace_destroy(tr);
  /* a battery packet cut short: a clear error at a byte offset inside it */
  enc_reset(&t);
  enc_u(&m, 1, 5);
  enc_u(&m, 3, 7);
  enc_msg(&pk, 38, &m);
  enc_u(&pk, 8, 10);
  packet(&t, &pk);
  st_trace *tb = tu_load(t.p, t.n - 3, 4, "trunc.pftrace", &err, &stats, NULL, 0);
  CHECK(err.code != ST_OK);
  CHECK(err.offset <= t.n);
  CHECK(strlen(err.msg) > 0);
  st_trace_destroy(tb);
  enc_free(&t);
  enc_free(&pk);
  enc_free(&m);
  enc_free(&sub);
}

/* Seeds for the fuzz targets (tests/fixtures): the whole trace (fuzz_perfetto,
 * fuzz_load), and for fuzz_perfetto_ftrace (a cpu byte, then a bundle's
 * body) the atrace named-track prints and suspend_resume events. */
static int write_fixtures(const char *dir) {
  buf b = {0};
  char path[1024];
  int bad = gen_perfetto_android_write(sink, &b) != 0;
  snprintf(path, sizeof path, "%s/perfetto_android.pftrace", dir);
  FILE *f = fopen(path, "wb");
  bad |= !f || fwrite(b.p, 1, b.n, f) != b.n;
  if (f) bad |= fclose(f) != 0;
  free(b.p);
  enc e = {0}, ev = {0}, body = {0};
  enc_raw(&e, "\x00", 1);
  const char *prints[] = {"G|10|Wakelocks|WakeLock:foo|7", "N|10|Screen|on", "H|10|Wakelocks|7",
                          "H|10|Wakelocks|x|8", "G|10|T|n|99999999999"};
  for (int i = 0; i < 7; i++) {
    enc_reset(&body);
    enc_reset(&ev);
    if (i < 5) {
      enc_str(&body, 2, prints[i]);
    } else {
      enc_str(&body, 1, "suspend_enter");
      enc_u(&body, 2, 3);
      enc_u(&body, 3, i == 5);
    }
    enc_u(&ev, 1, 100 + (uint64_t)i * 10);
    enc_u(&ev, 2, 11);
    enc_msg(&ev, i < 5 ? 3 : 113, &body);
    enc_msg(&e, 2, &ev);
  }
  snprintf(path, sizeof path, "%s/perfetto_android_ftrace.bin", dir);
  f = fopen(path, "wb");
  bad |= !f || fwrite(e.p, 1, e.n, f) != e.n;
  if (f) bad |= fclose(f) != 0;
  enc_free(&e);
  enc_free(&ev);
  enc_free(&body);
  return bad;
}

/* a packages_list no network packet uses is not shown, and said so */
static void test_unused_packages(void) {
  enc t = {0}, pk = {0}, m = {0}, sub = {0};
  enc_str(&sub, 1, "com.example.mail");
  enc_u(&sub, 2, 10123);
  enc_msg(&m, 1, &sub);
  enc_msg(&pk, 47, &m);
  packet(&t, &pk);
  enc_reset(&pk);
  enc_reset(&m);
  enc_u(&m, 7, 3900000);
  enc_msg(&pk, 38, &m);
  enc_u(&pk, 8, 100);
  packet(&t, &pk);
  st_error err;
  st_stats stats;
  char meta[512];
  st_trace *tr = tu_load(t.p, t.n, 7, "p.pftrace", &err, &stats, meta, sizeof meta);
  CHECK(tr != NULL);
  CHECK(strstr(meta, "\"packets\": 1, \"kinds\": {\"packages_list\": 1}") != NULL);
  if (tr) CHECK_TRACK(tr, "batt.voltage_uv", "100=3.9e+06");
  st_trace_destroy(tr);
  enc_free(&t);
  enc_free(&pk);
  enc_free(&m);
  enc_free(&sub);
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--write-fixtures")) return write_fixtures(argv[2]);
  RUN(test_android);
  RUN(test_atom_args);
  RUN(test_hostile);
  RUN(test_unused_packages);
  return check_report();
}
