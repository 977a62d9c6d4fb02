/* workspace.c: placing files on the shared timeline, the trace list and the
 * combined stats (see workspace.h). */
#include "workspace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "profile.h"

/* ---- placement ------------------------------------------------------------ */

/* Group names and clocks come from core/index/profile.h: XSpace hostnames,
 * Kineto's distributedInfo.rank, else the file name; files with absolute
 * time line up on it (Kineto's baseTimeNanoseconds counted), the others
 * start together with the earliest. */
void st_ws_place(st_app *app) {
  uint32_t n = app->shown_count;
  st_profile_file files[ST_APP_MAX_TRACES];
  st_profile_clock clocks[ST_APP_MAX_TRACES];
  int64_t offs[ST_APP_MAX_TRACES];
  for (uint32_t k = 0; k < n; k++) {
    const st_app_trace *s = &app->traces[app->shown[k]];
    files[k] = (st_profile_file){s->trace, s->stats.format, s->info_json, s->name};
    st_profile_clock_get(&files[k], &clocks[k]);
  }
  enum { CAP = sizeof app->traces[0].group };
  char *names = malloc((size_t)n * CAP + 1);
  int named = names && st_profile_group_names(&app->alloc, files, n, names, CAP) == ST_OK;
  for (uint32_t k = 0; k < n; k++) {
    st_app_trace *s = &app->traces[app->shown[k]];
    if (named)
      memcpy(s->group, names + (size_t)k * CAP, CAP);
    else
      st_profile_group_name(&files[k], s->group, CAP, NULL);
    s->group[CAP - 1] = 0;
  }
  free(names);
  if (st_profile_initial_offsets(clocks, n, offs) != ST_OK)
    for (uint32_t k = 0; k < n; k++) offs[k] = 0;
  for (uint32_t k = 0; k < n; k++) app->traces[app->shown[k]].offset_ns = offs[k];
}

/* ---- the list and the stats ------------------------------------------------- */

typedef struct sbuf {
  char *p;
  size_t len, cap;
  int err;
} sbuf;

static void put(sbuf *b, const char *s, size_t n) {
  if (b->err) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->err = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}

static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }

/* A JSON string of s (names from the page: only quotes, backslashes and
 * control characters need escaping; bytes >= 0x80 pass as they are). */
static void put_str(sbuf *b, const char *s) {
  puts_(b, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char e[8];
    if (c == '"' || c == '\\')
      e[0] = '\\', e[1] = (char)c, put(b, e, 2);
    else if (c < 0x20)
      put(b, e, (size_t)snprintf(e, sizeof e, "\\u%04x", c));
    else
      put(b, (const char *)&c, 1);
  }
  puts_(b, "\"");
}

const char *st_app_traces_json(st_app *app) {
  static sbuf b;
  b.len = 0;
  b.err = 0;
  puts_(&b, "[");
  for (uint32_t k = 0; k < app->shown_count; k++) {
    uint32_t slot = app->shown[k];
    const st_app_trace *s = &app->traces[slot];
    char num[160];
    snprintf(num, sizeof num, "%s{\"handle\":%u,\"name\":", k ? "," : "",
             st_app_handle_of(app, slot));
    puts_(&b, num);
    put_str(&b, s->name);
    puts_(&b, ",\"group\":");
    put_str(&b, s->group);
    snprintf(num, sizeof num, ",\"events\":%llu,\"offset_us\":%.17g,\"format\":",
             (unsigned long long)s->stats.events, (double)s->offset_ns / 1000.0);
    puts_(&b, num);
    put_str(&b, s->stats.format ? s->stats.format : "unknown");
    puts_(&b, "}");
  }
  puts_(&b, "]");
  return b.err ? "[]" : b.p;
}

static char *stats_text(const st_stats *s) {
  size_t need = st_stats_json(s, NULL, 0);
  char *t = malloc(need + 1);
  if (t) st_stats_json(s, t, need + 1);
  return t;
}

char *st_ws_stats_json(const st_app *app, double heap_bytes, double load_ms) {
  st_stats sum;
  memset(&sum, 0, sizeof sum);
  sum.format = "unknown";
  for (uint32_t k = 0; k < app->shown_count; k++) {
    const st_stats *s = &app->traces[app->shown[k]].stats;
    if (k == 0)
      sum.format = s->format;
    else if (!sum.format || !s->format || strcmp(sum.format, s->format))
      sum.format = "mixed";
    sum.compressed |= s->compressed;
    sum.bytes_in += s->bytes_in;
    sum.bytes_decoded += s->bytes_decoded;
    sum.events += s->events;
    for (int i = 0; i < 129; i++) sum.phases[i] += s->phases[i];
    sum.phases_other += s->phases_other;
    sum.slices += s->slices;
    sum.instants += s->instants;
    sum.counter_samples += s->counter_samples;
    sum.async_slices += s->async_slices;
    sum.flows += s->flows;
    sum.processes += s->processes;
    sum.threads += s->threads;
    if (s->has_ts) {
      if (!sum.has_ts || s->ts_min_ns < sum.ts_min_ns) sum.ts_min_ns = s->ts_min_ns;
      if (!sum.has_ts || s->ts_max_ns > sum.ts_max_ns) sum.ts_max_ns = s->ts_max_ns;
      sum.has_ts = 1;
    }
    for (uint32_t w = 0; w < s->warning_count; w++)
      st_stats_warn_n(&sum, s->warnings[w].kind, s->warnings[w].first_offset, s->warnings[w].count);
  }
  sum.load_ms = load_ms;
  sum.heap_bytes = (uint64_t)heap_bytes;
  sbuf b = {0};
  char *t = stats_text(&sum);
  if (!t) return NULL;
  size_t n = strlen(t);
  put(&b, t, n ? n - 1 : 0); /* without the closing brace */
  free(t);
  puts_(&b, ",\"traces\":[");
  for (uint32_t k = 0; k < app->shown_count; k++) {
    char *one = stats_text(&app->traces[app->shown[k]].stats);
    if (!one) {
      b.err = 1;
      break;
    }
    if (k) puts_(&b, ",");
    puts_(&b, one);
    free(one);
  }
  puts_(&b, "]}");
  if (b.err) {
    free(b.p);
    return NULL;
  }
  return b.p;
}
