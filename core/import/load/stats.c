/* stats.c: load statistics and their one JSON writer (see stats.h).
 *
 * The writer appends into the caller's buffer with snprintf-like
 * truncation and always returns the length the full text needs, so a
 * caller can size a buffer with a first call. Timestamps are printed as
 * exact decimal microseconds from the integer nanoseconds (no doubles).
 */
#include "stats.h"

#include <inttypes.h>
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

typedef struct out {
  char *buf;
  size_t cap, len;
} out;

static void put(out *o, const char *s, size_t n) {
  if (o->len < o->cap) {
    size_t room = o->cap - o->len;
    memcpy(o->buf + o->len, s, n < room ? n : room);
  }
  o->len += n;
}

static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }

static void putf_u64(out *o, uint64_t v) {
  char b[24];
  int n = snprintf(b, sizeof b, "%" PRIu64, v);
  put(o, b, (size_t)n);
}

static void put_string(out *o, const char *s) {
  put(o, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    char esc[8];
    if (*p == '"' || *p == '\\') {
      esc[0] = '\\';
      esc[1] = (char)*p;
      put(o, esc, 2);
    } else if (*p < 0x20) {
      int n = snprintf(esc, sizeof esc, "\\u%04x", *p);
      put(o, esc, (size_t)n);
    } else {
      put(o, (const char *)p, 1);
    }
  }
  put(o, "\"", 1);
}

/* ns -> exact decimal microseconds: 1234567 -> "1234.567", -500 -> "-0.5" */
static void put_us(out *o, int64_t ns) {
  char b[40];
  uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  uint64_t ip = m / 1000;
  unsigned fr = (unsigned)(m % 1000);
  int n;
  if (fr == 0) {
    n = snprintf(b, sizeof b, "%s%" PRIu64, ns < 0 ? "-" : "", ip);
  } else {
    char f[4];
    snprintf(f, sizeof f, "%03u", fr);
    size_t fl = 3;
    while (fl > 0 && f[fl - 1] == '0') fl--;
    f[fl] = 0;
    n = snprintf(b, sizeof b, "%s%" PRIu64 ".%s", ns < 0 ? "-" : "", ip, f);
  }
  put(o, b, (size_t)n);
}

static void key(out *o, const char *k) {
  put(o, ",", 1);
  put_string(o, k);
  put(o, ":", 1);
}

static void kv_u64(out *o, const char *k, uint64_t v) {
  key(o, k);
  putf_u64(o, v);
}

size_t st_stats_json(const st_stats *s, char *buf, size_t cap) {
  out o = {buf, cap, 0};
  st_stats zero;
  if (!s) {
    memset(&zero, 0, sizeof zero);
    s = &zero;
  }
  puts_(&o, "{\"format\":");
  put_string(&o, s->format ? s->format : "unknown");
  key(&o, "compressed");
  puts_(&o, s->compressed ? "true" : "false");
  kv_u64(&o, "bytes_in", s->bytes_in);
  kv_u64(&o, "bytes_decoded", s->bytes_decoded);
  kv_u64(&o, "events", s->events);
  key(&o, "phases");
  put(&o, "{", 1);
  int first = 1;
  for (int c = 0; c <= 128; c++) {
    if (!s->phases[c]) continue;
    char name[2] = {(char)(c == 128 ? 0 : c), 0};
    if (!first) put(&o, ",", 1);
    first = 0;
    put_string(&o, name);
    put(&o, ":", 1);
    putf_u64(&o, s->phases[c]);
  }
  if (s->phases_other) {
    if (!first) put(&o, ",", 1);
    put_string(&o, "other");
    put(&o, ":", 1);
    putf_u64(&o, s->phases_other);
  }
  put(&o, "}", 1);
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
    put_us(&o, s->ts_min_ns);
  else
    puts_(&o, "null");
  key(&o, "ts_max_us");
  if (s->has_ts)
    put_us(&o, s->ts_max_ns);
  else
    puts_(&o, "null");
  key(&o, "warnings");
  put(&o, "[", 1);
  for (uint32_t i = 0; i < s->warning_count && i < ST_STATS_MAX_WARNINGS; i++) {
    if (i) put(&o, ",", 1);
    puts_(&o, "{\"kind\":");
    put_string(&o, s->warnings[i].kind);
    kv_u64(&o, "count", s->warnings[i].count);
    kv_u64(&o, "first_offset", s->warnings[i].first_offset);
    put(&o, "}", 1);
  }
  put(&o, "]", 1);
  key(&o, "load_ms");
  {
    char b[48];
    double ms = s->load_ms;
    if (!(ms >= 0 && ms < 1e15)) ms = 0; /* NaN/inf are not JSON */
    int n = snprintf(b, sizeof b, "%.3f", ms);
    put(&o, b, (size_t)n);
  }
  kv_u64(&o, "heap_bytes", s->heap_bytes);
  put(&o, "}", 1);
  if (cap) buf[o.len < cap ? o.len : cap - 1] = 0;
  return o.len;
}
