/* chrome_memory.c: Kineto's `[memory]` instants -> memory events and the
 * devices' allocated / reserved counter tracks (see chrome_memory.h). */
#include "chrome_memory.h"
#include "chrome_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct st_chrome_memlist {
  st_mem_event *ev;
  size_t n, cap;
} memlist;

/* An integer value (number or numeric string) exactly, up to 2^64 - 1 in
 * magnitude; falls back to a double's value (rounded toward zero). */
static int value_int(const char *v, const char *vend, int *neg, uint64_t *out) {
  st_json_str s;
  const char *p = v, *e = vend;
  if (st_chrome_value_str(v, vend, &s)) {
    if (s.esc) return 0;
    p = s.p;
    e = s.p + s.n;
  }
  *neg = 0;
  if (p < e && *p == '-') {
    *neg = 1;
    p++;
  }
  uint64_t x = 0;
  const char *d = p;
  while (p < e && *p >= '0' && *p <= '9') {
    unsigned dig = (unsigned)(*p - '0');
    if (x > (UINT64_MAX - dig) / 10) break;
    x = x * 10 + dig;
    p++;
  }
  if (p == e && p > d) {
    *out = x;
    return 1;
  }
  double f;
  if (!st_chrome_value_double(v, vend, &f) || !(fabs(f) < 1.8e19)) return 0;
  *neg = f < 0;
  *out = (uint64_t)fabs(f);
  return 1;
}

static int64_t clamp_signed(int neg, uint64_t x) {
  if (x > (uint64_t)INT64_MAX) return neg ? -INT64_MAX : INT64_MAX;
  return neg ? -(int64_t)x : (int64_t)x;
}

void st_chrome_mem_event(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi) {
  st_mem_event m = {.ts_abs_ns = e->ts,
                    .total_alloc = NAN,
                    .total_reserved = NAN,
                    .src = sem->cur_src,
                    .device_type = -1,
                    .device_id = -1,
                    .op = ST_STR_NONE};
  uint32_t ti = st_chrome_sem_thread(sem, e, pi, 0);
  if (ti == UINT32_MAX) return;
  m.pid = sem->procs[pi].pid;
  m.tid = sem->threads[ti].tid;
  st_chrome_objit it = st_chrome_objit_of(e->args, e->args_end);
  st_json_str key;
  const char *v, *ve;
  int has_bytes = 0;
  while (st_chrome_objit_next(&it, &key, &v, &ve)) {
    int neg;
    uint64_t x;
    if (key.esc || key.n < 4 || key.n > 15) continue; /* none of the keys read */
    if (st_chrome_str_eq(key, "Bytes")) {
      if (value_int(v, ve, &neg, &x)) {
        m.bytes = clamp_signed(neg, x);
        has_bytes = 1;
      }
    } else if (st_chrome_str_eq(key, "Addr")) {
      if (value_int(v, ve, &neg, &x)) m.addr = neg ? (uint64_t)0 - x : x;
    } else if (st_chrome_str_eq(key, "Total Allocated")) {
      double d;
      if (st_chrome_value_double(v, ve, &d) && isfinite(d)) m.total_alloc = d;
    } else if (st_chrome_str_eq(key, "Total Reserved")) {
      double d;
      if (st_chrome_value_double(v, ve, &d) && isfinite(d)) m.total_reserved = d;
    } else if (st_chrome_str_eq(key, "Device Type")) {
      if (value_int(v, ve, &neg, &x) && x <= INT32_MAX)
        m.device_type = neg ? -(int32_t)x : (int32_t)x;
    } else if (st_chrome_str_eq(key, "Device Id")) {
      if (value_int(v, ve, &neg, &x) && x <= INT32_MAX)
        m.device_id = neg ? -(int32_t)x : (int32_t)x;
    }
  }
  if (!has_bytes) {
    st_stats_warn(sem->stats, "memory_event_without_bytes", sem->cur_src);
    return;
  }
  /* the device's section: the CPU's is the event's process, a GPU's is
   * Kineto's process of that device (pid = its id) */
  m.dev_pid = m.device_type > 0 && m.device_id >= 0 ? m.device_id : m.pid;
  if (m.device_type <= 0) m.device_id = -1;
  memlist *l = sem->mem;
  if (!l) {
    l = sem->mem = st_malloc(&sem->alloc, sizeof *l);
    if (!l) {
      sem->nomem = 1;
      return;
    }
    *l = (memlist){0};
  }
  if (l->n == l->cap) {
    void *p = l->ev;
    if (!st_grow_from(&sem->alloc, &p, &l->cap, l->n + 1, sizeof *l->ev, 256)) {
      sem->nomem = 1;
      return;
    }
    l->ev = p;
  }
  l->ev[l->n++] = m;
}

static int by_time(const void *a, const void *b) {
  const st_mem_event *x = a, *y = b;
  if (x->ts_abs_ns != y->ts_abs_ns) return x->ts_abs_ns < y->ts_abs_ns ? -1 : 1;
  return x->src < y->src ? -1 : x->src > y->src;
}

/* the device's key: (section pid, type, id) */
typedef struct devacc {
  int64_t dev_pid;
  int32_t type, id;
  uint32_t alloc_track, reserved_track;
  int has_total;
  double sum, last_reserved; /* last_reserved: NaN before the first */
} devacc;

static uint32_t series_track(st_chrome_sem *sem, const devacc *d, const char *what) {
  char buf[96];
  if (d->type <= 0)
    snprintf(buf, sizeof buf, "Memory %s (CPU)", what);
  else if (d->type == 1)
    snprintf(buf, sizeof buf, "Memory %s (GPU %d)", what, (int)d->id);
  else
    snprintf(buf, sizeof buf, "Memory %s (device %d:%d)", what, (int)d->type, (int)d->id);
  uint32_t name = st_chrome_sem_intern_bytes(sem, buf, strlen(buf));
  uint32_t pi = st_chrome_sem_proc_by_key(sem, d->dev_pid);
  if (pi == UINT32_MAX) {
    sem->nomem = 1;
    return UINT32_MAX;
  }
  uint32_t tr = st_builder_track(sem->b, sem->procs[pi].bidx, ST_TRACK_COUNTER,
                                 (int64_t)name | ((int64_t)1 << 40), name);
  if (tr == UINT32_MAX) sem->nomem = 1;
  return tr;
}

static void sample(st_chrome_sem *sem, uint32_t tr, const st_mem_event *m, double v) {
  if (tr == UINT32_MAX) return;
  st_builder_note_src(sem->b, m->src);
  if (st_builder_counter(sem->b, tr, m->ts_abs_ns, v) == ST_ERR_NOMEM) sem->nomem = 1;
  sem->stats->counter_samples++;
}

void st_chrome_mem_close(st_chrome_sem *sem) {
  memlist *l = sem->mem;
  if (!l || !l->n || sem->nomem) return;
  int sorted = 1; /* Kineto writes them in time order: no sort then */
  for (size_t i = 1; i < l->n && sorted; i++) sorted = by_time(&l->ev[i - 1], &l->ev[i]) <= 0;
  if (!sorted) qsort(l->ev, l->n, sizeof *l->ev, by_time);
  /* devices, in order of first appearance (few: a linear scan) */
  devacc *devs = NULL;
  uint32_t nd = 0, cd = 0;
  for (size_t i = 0; i < l->n && !sem->nomem; i++) {
    const st_mem_event *m = &l->ev[i];
    uint32_t d = 0;
    while (d < nd && !(devs[d].dev_pid == m->dev_pid && devs[d].type == m->device_type &&
                       devs[d].id == m->device_id))
      d++;
    if (d == nd) {
      if (!st_chrome_sem_grow(sem, (void **)&devs, &cd, nd, sizeof *devs)) {
        sem->nomem = 1;
        break;
      }
      devs[nd] =
          (devacc){m->dev_pid, m->device_type, m->device_id, UINT32_MAX, UINT32_MAX, 0, 0, NAN};
      /* "Total Allocated" is used when the device's events carry it */
      for (size_t j = i; j < l->n; j++)
        if (l->ev[j].dev_pid == m->dev_pid && l->ev[j].device_type == m->device_type &&
            l->ev[j].device_id == m->device_id && !isnan(l->ev[j].total_alloc)) {
          devs[nd].has_total = 1;
          break;
        }
      devs[nd].alloc_track = series_track(sem, &devs[nd], "allocated");
      nd++;
    }
    devacc *dv = &devs[d];
    dv->sum += (double)m->bytes;
    if (!dv->has_total)
      sample(sem, dv->alloc_track, m, dv->sum);
    else if (!isnan(m->total_alloc))
      sample(sem, dv->alloc_track, m, m->total_alloc);
    if (!isnan(m->total_reserved) && m->total_reserved != dv->last_reserved) { /* its changes */
      if (dv->reserved_track == UINT32_MAX) dv->reserved_track = series_track(sem, dv, "reserved");
      sample(sem, dv->reserved_track, m, m->total_reserved);
      dv->last_reserved = m->total_reserved;
    }
  }
  st_free(&sem->alloc, devs);
  if (sem->nomem) return;
  st_mem_event *ev = l->ev;
  if (l->n < l->cap - l->cap / 4) { /* a quarter or more unused: give it back */
    st_mem_event *p = st_realloc_array(&sem->alloc, ev, l->n, sizeof *p);
    if (p) ev = p;
  }
  st_builder_mem_events(sem->b, ev, l->n);
  l->ev = NULL;
  l->n = l->cap = 0;
}

void st_chrome_mem_free(st_chrome_sem *sem) {
  if (!sem->mem) return;
  st_free(&sem->alloc, sem->mem->ev);
  st_free(&sem->alloc, sem->mem);
  sem->mem = NULL;
}
