/* cli_load.c: loading trace files for the CLI commands (see cli.h): the
 * counting allocator, the monotonic clock, the two ways the commands
 * read a file into the core's loader (cli_feed.h: on threads or streamed),
 * and several files loaded into a trace set (core/set/traceset.h) for the
 * multi-file commands. */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdatomic.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK_BYTES (1u << 20)
#define HEADER 16 /* keeps the payload 16-byte aligned */

/* a size header in front of every block */
void *cli_counting_alloc(void *ud, void *ptr, size_t size) {
  cli_heap *h = ud;
  size_t old = 0;
  char *base = ptr ? (char *)ptr - HEADER : NULL;
  if (base) memcpy(&old, base, sizeof old);
  if (size == 0) {
    free(base);
    for (cli_heap *c = h; c; c = c->parent) atomic_fetch_sub(&c->current, old);
    return NULL;
  }
  if (size > SIZE_MAX - HEADER) return NULL;
  char *nb = realloc(base, size + HEADER);
  if (!nb) return NULL;
  memcpy(nb, &size, sizeof size);
  /* atomic: the workers of a split import (cli_feed.c) allocate here too */
  for (cli_heap *c = h; c; c = c->parent) {
    size_t now = atomic_fetch_add(&c->current, size - old) + (size - old);
    size_t peak = atomic_load(&c->peak);
    while (now > peak && !atomic_compare_exchange_weak(&c->peak, &peak, now)) {
    }
  }
  return nb + HEADER;
}

double cli_clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double cli_now_ms(void) { return cli_clock_ms(CLOCK_MONOTONIC); }

static FILE *open_or_say(const char *file) {
  FILE *f = fopen(file, "rb");
  if (!f) fprintf(stderr, "strata: %s: cannot open: %s\n", file, strerror(errno));
  return f;
}

/* cli_feed, f closed after, and one line on stderr for its trouble: 0 or 1 */
static int feed_or_say(FILE *f, const char *file, const cli_sink *s, const cli_feed_opts *o,
                       cli_feed_used *used) {
  int rc = cli_feed(f, s, o, used);
  fclose(f);
  if (rc)
    fprintf(stderr, "strata: %s: %s\n", file,
            rc == CLI_FEED_READ_ERROR ? "read error" : "out of memory");
  return rc != 0;
}

static void say_load_error(const st_error *err, const char *file) {
  char line[512];
  st_load_error_line(err, file, line, sizeof line);
  fprintf(stderr, "strata: %s\n", line);
}

static st_code loader_push(void *ud, const void *data, size_t len) {
  return st_loader_push(ud, data, len);
}

static st_code loader_apply(void *ud, const void *result, size_t rlen, const void *bytes,
                            size_t blen) {
  return st_loader_apply(ud, result, rlen, bytes, blen);
}

static int loader_needs_bytes(void *ud, const void *result, size_t rlen) {
  return st_loader_apply_needs_bytes(ud, result, rlen);
}

static void loader_inflated(void *ud, const st_source_info *info, st_code code,
                            const st_error *err) {
  st_loader_set_inflated(ud, info, code, err);
}

st_loader *cli_load_timed(const char *file, const cli_feed_opts *o, cli_feed_used *used,
                          cli_heap *heap, st_trace **out, st_error *err, double *load_ms) {
  st_load_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.alloc.fn = cli_counting_alloc;
  desc.alloc.ud = heap;
  desc.file_name = file;
  FILE *f = open_or_say(file);
  if (!f) return NULL;
  double t0 = cli_now_ms();
  st_loader *l = st_loader_create(&desc);
  if (!l) {
    fprintf(stderr, "strata: %s: out of memory\n", file);
    fclose(f);
    return NULL;
  }
  cli_sink sink = {loader_push, loader_apply, loader_needs_bytes, l, desc.alloc, loader_inflated};
  if (feed_or_say(f, file, &sink, o, used)) {
    st_loader_destroy(l);
    return NULL;
  }
  st_trace *t = st_loader_finish(l, err);
  *load_ms = cli_now_ms() - t0;
  if (!t) {
    say_load_error(err, file);
    st_loader_destroy(l);
    return NULL;
  }
  *out = t;
  return l;
}

st_loader *cli_load_stream(FILE *f, const char *file, const cli_feed_opts *o, st_trace **out,
                           st_error *err) {
  st_load_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.file_name = file;
  st_loader *l = st_loader_create(&desc);
  cli_sink sink = {loader_push, loader_apply, loader_needs_bytes, l, desc.alloc, loader_inflated};
  int rc = l ? cli_feed(f, &sink, o, NULL) : CLI_FEED_NOMEM;
  memset(err, 0, sizeof *err);
  st_trace *t = l && !rc ? st_loader_finish(l, err) : NULL;
  if (!t) {
    char line[512];
    if (l && !rc) st_load_error_line(err, file, line, sizeof line);
    fprintf(stderr, "strata: %s%s%s\n", rc ? file : "", rc ? ": " : "",
            !rc                         ? line
            : rc == CLI_FEED_READ_ERROR ? "read error"
                                        : "out of memory");
    st_loader_destroy(l);
    return NULL;
  }
  *out = t;
  return l;
}

/* ---- several files as one set ---------------------------------------------- */

static st_code set_push(void *ud, const void *data, size_t len) {
  return st_traceset_load_push(ud, data, len);
}

static st_code set_apply(void *ud, const void *result, size_t rlen, const void *bytes,
                         size_t blen) {
  return st_traceset_load_apply(ud, result, rlen, bytes, blen);
}

static int set_needs_bytes(void *ud, const void *result, size_t rlen) {
  return st_traceset_load_apply_needs_bytes(ud, result, rlen);
}

static void set_inflated(void *ud, const st_source_info *info, st_code code, const st_error *err) {
  st_traceset_load_set_inflated(ud, info, code, err);
}

/* File k into the open batch: 0, or 1 after the message. */
static int load_one(cli_set *cs, uint32_t k) {
  const char *file = cs->files[k];
  FILE *f = open_or_say(file);
  if (!f) return 1;
  size_t base = cs->window.current; /* what the files before hold */
  cs->window.peak = base;
  double t0 = cli_now_ms();
  if (st_traceset_load_begin(cs->set, file) != ST_OK) {
    fprintf(stderr, "strata: %s: out of memory\n", file);
    fclose(f);
    return 1;
  }
  cli_sink sink = {
      set_push,    set_apply, set_needs_bytes, cs->set, {cli_counting_alloc, &cs->window},
      set_inflated};
  if (feed_or_say(f, file, &sink, &cs->opts, &cs->used[k])) {
    st_traceset_load_abort(cs->set);
    return 1;
  }
  st_trace_handle h = st_traceset_load_finish(cs->set, &cs->errs[k]);
  if (!h.id) {
    say_load_error(&cs->errs[k], file);
    return 1;
  }
  st_traceset_set_load_figures(cs->set, h, cli_now_ms() - t0, cs->window.peak - base);
  cs->handles[k] = h;
  return 0;
}

int cli_set_load(cli_set *cs, const char *const *files, uint32_t n, int unmerged,
                 const cli_feed_opts *o) {
  memset(cs, 0, sizeof *cs);
  cs->opts = *o;
  cs->files = files;
  cs->n = n;
  cs->window.parent = &cs->total;
  st_traceset_desc d;
  memset(&d, 0, sizeof d);
  d.load_alloc.fn = cli_counting_alloc;
  d.load_alloc.ud = &cs->window;
  d.capacity = n;
  d.unmerged = unmerged;
  cs->handles = calloc(n, sizeof *cs->handles);
  cs->errs = calloc(n, sizeof *cs->errs);
  cs->used = calloc(n, sizeof *cs->used);
  cs->set = n <= ST_TRACESET_CAPACITY && cs->handles && cs->errs && cs->used
                ? st_traceset_create(&d)
                : NULL;
  if (!cs->set || st_traceset_batch_begin(cs->set) != ST_OK) {
    fprintf(stderr, "strata: out of memory\n");
    return 1;
  }
  for (uint32_t k = 0; k < n; k++)
    if (load_one(cs, k)) return 1;
  st_traceset_report rep;
  if (st_traceset_batch_end(cs->set, NULL, &rep) != n) { /* the merge did not fit */
    const char *why = rep.dropped ? rep.dropped_text : rep.error;
    fprintf(stderr, "strata: merging the files: %.*s\n", (int)strcspn(why, "\n"), why);
    return 1;
  }
  return 0;
}

void cli_set_free(cli_set *cs) {
  st_traceset_destroy(cs->set);
  free(cs->handles);
  free(cs->errs);
  free(cs->used);
  memset(cs, 0, sizeof *cs);
}

st_traceset_file cli_set_file(const cli_set *cs, uint32_t k) {
  st_traceset_file f;
  st_traceset_get(cs->set, cs->handles[k], &f);
  return f;
}

void cli_set_warn_damaged(const cli_set *cs) {
  for (uint32_t k = 0; k < cs->n; k++) {
    const char *file = cs->files[k];
    const st_stats *s = cli_set_file(cs, k).stats;
    if (cs->errs[k].code != ST_OK) {
      char line[512];
      st_load_error_line(&cs->errs[k], NULL, line, sizeof line);
      fprintf(stderr, "strata: %s: warning: %s; kept what was read before it\n", file, line);
      continue;
    }
    for (uint32_t i = 0; s && i < s->warning_count; i++)
      if (strcmp(s->warnings[i].kind, "truncated") == 0)
        fprintf(stderr,
                "strata: %s: warning: truncated trace: the event list ends without ']' (at byte "
                "%llu); complete events kept\n",
                file, (unsigned long long)s->warnings[i].first_offset);
  }
}
