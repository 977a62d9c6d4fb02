/* gen_perfetto.c: `strata-gen --perfetto`: a synthetic Linux/Android-style
 * Perfetto system trace, written as traced would: a TraceConfig, a
 * ClockSnapshot, a ProcessTree, then per 4 ms window one FtraceEventBundle
 * per CPU (bundles of different CPUs overlap in time, as in real traces)
 * holding the CPU's scheduling in compact_sched form (sched_switch and
 * sched_waking columns, an intern table of comms) and plain FtraceEvents
 * for atrace prints (B/E around some of a thread's run), cpu_frequency and
 * cpu_idle; plus an android_log packet now and then (strata does not show
 * those: the page says so). About `switches` sched_switch events in all,
 * so `-n 1e6` makes a CPU section of a million scheduling slices.
 *
 * Each CPU runs its own pool of threads (threads do not migrate): a
 * thread runs 20-800 us, then leaves Sleeping (60%), preempted (30%) or
 * in Uninterruptible Sleep (10%); a sleeping thread is woken (sched_waking)
 * a few us before it runs again; now and then the CPU idles. Deterministic
 * for a seed. */
#include "gen_perfetto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pbuf {
  uint8_t *p;
  size_t n, cap;
  int oom;
} pbuf;

static void put(pbuf *b, const void *d, size_t n) {
  if (b->oom) return;
  if (b->n + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void varint(pbuf *b, uint64_t v) {
  uint8_t t[10];
  size_t n = 0;
  do {
    t[n] = (uint8_t)(v & 0x7F);
    v >>= 7;
    if (v) t[n] |= 0x80;
    n++;
  } while (v);
  put(b, t, n);
}
static void tag(pbuf *b, uint32_t num, int wire) { varint(b, (uint64_t)num << 3 | (uint64_t)wire); }
static void uv(pbuf *b, uint32_t num, uint64_t v) {
  tag(b, num, 0);
  varint(b, v);
}
static void bytes(pbuf *b, uint32_t num, const void *d, size_t n) {
  tag(b, num, 2);
  varint(b, n);
  put(b, d, n);
}
static void str(pbuf *b, uint32_t num, const char *s) { bytes(b, num, s, strlen(s)); }
static void msg(pbuf *b, uint32_t num, const pbuf *m) { bytes(b, num, m->p, m->n); }

typedef struct gthread {
  int32_t tid, pid;
  const char *name;
  uint8_t state; /* 0 sleeping, 1 runnable (preempted), 2 running */
} gthread;

typedef struct gcpu {
  uint64_t t;            /* time the current run ends */
  int32_t cur;           /* index into the CPU's pool, -1 idle */
  uint32_t first, count; /* pool: threads [first, first + count) */
  uint32_t freq;
} gcpu;

static uint32_t rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

static const char *const k_procs[] = {"/system/bin/surfaceflinger", "com.example.camera",
                                      "/system/bin/audioserver",    "com.example.launcher",
                                      "/vendor/bin/hw/gpu-service", "python3 train.py",
                                      "/system/bin/traced_probes",  "com.example.maps"};
static const char *const k_threads[] = {"RenderThread", "binder:%d_1", "HwBinder", "worker",
                                        "GLThread",     "AsyncTask",   "io",       "dataloader"};
static const char *const k_slices[] = {
    "draw",        "onMeasure", "inflate",  "decode", "Choreographer#doFrame",
    "queueBuffer", "step",      "allreduce"};

int gen_perfetto_write(const gen_perfetto_desc *d, int (*write)(void *ud, const void *p, size_t n),
                       void *ud) {
  uint64_t seed = d->seed * 0x9E3779B97F4A7C15ull + 1;
  uint32_t ncpu = d->cpus ? d->cpus : 8;
  uint64_t switches = d->switches ? d->switches : 1000;
  uint32_t nproc = 8 + (uint32_t)(switches / 100000);
  if (nproc > 512) nproc = 512;
  uint32_t nthr = nproc * 6;
  gthread *th = calloc(nthr, sizeof *th);
  gcpu *cpu = calloc(ncpu, sizeof *cpu);
  char(*names)[40] = calloc(nthr, 40);
  pbuf out = {0}, pk = {0}, m = {0}, sub = {0}, bundle = {0}, ev = {0}, body = {0};
  pbuf col[13];
  memset(col, 0, sizeof col);
  int rc = 1;
  if (!th || !cpu || !names) goto done;
  /* processes: pid 1000 + 100 * i; threads: the main one and five more */
  for (uint32_t i = 0; i < nthr; i++) {
    uint32_t p = i / 6, k = i % 6;
    th[i].pid = (int32_t)(1000 + 100 * p);
    th[i].tid = th[i].pid + (int32_t)k;
    if (k == 0) {
      const char *pn = k_procs[p % 8];
      const char *slash = strrchr(pn, '/');
      snprintf(names[i], 40, "%.15s", slash ? slash + 1 : pn);
    } else {
      snprintf(names[i], 40, k_threads[(p + k) % 8], th[i].pid);
    }
    th[i].name = names[i];
  }
  for (uint32_t c = 0; c < ncpu; c++) {
    cpu[c].first = (uint32_t)((uint64_t)nthr * c / ncpu);
    cpu[c].count = (uint32_t)((uint64_t)nthr * (c + 1) / ncpu) - cpu[c].first;
    cpu[c].cur = -1;
    cpu[c].t = 1000000000ull + rnd(&seed) % 100000;
    cpu[c].freq = 1000000;
  }
  /* TraceConfig (BOOTTIME) and a ClockSnapshot, as traced writes them first */
  pbuf *o = &out;
  uv(&sub, 5, 6);
  msg(&m, 20, &sub);
  msg(&pk, 33, &m);
  msg(o, 1, &pk);
  pk.n = m.n = sub.n = 0;
  const uint64_t clocks[3][2] = {
      {6, 1000000000ull}, {3, 900000000ull}, {1, 1700000000000000000ull}};
  for (int i = 0; i < 3; i++) {
    uv(&sub, 1, clocks[i][0]);
    uv(&sub, 2, clocks[i][1]);
    msg(&m, 1, &sub);
    sub.n = 0;
  }
  msg(&pk, 6, &m);
  uv(&pk, 10, 1);
  msg(o, 1, &pk);
  pk.n = m.n = 0;
  /* ProcessTree */
  for (uint32_t p = 0; p < nproc; p++) {
    uv(&sub, 1, (uint64_t)(1000 + 100 * p));
    uv(&sub, 2, 1);
    str(&sub, 3, k_procs[p % 8]);
    msg(&m, 1, &sub);
    sub.n = 0;
  }
  for (uint32_t i = 0; i < nthr; i++) {
    uv(&sub, 1, (uint64_t)th[i].tid);
    str(&sub, 2, th[i].name);
    uv(&sub, 3, (uint64_t)th[i].pid);
    msg(&m, 2, &sub);
    sub.n = 0;
  }
  msg(&pk, 2, &m);
  uv(&pk, 10, 1);
  msg(o, 1, &pk);
  pk.n = m.n = 0;
  if (write(ud, out.p, out.n)) goto done;
  out.n = 0;
  /* scheduling, window by window */
  uint64_t made = 0, window = 4000000, wend = 1000000000ull + window;
  while (made < switches && !out.oom) {
    for (uint32_t c = 0; c < ncpu && made < switches; c++) {
      gcpu *g = &cpu[c];
      for (int k = 0; k < 13; k++) col[k].n = 0;
      ev.n = bundle.n = 0;
      /* the intern table: the comms of this CPU's pool, and swapper */
      char swapper[24];
      snprintf(swapper, sizeof swapper, "swapper/%u", c);
      pbuf intern = {0};
      for (uint32_t i = 0; i < g->count; i++) str(&intern, 5, th[g->first + i].name);
      uint64_t last_sw = 0, last_wk = 0;
      while (g->t < wend && made < switches) {
        uint64_t ts = g->t;
        uint32_t r = rnd(&seed) % 100;
        int32_t next = r < 12 ? -1 : (int32_t)(rnd(&seed) % g->count);
        if (next == g->cur) next = g->cur < 0 ? 0 : -1;
        uint32_t dur = 20000 + rnd(&seed) % 780000;
        /* a sleeping thread is woken first */
        if (next >= 0 && th[g->first + next].state == 0) {
          uint64_t wts = ts - 2000 - rnd(&seed) % 3000;
          varint(&col[7], wts - last_wk);
          last_wk = wts;
          varint(&col[8], (uint64_t)th[g->first + next].tid);
          varint(&col[9], c);
          varint(&col[10], 120);
          varint(&col[11], (uint64_t)next);
          th[g->first + next].state = 1;
        }
        /* the switch */
        uint32_t ps = rnd(&seed) % 10;
        int64_t prev_state = ps < 6 ? 1 : ps < 9 ? 256 : 2;
        if (g->cur >= 0) th[g->first + g->cur].state = prev_state == 256 ? 1 : 0;
        varint(&col[1], ts - last_sw);
        last_sw = ts;
        varint(&col[2], g->cur >= 0 ? (uint64_t)prev_state : 0);
        varint(&col[3], next >= 0 ? (uint64_t)th[g->first + next].tid : 0);
        varint(&col[4], next >= 0 ? 110 + (uint64_t)(next % 20) : 120);
        varint(&col[6], next >= 0 ? (uint64_t)next : g->count);
        made++;
        g->cur = next;
        if (next >= 0) {
          gthread *t = &th[g->first + next];
          t->state = 2;
          /* atrace B/E around some runs */
          if (rnd(&seed) % 4 == 0 && dur > 40000) {
            char buf[96];
            const char *sl = k_slices[(uint32_t)t->tid % 8];
            for (int e = 0; e < 2; e++) {
              body.n = 0;
              int n = e ? snprintf(buf, sizeof buf, "E|%d\n", t->pid)
                        : snprintf(buf, sizeof buf, "B|%d|%s\n", t->pid, sl);
              bytes(&body, 2, buf, (size_t)n);
              uv(&ev, 1, e ? ts + dur - 5000 : ts + 5000);
              uv(&ev, 2, (uint64_t)t->tid);
              msg(&ev, 3, &body);
              msg(&bundle, 2, &ev);
              ev.n = 0;
            }
          }
        }
        /* the frequency moves now and then */
        if (rnd(&seed) % 64 == 0) {
          g->freq = 300000 + (rnd(&seed) % 24) * 100000;
          body.n = 0;
          uv(&body, 1, g->freq);
          uv(&body, 2, c);
          uv(&ev, 1, ts);
          uv(&ev, 2, 0);
          msg(&ev, 11, &body);
          msg(&bundle, 2, &ev);
          ev.n = 0;
        }
        g->t = ts + dur;
      }
      /* the bundle: cpu, plain events, compact_sched */
      pbuf cs = {0};
      put(&cs, intern.p, intern.n);
      str(&cs, 5, swapper);
      for (int k = 1; k <= 12; k++)
        if (col[k].n) msg(&cs, (uint32_t)k, &col[k]);
      free(intern.p);
      if (cs.oom) out.oom = 1;
      pbuf b2 = {0};
      uv(&b2, 1, c);
      put(&b2, bundle.p, bundle.n);
      msg(&b2, 4, &cs);
      pk.n = 0;
      msg(&pk, 1, &b2);
      uv(&pk, 10, 2);
      msg(&out, 1, &pk);
      free(cs.p);
      free(b2.p);
    }
    /* an android_log packet per window: not shown by strata */
    pk.n = m.n = 0;
    uv(&m, 1, 3);
    msg(&pk, 39, &m);
    msg(&out, 1, &pk);
    if (out.oom || write(ud, out.p, out.n)) goto done;
    out.n = 0;
    wend += window;
  }
  rc = out.oom;
done:
  free(th);
  free(cpu);
  free(names);
  free(out.p);
  free(pk.p);
  free(m.p);
  free(sub.p);
  free(bundle.p);
  free(ev.p);
  free(body.p);
  for (int k = 0; k < 13; k++) free(col[k].p);
  return rc;
}

/* ---- the Android battery-like trace (--perfetto-android) ------------------
 * All times are BOOTTIME ns (the trace clock). Packets, in order:
 *   1  ProcessTree: process 500 "com.android.systemui", thread 501 "bg"
 *   2  FtraceEventBundle, CPU 0, prints of thread 501 (process 500):
 *        1000 G|500|Wakelocks|WakeLock:foo|7      1100 G|...|WakeLock:bar|8
 *        1500 H|500|Wakelocks|7                   1600 H|500|Wakelocks|WakeLock:bar|8
 *        1700 N|500|ScreenEvents|screen_on        1800 N|500|ScreenEvents|screen_off
 *        1900 G|500|Jobs|job1|-1 (never ends)     1950 G|500|Jobs|x|oops (unparsed)
 *        2100 C|500|ScreenState|2                 2200 N|500|DeviceStateChanged|folded
 *        (both device-wide: System section)
 *      and suspend_resume "suspend_enter" val 3: start at 2000, end at 2600
 *   3-5  battery at 1000, 2000, 3000 (i = 0..2): charge 4000000 - 1000 i uAh,
 *        capacity 80.5 - i %, current -(500000 + 1000 i) uA, voltage 3900000 uV
 *   6  battery "bms" at 3500: energy 15000000 uWh, voltage 3750000 uV
 *   7  power_rails descriptors: 0 S4M_VDD_CPUCL0 (CPU), 1 VSYS_PWR_CUSTOM (Misc)
 *   8  power_rails energy: index 0 at 1 ms 1000 uWs, index 1 at 1 ms 50 uWs,
 *        index 7 (no descriptor) at 1 ms
 *   9  power_rails energy: index 0 at 2 ms 2500, index 1 at 2 ms 80
 *   10 entity_state_residency descriptors (Bluetooth: 0 Idle, 1 Active) and
 *        residency at 2500: Idle 100 ms, Active 20 ms
 *   11 entity_state_residency at 3500: Idle 150, Active 30
 *   12 statsd_atom at 4000: atoms 10 (at 4100) and 29 (at 4200), unpacked times
 *   13 statsd_atom at 4000: atom 100001 at 4300, packed times
 *   14 interned packet_context iid 1 {in, wlan0, uid 10123} (sequence 9)
 *   15 network_packet_bundle at 5000, iid 1, packets at +0, +100, +250
 *   16 network_packet_bundle at 6000, ctx {out, wlan0, uid 1000}, 10 packets
 *        over 400 ns, 9000 bytes
 *   17 network_packet at 7000 {out, rmnet0, 100 bytes, uid 0}
 *   18 packages_list: com.example.mail is uid 10123
 *   19 android_log (not shown) */
static void a_print(pbuf *bundle, uint64_t ts, const char *buf) {
  pbuf ev = {0}, body = {0};
  str(&body, 2, buf);
  uv(&ev, 1, ts);
  uv(&ev, 2, 501);
  msg(&ev, 3, &body);
  msg(bundle, 2, &ev);
  if (ev.oom || body.oom) bundle->oom = 1;
  free(ev.p);
  free(body.p);
}

static void a_suspend(pbuf *bundle, uint64_t ts, int start) {
  pbuf ev = {0}, body = {0};
  str(&body, 1, "suspend_enter");
  uv(&body, 2, 3);
  uv(&body, 3, (uint64_t)start);
  uv(&ev, 1, ts);
  uv(&ev, 2, 0);
  msg(&ev, 113, &body);
  msg(bundle, 2, &ev);
  if (ev.oom || body.oom) bundle->oom = 1;
  free(ev.p);
  free(body.p);
}

/* a packet {field num: m, timestamp ts (if any), sequence 9} appended to o */
static void a_packet(pbuf *o, uint32_t num, const pbuf *m, uint64_t ts) {
  pbuf pk = {0};
  msg(&pk, num, m);
  if (ts) uv(&pk, 8, ts);
  uv(&pk, 10, 9);
  msg(o, 1, &pk);
  if (pk.oom) o->oom = 1;
  free(pk.p);
}

static void a_energy(pbuf *m, uint32_t index, uint64_t ms, uint64_t uws) {
  pbuf e = {0};
  uv(&e, 1, index);
  uv(&e, 2, ms);
  uv(&e, 3, uws);
  msg(m, 2, &e);
  if (e.oom) m->oom = 1;
  free(e.p);
}

static void a_residency(pbuf *m, uint32_t state, uint64_t ms) {
  pbuf e = {0};
  uv(&e, 1, 0);
  uv(&e, 2, state);
  uv(&e, 3, ms);
  uv(&e, 4, 1);
  msg(m, 2, &e);
  if (e.oom) m->oom = 1;
  free(e.p);
}

/* an Atom {id: {1: v}} appended to a StatsdAtom (field 1) */
static void a_atom(pbuf *m, uint32_t id, uint64_t v) {
  pbuf a = {0}, body = {0};
  uv(&body, 1, v);
  msg(&a, id, &body);
  msg(m, 1, &a);
  if (a.oom || body.oom) m->oom = 1;
  free(a.p);
  free(body.p);
}

static void a_netctx(pbuf *c, uint32_t dir, const char *iface, uint32_t uid) {
  uv(c, 1, dir);
  str(c, 2, iface);
  uv(c, 4, uid);
}

int gen_perfetto_android_write(int (*write)(void *ud, const void *p, size_t n), void *ud) {
  pbuf o = {0}, m = {0}, sub = {0}, c = {0};
  uint32_t npk = 0;
  /* 1 process tree */
  uv(&sub, 1, 500);
  uv(&sub, 2, 1);
  str(&sub, 3, "com.android.systemui");
  msg(&m, 1, &sub);
  sub.n = 0;
  uv(&sub, 1, 501);
  str(&sub, 2, "bg");
  uv(&sub, 3, 500);
  msg(&m, 2, &sub);
  sub.n = 0;
  a_packet(&o, 2, &m, 0), npk++;
  m.n = 0;
  /* 2 ftrace: atrace on named tracks, suspend_resume */
  uv(&m, 1, 0);
  a_print(&m, 1000, "G|500|Wakelocks|WakeLock:foo|7\n");
  a_print(&m, 1100, "G|500|Wakelocks|WakeLock:bar|8\n");
  a_print(&m, 1500, "H|500|Wakelocks|7\n");
  a_print(&m, 1600, "H|500|Wakelocks|WakeLock:bar|8\n");
  a_print(&m, 1700, "N|500|ScreenEvents|screen_on\n");
  a_print(&m, 1800, "N|500|ScreenEvents|screen_off\n");
  a_print(&m, 1900, "G|500|Jobs|job1|-1\n");
  a_print(&m, 1950, "G|500|Jobs|x|oops\n");
  a_print(&m, 2100, "C|500|ScreenState|2\n");
  a_print(&m, 2200, "N|500|DeviceStateChanged|folded\n");
  a_suspend(&m, 2000, 1);
  a_suspend(&m, 2600, 0);
  a_packet(&o, 1, &m, 0), npk++;
  m.n = 0;
  /* 3-5 battery */
  for (int i = 0; i < 3; i++) {
    float cap = 80.5f - (float)i;
    uint32_t bits;
    memcpy(&bits, &cap, sizeof bits);
    uint8_t le[4] = {(uint8_t)bits, (uint8_t)(bits >> 8), (uint8_t)(bits >> 16),
                     (uint8_t)(bits >> 24)};
    uv(&m, 1, (uint64_t)(4000000 - 1000 * i));
    tag(&m, 2, 5);
    put(&m, le, 4);
    uv(&m, 3, (uint64_t)(int64_t) - (500000 + 1000 * i));
    uv(&m, 7, 3900000);
    a_packet(&o, 38, &m, 1000 + 1000 * (uint64_t)i), npk++;
    m.n = 0;
  }
  /* 6 a named battery: charge from energy and voltage */
  str(&m, 5, "bms");
  uv(&m, 6, 15000000);
  uv(&m, 7, 3750000);
  a_packet(&o, 38, &m, 3500), npk++;
  m.n = 0;
  /* 7 power rail descriptors */
  const char *rails[2][2] = {{"S4M_VDD_CPUCL0", "CPU"}, {"VSYS_PWR_CUSTOM", "Misc"}};
  for (uint32_t i = 0; i < 2; i++) {
    uv(&sub, 1, i);
    str(&sub, 2, rails[i][0]);
    str(&sub, 3, rails[i][1]);
    uv(&sub, 4, 1000);
    msg(&m, 1, &sub);
    sub.n = 0;
  }
  a_packet(&o, 40, &m, 500), npk++;
  m.n = 0;
  /* 8, 9 energy */
  a_energy(&m, 0, 1, 1000);
  a_energy(&m, 1, 1, 50);
  a_energy(&m, 7, 1, 5);
  a_packet(&o, 40, &m, 1000000), npk++;
  m.n = 0;
  a_energy(&m, 0, 2, 2500);
  a_energy(&m, 1, 2, 80);
  a_packet(&o, 40, &m, 2000000), npk++;
  m.n = 0;
  /* 10, 11 entity state residency */
  const char *states[2] = {"Idle", "Active"};
  for (uint32_t i = 0; i < 2; i++) {
    uv(&sub, 1, 0);
    uv(&sub, 2, i);
    str(&sub, 3, "Bluetooth");
    str(&sub, 4, states[i]);
    msg(&m, 1, &sub);
    sub.n = 0;
  }
  a_residency(&m, 0, 100);
  a_residency(&m, 1, 20);
  a_packet(&o, 91, &m, 2500), npk++;
  m.n = 0;
  a_residency(&m, 0, 150);
  a_residency(&m, 1, 30);
  a_packet(&o, 91, &m, 3500), npk++;
  m.n = 0;
  /* 12, 13 statsd atoms */
  a_atom(&m, 10, 1);
  a_atom(&m, 29, 2);
  uv(&m, 2, 4100);
  uv(&m, 2, 4200);
  a_packet(&o, 84, &m, 4000), npk++;
  m.n = 0;
  a_atom(&m, 100001, 3);
  varint(&sub, 4300);
  msg(&m, 2, &sub);
  sub.n = 0;
  a_packet(&o, 84, &m, 4000), npk++;
  m.n = 0;
  /* 14 interned packet context */
  a_netctx(&c, 1, "wlan0", 10123);
  uv(&sub, 1, 1);
  msg(&sub, 2, &c);
  msg(&m, 30, &sub);
  c.n = sub.n = 0;
  a_packet(&o, 12, &m, 0), npk++;
  m.n = 0;
  /* 15 a bundle of 3 packets */
  uv(&m, 1, 1);
  varint(&sub, 0);
  varint(&sub, 100);
  varint(&sub, 250);
  msg(&m, 3, &sub);
  sub.n = 0;
  varint(&sub, 60);
  varint(&sub, 1500);
  varint(&sub, 40);
  msg(&m, 4, &sub);
  sub.n = 0;
  a_packet(&o, 92, &m, 5000), npk++;
  m.n = 0;
  /* 16 an aggregated bundle */
  a_netctx(&c, 2, "wlan0", 1000);
  msg(&m, 2, &c);
  c.n = 0;
  uv(&m, 5, 10);
  uv(&m, 6, 400);
  uv(&m, 7, 9000);
  a_packet(&o, 92, &m, 6000), npk++;
  m.n = 0;
  /* 17 one packet */
  a_netctx(&m, 2, "rmnet0", 0);
  uv(&m, 3, 100);
  a_packet(&o, 88, &m, 7000), npk++;
  m.n = 0;
  /* 18 the packages: uid 10123 is com.example.mail (names its packets) */
  str(&sub, 1, "com.example.mail");
  uv(&sub, 2, 10123);
  msg(&m, 1, &sub);
  sub.n = 0;
  a_packet(&o, 47, &m, 0), npk++;
  m.n = 0;
  /* 19 android_log: not shown */
  uv(&m, 1, 3);
  a_packet(&o, 39, &m, 0), npk++;
  int rc =
      o.oom || m.oom || sub.oom || c.oom || npk != GEN_ANDROID_PACKETS || write(ud, o.p, o.n) != 0;
  free(o.p);
  free(m.p);
  free(sub.p);
  free(c.p);
  return rc;
}
