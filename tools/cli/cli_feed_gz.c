/* cli_feed_gz.c: a compressed trace file (gzip, zlib) read into a loader on
 * several threads (see cli_feed.h): one thread inflates the file and cuts
 * the decoded stream into tasks (core/import/load/inflate_cut.h, each with
 * ST_RANGE_SLACK bytes of the next one after it); worker threads parse the
 * tasks (st_chrome_range_parse); the calling thread applies the results in
 * task order and at the end hands the inflater's outcome (its info and
 * first error) to the sink, so stats and gzip errors read as if the raw
 * bytes had been pushed (load.h st_loader_set_inflated). At most `window`
 * tasks exist at once: the inflater waits for the applying thread, so a
 * 10 GB file never piles up in memory. A task's bytes stay with it until it
 * is applied: the loader may need them, and they cannot be read again.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_feed.h"

#include "chrome_range.h"
#include "inflate_cut.h"
#include "load.h"
#include "source.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RAW_READ (1u << 20)

typedef struct gtask {
  st_split_task t; /* decoded bytes, a_k, a_{k+1}, size (inflate_cut.h) */
  int state;       /* 1 ready to parse, 2 parsing, 3 parsed, 4 out of memory */
  uint8_t *result;
  size_t rlen;
} gtask;

typedef struct gz {
  pthread_mutex_t mu;
  pthread_cond_t cv; /* any change: workers, the applying thread and the inflater wait on it */
  st_alloc alloc;
  uint64_t tb;      /* task bytes */
  uint32_t window;  /* tasks in the ring */
  gtask *ring;      /* task k at ring[k % window] */
  uint64_t made;    /* tasks the inflater handed over */
  uint64_t applied; /* tasks taken by the applying thread */
  int eof, stop, nomem, read_error;
  st_source_info info; /* the inflater's outcome, at eof */
  st_code code;
  st_error err;
} gz;

static gtask *task_of(gz *g, uint64_t k) { return &g->ring[k % g->window]; }

/* The cutter's complete tasks into the ring, waiting for room. */
static void hand_over(gz *g, st_inflate_cut *cut) {
  st_split_task t;
  while (st_inflate_cut_take(cut, &t)) {
    pthread_mutex_lock(&g->mu);
    while (!g->stop && g->made - g->applied >= g->window) pthread_cond_wait(&g->cv, &g->mu);
    if (g->stop) {
      pthread_mutex_unlock(&g->mu);
      st_free(&g->alloc, t.bytes);
      continue;
    }
    gtask *slot = task_of(g, g->made++);
    *slot = (gtask){t, 1, NULL, 0};
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
  }
}

typedef struct inflater {
  gz *g;
  FILE *f;
} inflater;

static void *inflate_all(void *arg) {
  inflater *in = arg;
  gz *g = in->g;
  st_inflate_cut *cut = st_inflate_cut_create(&g->alloc, g->tb);
  uint8_t *raw = malloc(RAW_READ);
  st_code code = ST_OK;
  st_error err;
  memset(&err, 0, sizeof err);
  int read_error = 0, stopped = 0;
  if (!cut || !raw) {
    code = ST_ERR_NOMEM;
  } else {
    for (;;) {
      size_t got = fread(raw, 1, RAW_READ, in->f);
      if (got) code = st_inflate_cut_push(cut, raw, got, &err);
      hand_over(g, cut);
      pthread_mutex_lock(&g->mu);
      stopped = g->stop;
      pthread_mutex_unlock(&g->mu);
      if (code != ST_OK || stopped) break;
      if (got < RAW_READ) {
        read_error = ferror(in->f) != 0;
        break;
      }
    }
    /* the tasks decoded before any damage are still handed over */
    st_error ferr;
    memset(&ferr, 0, sizeof ferr);
    st_code fc = st_inflate_cut_finish(cut, &ferr);
    if (code == ST_OK && !read_error && !stopped) code = fc, err = ferr;
    hand_over(g, cut);
  }
  pthread_mutex_lock(&g->mu);
  if (cut) g->info = *st_inflate_cut_info(cut);
  g->nomem |= code == ST_ERR_NOMEM && !stopped;
  g->code = code;
  g->err = err;
  g->read_error = read_error;
  g->eof = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
  st_inflate_cut_destroy(cut);
  free(raw);
  return NULL;
}

static void *parse_tasks(void *arg) {
  gz *g = arg;
  pthread_mutex_lock(&g->mu);
  for (;;) {
    gtask *t = NULL;
    for (uint64_t k = g->applied; k < g->made && !t; k++)
      if (task_of(g, k)->state == 1) t = task_of(g, k);
    if (!t) {
      if (g->stop || (g->eof && g->applied >= g->made)) break;
      pthread_cond_wait(&g->cv, &g->mu);
      continue;
    }
    t->state = 2;
    pthread_mutex_unlock(&g->mu);
    size_t rlen = 0;
    uint8_t *r = st_chrome_range_parse(&g->alloc, t->t.bytes, t->t.len, t->t.base, t->t.next,
                                       t->t.size, &rlen);
    pthread_mutex_lock(&g->mu);
    t->result = r;
    t->rlen = rlen;
    t->state = r ? 3 : 4;
    pthread_cond_broadcast(&g->cv);
  }
  pthread_mutex_unlock(&g->mu);
  return NULL;
}

/* 1 if f (compressed) inflates to Chrome JSON that may be split: its
 * first 64 KiB tried (load.h st_load_decoded_splittable). f is rewound. */
static int decoded_splittable(FILE *f) {
  uint8_t *head = malloc(64u << 10);
  if (!head) return 0;
  size_t n = fread(head, 1, 64u << 10, f);
  int ok = st_load_decoded_splittable(head, n);
  free(head);
  rewind(f);
  return ok;
}

int cli_feed_gz(FILE *f, const cli_sink *s, uint32_t threads, uint64_t task_bytes,
                cli_feed_used *used) {
  if (!s->inflated || !decoded_splittable(f)) return 1;
  gz g;
  memset(&g, 0, sizeof g);
  g.alloc = s->alloc;
  /* a task's slack comes from the next task only: tasks of at least the slack */
  g.tb = task_bytes > ST_RANGE_SLACK ? task_bytes : ST_RANGE_SLACK;
  g.window = 2 * threads + 2;
  g.ring = calloc(g.window, sizeof *g.ring);
  if (!g.ring) return 1;
  if (pthread_mutex_init(&g.mu, NULL) != 0) {
    free(g.ring);
    return 1;
  }
  if (pthread_cond_init(&g.cv, NULL) != 0) {
    pthread_mutex_destroy(&g.mu);
    free(g.ring);
    return 1;
  }
  inflater in = {&g, f};
  pthread_t inf, workers[CLI_THREADS_MAX];
  uint32_t started = 0;
  if (pthread_create(&inf, NULL, inflate_all, &in) != 0) {
    pthread_cond_destroy(&g.cv);
    pthread_mutex_destroy(&g.mu);
    free(g.ring);
    return 1;
  }
  while (started < threads && pthread_create(&workers[started], NULL, parse_tasks, &g) == 0)
    started++;
  int rc = 0, stopped = 0;
  for (uint64_t k = 0;; k++) {
    pthread_mutex_lock(&g.mu);
    gtask *t = NULL;
    for (;;) {
      if (g.nomem) break;
      if (k < g.made) {
        t = task_of(&g, k);
        if (t->state >= 3) break;
        if (!started && t->state == 1) break; /* parsed below, here */
        t = NULL;
      } else if (g.eof) {
        break;
      }
      pthread_cond_wait(&g.cv, &g.mu);
    }
    pthread_mutex_unlock(&g.mu);
    if (!t) {
      if (g.nomem) rc = CLI_FEED_NOMEM;
      break;
    }
    if (t->state == 1) {
      t->result = st_chrome_range_parse(&g.alloc, t->t.bytes, t->t.len, t->t.base, t->t.next,
                                        t->t.size, &t->rlen);
      t->state = t->result ? 3 : 4;
    }
    if (t->state == 4) {
      rc = CLI_FEED_NOMEM;
      break;
    }
    int need = s->needs_bytes(s->ud, t->result, t->rlen);
    st_code c = s->apply(s->ud, t->result, t->rlen, need ? t->t.bytes : NULL, need ? t->t.len : 0);
    pthread_mutex_lock(&g.mu);
    st_free(&g.alloc, t->result);
    st_free(&g.alloc, t->t.bytes);
    t->result = NULL;
    t->t.bytes = NULL;
    g.applied = k + 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    if (c != ST_OK) { /* the sink's finish says why; the rest is not read */
      stopped = 1;
      break;
    }
  }
  pthread_mutex_lock(&g.mu);
  g.stop = 1;
  pthread_cond_broadcast(&g.cv);
  pthread_mutex_unlock(&g.mu);
  pthread_join(inf, NULL);
  for (uint32_t i = 0; i < started; i++) pthread_join(workers[i], NULL);
  if (g.read_error && !stopped && !rc) rc = CLI_FEED_READ_ERROR;
  /* the raw side's outcome; a stop of ours is no error of the input */
  if (!rc) s->inflated(s->ud, &g.info, stopped ? ST_OK : g.code, &g.err);
  if (used) {
    used->threads = started;
    used->tasks = (uint32_t)(g.made > UINT32_MAX ? UINT32_MAX : g.made);
  }
  for (uint64_t k = g.applied; k < g.made; k++) { /* not applied: stopped early */
    st_free(&g.alloc, task_of(&g, k)->t.bytes);
    st_free(&g.alloc, task_of(&g, k)->result);
  }
  pthread_cond_destroy(&g.cv);
  pthread_mutex_destroy(&g.mu);
  free(g.ring);
  return rc;
}
