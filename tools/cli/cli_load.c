/* cli_load.c: loading a trace file for the CLI commands (see cli.h): the
 * counting allocator, the monotonic clock, and the two ways the commands
 * stream a file into the core's loader in 1 MiB stdio reads. */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

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
    for (cli_heap *c = h; c; c = c->parent) c->current -= old;
    return NULL;
  }
  if (size > SIZE_MAX - HEADER) return NULL;
  char *nb = realloc(base, size + HEADER);
  if (!nb) return NULL;
  memcpy(nb, &size, sizeof size);
  for (cli_heap *c = h; c; c = c->parent) {
    c->current = c->current - old + size;
    if (c->current > c->peak) c->peak = c->current;
  }
  return nb + HEADER;
}

double cli_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

st_loader *cli_load_timed(const char *file, cli_heap *heap, st_trace **out, st_error *err,
                          double *load_ms) {
  return cli_load_timed_in(file, heap, NULL, out, err, load_ms);
}

st_loader *cli_load_timed_in(const char *file, cli_heap *heap, st_strtab *strings, st_trace **out,
                             st_error *err, double *load_ms) {
  st_load_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.alloc.fn = cli_counting_alloc;
  desc.alloc.ud = heap;
  desc.file_name = file;
  desc.strings = strings;
  FILE *f = fopen(file, "rb");
  if (!f) {
    fprintf(stderr, "strata: %s: cannot open: %s\n", file, strerror(errno));
    return NULL;
  }
  unsigned char *buf = malloc(CHUNK_BYTES);
  double t0 = cli_now_ms();
  st_loader *l = st_loader_create(&desc);
  if (!buf || !l) {
    fprintf(stderr, "strata: %s: out of memory\n", file);
    fclose(f);
    free(buf);
    st_loader_destroy(l);
    return NULL;
  }
  int read_error = 0;
  for (;;) {
    size_t n = fread(buf, 1, CHUNK_BYTES, f);
    if (n > 0 && st_loader_push(l, buf, n) != ST_OK) break;
    if (n < CHUNK_BYTES) {
      read_error = ferror(f);
      break;
    }
  }
  fclose(f);
  free(buf);
  if (read_error) {
    fprintf(stderr, "strata: %s: read error\n", file);
    st_loader_destroy(l);
    return NULL;
  }
  st_trace *t = st_loader_finish(l, err);
  *load_ms = cli_now_ms() - t0;
  if (!t) {
    char line[512];
    st_load_error_line(err, file, line, sizeof line);
    fprintf(stderr, "strata: %s\n", line);
    st_loader_destroy(l);
    return NULL;
  }
  *out = t;
  return l;
}

st_loader *cli_load_stream(FILE *f, const char *file, uint8_t *buf, size_t cap, st_trace **out,
                           st_error *err) {
  st_load_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.file_name = file;
  st_loader *l = st_loader_create(&desc);
  size_t n;
  while (l && (n = fread(buf, 1, cap, f)) > 0)
    if (st_loader_push(l, buf, n) != ST_OK) break;
  memset(err, 0, sizeof *err);
  st_trace *t = l ? st_loader_finish(l, err) : NULL;
  if (!t) {
    char line[512];
    if (l) st_load_error_line(err, file, line, sizeof line);
    fprintf(stderr, "strata: %s\n", l ? line : "out of memory");
    st_loader_destroy(l);
    return NULL;
  }
  *out = t;
  return l;
}

int cli_load_file(const char *file, cli_heap *heap, cli_loaded *out) {
  memset(out, 0, sizeof *out);
  out->file = file;
  double load_ms = 0;
  st_loader *l = cli_load_timed(file, heap, &out->trace, &out->err, &load_ms);
  if (!l) return 1;
  out->stats = *st_loader_stats(l);
  out->stats.load_ms = load_ms;
  out->stats.heap_bytes = heap->peak;
  const char *meta = st_loader_metadata_json(l);
  out->metadata_json = malloc(strlen(meta) + 1);
  if (out->metadata_json) memcpy(out->metadata_json, meta, strlen(meta) + 1);
  st_loader_destroy(l);
  if (!out->metadata_json) {
    fprintf(stderr, "strata: %s: out of memory\n", file);
    cli_loaded_free(out);
    return 1;
  }
  return 0;
}

void cli_loaded_free(cli_loaded *l) {
  st_trace_destroy(l->trace);
  free(l->metadata_json);
  memset(l, 0, sizeof *l);
}

void cli_warn_damaged(const cli_loaded *l) {
  if (l->err.code != ST_OK) {
    char line[512];
    st_load_error_line(&l->err, NULL, line, sizeof line);
    fprintf(stderr, "strata: %s: warning: %s; kept what was read before it\n", l->file, line);
    return;
  }
  for (uint32_t i = 0; i < l->stats.warning_count; i++)
    if (strcmp(l->stats.warnings[i].kind, "truncated") == 0)
      fprintf(stderr,
              "strata: %s: warning: truncated trace: the event list ends without ']' (at byte "
              "%llu); complete events kept\n",
              l->file, (unsigned long long)l->stats.warnings[i].first_offset);
}
