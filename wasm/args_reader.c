/* args_reader.c: on-demand args for the page (see args_reader.h). One
 * index and one read in flight at a time: the page serialises them. */
#include "args_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "argsrc.h"
#include "gzindex.h"

/* One args source and gzip index per open trace (the workspace's slots,
 * wasm/app.h); st_argsrd_use picks the one the calls below work on. */
typedef struct rd_slot {
  st_gzindex *ix;
  int ix_state;   /* 0 none, 1 building, 2 ready, -1 failed */
  st_argsrc *src; /* the args source of that trace */
} rd_slot;
static rd_slot g_slots[ST_ARGSRD_SLOTS];
static unsigned g_cur;
#define g_ix (g_slots[g_cur].ix)
#define g_ix_state (g_slots[g_cur].ix_state)
#define g_src (g_slots[g_cur].src)
static st_gzread *g_rd;
static char *g_out;
static size_t g_out_cap;
static unsigned g_src_gen;  /* bumped by each st_argsrd_set_source */
static st_args_query *g_q;  /* the query in progress */
static st_args_span g_span; /* the range it asked for */
static uint8_t *g_acc;      /* plain bytes of that range */
static size_t g_nacc, g_acc_cap;

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

/* ---- every format: the core's args source (core/import/args/argsrc.h) ------------------ */

static int out_room(size_t need) {
  if (need <= g_out_cap) return 1;
  char *n = realloc(g_out, need);
  if (!n) return 0;
  g_out = n;
  g_out_cap = need;
  return 1;
}

static const char *error_json(const st_error *err) {
  static const char *const nomem = "{\"error\":\"out of memory\"}";
  if (!out_room(sizeof err->msg * 2 + 96)) return nomem;
  /* the message comes from the core: quote it byte by byte (no '"' / '\\'
   * / control characters pass through) */
  size_t n = (size_t)snprintf(g_out, g_out_cap, "{\"error\":\"");
  const char *m = err->msg[0] ? err->msg : st_code_name(err->code);
  for (; *m && n + 8 < g_out_cap; m++) {
    unsigned char c = (unsigned char)*m;
    g_out[n++] = (c < 0x20 || c == '"' || c == '\\') ? ' ' : (char)c;
  }
  snprintf(g_out + n, g_out_cap - n, " (at byte %llu)\"}", (unsigned long long)err->offset);
  return g_out;
}

static const char *read_json(void) {
  if (!out_room(96)) return "{\"error\":\"out of memory\"}";
  snprintf(g_out, g_out_cap, "{\"read\":{\"offset\":%llu,\"length\":%llu}}",
           (unsigned long long)g_span.offset, (unsigned long long)g_span.length);
  return g_out;
}

void st_argsrd_use(unsigned slot) {
  if (slot >= ST_ARGSRD_SLOTS || slot == g_cur) return;
  /* a read in progress belongs to the previous trace */
  st_args_query_end(g_q);
  g_q = NULL;
  g_nacc = 0;
  st_gzread_end(g_rd);
  g_rd = NULL;
  g_cur = slot;
}

unsigned st_argsrd_current(void) { return g_cur; }

void st_argsrd_close(unsigned slot) {
  if (slot >= ST_ARGSRD_SLOTS) return;
  unsigned cur = g_cur;
  st_argsrd_use(slot);
  st_argsrd_set_source(NULL);
  st_argsrd_reset();
  st_argsrd_use(cur);
}

void st_argsrd_set_source(st_argsrc *as) {
  st_args_query_end(g_q);
  g_q = NULL;
  st_argsrc_destroy(g_src);
  g_src = as;
  g_src_gen++;
}

int st_argsrd_kind(void) { return (int)st_argsrc_kind(g_src); }
const struct st_argsrc *st_argsrd_source(void) { return g_src; }
unsigned st_argsrd_generation(void) { return g_src_gen; }

const char *st_argsrd_begin(double src) { return st_argsrd_begin_end(src, -1); }

const char *st_argsrd_begin_end(double src, double end_src) {
  st_error err;
  memset(&err, 0, sizeof err);
  st_args_query_end(g_q);
  g_q = NULL;
  g_nacc = 0;
  st_gzread_end(g_rd);
  g_rd = NULL;
  if (!(src >= 0 && src < 18446744073709551616.0)) {
    st_error_set(&err, ST_ERR_ARG, 0, "bad event offset");
    return error_json(&err);
  }
  uint64_t end = end_src >= 0 && end_src < 18446744073709551616.0 ? (uint64_t)end_src : UINT64_MAX;
  g_q = st_args_query_begin_end(g_src, (uint64_t)src, end, &g_span, &err);
  return g_q ? read_json() : error_json(&err);
}

int st_argsrd_data(const void *data, size_t len) {
  if (!g_q || len > g_span.length - g_nacc) return -1;
  if (g_nacc + len > g_acc_cap) {
    size_t cap = g_acc_cap ? g_acc_cap : 65536;
    while (cap < g_nacc + len) cap *= 2;
    uint8_t *p = realloc(g_acc, cap);
    if (!p) return -1;
    g_acc = p;
    g_acc_cap = cap;
  }
  memcpy(g_acc + g_nacc, data, len);
  g_nacc += len;
  return 0;
}

const char *st_argsrd_step(void) {
  st_error err;
  memset(&err, 0, sizeof err);
  if (!g_q) {
    st_error_set(&err, ST_ERR_ARG, 0, "no read in progress");
    return error_json(&err);
  }
  const uint8_t *d = g_acc;
  size_t n = g_nacc;
  if (g_rd) d = st_gzread_data(g_rd, &n);
  int more = 0;
  st_code c = st_args_query_push(g_q, d, n, &more, &g_span, &err);
  g_nacc = 0;
  st_gzread_end(g_rd);
  g_rd = NULL;
  if (c != ST_OK) {
    st_args_query_end(g_q);
    g_q = NULL;
    return error_json(&err);
  }
  if (more) return read_json();
  size_t len = 0;
  int cut = 0;
  const char *text = st_args_query_result(g_q, &len, &cut);
  if (!out_room(len + 64)) return "{\"error\":\"out of memory\"}";
  memcpy(g_out, "{\"args\":", 8);
  memcpy(g_out + 8, text, len);
  snprintf(g_out + 8 + len, g_out_cap - 8 - len, ",\"truncated\":%d}", cut);
  st_args_query_end(g_q);
  g_q = NULL;
  return g_out;
}
