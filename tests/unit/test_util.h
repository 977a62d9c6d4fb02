/* test_util.h: helpers shared by the unit tests (static inline, so a test
 * that does not use one does not pay for it):
 *
 *   tu_read_file(path, &n)        whole file into malloc'd memory (free it),
 *                                 NULL if it cannot be opened
 *   tu_deflate(data, n, wbits, &out_n)  gzip (wbits 31) or zlib (15)
 *                                 compression into malloc'd memory
 *   tu_load(data, n, chunk, name, &err, &stats, meta, meta_cap)
 *                                 the loader over data pushed in `chunk`-byte
 *                                 pieces (0 means 1); returns the trace (or
 *                                 NULL with err), copies the stats and, if
 *                                 meta is not NULL, the metadata JSON
 *   tu_load_args(data, n, name)   the loader over data in one push, keeping
 *                                 the args source; tu_unload_args frees both
 *   tu_src_named(trace, name)     src of the first event named `name`
 *                                 (UINT64_MAX if none)
 *   tu_ref_named(trace, name)     (row, index) of the first event named
 *                                 `name` (ST_REF_NONE if none)
 *   tu_flow_names(trace, which, n, buf, cap)  "from>to" names of flows
 *   tu_str(trace, id)             the text of string id
 *   tu_track_named(trace, name)   the first track named `name` (NULL if none)
 *   tu_warned(stats, kind, count) 1 if warning `kind` was given `count` times
 *   tu_args_of(as, buf, n, src, end_src)  the args of the event at src (and
 *                                 its end event's; UINT64_MAX: none) read
 *                                 from buf through the query dialogue, in
 *                                 malloc'd memory ("(error)" on failure) */
#ifndef STRATA_TEST_UTIL_H
#define STRATA_TEST_UTIL_H

#include "argsrc.h"
#include "load.h"
#include "query.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The corpus's JSON traces (../shared/corpus, STRATA_CORPUS_DIR; the gzip
 * ones too), for tests that run every one of them. */
static const char *const tu_corpus_json[] = {
    "catapult__async_begin_end.json",
    "catapult__flow.json",
    "catapult__instance_counters.json",
    "catapult__nanoseconds.json",
    "catapult__nestable_async.json",
    "catapult__simple_trace_gz.gz",
    "catapult__thread_time_visualisation.json.gz",
    "catapult__trace-with-bad-world-bounds.json",
    "cba__obj_export_file_writer.json",
    "fxprof__chrome-tracing.json.gz",
    "hta__benchmark_result_924719_1679055439_trace.json.gz",
    "hta__control.json.gz",
    "hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "hta__overlaid_critical_path_trace.json.gz",
    "hta__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz",
    "lighthouse__cpu-profiler-m86.trace.json",
    "lighthouse__pid-change.json",
    "perfetto__flow_events_json_v1.json",
    "perfetto__flow_events_json_v2.json",
    "speedscope__example.cpuprofile",
    "speedscope__multi-thread-with-samples.json",
    "speedscope__simple-partial-trailing-comma.json",
    "speedscope__simple-partial.json",
    "speedscope__too-many-end-events.json",
    "viztracer__gradient_descent.json",
};
#define TU_CORPUS_JSON_N (sizeof tu_corpus_json / sizeof tu_corpus_json[0])

static inline unsigned char *tu_read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = malloc(len > 0 ? (size_t)len : 1);
  *n = fread(p, 1, (size_t)(len > 0 ? len : 0), f);
  fclose(f);
  return p;
}

/* data deflated (wbits 31: gzip, 15: zlib) at level 6 with zlib's memLevel
 * (8: the default, tu_deflate; 1: a deflate block every few hundred symbols,
 * so a gzip index gets many restart points); malloc'd. */
static inline unsigned char *tu_deflate_mem(const void *data, size_t n, int wbits, int mem_level,
                                            size_t *out_n) {
  z_stream z;
  memset(&z, 0, sizeof z);
  deflateInit2(&z, 6, Z_DEFLATED, wbits, mem_level, Z_DEFAULT_STRATEGY);
  size_t cap = deflateBound(&z, (uLong)n) + 64;
  unsigned char *out = malloc(cap);
  z.next_in = (Bytef *)(uintptr_t)data;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  deflate(&z, Z_FINISH);
  *out_n = cap - z.avail_out;
  deflateEnd(&z);
  return out;
}

static inline unsigned char *tu_deflate(const void *data, size_t n, int wbits, size_t *out_n) {
  return tu_deflate_mem(data, n, wbits, 8, out_n);
}

/* A whole gzip / zlib stream inflated (what came before an error). */
static inline unsigned char *tu_inflate_all(const unsigned char *in, size_t n, size_t *out_n) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 47) != Z_OK) return NULL;
  size_t cap = n * 8 + 1024, len = 0;
  unsigned char *out = malloc(cap);
  z.next_in = (Bytef *)(uintptr_t)in;
  z.avail_in = (uInt)n;
  for (;;) {
    if (len == cap) out = realloc(out, cap *= 2);
    z.next_out = out + len;
    z.avail_out = (uInt)(cap - len);
    int r = inflate(&z, Z_NO_FLUSH);
    len = cap - z.avail_out;
    if (r == Z_STREAM_END || (r != Z_OK && r != Z_BUF_ERROR) || (r == Z_BUF_ERROR && !z.avail_in))
      break;
  }
  inflateEnd(&z);
  *out_n = len;
  return out;
}

static inline st_trace *tu_load(const void *data, size_t n, size_t chunk, const char *name,
                                st_error *err, st_stats *stats, char *meta, size_t meta_cap) {
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = name;
  st_loader *l = st_loader_create(&d);
  const unsigned char *p = data;
  if (chunk == 0) chunk = 1;
  for (size_t i = 0; i < n; i += chunk)
    if (st_loader_push(l, p + i, n - i < chunk ? n - i : chunk) != ST_OK) break;
  st_trace *t = st_loader_finish(l, err);
  *stats = *st_loader_stats(l);
  if (meta) snprintf(meta, meta_cap, "%s", st_loader_metadata_json(l));
  st_loader_destroy(l);
  return t;
}

typedef struct tu_args_trace {
  st_trace *t;
  st_argsrc *as;
} tu_args_trace;

static inline tu_args_trace tu_load_args(const void *data, size_t n, const char *name) {
  tu_args_trace r = {0, 0};
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = name;
  st_loader *l = st_loader_create(&d);
  st_loader_push(l, data, n);
  st_error err;
  r.t = st_loader_finish(l, &err);
  r.as = st_loader_take_args_source(l);
  st_loader_destroy(l);
  return r;
}

static inline void tu_unload_args(tu_args_trace *r) {
  st_trace_destroy(r->t);
  st_argsrc_destroy(r->as);
}

static inline uint64_t tu_src_named(const st_trace *t, const char *name) {
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  for (uint32_t r = 0; r < nr; r++)
    for (uint32_t e = 0; e < rows[r].count; e++) {
      size_t n;
      const char *s = st_strtab_get(st_trace_strings(t), rows[r].name[e], &n);
      if (n == strlen(name) && !memcmp(s, name, n)) return rows[r].src[e];
    }
  return UINT64_MAX;
}

static inline st_event_ref tu_ref_named(const st_trace *t, const char *name) {
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  for (uint32_t r = 0; r < nr; r++)
    for (uint32_t i = 0; i < rows[r].count; i++)
      if (!strcmp(st_strtab_get(st_trace_strings(t), rows[r].name[i], NULL), name))
        return (st_event_ref){r, i};
  return ST_REF_NONE;
}

/* "from>to" names of flows joined by spaces: of which[0, n) (positions
 * in st_trace_flows), or of every flow in order when which is NULL. */
static inline void tu_flow_names(const st_trace *t, const uint32_t *which, uint32_t n, char *buf,
                                 size_t cap) {
  uint32_t nf;
  const st_flow *f = st_trace_flows(t, &nf);
  const st_row *rows = st_trace_rows(t, NULL);
  const st_strtab *s = st_trace_strings(t);
  size_t at = 0;
  buf[0] = 0;
  if (!which) n = nf;
  for (uint32_t i = 0; i < n && at < cap; i++) {
    const st_flow *e = &f[which ? which[i] : i];
    size_t na, nb;
    const char *a = st_strtab_get(s, rows[e->from_row].name[e->from_index], &na);
    const char *b = st_strtab_get(s, rows[e->to_row].name[e->to_index], &nb);
    int w = snprintf(buf + at, cap - at, "%s%.*s>%.*s", i ? " " : "", (int)na, a, (int)nb, b);
    if (w < 0) break;
    at += (size_t)w;
  }
}

/* An st_alloc function failing after `left` allocations (ud: a
 * tu_fail_alloc), for the out-of-memory tests. */
typedef struct tu_fail_alloc {
  int left;
} tu_fail_alloc;

static inline void *tu_failing(void *ud, void *p, size_t n) {
  tu_fail_alloc *f = ud;
  if (n == 0) {
    free(p);
    return NULL;
  }
  if (f->left-- <= 0) return NULL;
  return realloc(p, n);
}

static inline const char *tu_str(const st_trace *t, uint32_t id) {
  return st_strtab_get(st_trace_strings(t), id, NULL);
}

static inline const st_track *tu_track_named(const st_trace *t, const char *name) {
  uint32_t n;
  const st_track *tr = st_trace_tracks(t, &n);
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(tu_str(t, tr[i].name), name)) return &tr[i];
  return NULL;
}

static inline int tu_warned(const st_stats *s, const char *kind, uint64_t count) {
  for (uint32_t i = 0; i < s->warning_count; i++)
    if (!strcmp(s->warnings[i].kind, kind)) return s->warnings[i].count == count;
  return 0;
}

static inline char *tu_args_of(const st_argsrc *as, const uint8_t *buf, size_t n, uint64_t src,
                               uint64_t end_src) {
  st_args_span rd;
  st_error err;
  st_args_query *q = st_args_query_begin_end(as, src, end_src, &rd, &err);
  int more = 1, failed = 0;
  char *out = NULL;
  while (q && more) {
    size_t off = rd.offset < n ? (size_t)rd.offset : n;
    size_t len = rd.length < n - off ? (size_t)rd.length : n - off;
    if (st_args_query_push(q, buf + off, len, &more, &rd, &err) != ST_OK) {
      fprintf(stderr, "args error: %s\n", err.msg);
      failed = 1;
      break;
    }
  }
  if (q && !more && !failed) {
    size_t l;
    const char *s = st_args_query_result(q, &l, NULL);
    out = malloc(l + 1);
    if (out) {
      memcpy(out, s, l);
      out[l] = 0;
    }
  }
  st_args_query_end(q);
  if (!out && (out = malloc(8)) != NULL) memcpy(out, "(error)", 8);
  return out;
}

#endif
