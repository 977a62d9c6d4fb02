/* perfetto_sched.c: the staged ftrace records (perfetto_ftrace.c) replayed
 * in time order at the end of the import, as trace_processor's sorter
 * orders them before its parsers see them:
 *
 *   - CPU section: one track per CPU ("CPU n"); a sched_switch ends the
 *     slice of the thread that ran and starts one for the next thread
 *     (none for the idle task, pid 0), named "comm tid" (so each thread has
 *     its own colour). A slice's src is its sched_switch's next_pid, its
 *     end src the switch that ended it: details on selection (argsrc.c)
 *     give thread, process, priority and end state. Slices still running
 *     at the end end with the trace.
 *   - Thread states on a "name tid state" track of each thread: Running
 *     from a switch in, the switch's prev_state from a switch out
 *     (Runnable, Runnable (Preempted), Sleeping, Uninterruptible Sleep,
 *     ...), Runnable from sched_waking / sched_wakeup / task_newtask when
 *     the thread was not running or runnable. The last state of a thread
 *     runs to the end of the trace.
 *   - task_newtask: a thread created with CLONE_THREAD is in its creator's
 *     process, otherwise it starts a process of its own; task_rename and
 *     the switches' comms name threads (ftrace priority: ProcessTree and
 *     descriptors win).
 *   - atrace B/E nest on the thread's slice track (the same track as its
 *     TrackEvent slices), I is an instant there; S/F pair by (process,
 *     name, cookie) on a per-name async track of the process; G/H pair by
 *     (process, track, cookie) on the process's async track of that track
 *     name, where N puts its instants (trace_processor's
 *     "atrace_async_slice_for_track"); suspend_resume slices pair by name
 *     on the System section's "Suspend/Resume Latency" track.
 */
#include "merge_sort.h"
#include "perfetto_internal.h"
#include "perfetto_states.h"

#include <stdio.h>
#include <string.h>

static int fev_less(const fev *a, const fev *b) { return a->ts < b->ts; }

/* stable: equal times keep their arrival order (a bundle's own order) */
ST_DEFINE_MERGE_SORT(sort_fevs, fev, fev_less)

void pf_sched_close_run(st_perfetto_importer *im, uint32_t cpu, size_t start) {
  size_t n = im->nfevs - start;
  if (!n) return;
  if (n > im->cap_run_tmp) {
    fev *p = st_realloc_array(&im->alloc, im->run_tmp, n, sizeof *p);
    if (!p) {
      im->nomem = 1;
      return;
    }
    im->run_tmp = p;
    im->cap_run_tmp = n;
  }
  sort_fevs(im->fevs + start, im->run_tmp, n);
  if (im->nruns == im->cap_runs) {
    void *p = im->runs;
    if (!st_grow_from(&im->alloc, &p, &im->cap_runs, im->nruns + 1, sizeof *im->runs, 256)) {
      im->nomem = 1;
      return;
    }
    im->runs = p;
  }
  im->runs[im->nruns++] =
      (frun){start, im->nfevs, im->fevs[start].ts, im->fevs[im->nfevs - 1].ts, cpu};
  pf_sched_note_run(im, cpu, im->fevs[im->nfevs - 1].ts);
}

/* The replay order: every record by (time, arrival). Each CPU's runs
 * follow each other in time in real traces, so merging the CPUs' streams
 * (a heap of one cursor per CPU) is enough: O(n log cpus). If a CPU's runs
 * overlap (out-of-order bundles), the whole array is merge-sorted instead
 * (the same order). Returns the order (indices into fevs), NULL if out of
 * memory; *identity = 1 when the array itself is in order. */
typedef struct cursor {
  size_t run, at; /* run index in `runs_of` order, record index */
  uint32_t cpu;
} cursor;

static int cur_less(const fev *v, const cursor *a, const cursor *b) {
  const fev *x = &v[a->at], *y = &v[b->at];
  return x->ts != y->ts ? x->ts < y->ts : a->at < b->at;
}

static uint32_t *replay_order(st_perfetto_importer *im, int *identity) {
  size_t n = im->nfevs, nr = im->nruns;
  fev *v = im->fevs;
  *identity = 0;
  /* runs grouped by CPU, in arrival order */
  size_t *by = st_malloc(&im->alloc, (nr + 1) * sizeof *by);
  uint32_t ncpu = 0;
  for (size_t i = 0; i < nr; i++)
    if (im->runs[i].cpu + 1 > ncpu) ncpu = im->runs[i].cpu + 1;
  size_t *first = st_calloc(&im->alloc, (size_t)ncpu + 2, sizeof *first);
  cursor *heap = st_malloc(&im->alloc, ((size_t)ncpu + 1) * sizeof *heap);
  uint32_t *ord = n < UINT32_MAX ? st_malloc(&im->alloc, n * sizeof *ord) : NULL;
  int ok = by && first && heap && ord;
  if (ok) {
    for (size_t i = 0; i < nr; i++) first[im->runs[i].cpu + 1]++;
    for (uint32_t c = 0; c <= ncpu; c++) first[c + 1] += first[c];
    for (size_t i = 0; i < nr; i++) by[first[im->runs[i].cpu]++] = i;
    for (uint32_t c = ncpu + 1; c > 0; c--) first[c] = first[c - 1];
    first[0] = 0;
    for (uint32_t c = 0; c < ncpu && ok; c++)
      for (size_t j = first[c] + 1; j < first[c + 1]; j++)
        if (im->runs[by[j]].first < im->runs[by[j - 1]].last) ok = 0; /* overlap */
  }
  if (ok) {
    size_t nh = 0;
    for (uint32_t c = 0; c < ncpu; c++)
      if (first[c] < first[c + 1]) {
        cursor cu = {first[c], im->runs[by[first[c]]].start, c};
        size_t i = nh++;
        while (i && cur_less(v, &cu, &heap[(i - 1) / 2]))
          heap[i] = heap[(i - 1) / 2], i = (i - 1) / 2;
        heap[i] = cu;
      }
    size_t k = 0;
    while (nh) {
      cursor cu = heap[0];
      ord[k++] = (uint32_t)cu.at;
      /* advance: next record of the run, else the CPU's next run */
      const frun *r = &im->runs[by[cu.run]];
      if (++cu.at == r->end) {
        if (++cu.run < first[cu.cpu + 1])
          cu.at = im->runs[by[cu.run]].start;
        else
          cu = heap[--nh];
      }
      /* sift down */
      size_t i = 0;
      for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < nh && cur_less(v, &heap[l], &cu)) m = l;
        if (l + 1 < nh && cur_less(v, &heap[l + 1], m == i ? &cu : &heap[l])) m = l + 1;
        if (m == i) break;
        heap[i] = heap[m];
        i = m;
      }
      if (nh) heap[i] = cu;
    }
    ok = k == n; /* every record is in a run */
  }
  if (!ok && ord) { /* a full stable sort: the same order */
    fev *tmp = st_malloc(&im->alloc, n * sizeof *tmp);
    if (tmp) {
      sort_fevs(v, tmp, n);
      st_free(&im->alloc, tmp);
      *identity = 1;
      ok = 1;
    }
  }
  st_free(&im->alloc, by);
  st_free(&im->alloc, first);
  st_free(&im->alloc, heap);
  if (!ok) {
    st_free(&im->alloc, ord);
    return NULL;
  }
  return ord;
}

/* The replay's state, kept across flushes (pf_sched_close_run with a
 * staging limit) until the end. */
struct pf_replay {
  st_perfetto_importer *im;
  pcpu *cpus;
  uint32_t *cpu_bt;
  uint32_t ncpu;
  uint32_t state_name[TS_COUNT];
  pasync *async;
  uint32_t nasync, cap_async;
};
typedef struct pf_replay replay;

static uint32_t cpu_track(replay *rp, uint32_t cpu) {
  st_perfetto_importer *im = rp->im;
  if (rp->cpu_bt[cpu] != UINT32_MAX) return rp->cpu_bt[cpu];
  uint32_t p = pf_section(im, PF_CPU_PID);
  if (p == UINT32_MAX) return p;
  char tmp[24];
  int n = snprintf(tmp, sizeof tmp, "CPU %u", cpu);
  uint32_t bt = st_builder_track(im->b, p, ST_TRACK_SLICES, cpu, pf_intern(im, tmp, (size_t)n));
  if (bt == UINT32_MAX) {
    im->nomem = 1;
    return bt;
  }
  st_builder_track_sort(im->b, bt, (int32_t)cpu);
  rp->cpu_bt[cpu] = bt;
  return bt;
}

/* "comm tid" for thread tid's CPU slices (cached per comm) */
static uint32_t cpu_slice_name(st_perfetto_importer *im, int64_t tid, uint32_t comm) {
  pthr *t = pf_thread(im, tid);
  if (!t) return ST_STR_EMPTY;
  if (comm == ST_STR_EMPTY) comm = t->name;
  if (t->cpu_name != ST_STR_EMPTY && t->cpu_name_of == comm) return t->cpu_name;
  size_t n;
  const char *s = st_strtab_get(im->strs, comm, &n);
  char tmp[320];
  int m = snprintf(tmp, sizeof tmp, "%.*s %lld", (int)(n > 256 ? 256 : n), s, (long long)tid);
  uint32_t id = m > 0 ? pf_intern(im, tmp, (size_t)m < sizeof tmp ? (size_t)m : sizeof tmp - 1)
                      : ST_STR_EMPTY;
  t = pf_thread(im, tid);
  if (t) t->cpu_name = id, t->cpu_name_of = comm;
  return id;
}

/* Thread tid enters `state` at ts: its previous state becomes a slice. */
static void set_state(replay *rp, int64_t tid, uint8_t state, int64_t ts, uint64_t src) {
  st_perfetto_importer *im = rp->im;
  if (tid <= 0) return; /* the idle task has no thread track */
  pthr *t = pf_thread(im, tid);
  if (!t) return;
  if (t->state != TS_NONE && ts > t->state_ts) {
    uint8_t prev = t->state;
    int64_t start = t->state_ts;
    uint64_t psrc = t->state_src;
    uint32_t bt = pf_thread_track(im, t, 1);
    pf_emit(im, bt, start, ts - start, rp->state_name[prev], ST_STR_EMPTY, psrc, 0);
    t = pf_thread(im, tid);
    if (!t) return;
  }
  t->state = state;
  t->state_ts = ts;
  t->state_src = src;
}

static void cpu_close(replay *rp, uint32_t cpu, int64_t ts, uint64_t end_src, uint8_t flags) {
  st_perfetto_importer *im = rp->im;
  pcpu *c = &rp->cpus[cpu];
  if (!c->open) return;
  c->open = 0;
  uint32_t bt = cpu_track(rp, cpu);
  int pair = !flags && end_src != c->src;
  st_stats_time(im->stats, c->start, ts > c->start ? ts : c->start);
  im->stats->slices++;
  pf_emit(im, bt, c->start, ts - c->start, c->name, ST_STR_EMPTY, c->src,
          (uint8_t)(flags | (pair ? ST_EV_HAS_END : 0)));
  if (pair && bt != UINT32_MAX && st_builder_end_src(im->b, c->src, end_src) == ST_ERR_NOMEM)
    im->nomem = 1;
}

static void on_switch(replay *rp, const fev *e) {
  st_perfetto_importer *im = rp->im;
  pcpu *c = &rp->cpus[e->cpu];
  int64_t prev = e->a >= 0 ? e->a : c->tid;
  cpu_close(rp, e->cpu, e->ts, e->src, 0);
  if (prev > 0) set_state(rp, prev, e->b, e->ts, e->back ? e->src - e->back : e->src);
  c = &rp->cpus[e->cpu];
  c->tid = e->tid;
  if (e->tid > 0) {
    set_state(rp, e->tid, TS_RUNNING, e->ts, e->src);
    uint32_t name = cpu_slice_name(im, e->tid, e->str);
    c = &rp->cpus[e->cpu];
    c->open = 1;
    c->start = e->ts;
    c->src = e->src;
    c->name = name;
  }
}

static void on_slice(replay *rp, const fev *e) {
  st_perfetto_importer *im = rp->im;
  pthr *t = pf_thread(im, e->tid);
  if (!t) return;
  if (e->kind == FEV_SLICE_BEGIN && e->b) { /* I: an instant */
    im->stats->phases['i']++;
    im->stats->instants++;
    st_stats_time(im->stats, e->ts, e->ts);
    pf_emit(im, pf_thread_track(im, t, 0), e->ts, 0, e->str, ST_STR_EMPTY, e->src, ST_EV_INSTANT);
    return;
  }
  if (e->kind == FEV_SLICE_BEGIN) {
    im->stats->phases['B']++;
    if (t->depth == t->cap) {
      void *p = t->stack;
      if (!st_grow32(&im->alloc, &p, &t->cap, t->depth + 1, sizeof *t->stack, 8)) {
        im->nomem = 1;
        return;
      }
      t->stack = p;
    }
    t->stack[t->depth++] = (open_slice){e->ts, e->src, e->str, ST_STR_EMPTY};
    return;
  }
  im->stats->phases['E']++;
  if (!t->depth) {
    st_stats_warn(im->stats, "unmatched_end", e->src);
    return;
  }
  open_slice o = t->stack[--t->depth];
  uint32_t bt = pf_thread_track(im, t, 0);
  int pair = e->src != o.src;
  im->stats->slices++;
  st_stats_time(im->stats, o.ts, e->ts);
  pf_emit(im, bt, o.ts, e->ts - o.ts, o.name, ST_STR_EMPTY, o.src, pair ? ST_EV_HAS_END : 0);
  if (pair && bt != UINT32_MAX && st_builder_end_src(im->b, o.src, e->src) == ST_ERR_NOMEM)
    im->nomem = 1;
}

/* The async track of an S/F name (track UINT32_MAX) or of a named track
 * (G/H/N) in process pid, or in the System section (sys). */
static uint32_t async_track(st_perfetto_importer *im, int64_t pid, uint8_t sys, uint32_t name,
                            uint32_t track) {
  uint32_t p = sys ? pf_section(im, PF_SYS_PID) : pf_builder_process(im, pid);
  if (p == UINT32_MAX) return p;
  int64_t key =
      track == UINT32_MAX ? -0x500000000LL - (int64_t)name : -0x600000000LL - (int64_t)track;
  uint32_t bt = st_builder_track(im->b, p, ST_TRACK_ASYNC, key, track == UINT32_MAX ? name : track);
  if (bt == UINT32_MAX) im->nomem = 1;
  return bt;
}

static void async_emit(replay *rp, const pasync *a, int64_t end, uint64_t end_src, uint8_t flags) {
  st_perfetto_importer *im = rp->im;
  uint32_t bt = async_track(im, a->pid, a->sys, a->name, a->track);
  if (bt == UINT32_MAX) return;
  int pair = !flags && end_src != a->src;
  im->stats->async_slices++;
  st_stats_time(im->stats, a->ts, end > a->ts ? end : a->ts);
  pf_emit(im, bt, a->ts, end - a->ts, a->name, ST_STR_EMPTY, a->src,
          (uint8_t)(flags | (pair ? ST_EV_HAS_END : 0)));
  if (pair && st_builder_end_src(im->b, a->src, end_src) == ST_ERR_NOMEM) im->nomem = 1;
}

static void on_async(replay *rp, const fev *e) {
  st_perfetto_importer *im = rp->im;
  int named = e->kind >= FEV_TRACK_INSTANT;
  uint32_t track = named ? e->str : UINT32_MAX, name = named ? e->back : e->str;
  if (e->kind == FEV_TRACK_INSTANT) {                       /* N: an instant on the track */
    uint32_t bt = async_track(im, e->a, e->b, name, track); /* b: device-wide (read_print) */
    im->stats->phases['n']++;
    im->stats->instants++;
    st_stats_time(im->stats, e->ts, e->ts);
    pf_emit(im, bt, e->ts, 0, name, ST_STR_EMPTY, e->src, ST_EV_INSTANT);
    return;
  }
  if (e->kind == FEV_ASYNC_BEGIN || e->kind == FEV_TRACK_BEGIN) {
    im->stats->phases[named ? 'b' : 'S']++;
    if (rp->nasync == rp->cap_async) {
      if (rp->cap_async > 65536 / 2) {
        st_stats_warn(im->stats, "perfetto_async_never_ended", e->src);
        return;
      }
      void *p = rp->async;
      if (!st_grow32(&im->alloc, &p, &rp->cap_async, rp->nasync + 1, sizeof *rp->async, 16)) {
        im->nomem = 1;
        return;
      }
      rp->async = p;
    }
    rp->async[rp->nasync++] =
        (pasync){e->a, name, e->tid, e->ts, e->src, track, (uint8_t)(named && e->b)};
    return;
  }
  im->stats->phases[named ? 'e' : 'F']++;
  /* S/F pair by (process, name, cookie); G/H by (process, track, cookie);
   * suspend_resume by name */
  for (uint32_t i = rp->nasync; i-- > 0;) {
    pasync *a = &rp->async[i];
    int same =
        !named ? a->track == UINT32_MAX && a->pid == e->a && a->name == name && a->cookie == e->tid
        : e->b ? a->sys && a->track == track && a->name == name
               : !a->sys && a->track == track && a->pid == e->a && a->cookie == e->tid;
    if (same) {
      pasync o = *a;
      rp->async[i] = rp->async[--rp->nasync];
      async_emit(rp, &o, e->ts, e->src, 0);
      return;
    }
  }
  st_stats_warn(im->stats, "unmatched_end", e->src);
}

/* The replay state for CPUs [0, ncpu): made on first use, grown. NULL:
 * out of memory. */
static replay *replay_state(st_perfetto_importer *im, uint32_t ncpu) {
  replay *rp = im->replay;
  if (!rp) {
    rp = st_calloc(&im->alloc, 1, sizeof *rp);
    if (!rp) return NULL;
    rp->im = im;
    im->replay = rp;
    for (unsigned s = 1; s < TS_COUNT; s++)
      rp->state_name[s] = pf_intern(im, pf_state_name(s), strlen(pf_state_name(s)));
  }
  if (ncpu > rp->ncpu) {
    pcpu *c = st_realloc_array(&im->alloc, rp->cpus, ncpu, sizeof *c);
    if (!c) return NULL;
    rp->cpus = c;
    uint32_t *bt = st_realloc_array(&im->alloc, rp->cpu_bt, ncpu, sizeof *bt);
    if (!bt) return NULL;
    rp->cpu_bt = bt;
    for (uint32_t k = rp->ncpu; k < ncpu; k++) {
      memset(&rp->cpus[k], 0, sizeof rp->cpus[k]);
      rp->cpus[k].tid = -1;
      rp->cpu_bt[k] = UINT32_MAX;
    }
    rp->ncpu = ncpu;
  }
  return rp;
}

/* Replays the first n records of the order (ord NULL: the array is in
 * order): who belongs to which process and thread names first, then
 * slices and states. */
static void replay_records(st_perfetto_importer *im, const uint32_t *ord, size_t n) {
  const fev *v = im->fevs;
#define AT(i) (ord ? &v[ord[i]] : &v[i])
  /* pass 1: who belongs to which process, and thread names, in time order */
  for (size_t i = 0; i < n; i++) {
    const fev *e = AT(i);
    if (e->kind == FEV_NEWTASK) {
      pthr *creator = pf_thread(im, e->a);
      int64_t ctgid = creator ? (creator->tgid >= 0 ? creator->tgid : creator->tid) : e->a;
      pf_thread_tgid(im, e->tid, e->b ? ctgid : e->tid);
      pf_thread_name(im, e->tid, e->str, NAME_FTRACE);
    } else if (e->kind == FEV_RENAME) {
      pf_thread_name(im, e->tid, e->str, NAME_FTRACE);
    } else if (e->kind == FEV_SWITCH && e->tid > 0) {
      pf_thread_name(im, e->tid, e->str, NAME_FTRACE);
    } else if (e->kind == FEV_WAKING && e->tid > 0) {
      pf_thread_name(im, e->tid, e->str, NAME_FTRACE);
    }
  }
  /* pass 2: slices and states */
  uint32_t ncpu = im->max_cpu ? im->max_cpu : 1;
  for (size_t i = 0; i < n; i++)
    if (AT(i)->cpu >= ncpu) ncpu = AT(i)->cpu + 1u;
  replay *rp = replay_state(im, ncpu);
  if (!rp) {
    im->nomem = 1;
    return;
  }
  for (size_t i = 0; i < n && !im->nomem; i++) {
    const fev *e = AT(i);
    switch (e->kind) {
    case FEV_SWITCH: on_switch(rp, e); break;
    case FEV_WAKING: {
      pthr *t = e->tid > 0 ? pf_thread(im, e->tid) : NULL;
      if (t && t->state != TS_RUNNING && t->state != TS_RUNNABLE && t->state != TS_PREEMPTED)
        set_state(rp, e->tid, TS_RUNNABLE, e->ts, e->src);
      break;
    }
    case FEV_NEWTASK: set_state(rp, e->tid, TS_RUNNABLE, e->ts, e->src); break;
    case FEV_SLICE_BEGIN:
    case FEV_SLICE_END: on_slice(rp, e); break;
    case FEV_ASYNC_BEGIN:
    case FEV_ASYNC_END:
    case FEV_TRACK_INSTANT:
    case FEV_TRACK_BEGIN:
    case FEV_TRACK_END: on_async(rp, e); break;
    default: break;
    }
  }
#undef AT
}

/* Notes CPU cpu's latest staged time (a run just closed). 0: out of memory. */
static int note_cpu_last(st_perfetto_importer *im, uint32_t cpu, int64_t last) {
  if (cpu >= im->ncpu_last) {
    uint32_t n = cpu + 1;
    int64_t *p = st_realloc_array(&im->alloc, im->cpu_last, n, sizeof *p);
    if (!p) return 0;
    for (uint32_t k = im->ncpu_last; k < n; k++) p[k] = INT64_MIN;
    im->cpu_last = p;
    im->ncpu_last = n;
  }
  if (last > im->cpu_last[cpu]) im->cpu_last[cpu] = last;
  return 1;
}

/* A bounded staging (st_perfetto_set_staging_limit): the records older
 * than every CPU's latest staged time can no longer be preceded by one
 * still to come (each CPU's bundles follow each other in time), so they
 * are replayed now and dropped; the rest stay staged. */
static void flush_staged(st_perfetto_importer *im) {
  size_t n = im->nfevs;
  int64_t w = INT64_MAX;
  for (uint32_t c = 0; c < im->ncpu_last; c++)
    if (im->cpu_last[c] != INT64_MIN && im->cpu_last[c] < w) w = im->cpu_last[c];
  int identity = 0;
  uint32_t *ord = n && w != INT64_MAX ? replay_order(im, &identity) : NULL;
  if (!ord && !identity) {
    im->staging_next = im->nfevs * 2; /* nothing to do (or no memory): later */
    return;
  }
  fev *v = im->fevs;
  size_t k = 0;
  while (k < n && (identity ? v[k].ts : v[ord[k]].ts) < w) k++;
  replay_records(im, identity ? NULL : ord, k);
  st_free(&im->alloc, ord);
  /* what stays: in each run, the records from w on (a run is in time order) */
  size_t at = 0, nr = 0;
  if (identity) { /* the array was sorted whole: one run of what stays */
    memmove(v, v + k, (n - k) * sizeof *v);
    at = n - k;
    if (at) im->runs[nr++] = (frun){0, at, v[0].ts, v[at - 1].ts, 0};
  } else {
    for (size_t r = 0; r < im->nruns; r++) {
      frun run = im->runs[r];
      size_t from = run.start;
      while (from < run.end && v[from].ts < w) from++;
      if (from == run.end) continue;
      memmove(v + at, v + from, (run.end - from) * sizeof *v);
      im->runs[nr++] = (frun){at, at + (run.end - from), v[at].ts, run.last, run.cpu};
      at += run.end - from;
    }
  }
  im->nfevs = at;
  im->nruns = nr;
  im->staging_next = at * 2 > im->staging_limit ? at * 2 : im->staging_limit;
}

void pf_sched_note_run(st_perfetto_importer *im, uint32_t cpu, int64_t last) {
  if (!im->staging_limit) return;
  if (!note_cpu_last(im, cpu, last)) {
    im->nomem = 1;
    return;
  }
  if (im->nfevs >= im->staging_next) flush_staged(im);
}

void pf_sched_finish(st_perfetto_importer *im) {
  size_t n = im->nfevs;
  int identity = 0;
  uint32_t *ord = n ? replay_order(im, &identity) : NULL;
  if (n && !ord && !identity) {
    im->nomem = 1;
    return;
  }
  /* the runs only served the order (and the sorted array needs none):
   * freed before the replay fills the builder */
  st_free(&im->alloc, im->runs);
  im->runs = NULL;
  im->nruns = im->cap_runs = 0;
  if (n) replay_records(im, identity ? NULL : ord, n);
  st_free(&im->alloc, ord);
  replay *rp = im->replay;
  if (!rp) goto out; /* nothing was ever staged */
  /* what is still going on at the end runs to the trace end */
  for (uint32_t c = 0; c < rp->ncpu; c++) cpu_close(rp, c, rp->cpus[c].start, 0, ST_EV_UNFINISHED);
  for (uint32_t i = 0; i < im->nthr; i++) {
    pthr *t = &im->thr[i];
    if (t->state != TS_NONE) {
      uint8_t st = t->state;
      int64_t ts = t->state_ts;
      uint64_t src = t->state_src;
      t->state = TS_NONE;
      uint32_t bt = pf_thread_track(im, t, 1);
      pf_emit(im, bt, ts, 0, rp->state_name[st], ST_STR_EMPTY, src, ST_EV_UNFINISHED);
      t = &im->thr[i];
    }
    while (t->depth) {
      open_slice o = t->stack[--t->depth];
      st_stats_warn(im->stats, "unclosed_slice", o.src);
      im->stats->slices++;
      pf_emit(im, pf_thread_track(im, t, 0), o.ts, 0, o.name, ST_STR_EMPTY, o.src,
              ST_EV_UNFINISHED);
      t = &im->thr[i];
    }
  }
  for (uint32_t i = 0; i < rp->nasync; i++)
    async_emit(rp, &rp->async[i], rp->async[i].ts, 0, ST_EV_UNFINISHED);
out:
  pf_sched_free(im);
}

void pf_sched_free(st_perfetto_importer *im) {
  replay *rp = im->replay;
  if (rp) {
    st_free(&im->alloc, rp->cpus);
    st_free(&im->alloc, rp->cpu_bt);
    st_free(&im->alloc, rp->async);
    st_free(&im->alloc, rp);
    im->replay = NULL;
  }
  st_free(&im->alloc, im->cpu_last);
  im->cpu_last = NULL;
  im->ncpu_last = 0;
  st_free(&im->alloc, im->fevs);
  st_free(&im->alloc, im->runs);
  st_free(&im->alloc, im->run_tmp);
  im->fevs = NULL;
  im->runs = NULL;
  im->run_tmp = NULL;
  im->nfevs = im->cap_fevs = im->nruns = im->cap_runs = im->cap_run_tmp = 0;
}
