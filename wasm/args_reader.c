/* args_reader.c: on-demand args for the page (see args_reader.h). One
 * index and one read in flight at a time: the page serialises them. */
#include "args_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "gzindex.h"

static st_gzindex *g_ix;
static int g_ix_state; /* 0 none, 1 building, 2 ready, -1 failed */
static st_gzread *g_rd;
static char *g_out;
static size_t g_out_cap;

void st_argsrd_reset(void) {
  st_gzread_end(g_rd);
  g_rd = NULL;
  st_gzindex_destroy(g_ix);
  g_ix = NULL;
  g_ix_state = 0;
}

int st_argsrd_index_ready(void) { return g_ix_state == 2; }

int st_argsrd_index_push(const void *data, size_t len) {
  if (g_ix_state == 0) {
    g_ix = st_gzindex_create(NULL, 0);
    g_ix_state = g_ix ? 1 : -1;
  }
  if (g_ix_state != 1) return ST_ERR_ARG;
  st_error err;
  st_code c = st_gzindex_push(g_ix, data, len, &err);
  if (c != ST_OK) g_ix_state = -1;
  return (int)c;
}

int st_argsrd_index_finish(void) {
  if (g_ix_state != 1) return ST_ERR_ARG;
  st_error err;
  st_code c = st_gzindex_finish(g_ix, &err);
  /* a truncated stream still indexes what came before the cut */
  g_ix_state = (c == ST_OK || c == ST_ERR_TRUNCATED) ? 2 : -1;
  return g_ix_state == 2 ? 0 : (int)c;
}

/* Output: {"args":...,"truncated":n}; the args text is at most the input's
 * size plus escapes, so out grows to 2 x len + 64. */
const char *st_argsrd_extract(const void *data, size_t len) {
  size_t need = len * 2 + 256;
  if (need < 4096) need = 4096;
  if (need > g_out_cap) {
    char *n = realloc(g_out, need);
    if (!n) return "{\"error\":\"out of memory\",\"more\":0}";
    g_out = n;
    g_out_cap = need;
  }
  static const char head[] = "{\"args\":";
  size_t used = 0;
  int cut = 0;
  st_error err;
  char *body = g_out + sizeof head - 1;
  size_t cap = g_out_cap - sizeof head - 32;
  st_code c = st_args_extract(data, len, body, cap, &used, &cut, &err);
  if (c != ST_OK) {
    snprintf(g_out, g_out_cap, "{\"error\":\"%s\",\"more\":%d}",
             c == ST_ERR_TRUNCATED ? "the event goes on beyond the bytes read"
                                   : "the event's JSON could not be read",
             c == ST_ERR_TRUNCATED);
    return g_out;
  }
  memcpy(g_out, head, sizeof head - 1);
  snprintf(body + used, g_out_cap - (size_t)(body - g_out) - used, ",\"truncated\":%d}", cut);
  return g_out;
}

double st_argsrd_gz_begin(double src, double len) {
  st_gzread_end(g_rd);
  g_rd = NULL;
  if (g_ix_state != 2 || !(src >= 0) || !(len > 0)) return -1;
  uint64_t from = 0;
  g_rd = st_gzread_begin(g_ix, (uint64_t)src, (size_t)len, &from);
  return g_rd ? (double)from : -1;
}

int st_argsrd_gz_push(const void *data, size_t len) {
  if (!g_rd) return -1;
  int done = 0;
  if (st_gzread_push(g_rd, data, len, &done) != ST_OK) return -1;
  return done;
}

const char *st_argsrd_gz_extract(void) {
  if (!g_rd) return "{\"error\":\"no read in progress\",\"more\":0}";
  size_t n = 0;
  const uint8_t *d = st_gzread_data(g_rd, &n);
  return st_argsrd_extract(d, n);
}
