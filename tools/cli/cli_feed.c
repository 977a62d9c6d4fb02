/* cli_feed.c: a trace file read into a loader on several threads, or
 * streamed on one (see cli_feed.h).
 *
 *   cli_feed          the choice: split (plan_tasks) or stream (pump)
 *   the pool          worker threads: take task k, pread, parse
 *   apply_all         this thread: results applied in task order
 */
#define _POSIX_C_SOURCE 200809L

#include "cli_feed.h"

#include "chrome_range.h"
#include "load.h"
#include "source.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define CHUNK_BYTES (1u << 20)
#define HEAD_BYTES 64 /* what st_load_splittable reads */
/* smaller tasks read mostly ST_RANGE_SLACK: 1 MiB tasks cost ~10 % more CPU (the copies) */
#define TASK_FLOOR ((uint64_t)4u << 20)

/* Streams f in 1 MiB reads into s->push until EOF or a push fails. */
static int pump(FILE *f, const cli_sink *s) {
  unsigned char *buf = malloc(CHUNK_BYTES);
  if (!buf) return CLI_FEED_NOMEM;
  int read_error = 0;
  for (;;) {
    size_t n = fread(buf, 1, CHUNK_BYTES, f);
    if (n > 0 && s->push(s->ud, buf, n) != ST_OK) break;
    if (n < CHUNK_BYTES) {
      read_error = ferror(f);
      break;
    }
  }
  free(buf);
  return read_error ? CLI_FEED_READ_ERROR : 0;
}

/* ---- the pool ----------------------------------------------------------------
 * Workers take tasks k = 0, 1, ... in order, but only while k < applied +
 * window, so at most `window` results exist at once; task k's outcome goes
 * to slots[k % window], which the applying thread empties before task k +
 * window can be taken. A worker reads each task into its own buffer, used
 * again for its next task, and keeps only the result: the applying thread
 * reads a task's bytes again in the rare case the loader needs them
 * (st_loader_apply_needs_bytes: a cut a string fooled, damage), so the
 * bytes in memory are one task's per thread, not one per task in flight. */

enum { SLOT_EMPTY, SLOT_DONE, SLOT_READ_ERROR, SLOT_NOMEM };

typedef struct slot {
  int state;
  uint8_t *result; /* st_chrome_range_parse's */
  size_t rlen;
} slot;

typedef struct pool {
  pthread_mutex_t mu;
  pthread_cond_t done;  /* a slot was filled (the applying thread waits) */
  pthread_cond_t space; /* a slot was emptied, or stop (workers wait) */
  int fd;
  uint64_t size, task_bytes;
  uint32_t tasks, window;
  uint32_t next;    /* the next task a worker takes */
  uint32_t applied; /* tasks taken out of their slots */
  int stop;
  slot *slots;
  st_alloc alloc;
} pool;

/* a thread's buffer for the tasks' bytes, grown as needed */
typedef struct buf {
  uint8_t *p;
  size_t cap, len;
} buf;

/* pread until len bytes or trouble: 0, or -1 (an error, or the file ended
 * early: it shrank since fstat) */
static int read_at(int fd, uint8_t *dst, size_t len, uint64_t off) {
  size_t got = 0;
  while (got < len) {
    ssize_t r = pread(fd, dst + got, len - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

/* Task k's nominal range [*a, *next) in the file. */
static void task_range(const pool *p, uint32_t k, uint64_t *a, uint64_t *next) {
  *a = (uint64_t)k * p->task_bytes;
  *next = k + 1 == p->tasks || p->size - *a <= p->task_bytes ? p->size : *a + p->task_bytes;
}

/* Task k's bytes [a_k, min(a_{k+1} + ST_RANGE_SLACK, size)) into b: 0 or
 * CLI_FEED_*. */
static int read_task(const pool *p, uint32_t k, buf *b) {
  uint64_t a, next;
  task_range(p, k, &a, &next);
  uint64_t end = p->size - next > ST_RANGE_SLACK ? next + ST_RANGE_SLACK : p->size;
  if (end - a > SIZE_MAX - 1) return CLI_FEED_NOMEM;
  b->len = (size_t)(end - a);
  if (b->len > b->cap || !b->p) {
    uint8_t *n = st_realloc(&p->alloc, b->p, b->len + 1);
    if (!n) return CLI_FEED_NOMEM;
    b->p = n, b->cap = b->len;
  }
  return read_at(p->fd, b->p, b->len, a) ? CLI_FEED_READ_ERROR : 0;
}

/* Task k read into b and parsed. */
static slot run_task(pool *p, uint32_t k, buf *b) {
  slot t = {SLOT_NOMEM, NULL, 0};
  int rc = read_task(p, k, b);
  if (rc) {
    t.state = rc == CLI_FEED_READ_ERROR ? SLOT_READ_ERROR : SLOT_NOMEM;
    return t;
  }
  uint64_t a, next;
  task_range(p, k, &a, &next);
  t.result = st_chrome_range_parse(&p->alloc, b->p, b->len, a, next, p->size, &t.rlen);
  if (!t.result) return t;
  /* the result's room beyond its length, given back while it waits */
  uint8_t *fit = st_realloc(&p->alloc, t.result, t.rlen ? t.rlen : 1);
  if (fit) t.result = fit;
  t.state = SLOT_DONE;
  return t;
}

static void *worker(void *arg) {
  pool *p = arg;
  buf b = {NULL, 0, 0};
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->stop && p->next < p->tasks && p->next - p->applied >= p->window)
      pthread_cond_wait(&p->space, &p->mu);
    if (p->stop || p->next >= p->tasks) break;
    uint32_t k = p->next++;
    pthread_mutex_unlock(&p->mu);
    slot t = run_task(p, k, &b);
    pthread_mutex_lock(&p->mu);
    p->slots[k % p->window] = t;
    pthread_cond_signal(&p->done); /* only the applying thread waits on it */
  }
  pthread_mutex_unlock(&p->mu);
  st_free(&p->alloc, b.p);
  return NULL;
}

static void slot_free(pool *p, slot *t) {
  st_free(&p->alloc, t->result);
  memset(t, 0, sizeof *t);
}

/* Takes task k's outcome out of its slot. While it is not there, this
 * thread parses the next task no worker has taken yet (into mine), as one
 * more worker: so N threads keep N cores busy, none waits while work is
 * left (on 2 cores, 2 workers + this thread measured 25-30 % slower than
 * 1 worker + this thread helping). */
static slot take(pool *p, uint32_t k, buf *mine) {
  pthread_mutex_lock(&p->mu);
  slot *s = &p->slots[k % p->window];
  while (s->state == SLOT_EMPTY) {
    if (p->next < p->tasks && p->next - p->applied < p->window) {
      uint32_t j = p->next++;
      pthread_mutex_unlock(&p->mu);
      slot t = run_task(p, j, mine);
      pthread_mutex_lock(&p->mu);
      p->slots[j % p->window] = t;
      continue;
    }
    pthread_cond_wait(&p->done, &p->mu);
  }
  slot t = *s;
  memset(s, 0, sizeof *s);
  p->applied = k + 1;
  pthread_cond_broadcast(&p->space);
  pthread_mutex_unlock(&p->mu);
  return t;
}

/* ---- apply_all -------------------------------------------------------------- */

/* Every task's result applied in order with nthreads workers running; the
 * pool stopped and emptied after. 0 or CLI_FEED_*. */
static int apply_all(pool *p, const cli_sink *s, pthread_t *threads, uint32_t nthreads) {
  int rc = 0;
  buf b = {NULL, 0, 0};    /* a task's bytes, when the loader needs them */
  buf mine = {NULL, 0, 0}; /* the tasks this thread parses while it waits */
  for (uint32_t k = 0; k < p->tasks && !rc; k++) {
    slot t = take(p, k, &mine);
    if (t.state != SLOT_DONE) {
      rc = t.state == SLOT_READ_ERROR ? CLI_FEED_READ_ERROR : CLI_FEED_NOMEM;
      slot_free(p, &t);
      break;
    }
    b.len = 0;
    if (s->needs_bytes(s->ud, t.result, t.rlen)) rc = read_task(p, k, &b);
    st_code c = rc ? ST_OK : s->apply(s->ud, t.result, t.rlen, b.len ? b.p : NULL, b.len);
    slot_free(p, &t);
    if (c != ST_OK) break; /* the sink's finish says why */
  }
  st_free(&p->alloc, b.p);
  st_free(&p->alloc, mine.p);
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->space);
  pthread_mutex_unlock(&p->mu);
  for (uint32_t i = 0; i < nthreads; i++) pthread_join(threads[i], NULL);
  for (uint32_t i = 0; i < p->window; i++) slot_free(p, &p->slots[i]);
  return rc;
}

/* ---- cli_feed ----------------------------------------------------------------- */

static uint32_t online_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > CLI_THREADS_MAX ? CLI_THREADS_MAX : (uint32_t)n;
}

/* decoded bytes per task of a compressed file (its decoded size is not
 * known before the end) */
#define GZ_TASK ((uint64_t)8u << 20)

/* 1 if the file at fd is gzip/zlib and big enough for threads to pay: its
 * decoded size is guessed at 5 times its own (JSON deflates 5-10x). */
static int compressed_and_big(int fd, const cli_feed_opts *o) {
  struct stat st;
  uint8_t h[2];
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 2 || read_at(fd, h, 2, 0))
    return 0;
  st_compression c = st_source_sniff(h[0], h[1]);
  if (c != ST_COMPRESSION_GZIP && c != ST_COMPRESSION_ZLIB) return 0;
  return o->task_bytes || (uint64_t)st.st_size * 5 >= ST_RANGE_MIN_SPLIT;
}

/* The tasks to cut the file at fd into, or 0: stream it. */
static uint32_t plan_tasks(int fd, uint32_t threads, const cli_feed_opts *o, uint64_t *size,
                           uint64_t *task_bytes) {
  struct stat st;
  if (threads <= 1 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return 0;
  *size = (uint64_t)st.st_size;
  uint8_t head[HEAD_BYTES];
  size_t n = *size < HEAD_BYTES ? (size_t)*size : HEAD_BYTES;
  if (read_at(fd, head, n, 0) != 0 || !st_load_splittable(head, n)) return 0;
  uint64_t tasks;
  if (o->task_bytes) {
    *task_bytes = o->task_bytes;
    tasks = (*size - 1) / o->task_bytes + 1;
  } else if ((tasks = st_range_plan(*size, threads, task_bytes)) != 0) {
    /* smaller tasks than the plan's where the file is small for its
     * tasks: a thread holds about three tasks' worth (the bytes, the
     * result as it grows), kept under 1/32 of the file where tasks of
     * TASK_FLOOR allow, so the peak heap stays near the model's (1e6
     * events, 300 MB: 4 MiB tasks, not 16: 37 bytes/event, not 108) */
    uint64_t fit = *size / (96u * threads);
    if (fit < TASK_FLOOR) fit = TASK_FLOOR;
    if (fit < *task_bytes) *task_bytes = fit, tasks = (*size - 1) / fit + 1;
  }
  /* every task starts inside the file (run_task relies on it) */
  if (!tasks || tasks > UINT32_MAX || !*task_bytes || (tasks - 1) > (*size - 1) / *task_bytes)
    return 0;
  return (uint32_t)tasks;
}

/* A split's results (1-16 MiB each) are made by one thread and freed by
 * another. With glibc's defaults each one is mmapped, faulted in page by
 * page and unmapped again: the 1e7 trace on 2 threads took 254k page faults
 * (106k on one) and 0.66 s of system time. Freed memory kept for reuse
 * below 256 MiB at an arena's top, and no mmap under 32 MiB: 113k faults,
 * the load 1.41 s instead of 1.65 s (one thread: 2.48 s either way); the
 * resident set grows by ~7 %. Process-wide, set once before the threads. */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

int cli_feed(FILE *f, const cli_sink *s, const cli_feed_opts *o, cli_feed_used *used) {
  cli_feed_used none;
  if (!used) used = &none;
  memset(used, 0, sizeof *used);
  uint32_t want = o->threads ? o->threads : online_cores();
  if (want > 1) keep_freed_memory();
  pool p;
  memset(&p, 0, sizeof p);
  p.fd = fileno(f);
  p.alloc = s->alloc;
  if (p.fd >= 0 && want > 1 && compressed_and_big(p.fd, o)) {
    /* one thread inflates, the others parse (at least one) */
    int rc =
        cli_feed_gz(f, s, want - 1 ? want - 1 : 1, o->task_bytes ? o->task_bytes : GZ_TASK, used);
    if (rc != 1) return rc;
  }
  p.tasks = p.fd < 0 ? 0 : plan_tasks(p.fd, want, o, &p.size, &p.task_bytes);
  if (!p.tasks) return pump(f, s);
  /* N threads in all: N - 1 workers (no more than the tasks), and this
   * one applies and helps */
  if (want > p.tasks + 1) want = p.tasks + 1;
  p.window = 2 * want;
  want -= 1;
  pthread_t threads[CLI_THREADS_MAX];
  p.slots = calloc(p.window, sizeof *p.slots);
  if (!p.slots) return pump(f, s);
  if (pthread_mutex_init(&p.mu, NULL) != 0) {
    free(p.slots);
    return pump(f, s);
  }
  int conds = pthread_cond_init(&p.done, NULL) == 0;
  conds += conds && pthread_cond_init(&p.space, NULL) == 0;
  uint32_t started = 0;
  while (conds == 2 && started < want && pthread_create(&threads[started], NULL, worker, &p) == 0)
    started++; /* a thread that cannot start: fewer threads */
  if (started) used->threads = started + 1, used->tasks = p.tasks;
  int rc = started ? apply_all(&p, s, threads, started) : pump(f, s);
  if (conds == 2) pthread_cond_destroy(&p.space);
  if (conds >= 1) pthread_cond_destroy(&p.done);
  pthread_mutex_destroy(&p.mu);
  free(p.slots);
  return rc;
}

/* ---- options ------------------------------------------------------------------ */

int cli_feed_opt(int argc, char **argv, int *i, cli_feed_opts *o, const char *cmd) {
  const char *a = argv[*i];
  int threads = strcmp(a, "--threads") == 0;
  if (!threads && strcmp(a, "--task-bytes") != 0) return 0;
  const char *v = *i + 1 < argc ? argv[*i + 1] : "";
  char *end;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  uint64_t max = threads ? CLI_THREADS_MAX : UINT64_MAX;
  if (!*v || *end || *v == '-' || errno || n < 1 || n > max) {
    if (threads)
      fprintf(stderr, "strata: %s: --threads wants a number of threads, 1 to %d\n", cmd,
              CLI_THREADS_MAX);
    else
      fprintf(stderr, "strata: %s: --task-bytes wants a positive number of bytes\n", cmd);
    return -1;
  }
  if (threads)
    o->threads = (uint32_t)n;
  else
    o->task_bytes = n;
  *i += 1;
  return 1;
}
