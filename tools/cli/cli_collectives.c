/* cli_collectives.c: the args reader `strata analyze` gives the
 * collectives (core/analysis/collectives.h): each file's decoded input read
 * whole into memory the first time the core asks for a range of it
 * (inflated through a gzip index when compressed), then served from there.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include "cli_collectives.h"
#include "gzindex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cli_coll_file {
  const char *path;
  int compressed, tried;
  uint8_t *data;
  size_t len;
};

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 0, n = 0;
  uint8_t *b = NULL;
  for (;;) {
    void *nb = b;
    if (!st_grow_from(&(st_alloc){0}, &nb, &cap, n + 1, 1, 1 << 20)) {
      free(b);
      b = NULL;
      break;
    }
    b = nb;
    size_t got = fread(b + n, 1, cap - n, f);
    if (!got) break;
    n += got;
  }
  fclose(f);
  *len = n;
  return b;
}

/* The decoded bytes of a compressed file (raw[0, n)). */
static uint8_t *inflate_all(const uint8_t *raw, size_t n, size_t *len) {
  st_error e;
  st_gzindex *ix = st_gzindex_create(NULL, (uint64_t)1 << 40);
  if (!ix || st_gzindex_push(ix, raw, n, &e) != ST_OK) {
    st_gzindex_destroy(ix);
    return NULL;
  }
  st_gzindex_finish(ix, &e);
  uint64_t dec = st_gzindex_decoded(ix), from = 0;
  uint8_t *out = NULL;
  st_gzread *r = dec < SIZE_MAX ? st_gzread_begin(ix, 0, (size_t)dec, &from) : NULL;
  int done = 0;
  if (r && from <= n && st_gzread_push(r, raw + from, n - (size_t)from, &done) == ST_OK) {
    size_t got = 0;
    const uint8_t *d = st_gzread_data(r, &got);
    out = malloc(got ? got : 1);
    if (out) {
      memcpy(out, d, got);
      *len = got;
    }
  }
  st_gzread_end(r);
  st_gzindex_destroy(ix);
  return out;
}

static int read_range(void *ud, uint64_t offset, uint64_t length, const uint8_t **data,
                      size_t *len) {
  cli_coll_file *f = ud;
  if (!f->tried) {
    f->tried = 1;
    size_t n = 0;
    uint8_t *raw = slurp(f->path, &n);
    if (raw && f->compressed) {
      f->data = inflate_all(raw, n, &f->len);
      free(raw);
    } else {
      f->data = raw;
      f->len = n;
    }
  }
  if (!f->data) return 0;
  if (offset > f->len) offset = f->len;
  *data = f->data + offset;
  *len = f->len - (size_t)offset < length ? f->len - (size_t)offset : (size_t)length;
  return 1;
}

st_coll_source *cli_coll_sources(const cli_set *cs, cli_coll_file **files) {
  st_coll_source *s = calloc(cs->n ? cs->n : 1, sizeof *s);
  cli_coll_file *f = calloc(cs->n ? cs->n : 1, sizeof *f);
  if (!s || !f) {
    free(s);
    free(f);
    return NULL;
  }
  for (uint32_t k = 0; k < cs->n; k++) {
    st_traceset_file tf = cli_set_file(cs, k);
    f[k].path = cs->files[k];
    f[k].compressed = tf.stats && tf.stats->compressed;
    s[k] = (st_coll_source){tf.args, read_range, &f[k]};
  }
  *files = f;
  return s;
}

void cli_coll_file_drop(cli_coll_file *f, uint32_t k) {
  free(f[k].data);
  f[k].data = NULL;
  f[k].len = 0;
  f[k].tried = 0;
}

void cli_coll_sources_free(st_coll_source *s, cli_coll_file *f, uint32_t n) {
  for (uint32_t k = 0; f && k < n; k++) free(f[k].data);
  free(f);
  free(s);
}
