/* cli_stream.c: streaming mode's file side for `strata index` and `strata
 * window` (core/import/stream/stream.h, stream_stx.h): the pass over a
 * file, the sampled blocks an index identifies its trace by, an index
 * opened and checked against its trace, decoded ranges read with pread
 * (plain) or through the gzip restart points (compressed), and the
 * re-ordered copy written to a temporary file.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "stream_stx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 20)

st_stream *cli_stream_pass(const char *file, uint64_t block_bytes, uint64_t gz_span, cli_heap *heap,
                           st_trace **summary, double *ms) {
  FILE *f = fopen(file, "rb");
  if (!f) {
    fprintf(stderr, "strata: %s: cannot open: %s\n", file, strerror(errno));
    return NULL;
  }
  double t0 = cli_now_ms();
  st_stream_desc d = {.alloc = {cli_counting_alloc, heap},
                      .file_name = file,
                      .block_bytes = block_bytes,
                      .gz_span = gz_span};
  st_stream *s = st_stream_create(&d);
  uint8_t *buf = malloc(CHUNK);
  size_t n;
  int rerr = 0;
  while (s && buf && (n = fread(buf, 1, CHUNK, f)) > 0) st_stream_push(s, buf, n);
  rerr = ferror(f);
  fclose(f);
  free(buf);
  if (!s || !buf || rerr) {
    fprintf(stderr, "strata: %s: %s\n", file, rerr ? "read error" : "out of memory");
    st_stream_destroy(s);
    return NULL;
  }
  st_error err;
  *summary = st_stream_finish(s, &err);
  *ms = cli_now_ms() - t0;
  char line[512];
  if (err.code != ST_OK || !*summary) st_load_error_line(&err, file, line, sizeof line);
  if (!*summary) {
    fprintf(stderr, "strata: %s\n", line);
    st_stream_destroy(s);
    return NULL;
  }
  if (err.code != ST_OK)
    fprintf(stderr, "strata: %s: warning: %s; kept what was read before it\n", file,
            line + strlen(file) + 2);
  return s;
}

static int open_fd(const char *file) {
  int fd = open(file, O_RDONLY);
  if (fd < 0) fprintf(stderr, "strata: %s: cannot open: %s\n", file, strerror(errno));
  return fd;
}

/* pread all of [off, off + len) into p; the bytes read */
size_t cli_pread_all(int fd, uint8_t *p, size_t len, uint64_t off) {
  size_t got = 0;
  while (got < len) {
    ssize_t k = pread(fd, p + got, len - got, (off_t)(off + got));
    if (k <= 0) break;
    got += (size_t)k;
  }
  return got;
}

/* The sampled blocks of the trace s is (or was) a pass over: bufs[k]
 * malloc'd (NULL where the file is short). Returns how many. */
static uint32_t read_samples(int fd, const st_stream *s, uint8_t *bufs[ST_STX_SAMPLES]) {
  st_stream_range plan[ST_STX_SAMPLES];
  uint32_t n = st_stream_identity_plan(s, plan);
  for (uint32_t k = 0; k < n; k++) {
    bufs[k] = malloc(plan[k].length ? (size_t)plan[k].length : 1);
    if (bufs[k] &&
        cli_pread_all(fd, bufs[k], (size_t)plan[k].length, plan[k].offset) != plan[k].length) {
      free(bufs[k]);
      bufs[k] = NULL;
    }
  }
  return n;
}

static void free_samples(uint8_t *bufs[ST_STX_SAMPLES], uint32_t n) {
  for (uint32_t k = 0; k < n; k++) free(bufs[k]);
}

static st_code file_write(void *ud, const void *data, size_t len) {
  return fwrite(data, 1, len, ud) == len ? ST_OK : ST_ERR_ARG;
}

int cli_stream_save(const char *file, const char *out, const st_stream *s, const st_trace *summary,
                    uint64_t *bytes) {
  int fd = open_fd(file);
  if (fd < 0) return 1;
  uint8_t *bufs[ST_STX_SAMPLES];
  uint32_t n = read_samples(fd, s, bufs);
  close(fd);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", out);
  FILE *f = fopen(tmp, "wb");
  int rc = 1;
  if (!f) {
    fprintf(stderr, "strata: %s: cannot write: %s\n", tmp, strerror(errno));
  } else {
    st_error err;
    st_code c = st_stream_save(s, summary, (const uint8_t *const *)bufs, n, file_write, f, &err);
    int closed = fclose(f);
    if (c != ST_OK || closed != 0) {
      fprintf(stderr, "strata: %s: %s\n", out, c != ST_OK ? err.msg : "write error");
      remove(tmp);
    } else if (rename(tmp, out) != 0) {
      fprintf(stderr, "strata: %s: cannot write: %s\n", out, strerror(errno));
      remove(tmp);
    } else {
      struct stat st;
      *bytes = stat(out, &st) == 0 ? (uint64_t)st.st_size : 0;
      rc = 0;
    }
  }
  free_samples(bufs, n);
  return rc;
}

/* The whole of file in memory (malloc'd), or NULL after one line. */
static uint8_t *slurp(const char *file, size_t *n) {
  int fd = open_fd(file);
  if (fd < 0) return NULL;
  struct stat st;
  uint8_t *p = NULL;
  if (fstat(fd, &st) == 0 && (uint64_t)st.st_size < SIZE_MAX) {
    *n = (size_t)st.st_size;
    p = malloc(*n ? *n : 1);
    if (p && cli_pread_all(fd, p, *n, 0) != *n) {
      free(p);
      p = NULL;
    }
  }
  if (!p) fprintf(stderr, "strata: %s: cannot read it\n", file);
  close(fd);
  return p;
}

st_stream *cli_stream_open(const char *file, const char *stx, cli_heap *heap, st_trace **summary,
                           double *ms) {
  double t0 = cli_now_ms();
  size_t n = 0;
  uint8_t *bytes = slurp(stx, &n);
  if (!bytes) return NULL;
  st_stream_desc d = {.alloc = {cli_counting_alloc, heap}, .file_name = file};
  st_error err;
  st_stream *s = st_stream_open_index(&d, bytes, n, summary, &err);
  free(bytes);
  if (!s) {
    fprintf(stderr, "strata: %s: %s\n", stx, err.msg);
    return NULL;
  }
  int fd = open_fd(file);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (fd >= 0) close(fd);
    st_trace_destroy(*summary);
    st_stream_destroy(s);
    return NULL;
  }
  uint8_t *bufs[ST_STX_SAMPLES];
  uint32_t k = read_samples(fd, s, bufs);
  close(fd);
  st_code c =
      st_stream_verify(s, file, (uint64_t)st.st_size, (const uint8_t *const *)bufs, k, &err);
  free_samples(bufs, k);
  if (c != ST_OK) {
    fprintf(stderr, "strata: %s: %s\n", stx, err.msg);
    st_trace_destroy(*summary);
    st_stream_destroy(s);
    return NULL;
  }
  *ms = cli_now_ms() - t0;
  return s;
}

uint8_t *cli_stream_read(int fd, const char *file, const st_stream *s, uint64_t off, uint64_t len) {
  st_stream_info info;
  st_stream_info_get(s, &info);
  uint8_t *out = NULL;
  if (!info.compressed) { /* raw == decoded */
    out = len < SIZE_MAX ? malloc(len ? (size_t)len : 1) : NULL;
    if (out && cli_pread_all(fd, out, (size_t)len, off) != len) {
      free(out);
      out = NULL;
    }
  } else {
    uint64_t from = 0;
    st_stream_read *r = st_stream_read_begin(s, off, len, &from);
    uint8_t *buf = malloc(CHUNK);
    int done = 0;
    while (r && buf && !done) {
      ssize_t k = pread(fd, buf, CHUNK, (off_t)from);
      if (k <= 0 || st_stream_read_push(r, buf, (size_t)k, &done) != ST_OK) break;
      from += (uint64_t)k;
    }
    size_t got = 0;
    const uint8_t *p = r ? st_stream_read_data(r, &got) : NULL;
    if (p && got == len && (out = malloc(got))) memcpy(out, p, got);
    free(buf);
    st_stream_read_end(r);
  }
  if (!out)
    fprintf(stderr, "strata: %s: cannot read decoded bytes %llu..%llu (at byte %llu)\n", file,
            (unsigned long long)off, (unsigned long long)(off + len), (unsigned long long)off);
  return out;
}

static st_code copy_write(void *ud, uint64_t offset, const void *data, size_t len) {
  FILE *f = ud;
  (void)offset; /* written in order: the file's end */
  return fwrite(data, 1, len, f) == len ? ST_OK : ST_ERR_ARG;
}

FILE *cli_stream_copy(const char *file, st_stream *s, uint64_t *bytes, double *ms) {
  double t0 = cli_now_ms();
  FILE *in = fopen(file, "rb");
  FILE *out = in ? tmpfile() : NULL;
  if (!in || !out) {
    fprintf(stderr, "strata: %s: cannot %s: %s\n", file, in ? "make a temporary file" : "open",
            strerror(errno));
    if (in) fclose(in);
    return NULL;
  }
  st_error err;
  st_stream_spill *p =
      st_stream_spill_begin(s, &(st_stream_spill_desc){copy_write, out, 0, 0, 0}, &err);
  uint8_t *buf = p ? malloc(CHUNK) : NULL;
  size_t n;
  while (buf && (n = fread(buf, 1, CHUNK, in)) > 0)
    if (st_stream_spill_push(p, buf, n) != ST_OK) break;
  free(buf);
  fclose(in);
  st_code c = p ? st_stream_spill_finish(p, &err) : err.code;
  st_stream_spill_destroy(p);
  if (c != ST_OK || fflush(out) != 0) {
    fprintf(stderr, "strata: %s: no re-ordered copy: %s\n", file,
            c != ST_OK ? err.msg : "the temporary file could not be written");
    fclose(out);
    return NULL;
  }
  st_stream_info info;
  st_stream_info_get(s, &info);
  *bytes = info.spill_bytes;
  *ms = cli_now_ms() - t0;
  return out;
}
