/* perfetto_system.c: processes and threads of a Perfetto trace, whatever
 * source names them, and the system-wide packets that are not scheduling:
 *
 *   - Registry: a thread (tid) has a process (tgid, once known) and a name;
 *     a process (pid) has a name. Names come with a priority, as
 *     trace_processor ranks them: ftrace comms (sched_switch, task_newtask,
 *     task_rename) < ProcessTree < descriptors (TrackDescriptor,
 *     Process/ThreadDescriptor); a name replaces one of lower or equal
 *     priority. A process without a name takes its main thread's.
 *   - ProcessTree (TracePacket 2): Process {1 pid, 3 cmdline[0] = name},
 *     Thread {1 tid, 2 name, 3 tgid}.
 *   - ProcessStats (9): per process {1 pid, 2 vm_size_kb, 3 vm_rss_kb,
 *     4 rss_anon_kb, 5 rss_file_kb, 6 rss_shmem_kb, 7 vm_swap_kb,
 *     8 vm_locked_kb, 9 vm_hwm_kb, 10 oom_score_adj}: counters "mem.virt",
 *     "mem.rss", ... (bytes) in the process's section, as ui.perfetto.dev
 *     names them.
 *   - SysStats (7): meminfo {1 key, 2 value kB} as "mem.total", ... (bytes)
 *     in a "System" section.
 *   - FrameTimelineEvent (76): expected / actual display (1, 2) and surface
 *     (3, 4) frame starts {1 cookie, 2 token, pid 3 (display) / 4
 *     (surface)} until FrameEnd (5) {1 cookie}: slices named by token on the
 *     process's "Expected Timeline" / "Actual Timeline" tracks.
 *   - At the end (pf_system_finish): thread tracks are labelled "name tid"
 *     (state tracks "name tid state"), sections named, and ordered as
 *     ui.perfetto.dev lists them: CPUs, System, then processes by (name,
 *     pid), and in each process its own tracks, then threads by (name, tid).
 */
#include "perfetto_internal.h"

#include <stdio.h>
#include <string.h>

#define PF_SYS_PID ((int64_t)-0x1000000000000001LL)
#define THREAD_SORT_BASE (1 << 24)

/* ==== registry =========================================================== */

pthr *pf_thread(st_perfetto_importer *im, int64_t tid) {
  uint32_t i = st_u64map_get(&im->thr_map, (uint64_t)tid);
  if (i != ST_U64MAP_NONE) return &im->thr[i];
  if (im->nthr == im->cap_thr) {
    uint32_t cap = im->cap_thr ? im->cap_thr * 2 : 64;
    pthr *p = cap > im->cap_thr ? st_realloc_array(&im->alloc, im->thr, cap, sizeof *p) : NULL;
    if (!p) {
      im->nomem = 1;
      return NULL;
    }
    im->thr = p;
    im->cap_thr = cap;
  }
  pthr *t = &im->thr[im->nthr];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->tgid = -1;
  t->slice_bt = t->state_bt = UINT32_MAX;
  if (!st_u64map_put(&im->thr_map, &im->alloc, (uint64_t)tid, im->nthr)) {
    im->nomem = 1;
    return NULL;
  }
  im->nthr++;
  return t;
}

pproc *pf_process(st_perfetto_importer *im, int64_t pid) {
  uint32_t i = st_u64map_get(&im->proc_map, (uint64_t)pid);
  if (i != ST_U64MAP_NONE) return &im->procs[i];
  if (im->nprocs == im->cap_procs) {
    uint32_t cap = im->cap_procs ? im->cap_procs * 2 : 64;
    pproc *p = cap > im->cap_procs ? st_realloc_array(&im->alloc, im->procs, cap, sizeof *p) : NULL;
    if (!p) {
      im->nomem = 1;
      return NULL;
    }
    im->procs = p;
    im->cap_procs = cap;
  }
  pproc *p = &im->procs[im->nprocs];
  *p = (pproc){pid, ST_STR_EMPTY, NAME_NONE, UINT32_MAX};
  if (!st_u64map_put(&im->proc_map, &im->alloc, (uint64_t)pid, im->nprocs)) {
    im->nomem = 1;
    return NULL;
  }
  im->nprocs++;
  return p;
}

void pf_thread_name(st_perfetto_importer *im, int64_t tid, uint32_t name, uint8_t prio) {
  pthr *t = pf_thread(im, tid);
  if (t && name != ST_STR_EMPTY && prio >= t->name_prio) t->name = name, t->name_prio = prio;
}

void pf_thread_tgid(st_perfetto_importer *im, int64_t tid, int64_t tgid) {
  pthr *t = pf_thread(im, tid);
  if (t && t->tgid < 0 && tgid >= 0) t->tgid = tgid;
}

void pf_process_name(st_perfetto_importer *im, int64_t pid, uint32_t name, uint8_t prio) {
  pproc *p = pf_process(im, pid);
  if (p && name != ST_STR_EMPTY && prio >= p->name_prio) p->name = name, p->name_prio = prio;
}

uint32_t pf_builder_process(st_perfetto_importer *im, int64_t pid) {
  pproc *pp = pf_process(im, pid);
  if (!pp) return UINT32_MAX;
  if (pp->bproc != UINT32_MAX) return pp->bproc;
  uint32_t p = st_builder_process(im->b, pid);
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return p;
  }
  pp = pf_process(im, pid);
  pp->bproc = p;
  if (pid >= 0 && !pf_flag_test_set(im, &im->proc_seen, p)) im->stats->processes++;
  return p;
}

uint32_t pf_thread_track(st_perfetto_importer *im, pthr *t, int states) {
  uint32_t *slot = states ? &t->state_bt : &t->slice_bt;
  if (*slot != UINT32_MAX) return *slot;
  int64_t tid = t->tid, pid = t->tgid >= 0 ? t->tgid : t->tid;
  uint32_t p = pf_builder_process(im, pid); /* may move im->thr: t is re-found below */
  if (p == UINT32_MAX) return UINT32_MAX;
  int64_t key = states ? (int64_t)((uint64_t)tid + (1ull << 40)) : tid;
  uint32_t bt = st_builder_track(im->b, p, ST_TRACK_SLICES, key, ST_STR_EMPTY);
  if (bt == UINT32_MAX) {
    im->nomem = 1;
    return bt;
  }
  t = pf_thread(im, tid);
  if (!t) return UINT32_MAX;
  if (states)
    t->state_bt = bt;
  else
    t->slice_bt = bt;
  if (!pf_flag_test_set(im, &im->track_seen, bt)) im->stats->threads++;
  return bt;
}

uint32_t pf_counter_track(st_perfetto_importer *im, int64_t pid, const char *name, size_t n,
                          int64_t key) {
  uint32_t p;
  if (pid == PF_CPU_PID || pid == PF_SYS_PID) {
    p = st_builder_process(im->b, pid);
    if (p != UINT32_MAX) {
      int cpu = pid == PF_CPU_PID;
      st_builder_process_name(im->b, p, pf_intern(im, cpu ? "CPUs" : "System", cpu ? 4 : 6));
      st_builder_process_sort(im->b, p, cpu ? INT32_MIN : INT32_MIN + 1);
    }
  } else {
    p = pf_builder_process(im, pid);
  }
  if (p == UINT32_MAX) {
    im->nomem = 1;
    return p;
  }
  uint32_t bt = st_builder_track(im->b, p, ST_TRACK_COUNTER, key, pf_intern(im, name, n));
  if (bt == UINT32_MAX) im->nomem = 1;
  return bt;
}

void pf_counter(st_perfetto_importer *im, uint32_t bt, int64_t ts, double v, uint64_t src) {
  if (bt == UINT32_MAX) return;
  st_code c = st_builder_counter(im->b, bt, ts, v);
  if (c == ST_ERR_NOMEM) {
    im->nomem = 1;
  } else if (c != ST_OK) {
    st_stats_warn(im->stats, "perfetto_counter_rejected", src);
  } else {
    im->stats->counter_samples++;
    im->shown++;
    st_stats_time(im->stats, ts, ts);
  }
}

/* ==== ProcessTree ======================================================== */

st_code pf_read_process_tree(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                             st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if ((f.num != 1 && f.num != 2) || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    int64_t id = -1, tgid = -1;
    const uint8_t *name = NULL;
    size_t nlen = 0;
    int have_name = 0;
    while ((j = st_pb_next(&e, &g, err)) > 0) {
      if (g.num == 1 && g.wire == ST_PB_VARINT) id = (int64_t)(int32_t)(uint32_t)g.u;
      if (f.num == 2 && g.num == 3 && g.wire == ST_PB_VARINT)
        tgid = (int64_t)(int32_t)(uint32_t)g.u;
      /* a process's name is its first cmdline word (3); a thread's, field 2 */
      if (g.wire == ST_PB_LEN && g.num == (f.num == 1 ? 3u : 2u) && !have_name)
        name = g.data, nlen = g.len, have_name = 1;
    }
    if (j < 0) return ST_ERR_PROTO;
    if (id < 0) continue;
    if (f.num == 1) {
      pf_thread_tgid(im, id, id);
      if (nlen) pf_process_name(im, id, pf_intern(im, name, nlen), NAME_PROCESS_TREE);
    } else {
      if (tgid >= 0) pf_thread_tgid(im, id, tgid);
      if (nlen) pf_thread_name(im, id, pf_intern(im, name, nlen), NAME_PROCESS_TREE);
    }
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== ProcessStats / SysStats ============================================ */

static const char *const k_proc_mem[] = {NULL,
                                         NULL,
                                         "mem.virt",
                                         "mem.rss",
                                         "mem.rss.anon",
                                         "mem.rss.file",
                                         "mem.rss.shmem",
                                         "mem.swap",
                                         "mem.locked",
                                         "mem.rss.watermark",
                                         "oom_score_adj"};

st_code pf_read_process_stats(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                              int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num != 1 || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    int64_t pid = -1;
    st_pb_reader e0 = e;
    while ((j = st_pb_next(&e, &g, err)) > 0)
      if (g.num == 1 && g.wire == ST_PB_VARINT) pid = (int64_t)(int32_t)(uint32_t)g.u;
    if (j < 0) return ST_ERR_PROTO;
    if (pid < 0) continue;
    while ((j = st_pb_next(&e0, &g, err)) > 0) {
      if (g.wire != ST_PB_VARINT || g.num < 2 || g.num > 10) continue;
      const char *name = k_proc_mem[g.num];
      double v = g.num == 10 ? (double)(int32_t)(uint32_t)g.u : (double)g.u * 1024.0;
      uint32_t bt = pf_counter_track(im, pid, name, strlen(name), -0x200000000LL - g.num);
      if (bt != UINT32_MAX) st_builder_track_sort(im->b, bt, (int32_t)g.num - 16);
      pf_counter(im, bt, ts, v, src);
    }
    if (j < 0) return ST_ERR_PROTO;
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* MeminfoCounters (sys_stats_counters.proto), named as trace_processor does:
 * the enum name without MEMINFO_, lower case, '_' -> '.'. */
static const char *const k_meminfo[] = {NULL,
                                        "mem.total",
                                        "mem.free",
                                        "mem.available",
                                        "buffers",
                                        "cached",
                                        "swap.cached",
                                        "active",
                                        "inactive",
                                        "active.anon",
                                        "inactive.anon",
                                        "active.file",
                                        "inactive.file",
                                        "unevictable",
                                        "mlocked",
                                        "swap.total",
                                        "swap.free",
                                        "dirty",
                                        "writeback",
                                        "anon.pages",
                                        "mapped",
                                        "shmem",
                                        "slab",
                                        "slab.reclaimable",
                                        "slab.unreclaimable",
                                        "kernel.stack",
                                        "page.tables",
                                        "commit.limit",
                                        "commited.as",
                                        "vmalloc.total",
                                        "vmalloc.used",
                                        "vmalloc.chunk",
                                        "cma.total",
                                        "cma.free"};

st_code pf_read_sys_stats(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                          int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num != 1 || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    uint64_t key = 0, val = 0;
    int has_val = 0;
    while ((j = st_pb_next(&e, &g, err)) > 0) {
      if (g.num == 1 && g.wire == ST_PB_VARINT) key = g.u;
      if (g.num == 2 && g.wire == ST_PB_VARINT) val = g.u, has_val = 1;
    }
    if (j < 0) return ST_ERR_PROTO;
    if (!has_val || key == 0) continue;
    char tmp[40];
    const char *name = key < sizeof k_meminfo / sizeof *k_meminfo ? k_meminfo[key] : NULL;
    if (!name) snprintf(tmp, sizeof tmp, "meminfo.%llu", (unsigned long long)key), name = tmp;
    uint32_t bt = pf_counter_track(im, PF_SYS_PID, name, strlen(name), (int64_t)(key & 0xFFFFFF));
    if (bt != UINT32_MAX) st_builder_track_sort(im->b, bt, (int32_t)(key & 0xFFFFFF));
    pf_counter(im, bt, ts, (double)val * 1024.0, src);
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== FrameTimeline ====================================================== */

static void frame_emit(st_perfetto_importer *im, const pframe *fr, int64_t end, uint8_t flags) {
  const char *tn = fr->actual ? "Actual Timeline" : "Expected Timeline";
  uint32_t p = pf_builder_process(im, fr->pid);
  if (p == UINT32_MAX) return;
  uint32_t bt = st_builder_track(im->b, p, ST_TRACK_ASYNC, -0x300000000LL - fr->actual,
                                 pf_intern(im, tn, strlen(tn)));
  if (bt == UINT32_MAX) {
    im->nomem = 1;
    return;
  }
  st_builder_track_sort(im->b, bt, -8 + fr->actual);
  if (end < fr->ts) st_stats_warn(im->stats, "negative_duration", fr->src);
  st_stats_time(im->stats, fr->ts, end < fr->ts ? fr->ts : end);
  im->stats->async_slices++;
  pf_emit(im, bt, fr->ts, end - fr->ts, fr->name, ST_STR_EMPTY, fr->src, flags);
}

st_code pf_read_frame_timeline(st_perfetto_importer *im, st_pb_reader *r, const st_pb_field *df,
                               int64_t ts, uint64_t src, st_error *err) {
  st_pb_reader d, e;
  st_pb_field f, g;
  int k, j;
  if (st_pb_enter(r, df, &d, err) != ST_OK) return err->code;
  while ((k = st_pb_next(&d, &f, err)) > 0) {
    if (f.num < 1 || f.num > 5 || f.wire != ST_PB_LEN) continue;
    if (st_pb_enter(&d, &f, &e, err) != ST_OK) return err->code;
    int64_t cookie = 0, token = 0, pid = -1;
    uint32_t pid_field = f.num <= 2 ? 3u : 4u;
    while ((j = st_pb_next(&e, &g, err)) > 0) {
      if (g.wire != ST_PB_VARINT) continue;
      if (g.num == 1) cookie = st_pb_i64(g.u);
      if (g.num == 2) token = st_pb_i64(g.u);
      if (g.num == pid_field) pid = (int64_t)(int32_t)(uint32_t)g.u;
    }
    if (j < 0) return ST_ERR_PROTO;
    if (f.num == 5) { /* FrameEnd: the frame with this cookie ends */
      uint32_t i = im->nframes;
      while (i > 0 && im->frames[i - 1].cookie != cookie) i--;
      if (!i) {
        st_stats_warn(im->stats, "perfetto_frame_end_without_start", src);
        continue;
      }
      pframe fr = im->frames[i - 1];
      im->frames[i - 1] = im->frames[--im->nframes];
      frame_emit(im, &fr, ts, 0);
      continue;
    }
    if (pid < 0) {
      st_stats_warn(im->stats, "perfetto_frame_without_pid", src);
      continue;
    }
    if (im->nframes == im->cap_frames) {
      uint32_t cap = im->cap_frames ? im->cap_frames * 2 : 16;
      if (cap > 65536) { /* frames that never end: keep the importer bounded */
        st_stats_warn(im->stats, "perfetto_frames_never_ended", src);
        continue;
      }
      pframe *p = st_realloc_array(&im->alloc, im->frames, cap, sizeof *p);
      if (!p) return pf_nomem(im, src, err);
      im->frames = p;
      im->cap_frames = cap;
    }
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)token);
    im->frames[im->nframes++] =
        (pframe){cookie, pid, ts, src, pf_intern(im, tmp, (size_t)n), (uint8_t)(f.num % 2 == 0)};
  }
  if (k < 0) return ST_ERR_PROTO;
  return im->nomem ? pf_nomem(im, df->offset, err) : ST_OK;
}

/* ==== the end: names and order =========================================== */

static int name_less(const st_perfetto_importer *im, uint32_t a, int64_t ka, uint32_t b,
                     int64_t kb) {
  size_t na, nb;
  const char *sa = st_strtab_get(im->strs, a, &na), *sb = st_strtab_get(im->strs, b, &nb);
  if (!na != !nb) return na != 0; /* named first */
  int c = memcmp(sa, sb, na < nb ? na : nb);
  if (c) return c < 0;
  if (na != nb) return na < nb;
  return ka < kb;
}

typedef struct rank_key {
  uint32_t name;
  int64_t key;
  uint32_t index;
} rank_key;

/* stable merge sort of n keys by (name, key) */
static void sort_keys(const st_perfetto_importer *im, rank_key *v, rank_key *tmp, size_t n) {
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi)
        tmp[o++] = name_less(im, v[b].name, v[b].key, v[a].name, v[a].key) ? v[b++] : v[a++];
      while (a < mid) tmp[o++] = v[a++];
      while (b < hi) tmp[o++] = v[b++];
    }
    memcpy(v, tmp, n * sizeof *v);
  }
}

static uint32_t thread_label(st_perfetto_importer *im, const pthr *t, int states) {
  size_t n;
  const char *s = st_strtab_get(im->strs, t->name, &n);
  char tmp[320];
  int m = n ? snprintf(tmp, sizeof tmp, "%.*s %lld%s", (int)(n > 256 ? 256 : n), s,
                       (long long)t->tid, states ? " state" : "")
            : snprintf(tmp, sizeof tmp, "Thread %lld%s", (long long)t->tid, states ? " state" : "");
  return m > 0 ? pf_intern(im, tmp, (size_t)m < sizeof tmp ? (size_t)m : sizeof tmp - 1)
               : ST_STR_EMPTY;
}

void pf_system_finish(st_perfetto_importer *im) {
  /* frames that never ended run to the trace end */
  for (uint32_t i = 0; i < im->nframes; i++)
    frame_emit(im, &im->frames[i], im->frames[i].ts, ST_EV_UNFINISHED);
  im->nframes = 0;
  size_t n = im->nprocs > im->nthr ? im->nprocs : im->nthr;
  if (!n) return;
  rank_key *keys = st_malloc(&im->alloc, n * sizeof *keys);
  rank_key *tmp = st_malloc(&im->alloc, n * sizeof *tmp);
  if (!keys || !tmp) {
    im->nomem = 1;
    st_free(&im->alloc, keys);
    st_free(&im->alloc, tmp);
    return;
  }
  /* processes: name (else the main thread's), then order by (name, pid) */
  size_t k = 0;
  for (uint32_t i = 0; i < im->nprocs; i++) {
    pproc *p = &im->procs[i];
    if (p->bproc == UINT32_MAX) continue;
    if (p->name == ST_STR_EMPTY) {
      uint32_t ti = st_u64map_get(&im->thr_map, (uint64_t)p->pid);
      if (ti != ST_U64MAP_NONE) p->name = im->thr[ti].name;
    }
    if (p->name != ST_STR_EMPTY) st_builder_process_name(im->b, p->bproc, p->name);
    keys[k++] = (rank_key){p->name, p->pid, i};
  }
  sort_keys(im, keys, tmp, k);
  for (size_t r = 0; r < k; r++)
    st_builder_process_sort(im->b, im->procs[keys[r].index].bproc, pf_clamp32((int64_t)r + 1));
  /* threads: labels, then order by (name, tid) within their process */
  k = 0;
  for (uint32_t i = 0; i < im->nthr; i++) {
    pthr *t = &im->thr[i];
    if (t->slice_bt == UINT32_MAX && t->state_bt == UINT32_MAX) continue;
    if (t->slice_bt != UINT32_MAX)
      st_builder_track_name(im->b, t->slice_bt, thread_label(im, t, 0));
    t = &im->thr[i];
    if (t->state_bt != UINT32_MAX)
      st_builder_track_name(im->b, t->state_bt, thread_label(im, t, 1));
    t = &im->thr[i];
    keys[k++] = (rank_key){t->name, t->tid, i};
  }
  sort_keys(im, keys, tmp, k);
  for (size_t r = 0; r < k; r++) {
    const pthr *t = &im->thr[keys[r].index];
    int64_t base = THREAD_SORT_BASE + 2 * (int64_t)r;
    if (t->state_bt != UINT32_MAX) st_builder_track_sort(im->b, t->state_bt, pf_clamp32(base));
    if (t->slice_bt != UINT32_MAX) st_builder_track_sort(im->b, t->slice_bt, pf_clamp32(base + 1));
  }
  st_free(&im->alloc, keys);
  st_free(&im->alloc, tmp);
  /* args on selection: who each thread is (CPU slices show it) */
  if (im->args)
    for (uint32_t i = 0; i < im->nthr; i++) {
      const pthr *t = &im->thr[i];
      int64_t pid = t->tgid >= 0 ? t->tgid : t->tid;
      uint32_t pi = st_u64map_get(&im->proc_map, (uint64_t)pid);
      uint32_t pname = pi != ST_U64MAP_NONE ? im->procs[pi].name : ST_STR_EMPTY;
      size_t tl, pl;
      const char *ts = st_strtab_get(im->strs, t->name, &tl);
      const char *ps = st_strtab_get(im->strs, pname, &pl);
      if (st_argsrc_perfetto_thread(im->args, t->tid, pid, (const uint8_t *)ts, tl,
                                    (const uint8_t *)ps, pl) != ST_OK)
        im->nomem = 1;
    }
}
