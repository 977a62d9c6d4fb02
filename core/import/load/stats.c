/* stats.c: load statistics and their one JSON writer (see stats.h).
 *
 * The writer appends into the caller's buffer with snprintf-like
 * truncation and always returns the length the full text needs, so a
 * caller can size a buffer with a first call. Timestamps are printed as
 * exact decimal microseconds from the integer nanoseconds (no doubles).
 */
#include "stats.h"

#include "json_out.h"

#include <stdio.h>
#include <string.h>

void st_stats_warn(st_stats *s, const char *kind, uint64_t offset) {
  if (!s || !kind) return;
  for (uint32_t i = 0; i < s->warning_count; i++) {
    if (s->warnings[i].kind == kind || strcmp(s->warnings[i].kind, kind) == 0) {
      s->warnings[i].count++;
      return;
    }
  }
  if (s->warning_count < ST_STATS_MAX_WARNINGS) {
    s->warnings[s->warning_count++] = (st_warning){kind, 1, offset};
    return;
  }
  /* full: fold into the last slot so nothing is silently lost */
  st_warning *w = &s->warnings[ST_STATS_MAX_WARNINGS - 1];
  w->kind = "other";
  w->count++;
}

void st_stats_warn_n(st_stats *s, const char *kind, uint64_t offset, uint64_t n) {
  if (!s || !kind || !n) return;
  st_stats_warn(s, kind, offset);
  for (uint32_t i = 0; i < s->warning_count; i++) {
    if (s->warnings[i].kind == kind || strcmp(s->warnings[i].kind, kind) == 0) {
      s->warnings[i].count += n - 1;
      return;
    }
  }
  s->warnings[ST_STATS_MAX_WARNINGS - 1].count += n - 1; /* folded into "other" */
}

void st_stats_time(st_stats *s, int64_t start_ns, int64_t end_ns) {
  if (!s) return;
  if (end_ns < start_ns) end_ns = start_ns;
  if (!s->has_ts) {
    s->has_ts = 1;
    s->ts_min_ns = start_ns;
    s->ts_max_ns = end_ns;
    return;
  }
  if (start_ns < s->ts_min_ns) s->ts_min_ns = start_ns;
  if (end_ns > s->ts_max_ns) s->ts_max_ns = end_ns;
}

/* Strings here are the importers' names (format, phases, warning kinds):
 * escaped, bytes kept as they are. */
static void put_string(st_jout *o, const char *s) {
  if (!s) s = "";
  st_jout_str_as(o, s, strlen(s), 0);
}

static void key(st_jout *o, const char *k) {
  st_jout_put(o, ",", 1);
  put_string(o, k);
  st_jout_put(o, ":", 1);
}

static void kv_u64(st_jout *o, const char *k, uint64_t v) {
  key(o, k);
  st_jout_u64(o, v);
}

size_t st_stats_json(const st_stats *s, char *buf, size_t cap) {
  st_jout o = {.buf = buf, .cap = cap};
  st_stats zero;
  if (!s) {
    memset(&zero, 0, sizeof zero);
    s = &zero;
  }
  st_jout_lit(&o, "{\"schema\":\"strata.stats/1\",\"format\":");
  put_string(&o, s->format ? s->format : "unknown");
  key(&o, "compressed");
  st_jout_lit(&o, s->compressed ? "true" : "false");
  kv_u64(&o, "bytes_in", s->bytes_in);
  kv_u64(&o, "bytes_decoded", s->bytes_decoded);
  kv_u64(&o, "events", s->events);
  key(&o, "phases");
  st_jout_put(&o, "{", 1);
  int first = 1;
  for (int c = 0; c <= 128; c++) {
    if (!s->phases[c]) continue;
    char name[2] = {(char)(c == 128 ? 0 : c), 0};
    if (!first) st_jout_put(&o, ",", 1);
    first = 0;
    put_string(&o, name);
    st_jout_put(&o, ":", 1);
    st_jout_u64(&o, s->phases[c]);
  }
  if (s->phases_other) {
    if (!first) st_jout_put(&o, ",", 1);
    put_string(&o, "other");
    st_jout_put(&o, ":", 1);
    st_jout_u64(&o, s->phases_other);
  }
  st_jout_put(&o, "}", 1);
  kv_u64(&o, "slices", s->slices);
  kv_u64(&o, "instants", s->instants);
  kv_u64(&o, "counter_samples", s->counter_samples);
  kv_u64(&o, "async_slices", s->async_slices);
  kv_u64(&o, "flows", s->flows);
  kv_u64(&o, "samples", s->samples);
  kv_u64(&o, "stack_frames", s->stack_frames);
  kv_u64(&o, "processes", s->processes);
  kv_u64(&o, "threads", s->threads);
  key(&o, "ts_min_us");
  if (s->has_ts)
    st_jout_us(&o, s->ts_min_ns);
  else
    st_jout_lit(&o, "null");
  key(&o, "ts_max_us");
  if (s->has_ts)
    st_jout_us(&o, s->ts_max_ns);
  else
    st_jout_lit(&o, "null");
  key(&o, "warnings");
  st_jout_put(&o, "[", 1);
  for (uint32_t i = 0; i < s->warning_count && i < ST_STATS_MAX_WARNINGS; i++) {
    if (i) st_jout_put(&o, ",", 1);
    st_jout_lit(&o, "{\"kind\":");
    put_string(&o, s->warnings[i].kind);
    kv_u64(&o, "count", s->warnings[i].count);
    kv_u64(&o, "first_offset", s->warnings[i].first_offset);
    st_jout_put(&o, "}", 1);
  }
  st_jout_put(&o, "]", 1);
  key(&o, "load_ms");
  {
    char b[48];
    double ms = s->load_ms;
    if (!(ms >= 0 && ms < 1e15)) ms = 0; /* NaN/inf are not JSON */
    int n = snprintf(b, sizeof b, "%.3f", ms);
    st_jout_put(&o, b, (size_t)n);
  }
  kv_u64(&o, "heap_bytes", s->heap_bytes);
  st_jout_put(&o, "}", 1);
  return st_jout_end(&o);
}
