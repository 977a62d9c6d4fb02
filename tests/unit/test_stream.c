/* test_stream.c: streaming mode (core/import/stream/stream.h).
 *
 * For generated traces (sorted, written thread by thread, and with X events
 * shuffled) full of B/E pairs, async pairs, unfinished slices, instants,
 * counters, flows and metadata, and for every JSON trace of the corpus,
 * with small blocks and a tiny bucket budget (so blocks are many, pairs
 * cross them and the summary coarsens many times):
 *   - every window's events (those meeting [t0, t1], on every track) equal
 *     those of a full resident load: same track, start, duration, name,
 *     category, src and flags, counted as multisets;
 *   - the summary never hides an event: every event of the full load lies
 *     within a summary slice of its track; counters keep their min and max;
 *     the summary stays within its budget;
 *   - the plan reads only blocks meeting the window (a sorted trace's
 *     narrow window reads a few blocks, not the file);
 *   - the pass's statistics are the full load's.
 * Compressed input's windows are read through the gzip dialogue
 * (st_stream_read: restart points every 4 KiB here) and equal the decoded
 * bytes. The index file (stream_stx.h): every pass is saved and opened
 * again, with the same summary (st_trace_digest), stats, figures and
 * windows (each window is checked on both); an index is checked against its
 * trace (a changed file is refused with the message), opened into a string
 * table shared with other traces (other ids) its windows are the same;
 * and mutated indexes
 * (cut at every 1/64 of their length, bytes flipped, both with and without
 * the checksum fixed up) are refused, or if accepted plan and load windows
 * without reading out of bounds (tests/fuzz/fuzz_stx.c goes further).
 */
#include "check.h"
#include "gen_perfetto.h"
#include "sha256.h"
#include "stream.h"
#include "stream_stx.h"
#include "test_util.h"

#include <stdlib.h>

/* ==== a generated trace ==================================================== */

typedef struct gbuf {
  char *p;
  size_t n, cap;
} gbuf;

/* Appends n bytes (a NUL kept after them, not counted). */
static void gadd(gbuf *b, const void *p, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->p = realloc(b->p, b->cap);
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
  b->p[b->n] = 0;
}

static void gput(gbuf *b, const char *s) { gadd(b, s, strlen(s)); }

typedef struct gev {
  long long ts; /* sort key */
  int thread;   /* writer */
  char text[200];
} gev;

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

static int by_ts(const void *a, const void *b) {
  const gev *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x < y ? -1 : 1; /* stable enough: qsort of distinct addresses */
}
static int by_thread(const void *a, const void *b) {
  const gev *x = a, *y = b;
  if (x->thread != y->thread) return x->thread - y->thread;
  return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* order 0: by time; 1: thread by thread; 2: X events shuffled among themselves */
static char *gen_trace(uint64_t seed, int order, size_t *out_n) {
  rng_state = seed;
  size_t cap = 20000, n = 0;
  gev *ev = calloc(cap, sizeof *ev);
  int threads = 6;
  for (int th = 0; th < threads; th++) {
    int pid = 1 + th / 3, tid = 10 + th;
    long long t = 1000 + rnd(50);
    int depth = 0;
    long long open_ts[16];
    for (int i = 0; i < 600 && n + 8 < cap; i++) {
      uint32_t what = rnd(100);
      gev *e = &ev[n];
      e->thread = th;
      e->ts = t;
      if (what < 30 && depth < 8) { /* B */
        snprintf(
            e->text, sizeof e->text,
            "{\"ph\":\"B\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"name\":\"op%u\",\"cat\":\"c%u\","
            "\"args\":{\"i\":%d}}",
            pid, tid, t, rnd(20), rnd(3), i);
        open_ts[depth++] = t;
        n++;
      } else if (what < 55 && depth > 0) { /* E */
        snprintf(e->text, sizeof e->text, "{\"ph\":\"E\",\"pid\":%d,\"tid\":%d,\"ts\":%lld}", pid,
                 tid, t);
        depth--;
        n++;
      } else if (what < 80) { /* X, nested inside the open B (short) */
        long long dur = 1 + rnd(depth ? 3 : 40);
        snprintf(e->text, sizeof e->text,
                 "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,\"name\":\"k%u\"}",
                 pid, tid, t, dur, rnd(30));
        n++;
        t += dur;
      } else if (what < 85) { /* instant */
        snprintf(e->text, sizeof e->text,
                 "{\"ph\":\"i\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"name\":\"mark\",\"s\":\"t\"}",
                 pid, tid, t);
        n++;
      } else if (what < 90) { /* counter */
        snprintf(
            e->text, sizeof e->text,
            "{\"ph\":\"C\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"name\":\"mem\",\"args\":{\"v\":%u}}",
            pid, tid, t, rnd(1000));
        n++;
      } else if (what < 94) { /* async pair */
        unsigned id = rnd(1000000);
        long long d = 5 + rnd(400);
        snprintf(e->text, sizeof e->text,
                 "{\"ph\":\"b\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"name\":\"req\",\"cat\":\"a\","
                 "\"id\":\"0x%x\"}",
                 pid, tid, t, id);
        gev *f = &ev[++n];
        f->thread = th;
        f->ts = t + d;
        snprintf(f->text, sizeof f->text,
                 "{\"ph\":\"e\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"name\":\"req\",\"cat\":\"a\","
                 "\"id\":\"0x%x\"}",
                 pid, tid, t + d, id);
        n++;
      } else if (what < 97) { /* a flow between two threads */
        unsigned id = rnd(1000000);
        snprintf(e->text, sizeof e->text,
                 "{\"ph\":\"s\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"name\":\"f\",\"cat\":\"fl\","
                 "\"id\":%u}",
                 pid, tid, t, id);
        gev *f = &ev[++n];
        f->thread = (th + 1) % threads;
        f->ts = t + 3;
        snprintf(f->text, sizeof f->text,
                 "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"name\":\"f\","
                 "\"cat\":\"fl\",\"id\":%u}",
                 1 + f->thread / 3, 10 + f->thread, t + 3, id);
        n++;
      }
      t += rnd(7);
    }
    (void)open_ts; /* B left open at the end: unfinished */
    gev *m = &ev[n++];
    m->thread = th;
    m->ts = t + 5; /* thread names written at the end, after their events */
    snprintf(m->text, sizeof m->text,
             "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":"
             "\"worker %d\"}}",
             pid, tid, th);
  }
  /* B/E must stay in order per thread: orders 0 and 1 keep each thread's
   * order; order 2 shuffles only X events' positions among X events */
  if (order == 0) qsort(ev, n, sizeof *ev, by_ts);
  if (order == 1) qsort(ev, n, sizeof *ev, by_thread);
  if (order == 2) {
    qsort(ev, n, sizeof *ev, by_ts);
    for (size_t i = n; i > 1; i--) {
      size_t j = rnd((uint32_t)i);
      if (strstr(ev[i - 1].text, "\"X\"") && strstr(ev[j].text, "\"X\"")) {
        gev tmp = ev[i - 1];
        ev[i - 1] = ev[j];
        ev[j] = tmp;
      }
    }
  }
  gbuf b = {0};
  gput(&b, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  gput(&b, "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"host\"}},\n");
  for (size_t i = 0; i < n; i++) {
    gput(&b, ev[i].text);
    gput(&b, i + 1 < n ? ",\n" : "\n");
  }
  gput(&b, "],\"otherData\":{\"v\":1}}\n");
  free(ev);
  if (getenv("STREAM_DUMP")) {
    char path[600];
    snprintf(path, sizeof path, "%s.%d.%llu.json", getenv("STREAM_DUMP"), order,
             (unsigned long long)seed);
    FILE *f = fopen(path, "wb");
    if (f) fwrite(b.p, 1, b.n, f), fclose(f);
  }
  *out_n = b.n;
  return b.p;
}

/* ==== events as multisets ================================================== */

typedef struct wev {
  int64_t pid, key;
  int kind;
  int64_t start, dur; /* absolute ns */
  char name[48], cat[24];
  uint64_t src;
  int flags;
  int raw_flags; /* all of the model's flags (ST_EV_SUMMARY too) */
} wev;

static int cmp_wev(const void *a, const void *b) {
  const wev *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->kind != y->kind) return x->kind - y->kind;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->dur != y->dur) return x->dur < y->dur ? -1 : 1;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  c = strcmp(x->cat, y->cat);
  if (c) return c;
  return x->flags - y->flags;
}

/* Events of t meeting [a0, a1] (absolute ns; all if a0 > a1 is not asked),
 * CPU samples excluded (summary only in windows). */
static wev *events_of(const st_trace *t, int64_t a0, int64_t a1, size_t *out) {
  uint32_t nr, nt, np;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_process *procs = st_trace_processes(t, &np);
  int64_t origin = st_trace_origin_ns(t);
  size_t cap = 1024, n = 0;
  wev *v = malloc(cap * sizeof *v);
  for (uint32_t r = 0; r < nr; r++) {
    const st_track *tr = &tracks[rows[r].track];
    if (tr->kind == ST_TRACK_SAMPLES) continue;
    for (uint32_t i = 0; i < rows[r].count; i++) {
      int64_t s = origin + rows[r].start[i], e = s + rows[r].dur[i];
      if (s > a1 || e < a0) continue;
      if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
      wev *w = &v[n++];
      memset(w, 0, sizeof *w);
      w->pid = procs[tr->process].pid;
      w->key = tr->key;
      w->kind = tr->kind;
      w->start = s;
      w->dur = rows[r].dur[i];
      snprintf(w->name, sizeof w->name, "%s", tu_str(t, rows[r].name[i]));
      snprintf(w->cat, sizeof w->cat, "%s",
               tr->kind == ST_TRACK_SAMPLES ? "" : tu_str(t, rows[r].cat[i]));
      w->src = rows[r].src[i];
      w->flags = rows[r].flags[i] & (ST_EV_UNFINISHED | ST_EV_INSTANT | ST_EV_HAS_END);
      w->raw_flags = rows[r].flags[i];
    }
  }
  qsort(v, n, sizeof *v, cmp_wev);
  *out = n;
  return v;
}

/* Counter series k's value at absolute time at (its last sample at or
 * before it): 1 and *v, or 0 when it has none by then. */
static int counter_value_at(const st_trace *t, int64_t pid, const char *name, int64_t at,
                            double *v) {
  uint32_t nc, nt, np;
  const st_counter *cs = st_trace_counters(t, &nc);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_process *procs = st_trace_processes(t, &np);
  int64_t origin = st_trace_origin_ns(t), best = INT64_MIN;
  for (uint32_t c = 0; c < nc; c++) {
    const st_track *tr = &tracks[cs[c].track];
    if (procs[tr->process].pid != pid || strcmp(tu_str(t, tr->name), name)) continue;
    for (uint32_t i = 0; i < cs[c].count; i++)
      if (origin + cs[c].ts[i] <= at && origin + cs[c].ts[i] >= best) {
        best = origin + cs[c].ts[i];
        *v = cs[c].value[i];
      }
  }
  return best != INT64_MIN;
}

/* Series (pid, name)'s samples in [a0, a1] (absolute ns): how many, and a
 * sum of their times and values (an order-free fingerprint). */
static size_t counter_samples_in(const st_trace *t, int64_t pid, const char *name, int64_t a0,
                                 int64_t a1, double *sum) {
  uint32_t nc, nt, np;
  const st_counter *cs = st_trace_counters(t, &nc);
  const st_track *tracks = st_trace_tracks(t, &nt);
  const st_process *procs = st_trace_processes(t, &np);
  int64_t origin = st_trace_origin_ns(t);
  size_t n = 0;
  *sum = 0;
  for (uint32_t c = 0; c < nc; c++) {
    const st_track *tr = &tracks[cs[c].track];
    if (procs[tr->process].pid != pid || strcmp(tu_str(t, tr->name), name)) continue;
    for (uint32_t i = 0; i < cs[c].count; i++)
      if (origin + cs[c].ts[i] >= a0 && origin + cs[c].ts[i] <= a1) {
        n++;
        *sum += (double)cs[c].ts[i] * 1e-9 + cs[c].value[i];
      }
  }
  return n;
}

/* Every counter series of full has, where the window starts (a0), the same
 * value in the window's model, and the same samples in [a0, a1]. Returns the
 * series checked. */
static int check_counters_at(const char *what, const st_trace *full, const st_trace *win,
                             int64_t a0, int64_t a1) {
  uint32_t nc, nt, np;
  const st_counter *cs = st_trace_counters(full, &nc);
  const st_track *tracks = st_trace_tracks(full, &nt);
  const st_process *procs = st_trace_processes(full, &np);
  int checked = 0;
  for (uint32_t c = 0; c < nc; c++) {
    const st_track *tr = &tracks[cs[c].track];
    int64_t pid = procs[tr->process].pid;
    const char *name = tu_str(full, tr->name);
    double sf, sw;
    size_t nf = counter_samples_in(full, pid, name, a0, a1, &sf);
    size_t nw = counter_samples_in(win, pid, name, a0, a1, &sw);
    if (nf != nw || sf != sw) {
      fprintf(stderr,
              "%s: counter %s of pid %lld in [%lld, %lld]: %zu samples in a full load, %zu in the "
              "window\n",
              what, name, (long long)pid, (long long)a0, (long long)a1, nf, nw);
      check_failures_++;
    }
    double vf = 0, vw = 0;
    if (!counter_value_at(full, pid, name, a0, &vf)) continue;
    int has = counter_value_at(win, pid, name, a0, &vw);
    if (!has || vw != vf) {
      fprintf(stderr, "%s: counter %s of pid %lld at %lld: %g in a full load, %s%g in the window\n",
              what, name, (long long)pid, (long long)a0, vf, has ? "" : "none ", vw);
      check_failures_++;
    }
    checked++;
  }
  return checked;
}

typedef struct stream_run {
  st_stream *s;
  st_trace *summary;
  st_error err;
  const uint8_t *raw; /* the file as pushed (compressed or not) */
  size_t rawn;
} stream_run;

/* Decoded [off, off + len) through the read dialogue, the raw bytes pushed
 * in pieces of 3001 (malloc'd; NULL if it failed). */
static uint8_t *read_decoded(const stream_run *r, uint64_t off, uint64_t len) {
  uint64_t from = 0;
  st_stream_read *rd = st_stream_read_begin(r->s, off, len, &from);
  if (!rd) return NULL;
  int done = 0;
  while (!done && from < r->rawn) {
    size_t k = r->rawn - from < 3001 ? (size_t)(r->rawn - from) : 3001;
    if (st_stream_read_push(rd, r->raw + from, k, &done) != ST_OK) break;
    from += k;
  }
  size_t got = 0;
  const uint8_t *p = st_stream_read_data(rd, &got);
  uint8_t *out = got == len ? malloc(got) : NULL;
  if (out) memcpy(out, p, got);
  st_stream_read_end(rd);
  return out;
}

static uint64_t pass_staging; /* st_stream_desc.staging of the passes (0: the default) */

static stream_run run_pass(const uint8_t *data, size_t n, uint64_t block, uint32_t buckets,
                           size_t chunk) {
  stream_run r;
  memset(&r, 0, sizeof r);
  r.s = st_stream_create(&(st_stream_desc){
      .block_bytes = block, .max_buckets = buckets, .gz_span = 4096, .staging = pass_staging});
  CHECK(r.s != NULL);
  r.raw = data;
  r.rawn = n;
  for (size_t at = 0; at < n; at += chunk)
    st_stream_push(r.s, data + at, n - at < chunk ? n - at : chunk);
  r.summary = st_stream_finish(r.s, &r.err);
  return r;
}

static int windows_checked;
static int counters_checked; /* counter series whose value at a window's start was compared */

/* The window [t0, t1] (summary time): its events equal the full load's. */
/* filtered: all the events' bytes read (as for an unsorted trace whose
 * every block spans the window), only the window's events kept */
static int check_window_as(const char *what, const uint8_t *data, stream_run *r,
                           const st_trace *full, int64_t t0, int64_t t1, uint64_t *read_bytes,
                           int filtered) {
  st_stream_range ranges[4096];
  uint64_t bytes = 0;
  uint32_t nr =
      filtered ? st_stream_window_plan(r->s, INT64_MIN / 4, INT64_MAX / 4, ranges, 4096, &bytes)
               : st_stream_window_plan(r->s, t0, t1, ranges, 4096, &bytes);
  CHECK(nr <= 4096);
  st_error err;
  st_stream_window *w = st_stream_window_begin(r->s, r->summary, ranges, nr, &err);
  if (!w) {
    fprintf(stderr, "%s: window begin: %s [%lld %lld] nr %u\n", what, err.msg, (long long)t0,
            (long long)t1, nr);
    for (uint32_t k = 0; k < nr && k < 8; k++)
      fprintf(stderr, "   %llu +%llu\n", (unsigned long long)ranges[k].offset,
              (unsigned long long)ranges[k].length);
  }
  CHECK(w != NULL);
  if (!w) return 0;
  st_stream_window_set_span(w, t0, t1);
  st_stream_window_set_filter(w, filtered);
  st_stream_info info;
  st_stream_info_get(r->s, &info);
  /* in chunks of any size: whole ranges, or 997 bytes at a time */
  size_t chunk = windows_checked % 2 ? 997 : SIZE_MAX;
  for (uint32_t k = 0; k < nr; k++) {
    const uint8_t *in = data + ranges[k].offset;
    uint8_t *got = NULL;
    if (info.compressed && !info.spilled) { /* through the restart points: the same bytes */
      got = read_decoded(r, ranges[k].offset, ranges[k].length);
      CHECK(got != NULL && memcmp(got, in, ranges[k].length) == 0);
      if (got) in = got;
    }
    for (uint64_t at = 0; at < ranges[k].length; at += chunk) {
      uint64_t m = ranges[k].length - at < chunk ? ranges[k].length - at : chunk;
      CHECK(st_stream_window_push(w, k, in + at, (size_t)m) == ST_OK);
    }
    free(got);
  }
  if (nr) CHECK(st_stream_window_push(w, nr - 1, data, 1) == ST_ERR_ARG); /* past its end */
  st_trace *win = st_stream_window_finish(w, &err);
  if (!win) fprintf(stderr, "%s: window finish: %s\n", what, err.msg);
  CHECK(win != NULL);
  int ok = 0;
  if (win) {
    int64_t origin = st_trace_origin_ns(full);
    CHECK(st_trace_origin_ns(win) == origin);
    CHECK(st_trace_duration_ns(win) == st_trace_duration_ns(full));
    size_t na, nb;
    wev *a = events_of(full, origin + t0, origin + t1, &na);
    wev *b = events_of(win, origin + t0, origin + t1, &nb);
    ok = na == nb;
    if (filtered) { /* the model holds the window's events only */
      size_t all;
      free(events_of(win, INT64_MIN, INT64_MAX, &all));
      CHECK(all == nb);
    }
    counters_checked += check_counters_at(what, full, win, origin + t0, origin + t1);
    size_t nx = 0; /* the summary's estimate counts every event meeting it */
    for (size_t i = 0; i < na; i++) nx += a[i].kind != ST_TRACK_COUNTER;
    CHECK(st_stream_events_in(r->s, t0, t1) >= nx);
    for (size_t i = 0; ok && i < na; i++) ok = cmp_wev(&a[i], &b[i]) == 0;
    if (!ok) {
      size_t i = 0;
      while (i < na && i < nb && cmp_wev(&a[i], &b[i]) == 0) i++;
      fprintf(stderr, "%s: window [%lld, %lld]: %zu events in a full load, %zu in the window", what,
              (long long)t0, (long long)t1, na, nb);
      if (i < na)
        fprintf(
            stderr, "; full has %s/%s pid %lld key %lld kind %d @%llu start %lld dur %lld flags %d",
            a[i].name, a[i].cat, (long long)a[i].pid, (long long)a[i].key, a[i].kind,
            (unsigned long long)a[i].src, (long long)a[i].start, (long long)a[i].dur, a[i].flags);
      if (i < nb)
        fprintf(stderr,
                "; window has %s/%s pid %lld key %lld kind %d @%llu start %lld dur %lld flags %d",
                b[i].name, b[i].cat, (long long)b[i].pid, (long long)b[i].key, b[i].kind,
                (unsigned long long)b[i].src, (long long)b[i].start, (long long)b[i].dur,
                b[i].flags);
      fprintf(stderr, "\n");
      check_failures_++;
    }
    free(a);
    free(b);
    st_trace_destroy(win);
  }
  st_stream_window_destroy(w);
  windows_checked++;
  if (read_bytes) *read_bytes = bytes;
  return ok;
}

static int check_window(const char *what, const uint8_t *data, stream_run *r, const st_trace *full,
                        int64_t t0, int64_t t1, uint64_t *read_bytes) {
  int ok = check_window_as(what, data, r, full, t0, t1, read_bytes, 0);
  return check_window_as(what, data, r, full, t0, t1, NULL, 1) && ok;
}

/* Nothing hidden: every event of the full load lies in a summary slice of
 * its track (same pid, kind, key); counters keep min and max. */
static void check_summary(const char *what, const st_trace *full, const st_trace *summary,
                          uint32_t budget) {
  size_t nf, ns;
  wev *f = events_of(full, INT64_MIN, INT64_MAX, &nf);
  wev *s = events_of(summary, INT64_MIN, INT64_MAX, &ns);
  size_t missing = 0;
  for (size_t i = 0; i < nf; i++) {
    int found = 0;
    for (size_t j = 0; j < ns && !found; j++)
      found = s[j].pid == f[i].pid && s[j].key == f[i].key && s[j].kind == f[i].kind &&
              s[j].start <= f[i].start && f[i].start <= s[j].start + s[j].dur;
    if (!found && missing++ == 0)
      fprintf(stderr, "%s: %s at %lld (src %llu) is in no summary slice\n", what, f[i].name,
              (long long)f[i].start, (unsigned long long)f[i].src);
  }
  CHECK(missing == 0);
  /* and never passes a stretch off as an event: a summary slice is flagged
   * ST_EV_SUMMARY, or it is an event of the full load as it is */
  size_t posing = 0;
  for (size_t j = 0; j < ns; j++) {
    if (s[j].raw_flags & ST_EV_SUMMARY) continue;
    int real = 0;
    for (size_t i = 0; i < nf && !real; i++)
      real = f[i].src == s[j].src && f[i].start == s[j].start && f[i].dur == s[j].dur &&
             !strcmp(f[i].name, s[j].name) && f[i].pid == s[j].pid && f[i].key == s[j].key;
    if (!real && posing++ == 0)
      fprintf(stderr, "%s: summary slice %s at %lld (src %llu) is neither flagged nor an event\n",
              what, s[j].name, (long long)s[j].start, (unsigned long long)s[j].src);
  }
  CHECK(posing == 0);
  /* the budget: buckets and long events, each at most max_buckets (plus
   * exact events, which are few here) */
  uint32_t nr;
  st_trace_rows(summary, &nr);
  CHECK(ns <= (size_t)budget * 3 + nf / 4 || ns <= nf);
  uint32_t nc = 0, sc = 0;
  const st_counter *fc = st_trace_counters(full, &nc);
  const st_counter *scs = st_trace_counters(summary, &sc);
  CHECK(nc == sc);
  for (uint32_t i = 0; i < nc && i < sc; i++) {
    CHECK(fc[i].min == scs[i].min);
    CHECK(fc[i].max == scs[i].max);
  }
  free(f);
  free(s);
}

/* ==== the index file ====================================================== */

static st_code buf_write(void *ud, const void *data, size_t len) {
  gadd(ud, data, len);
  return ST_OK;
}

/* The sampled raw blocks the index identifies its trace by. */
static uint32_t samples_of(const st_stream *s, const uint8_t *raw, size_t rawn,
                           const uint8_t *out[ST_STX_SAMPLES]) {
  st_stream_range plan[ST_STX_SAMPLES];
  uint32_t n = st_stream_identity_plan(s, plan);
  for (uint32_t k = 0; k < n; k++)
    out[k] = plan[k].offset + plan[k].length <= rawn ? raw + plan[k].offset : NULL;
  return n;
}

static gbuf save_index(const stream_run *r) {
  gbuf b = {0};
  const uint8_t *smp[ST_STX_SAMPLES];
  uint32_t n = samples_of(r->s, r->raw, r->rawn, smp);
  st_error err;
  CHECK(st_stream_save(r->s, r->summary, smp, n, buf_write, &b, &err) == ST_OK);
  return b;
}

/* r's index saved and opened again (checked against r's raw bytes): the
 * same summary, stats and figures. */
static stream_run reopen(const char *what, const stream_run *r) {
  stream_run o;
  memset(&o, 0, sizeof o);
  gbuf b = save_index(r);
  o.s = st_stream_open_index(NULL, b.p, b.n, &o.summary, &o.err);
  if (!o.s) fprintf(stderr, "%s: index refused: %s\n", what, o.err.msg);
  CHECK(o.s != NULL && o.summary != NULL);
  free(b.p);
  if (!o.s) return o;
  o.raw = r->raw;
  o.rawn = r->rawn;
  const uint8_t *smp[ST_STX_SAMPLES];
  uint32_t n = samples_of(o.s, o.raw, o.rawn, smp);
  st_error err;
  CHECK(st_stream_verify(o.s, what, o.rawn, smp, n, &err) == ST_OK);
  uint8_t d1[32], d2[32];
  st_trace_digest(r->summary, d1);
  st_trace_digest(o.summary, d2);
  CHECK(memcmp(d1, d2, 32) == 0);
  char j1[8192], j2[8192];
  st_stats_json(st_stream_stats(r->s), j1, sizeof j1);
  st_stats_json(st_stream_stats(o.s), j2, sizeof j2);
  CHECK(strcmp(j1, j2) == 0);
  CHECK(strcmp(st_stream_metadata_json(r->s), st_stream_metadata_json(o.s)) == 0);
  st_stream_info a, c;
  st_stream_info_get(r->s, &a);
  st_stream_info_get(o.s, &c);
  CHECK(a.bytes_decoded == c.bytes_decoded && a.events_end == c.events_end &&
        a.block_bytes == c.block_bytes && a.blocks == c.blocks && a.exact == c.exact &&
        a.buckets == c.buckets && a.bucket_ns == c.bucket_ns &&
        a.summary_events == c.summary_events && a.windows == c.windows &&
        a.compressed == c.compressed && a.restart_points == c.restart_points);
  /* saved again from the opened stream: the same bytes */
  gbuf b2 = save_index(&o), b1 = save_index(r);
  CHECK(b1.n == b2.n && memcmp(b1.p, b2.p, b1.n) == 0);
  free(b1.p);
  free(b2.p);
  return o;
}

/* ==== the re-ordered copy ================================================== */

static int copies_made, copy_windows;
static uint32_t copy_flows; /* flows of whole-trace windows from copies */

static st_code copy_write(void *ud, uint64_t offset, const void *data, size_t len) {
  gbuf *b = ud;
  CHECK(offset == b->n); /* written in order, from 0 */
  gadd(b, data, len);
  return ST_OK;
}

/* r's re-ordered copy, in memory: its file's raw bytes pushed again in
 * pieces of 4099, into `parts` partitions with buffers of `buf` bytes. */
static int make_copy(const char *what, stream_run *r, uint32_t parts, uint32_t buf, gbuf *copy) {
  memset(copy, 0, sizeof *copy);
  st_stream_info info;
  st_stream_info_get(r->s, &info);
  CHECK(info.spilled == 0);
  st_error err;
  st_stream_spill *p =
      st_stream_spill_begin(r->s, &(st_stream_spill_desc){copy_write, copy, parts, buf, 0}, &err);
  CHECK(p != NULL);
  if (!p) return 0;
  for (size_t at = 0; at < r->rawn; at += 4099)
    st_stream_spill_push(p, r->raw + at, r->rawn - at < 4099 ? r->rawn - at : 4099);
  st_code c = st_stream_spill_finish(p, &err);
  if (c != ST_OK) fprintf(stderr, "%s: re-ordering: %s\n", what, err.msg);
  CHECK(c == ST_OK);
  st_stream_spill_destroy(p);
  st_stream_info_get(r->s, &info);
  CHECK(c != ST_OK || (info.spilled && info.windows && !info.spill_wanted &&
                       info.spill_bytes == copy->n && copy->n % 48 == 0));
  copies_made += c == ST_OK;
  return c == ST_OK;
}

/* Windows of the copy: the whole trace, narrow and wide ones. */
static void check_copy(const char *what, stream_run *r, const st_trace *full, int nwin) {
  size_t nev;
  free(events_of(full, INT64_MIN, INT64_MAX, &nev));
  /* about 8 chunks per partition */
  uint32_t buf = (uint32_t)(nev * 48 / 16 / 8);
  gbuf copy;
  if (!make_copy(what, r, 16, buf < 768 ? 768 : buf, &copy)) {
    free(copy.p);
    return;
  }
  int64_t d = st_trace_duration_ns(full);
  check_window(what, (const uint8_t *)copy.p, r, full, 0, d, NULL);
  /* the whole trace from the copy: its flows are the full load's */
  st_stream_range ranges[4096];
  uint32_t nr = st_stream_window_plan(r->s, 0, d, ranges, 4096, NULL);
  st_error err;
  st_stream_window *cw =
      nr <= 4096 ? st_stream_window_begin(r->s, r->summary, ranges, nr, &err) : NULL;
  CHECK(cw != NULL);
  if (cw) {
    st_stream_window_set_span(cw, 0, d);
    for (uint32_t k = 0; k < nr; k++)
      CHECK(st_stream_window_push(cw, k, copy.p + ranges[k].offset, ranges[k].length) == ST_OK);
    st_trace *win = st_stream_window_finish(cw, &err);
    CHECK(win != NULL);
    uint32_t fa = 0, fb = 0;
    st_trace_flows(full, &fa);
    if (win) st_trace_flows(win, &fb);
    if (fa != fb) fprintf(stderr, "%s: %u flows in a full load, %u from the copy\n", what, fa, fb);
    CHECK(fa == fb);
    copy_flows += fa;
    st_trace_destroy(win);
    st_stream_window_destroy(cw);
  }
  for (int i = 0; i < nwin; i++) {
    int64_t w = i % 2 ? d / 50 + 1 : d / 4 + 1;
    int64_t t0 = d > 0 ? (int64_t)((uint64_t)rnd(1u << 30) * (uint64_t)d / (1u << 30)) : 0;
    check_window(what, (const uint8_t *)copy.p, r, full, t0, t0 + w, NULL);
    copy_windows++;
  }
  free(copy.p);
}

static void end_run(stream_run *r) {
  st_trace_destroy(r->summary);
  st_stream_destroy(r->s);
}

/* data: the file (maybe compressed); decoded: its decoded bytes (windows
 * read those) */
static void check_trace(const char *what, const uint8_t *data, size_t n, const uint8_t *decoded,
                        uint64_t block, uint32_t buckets, int nwin) {
  st_error ferr;
  st_stats fstats;
  st_trace *full = tu_load(data, n, 1 << 16, what, &ferr, &fstats, NULL, 0);
  stream_run r = run_pass(data, n, block, buckets, 7919);
  CHECK((full != NULL) == (r.summary != NULL));
  CHECK(ferr.code == r.err.code);
  if (!full || !r.summary) {
    st_trace_destroy(full);
    st_trace_destroy(r.summary);
    st_stream_destroy(r.s);
    return;
  }
  const st_stats *ss = st_stream_stats(r.s);
  CHECK(ss->events == fstats.events && ss->slices == fstats.slices &&
        ss->instants == fstats.instants && ss->counter_samples == fstats.counter_samples &&
        ss->async_slices == fstats.async_slices && ss->bytes_decoded == fstats.bytes_decoded);
  CHECK(st_trace_origin_ns(r.summary) == st_trace_origin_ns(full));
  CHECK(st_trace_duration_ns(r.summary) == st_trace_duration_ns(full));
  check_summary(what, full, r.summary, buckets);
  stream_run o = reopen(what, &r);
  st_stream_info info;
  st_stream_info_get(r.s, &info);
  if (info.windows && o.s) {
    int64_t d = st_trace_duration_ns(full);
    /* the whole trace, a few narrow windows and a few wide ones: from the
     * pass and from its index */
    check_window(what, decoded, &r, full, 0, d, NULL);
    check_window(what, decoded, &o, full, 0, d, NULL);
    for (int i = 0; i < nwin; i++) {
      int64_t w = i % 2 ? d / 50 + 1 : d / 4 + 1;
      int64_t t0 = d > 0 ? (int64_t)((uint64_t)rnd(1u << 30) * (uint64_t)d / (1u << 30)) : 0;
      check_window(what, decoded, &r, full, t0, t0 + w, NULL);
      check_window(what, decoded, &o, full, t0, t0 + w, NULL);
    }
  }
  check_copy(what, &r, full, nwin); /* windows of any trace, from its re-ordered copy */
  end_run(&o);
  st_trace_destroy(full);
  end_run(&r);
}

static void test_generated(void) {
  for (int order = 0; order < 3; order++) {
    for (uint64_t seed = 1; seed <= 3; seed++) {
      size_t n;
      char *t = gen_trace(seed * 7 + (uint64_t)order, order, &n);
      char what[64];
      snprintf(what, sizeof what, "generated (order %d, seed %llu)", order,
               (unsigned long long)seed);
      check_trace(what, (const uint8_t *)t, n, (const uint8_t *)t, 4096, 64, 12);
      check_trace(what, (const uint8_t *)t, n, (const uint8_t *)t, 65536, 4096, 6);
      if (seed == 1) { /* gzip and zlib: windows through the restart points */
        size_t gn;
        unsigned char *gz = tu_deflate_mem(t, n, order == 1 ? 15 : 31, 1, &gn);
        check_trace(what, gz, gn, (const uint8_t *)t, 4096, 64, 8);
        free(gz);
      }
      free(t);
    }
  }
}

/* `unsorted` (stream.h; web/guide/streaming.md defines it): the mean of the blocks'
 * time extents, as fractions of the trace's time, passes 1/4. Against the
 * same mean computed here from the full load's events and their srcs
 * (independent of the pass), on generated traces in time order, thread by
 * thread and shuffled: only the shuffled one is unsorted. */
static void test_unsorted_figure(void) {
  for (int order = 0; order < 3; order++) {
    size_t n;
    char *t = gen_trace(123 + (uint64_t)order, order, &n);
    st_error err;
    st_stats fst;
    st_trace *full = tu_load(t, n, 1 << 16, "order", &err, &fst, NULL, 0);
    stream_run r = run_pass((const uint8_t *)t, n, 4096, 256, 65536);
    st_stream_info info;
    st_stream_info_get(r.s, &info);
    /* per 4 KiB block of the file: the [start, end] extent of the events
     * whose src lies in it (both halves of a pair: its start and end src) */
    size_t nb = n / 4096 + 1;
    int64_t *lo = malloc(nb * sizeof *lo), *hi = malloc(nb * sizeof *hi);
    for (size_t b = 0; b < nb; b++) lo[b] = INT64_MAX, hi[b] = INT64_MIN;
    size_t ne;
    wev *ev = events_of(full, INT64_MIN, INT64_MAX, &ne);
    for (size_t i = 0; i < ne; i++) {
      if (ev[i].src >= n || (ev[i].flags & ST_EV_UNFINISHED)) continue;
      size_t b = (size_t)(ev[i].src / 4096);
      int64_t e = ev[i].start + (ev[i].dur > 0 ? ev[i].dur : 0);
      if (ev[i].start < lo[b]) lo[b] = ev[i].start;
      if (e > hi[b]) hi[b] = e;
    }
    double span = (double)st_trace_duration_ns(full), share = 0;
    size_t used = 0;
    for (size_t b = 0; b < nb; b++)
      if (lo[b] <= hi[b]) used++, share += (double)(hi[b] - lo[b]) / span;
    int want = used >= 8 && share > 0.25 * (double)used;
    printf("order %d: %zu blocks, mean extent %.3f of the trace: unsorted %d (the pass: %d)\n",
           order, used, share / (double)used, want, info.unsorted);
    CHECK(info.unsorted == want);
    CHECK(want == (order == 2));
    CHECK(info.spill_wanted == want);
    free(ev);
    free(lo);
    free(hi);
    end_run(&r);
    st_trace_destroy(full);
    free(t);
  }
}

/* A sorted trace's narrow window reads a few blocks, not the file. */
static void test_plan_reads_little(void) {
  size_t n;
  char *t = gen_trace(99, 0, &n);
  stream_run r = run_pass((const uint8_t *)t, n, 4096, 256, 65536);
  CHECK(r.summary != NULL);
  st_stream_info info;
  st_stream_info_get(r.s, &info);
  CHECK(info.windows == 1);
  CHECK(info.blocks >= n / 4096 - 1);
  CHECK(info.bucket_ns > 1000); /* it coarsened: 256 buckets cannot hold 1 us each */
  int64_t d = st_trace_duration_ns(r.summary);
  st_error err;
  st_stats fst;
  st_trace *full = tu_load(t, n, 1 << 16, "plan", &err, &fst, NULL, 0);
  uint64_t bytes = 0;
  check_window("narrow", (const uint8_t *)t, &r, full, d / 2, d / 2 + d / 1000, &bytes);
  CHECK(bytes > 0 && bytes < n / 8);
  /* nothing before the trace, nothing for a reversed window */
  st_stream_range rg[4];
  CHECK(st_stream_window_plan(r.s, -d - 10, -d - 5, rg, 4, &bytes) == 0 && bytes == 0);
  CHECK(st_stream_window_plan(r.s, 10, 5, rg, 4, &bytes) == 0);
  /* bad ranges are refused */
  st_stream_range bad[2] = {{100, 10}, {50, 10}};
  CHECK(st_stream_window_begin(r.s, r.summary, bad, 2, &err) == NULL && err.code == ST_ERR_ARG);
  st_stream_range past = {n * 2, 10};
  CHECK(st_stream_window_begin(r.s, r.summary, &past, 1, &err) == NULL);
  st_trace_destroy(full);
  st_trace_destroy(r.summary);
  st_stream_destroy(r.s);
  free(t);
}

/* Snapshots while the pass runs: each a model of the summary so far, on
 * the tracks seen so far; the pass goes on unharmed. */
static void test_snapshot(void) {
  size_t n;
  char *t = gen_trace(5, 0, &n);
  st_stream *s = st_stream_create(&(st_stream_desc){.block_bytes = 4096, .max_buckets = 128});
  st_error err;
  st_trace *empty = st_stream_snapshot(s, &err); /* nothing read yet: an empty model */
  CHECK(empty != NULL);
  st_trace_destroy(empty);
  uint64_t last = 0;
  for (size_t at = 0; at < n; at += n / 4 + 1) {
    CHECK(st_stream_push(s, t + at, n - at < n / 4 + 1 ? n - at : n / 4 + 1) == ST_OK);
    st_trace *snap = st_stream_snapshot(s, &err);
    CHECK(snap != NULL);
    if (!snap) break;
    uint64_t ev = st_trace_event_count(snap);
    CHECK(ev >= last / 2); /* coarsening may merge, never empties */
    last = ev;
    st_trace_destroy(snap);
  }
  st_trace *sum = st_stream_finish(s, &err);
  CHECK(sum != NULL);
  CHECK(st_stream_snapshot(s, &err) == NULL && err.code == ST_ERR_ARG); /* the pass is over */
  st_error ferr;
  st_stats fst;
  st_trace *full = tu_load(t, n, 1 << 16, "snap", &ferr, &fst, NULL, 0);
  check_summary("after snapshots", full, sum, 128);
  st_trace_destroy(full);
  st_trace_destroy(sum);
  st_stream_destroy(s);
  free(t);
}

static void test_corpus(void) {
  const char *const *files = tu_corpus_json;
  int seen = 0;
  for (size_t c = 0; c < TU_CORPUS_JSON_N; c++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", STRATA_CORPUS_DIR, files[c]);
    size_t n;
    unsigned char *data = tu_read_file(path, &n);
    if (!data) continue;
    seen++;
    unsigned char *decoded = data;
    if (n >= 2 && data[0] == 0x1f && data[1] == 0x8b) { /* windows read decoded bytes */
      size_t m;
      decoded = tu_inflate_all(data, n, &m);
    }
    check_trace(files[c], data, n, decoded, 4096, 64, 6);
    if (decoded != data) free(decoded);
    free(data);
  }
  printf("corpus files checked: %d, windows compared: %d, counters at their start: %d, "
         "re-ordered copies: %d (windows: %d, flows: %u)\n",
         seen, windows_checked, counters_checked, copies_made, copy_windows, copy_flows);
  CHECK(copy_flows > 100);
  CHECK(counters_checked > 100);
}

/* Protobuf traces (Perfetto, XSpace): no windows from the file's blocks
 * (a packet needs the sequence state before it), every window from the
 * re-ordered copy, equal to a full load's. */
static void test_protobuf(void) {
  static const char *const files[] = {
      STRATA_SOURCE_DIR "/tests/fixtures/perfetto_system.pftrace",
      STRATA_SOURCE_DIR "/tests/fixtures/perfetto_system_more.pftrace",
      STRATA_SOURCE_DIR "/tests/fixtures/perfetto_system_sysstats.pftrace",
      STRATA_SOURCE_DIR "/tests/fixtures/perfetto_android.pftrace",
      STRATA_SOURCE_DIR "/tests/fixtures/perfetto_android_ftrace.bin",
      STRATA_CORPUS_DIR "/perfetto__nested_tracks.perfetto-trace",
      STRATA_CORPUS_DIR "/xprof__34.83.195.179_6003.xplane.pb",
      STRATA_CORPUS_DIR "/xprof-head__tpu_inference_2.xplane.pb",
  };
  int before = copies_made, seen = 0;
  for (size_t c = 0; c < sizeof files / sizeof *files; c++) {
    size_t n;
    unsigned char *data = tu_read_file(files[c], &n);
    if (!data) continue;
    seen++;
    stream_run r = run_pass(data, n, 4096, 64, 7919);
    st_stream_info info;
    st_stream_info_get(r.s, &info);
    CHECK(r.summary == NULL || (info.windows == 0 && info.spill_wanted == 1));
    end_run(&r);
    check_trace(files[c], data, n, data, 4096, 64, 8);
    free(data);
  }
  printf("protobuf files: %d, re-ordered: %d\n", seen, copies_made - before);
  CHECK(copies_made - before >= 6);
}

/* Counters stating their unit (Perfetto CounterDescriptor 3 unit, 6
 * unit_name): the streamed summary keeps each track's unit, as a full load
 * does (check_trace: summary, windows and the .stx index reopened, digests
 * covering the unit), and the index says so (ST_STX_F_UNITS). */
static void pb_varint(gbuf *b, uint64_t v) {
  uint8_t t[10];
  size_t n = 0;
  do {
    t[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) t[n] |= 0x80;
    n++;
  } while (v);
  gadd(b, t, n);
}
static void pb_u(gbuf *b, uint32_t num, uint64_t v) {
  pb_varint(b, (uint64_t)num << 3);
  pb_varint(b, v);
}
static void pb_b(gbuf *b, uint32_t num, const void *p, size_t n) {
  pb_varint(b, (uint64_t)num << 3 | 2);
  pb_varint(b, n);
  gadd(b, p, n);
}

static void test_perfetto_counter_units(void) {
  static const struct {
    const char *name;
    int unit;
    const char *unit_name, *want;
  } series[] = {{"heap", 3, NULL, "B"},
                {"cpu time", 1, NULL, "ns"},
                {"power", 0, "W", "W"},
                {"requests", 2, NULL, ""},
                {"plain", 0, NULL, ""}};
  enum { NS = sizeof series / sizeof series[0] };
  gbuf trace = {0};
  for (uint32_t i = 0; i < NS; i++) {
    gbuf cd = {0}, td = {0}, pk = {0};
    if (series[i].unit) pb_u(&cd, 3, (uint64_t)series[i].unit);
    if (series[i].unit_name) pb_b(&cd, 6, series[i].unit_name, strlen(series[i].unit_name));
    pb_u(&td, 1, 100 + i);
    pb_b(&td, 2, series[i].name, strlen(series[i].name));
    pb_b(&td, 8, cd.p ? cd.p : "", cd.n);
    pb_u(&pk, 8, 1000000000);
    pb_u(&pk, 10, 1);
    pb_b(&pk, 60, td.p, td.n);
    pb_b(&trace, 1, pk.p, pk.n);
    for (uint64_t k = 0; k < 50; k++) {
      gbuf te = {0}, p2 = {0};
      pb_u(&te, 9, 4);
      pb_u(&te, 11, 100 + i);
      pb_u(&te, 30, 1000 * k + i);
      pb_u(&p2, 8, 1000000000 + k * 1000000);
      pb_u(&p2, 10, 1);
      pb_b(&p2, 11, te.p, te.n);
      pb_b(&trace, 1, p2.p, p2.n);
      free(te.p);
      free(p2.p);
    }
    free(cd.p), free(td.p), free(pk.p);
  }
  check_trace("perfetto counter units", (const uint8_t *)trace.p, trace.n, (const uint8_t *)trace.p,
              4096, 64, 4);
  stream_run r = run_pass((const uint8_t *)trace.p, trace.n, 4096, 64, 7919);
  CHECK(r.summary != NULL);
  uint32_t nt = 0, found = 0;
  const st_track *ts = r.summary ? st_trace_tracks(r.summary, &nt) : NULL;
  const st_strtab *strs = r.summary ? st_trace_strings(r.summary) : NULL;
  for (uint32_t t = 0; t < nt; t++) {
    if (ts[t].kind != ST_TRACK_COUNTER) continue;
    size_t nl, ul;
    const char *nm = st_strtab_get(strs, ts[t].name, &nl),
               *u = st_strtab_get(strs, ts[t].unit, &ul);
    for (uint32_t i = 0; i < NS; i++)
      if (nl == strlen(series[i].name) && !memcmp(nm, series[i].name, nl)) {
        found++;
        CHECK(ul == strlen(series[i].want) && !memcmp(u, series[i].want, ul));
      }
  }
  CHECK(found == NS);
  if (r.summary) {
    gbuf b = save_index(&r);
    uint32_t features;
    memcpy(&features, b.p + 16, 4); /* little-endian, after the magic and the version */
    CHECK(features & ST_STX_F_UNITS);
    free(b.p);
  }
  end_run(&r);
  free(trace.p);
}

/* A Perfetto system trace bigger than the pass's staging of ftrace records
 * (a limit of 300 here, ~40,000 staged records in the trace): the records
 * are replayed in flushes as the pass goes, and the summary, the stats and
 * the windows of its re-ordered copy (made with the same limit) still
 * equal a full load's, which replays everything at the end. */
static int gen_put(void *ud, const void *p, size_t n) {
  gadd(ud, p, n);
  return 0;
}

static void test_perfetto_staged(void) {
  for (uint32_t seed = 1; seed <= 2; seed++) {
    gbuf f = {0};
    CHECK(gen_perfetto_write(&(gen_perfetto_desc){seed, 2 + 2 * seed, 15000}, gen_put, &f) == 0);
    int before = copies_made;
    pass_staging = 300;
    check_trace("perfetto staged", (const uint8_t *)f.p, f.n, (const uint8_t *)f.p, 4096, 256, 10);
    pass_staging = 0;
    CHECK(copies_made == before + 1);
    free(f.p);
  }
}

/* A stale or foreign index is refused with the message; an index of the
 * trace is not. */
static void test_index_identity(void) {
  size_t n;
  char *t = gen_trace(41, 0, &n);
  stream_run r = run_pass((const uint8_t *)t, n, 4096, 256, 65536);
  gbuf b = save_index(&r);
  stream_run o;
  memset(&o, 0, sizeof o);
  o.s = st_stream_open_index(NULL, b.p, b.n, &o.summary, &o.err);
  CHECK(o.s != NULL);
  const uint8_t *smp[ST_STX_SAMPLES];
  uint32_t ns = samples_of(o.s, (const uint8_t *)t, n, smp);
  CHECK(ns == (n <= 196608 ? 1 : ST_STX_SAMPLES)); /* a small file: hashed whole */
  st_error err;
  CHECK(st_stream_verify(o.s, "t.json", n, smp, ns, &err) == ST_OK);
  /* the same size, one byte changed */
  t[100] ^= 1;
  CHECK(st_stream_verify(o.s, "t.json", n, smp, ns, &err) == ST_ERR_ARG);
  CHECK(strstr(err.msg, "index does not match t.json: bytes 0..") != NULL);
  t[100] ^= 1;
  /* another size */
  CHECK(st_stream_verify(o.s, "t.json", n + 1, smp, ns, &err) == ST_ERR_ARG);
  CHECK(strstr(err.msg, "index does not match t.json: the file has") != NULL);
  CHECK(st_stream_verify(o.s, "t.json", n, NULL, 0, &err) == ST_ERR_ARG);
  /* a big file: first and last 64 KiB, 16 blocks between */
  size_t big = 1u << 21;
  uint8_t *raw = calloc(big, 1);
  for (size_t i = 0; i < big; i++) raw[i] = (uint8_t)(i * 7 + (i >> 9));
  stream_run rb;
  memset(&rb, 0, sizeof rb);
  rb.s = st_stream_create(NULL);
  st_stream_push(rb.s, raw, big);
  rb.summary = st_stream_finish(rb.s, &rb.err); /* not a trace: no summary */
  st_stream_range plan[ST_STX_SAMPLES];
  CHECK(st_stream_identity_plan(rb.s, plan) == ST_STX_SAMPLES);
  CHECK(plan[0].offset == 0 && plan[0].length == 65536);
  CHECK(plan[17].offset == big - 65536 && plan[17].length == 65536);
  for (int k = 1; k < 17; k++)
    CHECK(plan[k].length == 4096 && plan[k].offset >= plan[k - 1].offset + 4096 / 2 &&
          plan[k].offset + 4096 <= big - 65536);
  CHECK(st_stream_save(rb.s, rb.summary, smp, ns, buf_write, &b, &err) == ST_ERR_ARG);
  end_run(&rb);
  free(raw);
  /* not an index; a later version */
  st_trace *sum2;
  CHECK(st_stream_open_index(NULL, t, n, &sum2, &err) == NULL && err.code == ST_ERR_FORMAT);
  CHECK(strstr(err.msg, "not a strata index file") != NULL && sum2 == NULL);
  b.p[12] = 9;
  CHECK(st_stream_open_index(NULL, b.p, b.n, &sum2, &err) == NULL && err.code == ST_ERR_FORMAT);
  CHECK(strstr(err.msg, "version 9") != NULL && err.offset == 12);
  free(b.p);
  end_run(&o);
  end_run(&r);
  free(t);
}

/* An index opened into a string table shared with other traces (a trace
 * set's: other ids): its windows hold the full load's events (async
 * tracks, keyed by their name's id, compared by name). */
static void test_index_shared_strings(void) {
  size_t n;
  char *t = gen_trace(43, 2, &n);
  stream_run r = run_pass((const uint8_t *)t, n, 4096, 64, 65536);
  gbuf b = save_index(&r);
  st_strtab *shared = st_strtab_create(NULL);
  for (int i = 0; i < 50; i++) {
    char junk[16];
    int k = snprintf(junk, sizeof junk, "other %d", i);
    st_strtab_intern(shared, junk, (size_t)k);
  }
  stream_run o;
  memset(&o, 0, sizeof o);
  o.s = st_stream_open_index(&(st_stream_desc){.strings = shared}, b.p, b.n, &o.summary, &o.err);
  CHECK(o.s != NULL && st_stream_strings(o.s) == shared);
  o.raw = (const uint8_t *)t;
  o.rawn = n;
  st_error err;
  st_stats fst;
  st_trace *full = tu_load(t, n, 1 << 16, "shared", &err, &fst, NULL, 0);
  int64_t d = st_trace_duration_ns(full);
  for (int i = 0; i < 4 && o.s; i++) {
    int64_t t0 = i * d / 5, t1 = i ? t0 + d / 7 : d;
    st_stream_range rg[4096];
    uint64_t bytes;
    uint32_t nr = st_stream_window_plan(o.s, t0, t1, rg, 4096, &bytes);
    st_stream_window *w = st_stream_window_begin(o.s, o.summary, rg, nr, &err);
    CHECK(w != NULL && nr <= 4096);
    if (!w) break;
    st_stream_window_set_span(w, t0, t1);
    for (uint32_t k = 0; k < nr; k++) st_stream_window_push(w, k, t + rg[k].offset, rg[k].length);
    st_trace *win = st_stream_window_finish(w, &err);
    st_stream_window_destroy(w);
    CHECK(win != NULL);
    if (!win) break;
    int64_t origin = st_trace_origin_ns(full);
    size_t na, nb;
    wev *a = events_of(full, origin + t0, origin + t1, &na);
    wev *c = events_of(win, origin + t0, origin + t1, &nb);
    for (size_t j = 0; j < na; j++) a[j].key = a[j].kind == ST_TRACK_ASYNC ? 0 : a[j].key;
    for (size_t j = 0; j < nb; j++) c[j].key = c[j].kind == ST_TRACK_ASYNC ? 0 : c[j].key;
    qsort(a, na, sizeof *a, cmp_wev);
    qsort(c, nb, sizeof *c, cmp_wev);
    int same = na == nb && na > 0;
    for (size_t j = 0; same && j < na; j++) same = cmp_wev(&a[j], &c[j]) == 0;
    CHECK(same);
    /* on the summary's tracks: the window made none of its own (an async
     * group keyed by another id would be a second track) */
    uint32_t nw, ns, own_w = 0, own_s = 0;
    const st_track *tw = st_trace_tracks(win, &nw), *ts = st_trace_tracks(o.summary, &ns);
    for (uint32_t j = 0; j < nw; j++) own_w += !tw[j].overflow;
    for (uint32_t j = 0; j < ns; j++) own_s += !ts[j].overflow;
    CHECK(own_w == own_s);
    free(a);
    free(c);
    st_trace_destroy(win);
  }
  st_trace_destroy(full);
  end_run(&o);
  st_strtab_destroy(shared);
  free(b.p);
  end_run(&r);
  free(t);
}

/* The checksum recomputed, so the parser sees what a forger would give it. */
static void reseal(uint8_t *p, size_t n) {
  if (n >= 32) st_sha256(p, n - 32, p + n - 32);
}

static int mut_accepted, mut_refused;

/* Opens a (damaged) index; if accepted, windows over the whole trace and a
 * part of it load from decoded[0, dn) (ranges past it are not read). */
static void try_index(const uint8_t *p, size_t n, const stream_run *pass, const uint8_t *decoded,
                      size_t dn) {
  st_error err;
  st_trace *sum = NULL;
  st_stream *s = st_stream_open_index(NULL, p, n, &sum, &err);
  if (!s) {
    CHECK(err.msg[0] != 0 && strchr(err.msg, '\n') == NULL);
    mut_refused++;
    return;
  }
  mut_accepted++;
  stream_run o = {s, sum, err, pass->raw, pass->rawn};
  int64_t d = st_trace_duration_ns(sum);
  for (int i = 0; i < 2; i++) {
    st_stream_range rg[256];
    uint64_t bytes;
    uint32_t nr = st_stream_window_plan(s, i ? d / 3 : 0, i ? d / 2 : d, rg, 256, &bytes);
    if (nr > 256) nr = 256;
    st_stream_window *w = st_stream_window_begin(s, sum, rg, nr, &err);
    if (!w) continue;
    int ok = 1;
    for (uint32_t k = 0; k < nr && ok; k++) {
      ok = rg[k].offset + rg[k].length <= dn;
      if (ok) st_stream_window_push(w, k, decoded + rg[k].offset, rg[k].length);
    }
    if (ok) st_trace_destroy(st_stream_window_finish(w, &err));
    st_stream_window_destroy(w);
  }
  uint8_t *rd = read_decoded(&o, 0, 100);
  free(rd);
  end_run(&o);
}

static void mutate(const char *what, const uint8_t *raw, size_t rawn, const uint8_t *decoded,
                   size_t dn) {
  stream_run r = run_pass(raw, rawn, 4096, 64, 65536);
  CHECK(r.summary != NULL);
  st_stream_info info;
  st_stream_info_get(r.s, &info);
  CHECK(info.compressed == (raw != decoded));
  CHECK(info.compressed ? info.restart_points > 20 : info.restart_points == 0);
  gbuf b = save_index(&r);
  if (getenv("STREAM_DUMP_STX")) { /* seeds for tests/fuzz/fuzz_stx.c */
    char path[600];
    snprintf(path, sizeof path, "%s.%s.stx", getenv("STREAM_DUMP_STX"), what);
    FILE *f = fopen(path, "wb");
    if (f) fwrite(b.p, 1, b.n, f), fclose(f);
  }
  uint8_t *m = malloc(b.n);
  int acc0 = mut_accepted, ref0 = mut_refused;
  for (int i = 0; i < 64; i++) { /* cut: always refused; resealed: refused or safe */
    size_t cut = b.n * (size_t)i / 64;
    memcpy(m, b.p, cut);
    st_error err;
    st_trace *sum;
    CHECK(st_stream_open_index(NULL, m, cut, &sum, &err) == NULL);
    reseal(m, cut);
    try_index(m, cut, &r, decoded, dn);
  }
  for (size_t at = 0; at < b.n; at += 1 + b.n / 700) { /* flips */
    memcpy(m, b.p, b.n);
    m[at] ^= (uint8_t)(1u << (at % 8));
    if (at < b.n - 32) {
      st_error err;
      st_trace *sum;
      CHECK(st_stream_open_index(NULL, m, b.n, &sum, &err) == NULL);
    }
    reseal(m, b.n);
    try_index(m, b.n, &r, decoded, dn);
    m[at] = 0xff; /* and large values (counts, lengths, indices) */
    if (at + 1 < b.n) m[at + 1] = 0xff;
    reseal(m, b.n);
    try_index(m, b.n, &r, decoded, dn);
  }
  printf("%s: index of %zu bytes, mutations: %d accepted, %d refused\n", what, b.n,
         mut_accepted - acc0, mut_refused - ref0);
  try_index((const uint8_t *)b.p, b.n, &r, decoded, dn);
  CHECK(mut_accepted > acc0 && mut_refused > ref0);
  free(m);
  free(b.p);
  end_run(&r);
}

static void test_index_mutations(void) {
  size_t n;
  char *t = gen_trace(77, 2, &n);
  mutate("plain", (const uint8_t *)t, n, (const uint8_t *)t, n);
  size_t gn;
  unsigned char *gz = tu_deflate_mem(t, n, 31, 1, &gn);
  mutate("gzip", gz, gn, (const uint8_t *)t, n);
  free(gz);
  free(t);
}

int main(void) {
  RUN(test_index_identity);
  RUN(test_index_shared_strings);
  RUN(test_index_mutations);
  RUN(test_generated);
  RUN(test_plan_reads_little);
  RUN(test_unsorted_figure);
  RUN(test_snapshot);
  RUN(test_corpus);
  RUN(test_protobuf);
  RUN(test_perfetto_counter_units);
  RUN(test_perfetto_staged);
  return check_report();
}
