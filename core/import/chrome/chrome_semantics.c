/* chrome_semantics.c: Chrome trace events -> st_builder, phase by phase
 * (see chrome_semantics.h).
 *
 * Contents
 *   1. state: open async slices (processes and threads: chrome_internal.h)
 *   2. small helpers: interning joined names, warnings
 *   3. event semantics per phase (B/E, X, instants, counters, metadata,
 *      async, legacy async, flows)
 *   4. dispatch, end of input, set-up
 */
#include "chrome_internal.h"
#include "chrome_memory.h"
#include "chrome_samples.h"
#include "import_chrome.h" /* ST_CHROME_GLOBAL_PID */

#include <stdio.h>
#include <string.h>

/* ==== 1. state =========================================================== */

typedef struct aopen { /* an open nestable async b */
  int64_t ts;
  uint64_t src;
  uint32_t name, cat, track;
} aopen;

typedef struct st_chrome_aident { /* one nestable async identity */
  aopen *stack;
  uint32_t depth, cap;
} aident;

typedef struct st_chrome_lopen { /* an open legacy async S */
  int64_t ts, last_ts, step_ts;
  uint64_t src, step_src;
  uint32_t name, cat, track, step_name;
  uint8_t open, has_step;
} lopen;

/* ==== 2. helpers ========================================================= */

static uint32_t intern_join(st_chrome_sem *sem, uint32_t a, const char *sep, uint32_t bid,
                            const char *suffix) {
  size_t na, nb, ns = strlen(sep), nx = strlen(suffix), total;
  const char *sa = st_strtab_get(sem->strs, a, &na);
  const char *sb = st_strtab_get(sem->strs, bid, &nb);
  if (!st_add_size(na, nb, &total) || !st_add_size(total, ns + nx, &total)) {
    sem->nomem = 1;
    return ST_STR_EMPTY;
  }
  if (total > sem->scratch_cap) {
    char *p = st_realloc(&sem->alloc, sem->scratch, total);
    if (!p) {
      sem->nomem = 1;
      return ST_STR_EMPTY;
    }
    sem->scratch = p;
    sem->scratch_cap = total;
  }
  char *o = sem->scratch;
  memcpy(o, sa, na);
  memcpy(o + na, sep, ns);
  memcpy(o + na + ns, sb, nb);
  memcpy(o + na + ns + nb, suffix, nx);
  return st_chrome_sem_intern_bytes(sem, sem->scratch, total);
}

static void warn(st_chrome_sem *sem, const char *kind) {
  st_stats_warn(sem->stats, kind, sem->cur_src);
}

/* ==== 3. event semantics ================================================== */

static void emit(st_chrome_sem *sem, uint32_t track, int64_t ts, int64_t dur, uint32_t name,
                 uint32_t cat, uint64_t src, uint8_t flags) {
  if (track == UINT32_MAX) return;
  st_code c = st_builder_slice(sem->b, track, ts, dur, name, cat, src, flags);
  /* a slice closed by the event being handled (B/E, b/e, S/F): its args
   * are at both events (merged on selection, searched at both) */
  if (c == ST_OK && (flags & ST_EV_HAS_END)) c = st_builder_end_src(sem->b, src, sem->cur_src);
  if (c == ST_ERR_NOMEM)
    sem->nomem = 1;
  else if (c != ST_OK)
    warn(sem, "builder_limit");
}

static void on_complete(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  uint32_t ti = st_chrome_sem_thread(sem, e, pi, 1);
  if (ti == UINT32_MAX) return;
  uint32_t tr = st_chrome_sem_thread_track(sem, &sem->threads[ti], ST_TRACK_SLICES);
  uint32_t name = st_chrome_sem_intern(sem, e->name), cat = st_chrome_sem_intern(sem, e->cat);
  int64_t dur = e->dur;
  uint8_t flags = 0;
  if (!e->has_dur) {
    warn(sem, "missing_dur");
    flags = ST_EV_UNFINISHED;
    dur = 0;
  } else if (dur < 0) {
    warn(sem, "negative_duration");
    dur = 0;
  }
  int64_t endt = e->ts > INT64_MAX - dur ? INT64_MAX : e->ts + dur;
  st_stats_time(sem->stats, e->ts, endt);
  emit(sem, tr, e->ts, dur, name, cat, sem->cur_src, flags);
  sem->stats->slices++;
}

static void on_begin(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  uint32_t ti = st_chrome_sem_thread(sem, e, pi, 1);
  if (ti == UINT32_MAX) return;
  thread *t = &sem->threads[ti];
  if (!st_chrome_sem_grow(sem, (void **)&t->stack, &t->cap, t->depth, sizeof(bopen))) {
    sem->nomem = 1;
    return;
  }
  st_chrome_sem_thread_track(sem, t, ST_TRACK_SLICES);
  t->stack[t->depth++] = (bopen){e->ts, sem->cur_src, st_chrome_sem_intern(sem, e->name),
                                 st_chrome_sem_intern(sem, e->cat)};
  st_stats_time(sem->stats, e->ts, e->ts);
}

static void on_end(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  uint32_t ti = st_chrome_sem_thread(sem, e, pi, 1);
  if (ti == UINT32_MAX) return;
  thread *t = &sem->threads[ti];
  st_stats_time(sem->stats, e->ts, e->ts);
  if (t->depth == 0) {
    warn(sem, "unmatched_end");
    return;
  }
  bopen b = t->stack[--t->depth];
  if (e->name.n && st_chrome_sem_intern(sem, e->name) != b.name) warn(sem, "end_name_mismatch");
  int64_t dur = e->ts - b.ts;
  if (e->ts < b.ts) {
    warn(sem, "negative_duration");
    dur = 0;
  }
  emit(sem, st_chrome_sem_thread_track(sem, t, ST_TRACK_SLICES), b.ts, dur, b.name, b.cat, b.src,
       ST_EV_HAS_END);
  sem->stats->slices++;
}

static void on_instant(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  char scope = e->scope_s.n ? e->scope_s.p[0] : 't';
  uint32_t tr;
  if (scope == 'g') {
    if (sem->global_proc == UINT32_MAX) {
      sem->global_proc = st_chrome_sem_proc_by_key(sem, ST_CHROME_GLOBAL_PID);
      if (sem->global_proc == UINT32_MAX) return;
      proc *g = &sem->procs[sem->global_proc];
      g->named = 1;
      st_builder_process_name(sem->b, g->bidx, st_chrome_sem_intern_bytes(sem, "Global", 6));
      st_builder_process_sort(sem->b, g->bidx, INT32_MIN);
    }
    pi = sem->global_proc;
  }
  if (scope == 'g' || scope == 'p') {
    proc *p = &sem->procs[pi];
    if (p->instants == UINT32_MAX) {
      p->instants = st_builder_track(sem->b, p->bidx, ST_TRACK_INSTANTS, -1, ST_STR_EMPTY);
      if (p->instants == UINT32_MAX) {
        sem->nomem = 1;
        return;
      }
    }
    tr = p->instants;
  } else {
    uint32_t ti = st_chrome_sem_thread(sem, e, pi, 1);
    if (ti == UINT32_MAX) return;
    tr = st_chrome_sem_thread_track(sem, &sem->threads[ti], ST_TRACK_INSTANTS);
  }
  st_stats_time(sem->stats, e->ts, e->ts);
  emit(sem, tr, e->ts, 0, st_chrome_sem_intern(sem, e->name), st_chrome_sem_intern(sem, e->cat),
       sem->cur_src, ST_EV_INSTANT);
  sem->stats->instants++;
  if (st_chrome_is_mem_event(e)) st_chrome_mem_event(sem, e, pi);
}

/* One counter series track: (process, series name). */
static uint32_t counter_track(st_chrome_sem *sem, uint32_t pi, uint32_t series) {
  mkey k = {pi, series, 2};
  uint32_t tr = st_chrome_map_get(&sem->series_map, k);
  if (tr != UINT32_MAX) return tr;
  tr = st_builder_track(sem->b, sem->procs[pi].bidx, ST_TRACK_COUNTER, series, series);
  if (tr == UINT32_MAX || !st_chrome_map_put(sem, &sem->series_map, k, tr)) {
    sem->nomem = 1;
    return UINT32_MAX;
  }
  return tr;
}

static void add_sample(st_chrome_sem *sem, uint32_t tr, int64_t ts, double v) {
  if (tr == UINT32_MAX) return;
  st_builder_note_src(sem->b, sem->cur_src);
  if (st_builder_counter(sem->b, tr, ts, v) == ST_ERR_NOMEM) sem->nomem = 1;
  sem->stats->counter_samples++;
}

static uint32_t counter_group_name(st_chrome_sem *sem, const st_chrome_ev *e) {
  uint32_t name = st_chrome_sem_intern(sem, e->name);
  if (e->id.kind == ST_CHROME_ID_NONE) return name;
  uint32_t id;
  if (e->id.kind == ST_CHROME_ID_STR) {
    id = st_chrome_sem_intern(sem, e->id.s);
  } else {
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)e->id.num);
    id = st_chrome_sem_intern_bytes(sem, num, strlen(num));
  }
  return intern_join(sem, name, "[", id, "]");
}

static void on_counter_entries(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi,
                               uint32_t group) {
  /* XProf: entries: [[ts_us, v1, v2, ...], ...]; one series per value column,
   * named like the counter (or event_stats) if there is one column, else
   * "<name> <column>" */
  enum { MAX_COLS = 16 };
  const char *p = e->entries + 1, *end = e->entries_end - 1, *q;
  uint32_t base_name = e->event_stats.n ? st_chrome_sem_intern(sem, e->event_stats) : group;
  uint32_t tracks[MAX_COLS];
  for (int i = 0; i < MAX_COLS; i++) tracks[i] = UINT32_MAX;
  if (e->entries_end - e->entries < 2 || *e->entries != '[') {
    warn(sem, "counter_without_values");
    return;
  }
  for (;;) {
    p = st_json_ws(p, end);
    if (p < end && *p == ',') p = st_json_ws(p + 1, end);
    if (p >= end || *p != '[') break;
    if (st_json_skip_value(p, end, &q) != ST_JSON_OK) break;
    const char *r = p + 1, *rend = q - 1, *col_v[MAX_COLS + 1], *col_e[MAX_COLS + 1];
    int ncol = 0;
    p = q;
    while (ncol <= MAX_COLS) {
      r = st_json_ws(r, rend);
      if (r < rend && *r == ',') r = st_json_ws(r + 1, rend);
      if (r >= rend) break;
      const char *ve;
      if (st_json_skip_value(r, rend, &ve) != ST_JSON_OK) ve = st_json_number_end(r, rend);
      if (ve == r) break;
      col_v[ncol] = r;
      col_e[ncol++] = ve;
      r = ve;
    }
    int64_t ts;
    if (ncol < 2) continue;
    if (!st_chrome_value_ns(col_v[0], col_e[0], &ts)) {
      warn(sem, "bad_timestamp");
      continue;
    }
    st_stats_time(sem->stats, ts, ts);
    for (int c = 1; c < ncol && c <= MAX_COLS; c++) {
      double v;
      if (!st_chrome_value_double(col_v[c], col_e[c], &v)) {
        warn(sem, "bad_counter_value");
        continue;
      }
      if (tracks[c - 1] == UINT32_MAX) {
        uint32_t series = base_name;
        if (ncol > 2) {
          char num[16];
          snprintf(num, sizeof num, "%d", c - 1);
          series = intern_join(sem, base_name, " ",
                               st_chrome_sem_intern_bytes(sem, num, strlen(num)), "");
        }
        tracks[c - 1] = counter_track(sem, pi, series);
      }
      add_sample(sem, tracks[c - 1], ts, v);
    }
  }
}

static void on_counter(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  if (e->tid.kind) st_chrome_sem_thread(sem, e, pi, 1);
  uint32_t group = counter_group_name(sem, e);
  if (e->entries) {
    on_counter_entries(sem, e, pi, group);
    return;
  }
  if (!e->has_ts) {
    warn(sem, "missing_ts");
    return;
  }
  st_stats_time(sem->stats, e->ts, e->ts);
  /* series naming is decided by the group's first sample: one key -> the
   * counter's name alone, several -> "<name> <key>" */
  mkey gk = {pi, group, 3};
  uint32_t mode = st_chrome_map_get(&sem->counter_map, gk);
  st_chrome_objit it = st_chrome_objit_of(e->args, e->args_end);
  st_json_str key;
  const char *v, *ve;
  if (mode == UINT32_MAX) {
    uint32_t n = 0;
    while (st_chrome_objit_next(&it, &key, &v, &ve)) n++;
    mode = n == 1 ? 1 : 2;
    if (!st_chrome_map_put(sem, &sem->counter_map, gk, mode)) {
      sem->nomem = 1;
      return;
    }
    it = st_chrome_objit_of(e->args, e->args_end);
  }
  int any = 0;
  while (st_chrome_objit_next(&it, &key, &v, &ve)) {
    double x;
    any = 1;
    if (!st_chrome_value_double(v, ve, &x)) {
      warn(sem, "bad_counter_value");
      continue;
    }
    uint32_t series = group;
    if (mode == 2) {
      /* cache (group, key) -> track */
      uint32_t kid = st_chrome_sem_intern(sem, key);
      mkey sk = {pi, ((uint64_t)group << 32) | kid, 4};
      uint32_t tr = st_chrome_map_get(&sem->series_map, sk);
      if (tr == UINT32_MAX) {
        series = intern_join(sem, group, " ", kid, "");
        tr = counter_track(sem, pi, series);
        if (tr == UINT32_MAX || !st_chrome_map_put(sem, &sem->series_map, sk, tr)) {
          sem->nomem = 1;
          return;
        }
      }
      add_sample(sem, tr, e->ts, x);
    } else {
      add_sample(sem, counter_track(sem, pi, series), e->ts, x);
    }
  }
  if (!any) warn(sem, "counter_without_values");
}

static void on_metadata(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  st_chrome_objit it = st_chrome_objit_of(e->args, e->args_end);
  st_json_str key, s;
  const char *v, *ve;
  int what = 0; /* 1 process_name 2 process_labels 3 process_sort 4 thread_name 5 thread_sort */
  if (st_chrome_str_eq(e->name, "process_name"))
    what = 1;
  else if (st_chrome_str_eq(e->name, "process_labels"))
    what = 2;
  else if (st_chrome_str_eq(e->name, "process_sort_index"))
    what = 3;
  else if (st_chrome_str_eq(e->name, "thread_name"))
    what = 4;
  else if (st_chrome_str_eq(e->name, "thread_sort_index"))
    what = 5;
  if (!what) return;
  const char *want = what == 2 ? "labels" : (what == 3 || what == 5) ? "sort_index" : "name";
  while (st_chrome_objit_next(&it, &key, &v, &ve)) {
    if (!st_chrome_str_eq(key, want)) continue;
    proc *p = &sem->procs[pi];
    if (what == 1 || what == 2 || what == 4) {
      if (!st_chrome_value_str(v, ve, &s)) continue;
      uint32_t id = st_chrome_sem_intern(sem, s);
      if (what == 1) {
        p->named = 1;
        st_builder_process_name(sem->b, p->bidx, id);
      } else if (what == 2) {
        st_builder_process_labels(sem->b, p->bidx, id);
      } else {
        uint32_t ti = st_chrome_sem_thread(sem, e, pi, 0);
        if (ti == UINT32_MAX) return;
        thread *t = &sem->threads[ti];
        t->name = id;
        t->has_name = 1;
        if (t->slices != UINT32_MAX) st_builder_track_name(sem->b, t->slices, id);
        if (t->instants != UINT32_MAX) st_builder_track_name(sem->b, t->instants, id);
      }
    } else {
      double d;
      if (!st_chrome_value_double(v, ve, &d) || d != d) continue;
      int32_t si = d < INT32_MIN ? INT32_MIN : d > INT32_MAX ? INT32_MAX : (int32_t)d;
      if (what == 3) {
        st_builder_process_sort(sem->b, p->bidx, si);
      } else {
        uint32_t ti = st_chrome_sem_thread(sem, e, pi, 0);
        if (ti == UINT32_MAX) return;
        thread *t = &sem->threads[ti];
        t->sort = si;
        t->has_sort = 1;
        if (t->slices != UINT32_MAX) st_builder_track_sort(sem->b, t->slices, si);
        if (t->instants != UINT32_MAX) st_builder_track_sort(sem->b, t->instants, si);
      }
    }
    return;
  }
}

/* An id as map words: (tag, value). Strings are compared as strings. */
static void id_words(st_chrome_sem *sem, const st_chrome_id *v, uint64_t *tag, uint64_t *val) {
  if (v->kind == ST_CHROME_ID_STR) {
    *tag = 2;
    *val = st_chrome_sem_intern(sem, v->s);
  } else {
    *tag = v->kind == ST_CHROME_ID_NUM ? 1 : 0;
    *val = (uint64_t)v->num;
  }
}

static uint32_t async_track(st_chrome_sem *sem, uint32_t pi, uint32_t name, uint32_t cat) {
  uint32_t group = cat != ST_STR_EMPTY ? cat : name;
  uint32_t tr = st_builder_track(sem->b, sem->procs[pi].bidx, ST_TRACK_ASYNC, group, group);
  if (tr == UINT32_MAX) sem->nomem = 1;
  return tr;
}

static void on_async(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi, char ph) {
  const st_chrome_id *id = e->has_id2 ? &e->id2 : &e->id;
  if (id->kind == ST_CHROME_ID_NONE) {
    warn(sem, "async_without_id");
    return;
  }
  if (e->tid.kind) st_chrome_sem_thread(sem, e, pi, 1);
  uint32_t name = st_chrome_sem_intern(sem, e->name), cat = st_chrome_sem_intern(sem, e->cat);
  uint64_t tag, val;
  id_words(sem, id, &tag, &val);
  int local = e->has_id2 && e->id2_local;
  mkey k = {((uint64_t)cat << 32) | st_chrome_sem_intern(sem, e->scope),
            tag | (local ? (uint64_t)(pi + 1) << 8 : 0), val};
  uint32_t tr = async_track(sem, pi, name, cat);
  st_stats_time(sem->stats, e->ts, e->ts);
  if (ph == 'n') {
    emit(sem, tr, e->ts, 0, name, cat, sem->cur_src, ST_EV_INSTANT);
    sem->stats->instants++;
    return;
  }
  uint32_t ai = st_chrome_map_get(&sem->async_map, k);
  if (ai == UINT32_MAX) {
    if (ph == 'e') {
      warn(sem, "unmatched_async_end");
      return;
    }
    if (!st_chrome_sem_grow(sem, (void **)&sem->aids, &sem->caids, sem->naids, sizeof(aident)) ||
        !st_chrome_map_put(sem, &sem->async_map, k, sem->naids)) {
      sem->nomem = 1;
      return;
    }
    ai = sem->naids++;
    sem->aids[ai] = (aident){0};
  }
  aident *a = &sem->aids[ai];
  if (ph == 'b') {
    if (!st_chrome_sem_grow(sem, (void **)&a->stack, &a->cap, a->depth, sizeof(aopen))) {
      sem->nomem = 1;
      return;
    }
    a->stack[a->depth++] = (aopen){e->ts, sem->cur_src, name, cat, tr};
    return;
  }
  /* e: close the nearest open b with the same name (any, if e has no name) */
  uint32_t i = a->depth;
  while (i > 0 && e->name.n && a->stack[i - 1].name != name) i--;
  if (i == 0) {
    warn(sem, "unmatched_async_end");
    return;
  }
  while (a->depth > i) { /* b's opened above the match end here, unfinished */
    aopen o = a->stack[--a->depth];
    warn(sem, "async_unclosed");
    emit(sem, o.track, o.ts, e->ts - o.ts, o.name, o.cat, o.src, 0);
    sem->stats->async_slices++;
  }
  aopen o = a->stack[--a->depth];
  if (e->ts < o.ts) warn(sem, "negative_duration");
  emit(sem, o.track, o.ts, e->ts - o.ts, o.name, o.cat, o.src, ST_EV_HAS_END);
  sem->stats->async_slices++;
}

static void on_legacy_async(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi, char ph) {
  if (e->id.kind == ST_CHROME_ID_NONE) {
    warn(sem, "async_without_id");
    return;
  }
  if (e->tid.kind) st_chrome_sem_thread(sem, e, pi, 1);
  uint32_t name = st_chrome_sem_intern(sem, e->name), cat = st_chrome_sem_intern(sem, e->cat);
  uint64_t tag, val;
  id_words(sem, &e->id, &tag, &val);
  mkey k = {name, tag, val};
  st_stats_time(sem->stats, e->ts, e->ts);
  uint32_t li = st_chrome_map_get(&sem->legacy_map, k);
  lopen *o = li != UINT32_MAX ? &sem->lopens[li] : NULL;
  if (ph == 'S') {
    if (o && o->open) {
      warn(sem, "async_unclosed");
      emit(sem, o->track, o->ts, 0, o->name, o->cat, o->src, ST_EV_UNFINISHED);
      sem->stats->async_slices++;
    }
    if (!o) {
      if (!st_chrome_sem_grow(sem, (void **)&sem->lopens, &sem->clopens, sem->nlopens,
                              sizeof(lopen)) ||
          !st_chrome_map_put(sem, &sem->legacy_map, k, sem->nlopens)) {
        sem->nomem = 1;
        return;
      }
      o = &sem->lopens[sem->nlopens++];
    }
    *o = (lopen){.ts = e->ts,
                 .last_ts = e->ts,
                 .src = sem->cur_src,
                 .name = name,
                 .cat = cat,
                 .track = async_track(sem, pi, name, cat),
                 .open = 1};
    return;
  }
  if (!o || !o->open) {
    warn(sem, ph == 'F' ? "unmatched_async_end" : "unmatched_async_step");
    return;
  }
  /* the step name: args.step, else the slice's name */
  uint32_t step = o->name;
  st_chrome_objit it = st_chrome_objit_of(e->args, e->args_end);
  st_json_str key, s;
  const char *v, *ve;
  while (st_chrome_objit_next(&it, &key, &v, &ve))
    if (st_chrome_str_eq(key, "step") && st_chrome_value_str(v, ve, &s))
      step = st_chrome_sem_intern(sem, s);
  if (o->has_step) { /* a T step runs until this event */
    emit(sem, o->track, o->step_ts, e->ts - o->step_ts, o->step_name, o->cat, o->step_src, 0);
    sem->stats->async_slices++;
    o->has_step = 0;
  }
  if (ph == 'T') {
    o->has_step = 1;
    o->step_ts = e->ts;
    o->step_name = step;
    o->step_src = sem->cur_src;
  } else if (ph == 'p') {
    emit(sem, o->track, o->last_ts, e->ts - o->last_ts, step, o->cat, sem->cur_src, 0);
    sem->stats->async_slices++;
  } else { /* F */
    emit(sem, o->track, o->ts, e->ts - o->ts, o->name, o->cat, o->src, ST_EV_HAS_END);
    sem->stats->async_slices++;
    o->open = 0;
  }
  o->last_ts = e->ts;
}

/* Flows: each flow event becomes a point of the builder, keyed by its
 * identity; st_builder_finish chains the points of an identity in time
 * order (writers do not sort) and binds them to slices (trace.h).
 *
 * The builder's key is 64 bits, equal exactly when the identities are
 * (the map words k: v1 {cat << 32 | name, id kind, id}, v2 {UINT64_MAX,
 * id kind | 0x100, id}). Most identities are written into it whole, so a
 * flow-heavy trace (one identity per arrow) keeps no map entry per flow:
 *   bit 63 = 0: class (14 bits: 0 = v2, else 1 + the index of the v1
 *     event's (cat, name) pair in flow_class_map) << 49 | string id << 48
 *     | the id (a number, or the interned string) below 2^48;
 *   bit 63 = 1: the index of the identity in flow_map, for the few that do
 *     not fit (ids of 2^48 and up, negative numbers, past 16383 pairs).
 * An identity always takes the same branch (a pair's class, once given, is
 * kept; none is given once they run out), so both keep identities apart. */
#define FLOW_ID_BITS 48
#define FLOW_CLASS_MAX ((1u << 14) - 1)

/* The builder key of identity k; 0 if out of memory. */
static int flow_key(st_chrome_sem *sem, mkey k, uint64_t *key) {
  uint32_t cls = 0;
  if (k.a != UINT64_MAX) { /* v1 (cat and name are interned ids: never both UINT32_MAX) */
    mkey pair = {k.a, 0, 0};
    cls = st_chrome_map_get(&sem->flow_class_map, pair);
    if (cls == UINT32_MAX && sem->flow_class_map.count < FLOW_CLASS_MAX) {
      cls = sem->flow_class_map.count + 1;
      if (!st_chrome_map_put(sem, &sem->flow_class_map, pair, cls)) return 0;
    }
  }
  if (cls != UINT32_MAX && k.c < (1ull << FLOW_ID_BITS)) {
    uint64_t str = (k.b & 0xFF) == 2;
    *key = (uint64_t)cls << (FLOW_ID_BITS + 1) | str << FLOW_ID_BITS | k.c;
    return 1;
  }
  uint32_t fi = st_chrome_map_get(&sem->flow_map, k);
  if (fi == UINT32_MAX) {
    if (!st_chrome_map_put(sem, &sem->flow_map, k, sem->nflows)) return 0;
    fi = sem->nflows++;
  }
  *key = 1ull << 63 | fi;
  return 1;
}

static void flow_point(st_chrome_sem *sem, mkey k, unsigned role, st_flow_bind bind, uint32_t track,
                       int64_t ts) {
  if (track == UINT32_MAX) return;
  uint64_t key;
  if (!flow_key(sem, k, &key)) {
    sem->nomem = 1;
    return;
  }
  st_code c = st_builder_flow(sem->b, key, role, bind, track, ts, sem->cur_src);
  if (c == ST_ERR_NOMEM)
    sem->nomem = 1;
  else if (c != ST_OK)
    warn(sem, "builder_limit");
}

/* True if s contains the bytes of w (raw, escapes not decoded). */
static int str_has(st_json_str s, const char *w) {
  size_t n = strlen(w);
  for (size_t i = 0; i + n <= s.n; i++)
    if (!memcmp(s.p + i, w, n)) return 1;
  return 0;
}

/* v1: s and t bind to the slice enclosing ts on their thread; f to the
 * next slice starting there at/after ts, or (bp "e", or a cat with "input"
 * or "ipc.flow", as catapult does) the enclosing one. */
static void on_flow_v1(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi, char ph) {
  /* a flow without tid is placed on tid = pid but does not count a thread */
  uint32_t ti = st_chrome_sem_thread(sem, e, pi, e->tid.kind ? 1 : 0);
  if (e->has_ts) st_stats_time(sem->stats, e->ts, e->ts);
  if (e->id.kind == ST_CHROME_ID_NONE) {
    warn(sem, "flow_without_id");
    return;
  }
  if (!e->has_ts) {
    warn(sem, "missing_ts");
    return;
  }
  if (ti == UINT32_MAX) return;
  uint64_t tag, val;
  id_words(sem, &e->id, &tag, &val);
  mkey k = {((uint64_t)st_chrome_sem_intern(sem, e->cat) << 32) |
                st_chrome_sem_intern(sem, e->name),
            tag, val};
  st_flow_bind bind = ST_FLOW_BIND_ENCLOSING;
  unsigned role = ph == 's'   ? ST_FLOW_OUT
                  : ph == 't' ? ST_FLOW_IN | ST_FLOW_OUT
                              : ST_FLOW_IN | ST_FLOW_END;
  if (ph == 'f' && !st_chrome_str_eq(e->bp, "e") && !str_has(e->cat, "input") &&
      !str_has(e->cat, "ipc.flow"))
    bind = ST_FLOW_BIND_NEXT;
  flow_point(sem, k, role, bind,
             st_chrome_sem_thread_track(sem, &sem->threads[ti], ST_TRACK_SLICES), e->ts);
}

/* v2: the event's own slice (X or B on its thread; b or n on its async
 * track) is the end point. */
static void on_flow_v2(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi, unsigned char ph) {
  if (!e->flow_in && !e->flow_out) {
    warn(sem, "flow_without_direction");
    return;
  }
  uint32_t track = UINT32_MAX;
  if (!e->has_ts) return; /* the event itself is dropped (missing_ts) */
  if (ph == 'X' || ph == 'B') {
    uint32_t ti = st_chrome_sem_thread(sem, e, pi, 1);
    if (ti != UINT32_MAX)
      track = st_chrome_sem_thread_track(sem, &sem->threads[ti], ST_TRACK_SLICES);
  } else if (ph == 'b' || ph == 'n') {
    track =
        async_track(sem, pi, st_chrome_sem_intern(sem, e->name), st_chrome_sem_intern(sem, e->cat));
  } else {
    warn(sem, "flow_unbound"); /* no slice of its own to bind to */
    return;
  }
  uint64_t tag, val;
  id_words(sem, &e->bind_id, &tag, &val);
  mkey k = {UINT64_MAX, tag | 0x100, val};
  unsigned role = (e->flow_in ? ST_FLOW_IN : 0) | (e->flow_out ? ST_FLOW_OUT : 0);
  flow_point(sem, k, role, ST_FLOW_BIND_EVENT, track, e->ts);
}

/* ==== 4. dispatch, end of input, set-up ================================== */

static void handle_event(st_chrome_sem *sem, const st_chrome_ev *e) {
  st_stats *st = sem->stats;
  st->events++;
  unsigned char c = 0;
  if (!e->has_ph || e->ph.n == 0) {
    st->phases[128]++;
  } else {
    char one[48];
    const char *php = e->ph.p;
    size_t phn = e->ph.n;
    if (e->ph.esc) { /* decode a prefix: only the first character and the length matter */
      size_t n = phn < 12 ? phn : 12;
      php = one;
      phn = st_json_unescape(e->ph.p, n, one);
      if (e->ph.n > 12 && phn < 2) phn = 2;
    }
    c = (unsigned char)php[0];
    if (phn == 1 && c < 128)
      st->phases[c]++;
    else
      st->phases_other++;
  }
  if (e->nkeys == 0) return; /* the {} sentinel */
  if (!e->has_ph || e->ph.n == 0) {
    warn(sem, "missing_ph");
    if (e->pid.kind) st_chrome_sem_proc(sem, e);
    return;
  }
  uint32_t pi = st_chrome_sem_proc(sem, e);
  if (pi == UINT32_MAX) return;
  if (c != 'M' && e->has_ts == 0 && e->bad_ts) warn(sem, "bad_timestamp");
  if (e->bad_dur) warn(sem, "bad_duration");
  if (e->bind_id.kind) on_flow_v2(sem, e, pi, c);
  if (c == 'M') {
    on_metadata(sem, e, pi);
    return;
  }
  int needs_ts = c != 'C' && c != 's' && c != 't' && c != 'f';
  if (needs_ts && !e->has_ts) {
    if (!e->bad_ts) warn(sem, "missing_ts");
    if (e->tid.kind) st_chrome_sem_thread(sem, e, pi, 1);
    return;
  }
  switch (c) {
  case 'X': on_complete(sem, e, pi); break;
  case 'B': on_begin(sem, e, pi); break;
  case 'E': on_end(sem, e, pi); break;
  case 'i':
  case 'I':
    if (e->name.n == 10 && st_chrome_str_eq(e->name, "CpuProfile")) { /* a whole V8 profile */
      if (e->tid.kind) st_chrome_sem_thread(sem, e, pi, 1);
      st_stats_time(st, e->ts, e->ts);
      st_chrome_samples_event(sem, e, pi);
      break;
    }
    on_instant(sem, e, pi);
    break;
  case 'R': on_instant(sem, e, pi); break;
  case 'C': on_counter(sem, e, pi); break;
  case 'b':
  case 'e':
  case 'n': on_async(sem, e, pi, (char)c); break;
  case 'S':
  case 'T':
  case 'p':
  case 'F': on_legacy_async(sem, e, pi, (char)c); break;
  case 's':
  case 't':
  case 'f': on_flow_v1(sem, e, pi, (char)c); break;
  case 'P':
    if (e->tid.kind) st_chrome_sem_thread(sem, e, pi, 1);
    st_stats_time(st, e->ts, e->ts);
    st_chrome_samples_event(sem, e, pi);
    break;
  case 'O':
  case 'N':
  case 'D':
  case 'c':
  case 'V':
  case 'v':
  case '(':
  case ')':
    if (e->tid.kind) st_chrome_sem_thread(sem, e, pi, 1);
    st_stats_time(st, e->ts, e->ts);
    warn(sem, "skipped_phase");
    break;
  default:
    if (e->tid.kind) st_chrome_sem_thread(sem, e, pi, 1);
    st_stats_time(st, e->ts, e->ts);
    warn(sem, "unknown_phase");
    break;
  }
}

/* Closes everything still open at the end of input. */
static void close_open(st_chrome_sem *sem) {
  st_chrome_samples_close(sem);
  for (uint32_t i = 0; i < sem->nthreads; i++) { /* "<thread name> samples", its order */
    thread *t = &sem->threads[i];
    if (t->samples == UINT32_MAX) continue;
    if (t->has_name)
      st_builder_track_name(sem->b, t->samples,
                            intern_join(sem, t->name, " ", ST_STR_EMPTY, "samples"));
    if (t->has_sort) st_builder_track_sort(sem->b, t->samples, t->sort);
  }
  for (uint32_t i = 0; i < sem->nthreads; i++) {
    thread *t = &sem->threads[i];
    while (t->depth > 0) {
      bopen b = t->stack[--t->depth];
      sem->cur_src = b.src;
      warn(sem, "unclosed_begin");
      emit(sem, st_chrome_sem_thread_track(sem, t, ST_TRACK_SLICES), b.ts, 0, b.name, b.cat, b.src,
           ST_EV_UNFINISHED);
      sem->stats->slices++;
    }
  }
  for (uint32_t i = 0; i < sem->naids; i++) {
    aident *a = &sem->aids[i];
    while (a->depth > 0) {
      aopen o = a->stack[--a->depth];
      sem->cur_src = o.src;
      warn(sem, "unclosed_async_begin");
      emit(sem, o.track, o.ts, 0, o.name, o.cat, o.src, ST_EV_UNFINISHED);
      sem->stats->async_slices++;
    }
  }
  for (uint32_t i = 0; i < sem->nlopens; i++) {
    lopen *o = &sem->lopens[i];
    if (!o->open) continue;
    sem->cur_src = o->src;
    warn(sem, "unclosed_async_begin");
    emit(sem, o->track, o->ts, 0, o->name, o->cat, o->src, ST_EV_UNFINISHED);
    sem->stats->async_slices++;
    o->open = 0;
  }
  st_chrome_mem_close(sem);
}

void st_chrome_sem_init(st_chrome_sem *sem, const st_alloc *a, st_builder *b, st_stats *stats) {
  *sem = (st_chrome_sem){0};
  sem->alloc = *a;
  sem->b = b;
  sem->strs = st_builder_strings(b);
  sem->stats = stats;
  sem->last_thread = UINT32_MAX;
  sem->global_proc = UINT32_MAX;
}

void st_chrome_sem_free(st_chrome_sem *sem) {
  st_chrome_samples_free(sem);
  st_chrome_mem_free(sem);
  for (uint32_t i = 0; i < sem->nthreads; i++) st_free(&sem->alloc, sem->threads[i].stack);
  for (uint32_t i = 0; i < sem->naids; i++) st_free(&sem->alloc, sem->aids[i].stack);
  map *maps[] = {&sem->proc_map,  &sem->thread_map, &sem->counter_map, &sem->series_map,
                 &sem->async_map, &sem->legacy_map, &sem->flow_map,    &sem->flow_class_map};
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) st_chrome_map_free(sem, maps[i]);
  st_free(&sem->alloc, sem->threads);
  st_free(&sem->alloc, sem->procs);
  st_free(&sem->alloc, sem->aids);
  st_free(&sem->alloc, sem->lopens);
  st_free(&sem->alloc, sem->scratch);
  st_free(&sem->alloc, sem->memo);
}

int st_chrome_sem_memo(st_chrome_sem *sem, int on) {
  sem->memo_on = 0;
  if (!on) return 1;
  if (!sem->memo) sem->memo = st_malloc(&sem->alloc, sizeof *sem->memo);
  if (!sem->memo) return 0;
  memset(sem->memo->p, 0, sizeof sem->memo->p);
  memset(sem->memo->short_tag, 0, sizeof sem->memo->short_tag);
  sem->memo_on = 1;
  return 1;
}

int st_chrome_sem_event(st_chrome_sem *sem, const st_chrome_ev *e, uint64_t src) {
  sem->cur_src = src;
  handle_event(sem, e);
  return !sem->nomem;
}

int st_chrome_sem_sample(st_chrome_sem *sem, const st_chrome_ev *e, uint64_t src) {
  sem->cur_src = src;
  st_chrome_samples_global(sem, e);
  return !sem->nomem;
}

int st_chrome_sem_stack_frame(st_chrome_sem *sem, st_json_str key, const char *v, const char *vend,
                              uint64_t src) {
  sem->cur_src = src;
  st_chrome_samples_frame(sem, key, v, vend);
  return !sem->nomem;
}

int st_chrome_sem_close(st_chrome_sem *sem) {
  close_open(sem);
  return !sem->nomem;
}
