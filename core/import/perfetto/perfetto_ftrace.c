/* perfetto_ftrace.c: FtraceEventBundle (TracePacket 1) -> staged records
 * (perfetto_internal.h `fev`) and direct counters.
 *
 * Bundle (ftrace_event_bundle.proto): 1 cpu, 2 event (FtraceEvent, repeated),
 * 4 compact_sched, 5 ftrace_clock (0 unspecified = BOOTTIME, 2 GLOBAL: a
 * sequence clock synced by 6 ftrace_timestamp / 7 boot_timestamp, 4
 * MONO_RAW; others cannot be converted and the bundle is not shown).
 * FtraceEvent (ftrace_event.proto): 1 timestamp, 2 pid (the thread), and
 * one event: 3 print {2 buf}, 4 sched_switch {1 prev_comm, 2 prev_pid,
 * 3 prev_prio, 4 prev_state, 5 next_comm, 6 next_pid, 7 next_prio},
 * 11 cpu_frequency {1 state, 2 cpu_id}, 13 cpu_idle {1 state, 2 cpu_id},
 * 17 sched_wakeup / 20 sched_waking / 114 sched_wakeup_new {1 comm, 2 pid,
 * 3 prio, 5 target_cpu}, 235 task_newtask {1 pid, 2 comm, 3 clone_flags},
 * 236 task_rename {1 pid, 3 newcomm}. Other kinds are counted as not shown.
 * CompactSched: 5 intern_table, switch_{1 timestamp (delta-encoded),
 * 2 prev_state, 3 next_pid, 4 next_prio, 6 next_comm_index}, waking_{7
 * timestamp (delta), 8 pid, 9 target_cpu, 10 prio, 11 comm_index}, all
 * packed; a record's src is the offset of its next_pid / waking pid element
 * (argsrc.c decodes the details from there).
 *
 * atrace `print` bufs: "B|pid|name", "E|pid" (or "E"), "C|pid|name|value",
 * "S|pid|name|cookie", "F|pid|name|cookie", "I|pid|name", and current
 * Android's named tracks: "N|pid|track|name" (an instant on the track),
 * "G|pid|track|name|cookie" / "H|pid|track|cookie" (an async slice on it;
 * H may also carry the name before the cookie), as trace_processor's
 * systrace parser reads them (a cookie above 32 bits is folded to 32);
 * the FtraceEvent's pid is the thread, the buf's the process ("ScreenState"
 * and "battery_stats.*" counters, and N instants on "DeviceStateChanged",
 * go to the System section, as trace_processor makes them global tracks).
 * Counters go straight to the builder (order does not matter there); the rest is staged.
 * 113 suspend_resume {1 action, 2 val, 3 start}: a slice "action(val)"
 * from start = 1 to the next start = 0 of the same name, on the System
 * section's "Suspend/Resume Latency" track (trace_processor's name).
 */
#include "perfetto_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  EV_PRINT = 3,
  EV_SWITCH = 4,
  EV_CPU_FREQ = 11,
  EV_CPU_IDLE = 13,
  EV_WAKEUP = 17,
  EV_WAKING = 20,
  EV_SUSPEND_RESUME = 113,
  EV_WAKEUP_NEW = 114,
  EV_NEWTASK = 235,
  EV_RENAME = 236
};
#define CLONE_THREAD 0x00010000u

static void stage(st_perfetto_importer *im, const fev *e) {
  if (im->nfevs == im->cap_fevs) {
    void *p = im->fevs;
    if (!st_grow_from(&im->alloc, &p, &im->cap_fevs, im->nfevs + 1, sizeof *im->fevs, 4096)) {
      im->nomem = 1;
      return;
    }
    im->fevs = p;
  }
  im->fevs[im->nfevs++] = *e;
}

static int32_t i32(uint64_t u) { return (int32_t)(uint32_t)u; }

/* ---- atrace ---------------------------------------------------------------- */

/* The next '|'-separated field of s[*i..n). */
static int field(const uint8_t *s, size_t n, size_t *i, const uint8_t **f, size_t *fl) {
  if (*i > n) return 0;
  size_t j = *i;
  while (j < n && s[j] != '|') j++;
  *f = s + *i;
  *fl = j - *i;
  *i = j + 1;
  return 1;
}

static int parse_i64(const uint8_t *s, size_t n, int64_t *v) {
  char tmp[32];
  if (!n || n >= sizeof tmp) return 0;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  char *end;
  long long x = strtoll(tmp, &end, 10);
  if (*end) return 0;
  *v = x;
  return 1;
}

static int parse_double(const uint8_t *s, size_t n, double *v) {
  char tmp[64];
  if (!n || n >= sizeof tmp) return 0;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  char *end;
  *v = strtod(tmp, &end);
  return *end == 0;
}

static void read_print(st_perfetto_importer *im, const uint8_t *buf, size_t n, int64_t tid,
                       int64_t ts, uint64_t src) {
  while (n && (buf[n - 1] == '\n' || buf[n - 1] == 0)) n--;
  if (n < 1 || (n > 1 && buf[1] != '|')) {
    im->ftrace_other++; /* a print that is not atrace: not shown */
    return;
  }
  char kind = (char)buf[0];
  size_t i = 2;
  const uint8_t *pf = NULL, *name = NULL, *last = NULL;
  size_t pl = 0, nl = 0, ll = 0;
  int64_t pid = 0;
  int has_pid = field(buf, n, &i, &pf, &pl) && parse_i64(pf, pl, &pid);
  if (n == 1) has_pid = 0;
  fev e = {.ts = ts, .src = src, .tid = (int32_t)tid, .a = has_pid ? (int32_t)pid : 0};
  switch (kind) {
  case 'B':
  case 'I':
    if (!has_pid) break;
    name = buf + i;
    nl = i <= n ? n - i : 0; /* the rest: names may hold '|' */
    e.kind = FEV_SLICE_BEGIN;
    e.b = kind == 'I';
    e.str = pf_intern(im, name, nl);
    pf_thread_tgid(im, tid, pid);
    stage(im, &e);
    return;
  case 'E':
    e.kind = FEV_SLICE_END;
    stage(im, &e);
    return;
  case 'C': {
    double v;
    if (!has_pid || !field(buf, n, &i, &name, &nl) || !field(buf, n, &i, &last, &ll) ||
        !parse_double(last, ll, &v))
      break;
    pf_thread_tgid(im, tid, pid);
    uint32_t nid = pf_intern(im, name, nl);
    /* "ScreenState" and "battery_stats.*" are device-wide: trace_processor
     * promotes them to global tracks (here the System section's) */
    int global = (nl == 11 && !memcmp(name, "ScreenState", 11)) ||
                 (nl > 14 && !memcmp(name, "battery_stats.", 14));
    uint32_t bt = pf_counter_track(im, global ? PF_SYS_PID : pid, (const char *)name, nl,
                                   -0x400000000LL - (int64_t)nid);
    pf_counter(im, bt, ts, v, src);
    return;
  }
  case 'S':
  case 'F': {
    int64_t cookie;
    /* the cookie is the last field; the name is what lies between */
    size_t j = n;
    while (j > i && buf[j - 1] != '|') j--;
    if (!has_pid || j <= i || !parse_i64(buf + j, n - j, &cookie)) break;
    e.kind = kind == 'S' ? FEV_ASYNC_BEGIN : FEV_ASYNC_END;
    e.str = pf_intern(im, buf + i, j - 1 - i);
    e.tid = (int32_t)cookie;
    stage(im, &e);
    return;
  }
  case 'N':
  case 'G':
  case 'H': {
    /* on a named track of the process: N|pid|track|name (an instant),
     * G|pid|track|name|cookie (begins), H|pid|track|cookie or
     * H|pid|track|name|cookie (ends the track's slice of that cookie) */
    const uint8_t *tr = NULL, *f3 = NULL, *f4 = NULL;
    size_t tl = 0, l3 = 0, l4 = 0;
    int64_t cookie = 0;
    field(buf, n, &i, &tr, &tl); /* each left empty (0) if absent */
    field(buf, n, &i, &f3, &l3);
    if (kind != 'N') field(buf, n, &i, &f4, &l4);
    if (!has_pid || !tl) break;
    if (kind == 'N' && !l3) break;
    if (kind == 'G' && (!l3 || !parse_i64(f4, l4, &cookie))) break;
    if (kind == 'H' && !(l4 ? parse_i64(f4, l4, &cookie) : parse_i64(f3, l3, &cookie))) break;
    e.kind = kind == 'N' ? FEV_TRACK_INSTANT : kind == 'G' ? FEV_TRACK_BEGIN : FEV_TRACK_END;
    e.str = pf_intern(im, tr, tl);
    e.back = kind == 'H' ? ST_STR_EMPTY : pf_intern(im, f3, l3);
    /* "DeviceStateChanged" instants are device-wide, as trace_processor's
     * global track (here the System section's) */
    e.b = kind == 'N' && tl == 18 && !memcmp(tr, "DeviceStateChanged", 18);
    e.tid = (int32_t)(uint32_t)((uint64_t)cookie ^ ((uint64_t)cookie >> 32));
    stage(im, &e);
    return;
  }
  default: break;
  }
  st_stats_warn(im->stats, "perfetto_atrace_unparsed", src);
  im->ftrace_other++;
}

/* ---- FtraceEvent ------------------------------------------------------------- */

static st_code read_event(st_perfetto_importer *im, uint32_t cpu, uint64_t clock, st_pb_reader *r,
                          const st_pb_field *ef, uint64_t src, st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g, body;
  int k, j, has_body = 0, has_ts = 0;
  uint64_t raw_ts = 0;
  int64_t pid = 0;
  if (st_pb_enter(r, ef, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT)
      raw_ts = f.u, has_ts = 1;
    else if (f.num == 2 && f.wire == ST_PB_VARINT)
      pid = i32(f.u);
    else if (f.wire == ST_PB_LEN && !has_body)
      body = f, has_body = 1;
  }
  if (k < 0) return ST_ERR_PROTO;
  im->stats->events++;
  if (!has_body) return ST_OK;
  switch (body.num) {
  case EV_PRINT:
  case EV_SWITCH:
  case EV_CPU_FREQ:
  case EV_CPU_IDLE:
  case EV_WAKEUP:
  case EV_WAKING:
  case EV_WAKEUP_NEW:
  case EV_SUSPEND_RESUME:
  case EV_NEWTASK:
  case EV_RENAME: break;
  default: im->ftrace_other++; return ST_OK;
  }
  if (!has_ts) {
    st_stats_warn(im->stats, "perfetto_event_without_timestamp", src);
    return ST_OK;
  }
  int64_t ts;
  if (!pf_to_trace(im, clock, st_pb_i64(raw_ts), src, &ts)) return ST_OK;
  /* the event's fields */
  uint64_t v[8] = {0}, off[8] = {0};
  const uint8_t *s[8] = {0};
  size_t sl[8] = {0};
  if (st_pb_enter(&d, &body, &e, err) != ST_OK) return err->code;
  while ((j = st_pb_next(&e, &g, err)) > 0) {
    if (g.num >= 8) continue;
    off[g.num] = g.offset;
    if (g.wire == ST_PB_LEN)
      s[g.num] = g.data, sl[g.num] = g.len;
    else if (g.wire == ST_PB_VARINT)
      v[g.num] = g.u;
  }
  if (j < 0) return ST_ERR_PROTO;
  fev x = {.ts = ts, .src = src, .cpu = (uint16_t)cpu};
  /* details on selection start at the field that says who (argsrc.c) */
  int precise = !im->in_compressed;
  switch (body.num) {
  case EV_PRINT: read_print(im, s[2], sl[2], pid, ts, src); break;
  case EV_SWITCH:
    x.kind = FEV_SWITCH;
    if (precise && off[6]) x.src = off[6];
    if (precise && (off[4] || off[2]) && x.src - (off[4] ? off[4] : off[2]) < UINT32_MAX)
      x.back = (uint32_t)(x.src - (off[4] ? off[4] : off[2]));
    x.a = i32(v[2]);
    x.b = pf_state_from_prev(st_pb_i64(v[4]));
    x.tid = i32(v[6]);
    x.str = pf_intern(im, s[5], sl[5]);
    if (sl[1]) pf_thread_name(im, i32(v[2]), pf_intern(im, s[1], sl[1]), NAME_FTRACE);
    stage(im, &x);
    break;
  case EV_CPU_FREQ: pf_cpu_counter(im, (uint32_t)v[2], 0, ts, (double)(uint32_t)v[1], src); break;
  case EV_CPU_IDLE:
    pf_cpu_counter(im, (uint32_t)v[2], 1, ts,
                   (uint32_t)v[1] == UINT32_MAX ? -1.0 : (double)(uint32_t)v[1], src);
    break;
  case EV_WAKEUP:
  case EV_WAKING:
  case EV_WAKEUP_NEW:
    x.kind = FEV_WAKING;
    if (precise && off[2]) x.src = off[2];
    x.tid = i32(v[2]);
    x.cpu = (uint16_t)(v[5] < ST_PERFETTO_MAX_CPUS ? v[5] : 0);
    x.str = pf_intern(im, s[1], sl[1]);
    stage(im, &x);
    break;
  case EV_SUSPEND_RESUME: {
    char tmp[160];
    int m = snprintf(tmp, sizeof tmp, "%.*s(%d)", (int)(sl[1] > 128 ? 128 : sl[1]),
                     s[1] ? (const char *)s[1] : "", i32(v[2]));
    x.kind = v[3] ? FEV_TRACK_BEGIN : FEV_TRACK_END;
    x.b = 1;
    x.str = pf_intern(im, "Suspend/Resume Latency", 22);
    x.back = pf_intern(im, tmp, m > 0 ? (size_t)m : 0);
    stage(im, &x);
    break;
  }
  case EV_NEWTASK:
    x.kind = FEV_NEWTASK;
    x.tid = i32(v[1]);
    x.a = (int32_t)pid;
    x.b = (v[3] & CLONE_THREAD) != 0;
    x.str = pf_intern(im, s[2], sl[2]);
    stage(im, &x);
    break;
  case EV_RENAME:
    x.kind = FEV_RENAME;
    x.tid = i32(v[1]);
    x.str = pf_intern(im, s[3], sl[3]);
    stage(im, &x);
    break;
  default: break;
  }
  return im->nomem ? pf_nomem(im, src, err) : ST_OK;
}

/* ---- compact_sched ------------------------------------------------------------ */

typedef struct packed {
  st_pb_reader r;
  int has, wire;
} packed;

static st_code read_compact(st_perfetto_importer *im, uint32_t cpu, uint64_t clock, st_pb_reader *r,
                            const st_pb_field *cf, uint64_t pkt_src, st_error *err) {
  st_pb_reader d;
  st_pb_field f;
  int k;
  packed col[13];
  memset(col, 0, sizeof col);
  uint32_t *tab = NULL, ntab = 0, cap = 0;
  if (st_pb_enter(r, cf, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 5 && f.wire == ST_PB_LEN) {
      if (ntab == cap) {
        void *p = tab;
        if (!st_grow32(&im->alloc, &p, &cap, ntab + 1, sizeof *tab, 64)) {
          st_free(&im->alloc, tab);
          return pf_nomem(im, f.offset, err);
        }
        tab = p;
      }
      tab[ntab++] = pf_intern(im, f.data, f.len);
    } else if (f.num >= 1 && f.num <= 12 && f.num != 5 && f.wire == ST_PB_LEN) {
      if (col[f.num].has) {
        st_stats_warn(im->stats, "perfetto_compact_sched_split_column", f.offset);
        continue;
      }
      if (st_pb_packed_init(&d, &f, &col[f.num].r, err) != ST_OK) {
        st_free(&im->alloc, tab);
        return err->code;
      }
      col[f.num].has = 1;
    }
  }
  if (k < 0) {
    st_free(&im->alloc, tab);
    return ST_ERR_PROTO;
  }
  st_code c = ST_OK;
  int bad = 0;
  /* switches: 1 ts (delta), 2 prev_state, 3 next_pid, 4 next_prio, 6 comm index;
   * wakings: 7 ts (delta), 8 pid, 9 target_cpu, 10 prio, 11 comm index */
  for (int waking = 0; waking < 2 && c == ST_OK; waking++) {
    int cts = waking ? 7 : 1, cpid = waking ? 8 : 3, ccomm = waking ? 11 : 6;
    int cx = waking ? 9 : 2; /* target cpu / prev_state */
    if (!col[cts].has) continue;
    int64_t acc = 0;
    for (;;) {
      uint64_t dts, vpid = 0, vx = 0, vcomm = 0;
      int a = st_pb_packed_next(&col[cts].r, ST_PB_VARINT, &dts, err);
      if (a == 0) break;
      if (a < 0) {
        c = ST_ERR_PROTO;
        break;
      }
      uint64_t src = col[cpid].has ? st_pb_offset(&col[cpid].r, col[cpid].r.p) : pkt_src;
      uint64_t xsrc = col[cx].has ? st_pb_offset(&col[cx].r, col[cx].r.p) : src;
      int ok = col[cpid].has && st_pb_packed_next(&col[cpid].r, ST_PB_VARINT, &vpid, err) > 0;
      ok = ok && col[cx].has && st_pb_packed_next(&col[cx].r, ST_PB_VARINT, &vx, err) > 0;
      ok = ok && col[ccomm].has && st_pb_packed_next(&col[ccomm].r, ST_PB_VARINT, &vcomm, err) > 0;
      if (!ok) {
        bad = 1;
        break;
      }
      acc = (int64_t)((uint64_t)acc + dts);
      im->stats->events++;
      int64_t ts;
      if (!pf_to_trace(im, clock, acc, im->in_compressed ? pkt_src : src, &ts)) continue;
      fev x = {.ts = ts, .src = im->in_compressed ? pkt_src : src, .cpu = (uint16_t)cpu};
      x.tid = i32(vpid);
      if (vcomm < ntab)
        x.str = tab[vcomm];
      else
        st_stats_warn(im->stats, "perfetto_compact_sched_bad_comm_index", x.src);
      if (waking) {
        x.kind = FEV_WAKING;
        x.cpu = (uint16_t)(vx < ST_PERFETTO_MAX_CPUS ? vx : 0);
      } else {
        x.kind = FEV_SWITCH;
        if (!im->in_compressed && xsrc < src && src - xsrc < UINT32_MAX)
          x.back = (uint32_t)(src - xsrc);
        x.a = -1; /* the previous thread is whoever ran on this CPU */
        x.b = pf_state_from_prev(st_pb_i64(vx));
      }
      stage(im, &x);
    }
  }
  if (bad) st_stats_warn(im->stats, "perfetto_compact_sched_columns_differ", cf->offset);
  st_free(&im->alloc, tab);
  if (c != ST_OK) return c;
  return im->nomem ? pf_nomem(im, cf->offset, err) : ST_OK;
}

/* ---- bundle ----------------------------------------------------------------- */

st_code pf_read_ftrace_bundle(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *bf,
                              uint64_t seq, st_error *err) {
  st_pb_reader d;
  st_pb_field f;
  int k, has_cpu = 0, has_fts = 0;
  uint64_t cpu = 0, fclock = 0;
  int64_t fts = 0, bts = 0;
  if (st_pb_enter(r, bf, &d, err) != ST_OK) return err->code;
  st_pb_reader d0 = d;
  uint64_t nev = 0;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num == 1 && f.wire == ST_PB_VARINT) cpu = f.u, has_cpu = 1;
    if (f.num == 5 && f.wire == ST_PB_VARINT) fclock = f.u;
    if (f.num == 6 && f.wire == ST_PB_VARINT) fts = st_pb_i64(f.u), has_fts = 1;
    if (f.num == 7 && f.wire == ST_PB_VARINT) bts = st_pb_i64(f.u);
    if ((f.num == 2 || f.num == 4) && f.wire == ST_PB_LEN) nev++;
  }
  if (k < 0) return ST_ERR_PROTO;
  if (!nev) return ST_OK;
  uint64_t clock;
  switch (fclock) {
  case 0: clock = ST_CLOCK_BOOTTIME; break;
  case 2: clock = st_pclock_seq_id(seq, 64); break;
  case 4: clock = ST_CLOCK_MONOTONIC_RAW; break;
  default:
    st_stats_warn(im->stats, "perfetto_ftrace_clock_unsupported", bf->offset);
    im->ftrace_other += nev;
    return ST_OK;
  }
  if (!has_cpu || cpu >= ST_PERFETTO_MAX_CPUS) {
    st_stats_warn(im->stats, "perfetto_ftrace_bundle_without_cpu", bf->offset);
    im->ftrace_other += nev;
    return ST_OK;
  }
  if (has_fts && fclock == 2) {
    st_pclock_entry e[2] = {{clock, fts, 1, 0}, {ST_CLOCK_BOOTTIME, bts, 1, 0}};
    if (st_pclock_snapshot(im->clocks, e, 2) != ST_OK) return pf_nomem(im, bf->offset, err);
  }
  if (cpu + 1 > im->max_cpu) im->max_cpu = (uint32_t)cpu + 1;
  /* args on selection decode scheduling details from the bundle's bytes */
  if (im->args && !im->in_compressed &&
      st_argsrc_perfetto_bundle(im->args, bf->offset,
                                st_pb_offset(r, bf->data) + bf->len - bf->offset) != ST_OK)
    return pf_nomem(im, bf->offset, err);
  im->has_trace = 1;
  uint64_t pkt_src = im->pkt_src;
  size_t first = im->nfevs;
  st_code c = ST_OK;
  while (c == ST_OK && (k = st_pb_next(&d0, &f, err)) > 0) {
    if (f.num == 2 && f.wire == ST_PB_LEN)
      c = read_event(im, (uint32_t)cpu, clock, &d0, &f, im->in_compressed ? pkt_src : f.offset,
                     err);
    else if (f.num == 4 && f.wire == ST_PB_LEN)
      c = read_compact(im, (uint32_t)cpu, clock, &d0, &f, pkt_src, err);
  }
  pf_sched_close_run(im, (uint32_t)cpu, first); /* what was read before an error stays */
  if (c != ST_OK) return c;
  return k < 0 ? ST_ERR_PROTO : ST_OK;
}
