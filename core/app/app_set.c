/* app_set.c: the app's workspace of traces (app.h, app_internal.h): slots
 * and their handles, closing a trace, placing files on the shared timeline,
 * the trace list and the stats the platform shows; and the small helpers
 * every other file of core/app uses (the platform's clock and memory
 * figure, JSON text into the app's buffers). Calls no other file of
 * core/app: the others sit above it.
 */
#include "app_internal.h"

#include <string.h>

#include "profile.h"

/* ---- platform and text helpers -------------------------------------------------- */

double st_app_now(const st_app *app) { return app->pf.now_ms(app->pf.ud); }

uint64_t st_app_heap(const st_app *app) {
  return app->pf.heap_bytes ? app->pf.heap_bytes(app->pf.ud) : 0;
}

void st_app_copy_line(char *dst, size_t cap, const char *src) {
  if (!src) src = "";
  size_t n = strlen(src);
  if (n >= cap) n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
  for (size_t i = 0; i < n; i++) /* one line: names are shown in messages */
    if (dst[i] == '\n' || dst[i] == '\r') dst[i] = ' ';
}

const char *st_app_json(st_app *app, st_panel_buf *b, st_app_writer write, const void *arg,
                        const char *fail) {
  for (int pass = 0; pass < 2; pass++) {
    st_jout o = {b->text, b->cap, 0};
    write(&o, app, arg);
    if (o.len < b->cap) {
      st_jout_end(&o);
      b->len = o.len;
      return b->text;
    }
    size_t cap = o.len + 1 > 256 ? o.len + 1 : 256;
    char *p = st_realloc(&app->self_alloc, b->text, cap);
    if (!p) return fail;
    b->text = p;
    b->cap = cap;
  }
  return fail;
}

/* ---- slots and handles ---------------------------------------------------------- */

uint32_t st_app_handle_of(const st_app *app, uint32_t slot) {
  if (slot >= ST_APP_MAX_TRACES || !app->traces[slot].trace) return 0;
  return slot | (app->traces[slot].gen ? app->traces[slot].gen : 1) << 8;
}

uint32_t st_app_slot_of(const st_app *app, double handle) {
  if (!(handle >= 1 && handle < 2147483648.0)) return UINT32_MAX;
  uint32_t h = (uint32_t)handle, slot = h & 0xFFu;
  if ((double)h != handle || slot >= ST_APP_MAX_TRACES || !app->traces[slot].trace ||
      app->traces[slot].in_batch || st_app_handle_of(app, slot) != h)
    return UINT32_MAX;
  return slot;
}

uint32_t st_app_part_of(const st_app *app, uint32_t slot) {
  for (uint32_t k = 0; k < app->shown_count; k++)
    if (app->shown[k] == slot) return k;
  return UINT32_MAX;
}

double st_app_last_handle(const st_app *app) {
  uint32_t s = app->last_slot;
  return s < ST_APP_MAX_TRACES && app->traces[s].trace ? (double)st_app_handle_of(app, s) : 0;
}

uint32_t st_app_slot_free(const st_app *app) {
  for (uint32_t i = 0; i < ST_APP_MAX_TRACES; i++)
    if (!app->traces[i].trace) return i;
  return UINT32_MAX;
}

void st_app_slot_close(st_app *app, uint32_t slot) {
  st_app_trace *s = &app->traces[slot];
  st_trace_destroy(s->trace);
  st_free(&app->self_alloc, s->info_json);
  st_argsrc_destroy(s->args);
  st_gzindex_destroy(s->ix);
  uint32_t gen = s->gen + 1;
  memset(s, 0, sizeof *s);
  s->gen = gen & 0x7FFFFFu ? gen & 0x7FFFFFu : 1;
}

uint32_t st_app_slots_by_load(const st_app *app, int in_batch, uint32_t *out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < ST_APP_MAX_TRACES; i++)
    if (app->traces[i].trace && !app->traces[i].in_batch == !in_batch) out[n++] = i;
  for (uint32_t i = 1; i < n; i++) /* insertion sort by load order */
    for (uint32_t j = i; j > 0 && app->traces[out[j]].seq < app->traces[out[j - 1]].seq; j--) {
      uint32_t tmp = out[j];
      out[j] = out[j - 1];
      out[j - 1] = tmp;
    }
  return n;
}

/* ---- placement ---------------------------------------------------------------- */

/* Group names and clocks come from core/index/profile.h: XSpace hostnames,
 * Kineto's distributedInfo.rank, else the file name; files with absolute
 * time line up on it (Kineto's baseTimeNanoseconds counted), the others
 * start together with the earliest. */
void st_app_place(st_app *app) {
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
  char *names = st_malloc(&app->self_alloc, (size_t)n * CAP + 1);
  int named = names && st_profile_group_names(&app->alloc, files, n, names, CAP) == ST_OK;
  for (uint32_t k = 0; k < n; k++) {
    st_app_trace *s = &app->traces[app->shown[k]];
    if (named)
      memcpy(s->group, names + (size_t)k * CAP, CAP);
    else
      st_profile_group_name(&files[k], s->group, CAP, NULL);
    s->group[CAP - 1] = 0;
  }
  st_free(&app->self_alloc, names);
  if (st_profile_initial_offsets(clocks, n, offs) != ST_OK)
    for (uint32_t k = 0; k < n; k++) offs[k] = 0;
  for (uint32_t k = 0; k < n; k++) app->traces[app->shown[k]].offset_ns = offs[k];
}

/* "5,000,000" */
static void fmt_count(char *buf, size_t cap, uint64_t v) {
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
  for (int i = 0; i < n && (size_t)o + 2 < cap; i++) {
    if (i && (n - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = 0;
}

/* "612 MB", "1.51 GB", "9.6 MB", "512 bytes" */
static void fmt_bytes(char *buf, size_t cap, uint64_t v) {
  if (v >= 1000000000u)
    snprintf(buf, cap, "%.2f GB", (double)v / 1e9);
  else if (v >= 100000000u)
    snprintf(buf, cap, "%.0f MB", (double)v / 1e6);
  else if (v >= 1000000u)
    snprintf(buf, cap, "%.1f MB", (double)v / 1e6);
  else if (v >= 1000u)
    snprintf(buf, cap, "%.1f kB", (double)v / 1e3);
  else
    snprintf(buf, cap, "%llu bytes", (unsigned long long)v);
}

/* How far a trace's load had got (the whole file was read: a byte offset
 * would say nothing). */
void st_app_load_extent(const st_app_trace *s, char *buf, size_t cap) {
  char ev[32], by[32];
  fmt_count(ev, sizeof ev, s->stats.events);
  fmt_bytes(by, sizeof by, s->stats.bytes_in);
  snprintf(buf, cap, "after its %s events, %s read", ev, by);
}

/* ---- the list and the stats -------------------------------------------------------- */

static void put_str(st_jout *o, const char *s) { st_jout_str(o, s, strlen(s)); }

static void write_traces(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  st_jout_lit(o, "[");
  for (uint32_t k = 0; k < app->shown_count; k++) {
    uint32_t slot = app->shown[k];
    const st_app_trace *s = &app->traces[slot];
    st_jout_lit(o, k ? ",{\"handle\":" : "{\"handle\":");
    st_jout_u64(o, st_app_handle_of(app, slot));
    st_jout_lit(o, ",\"name\":");
    put_str(o, s->name);
    st_jout_lit(o, ",\"group\":");
    put_str(o, s->group);
    st_jout_lit(o, ",\"events\":");
    st_jout_u64(o, s->stats.events);
    st_jout_lit(o, ",\"offset_us\":");
    st_jout_sig(o, (double)s->offset_ns / 1000.0, 17);
    st_jout_lit(o, ",\"format\":");
    put_str(o, s->stats.format ? s->stats.format : "unknown");
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "]");
}

const char *st_app_traces_json(st_app *app) {
  return st_app_json(app, &app->text, write_traces, NULL, "[]");
}

/* st_stats_json of s, appended (without its closing brace if open). */
static void put_stats(st_jout *o, const st_stats *s, int open) {
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  size_t need = st_stats_json(s, room ? o->buf + o->len : NULL, room);
  if (open && need) need--; /* the closing brace goes */
  o->len += need;
}

static void write_stats(st_jout *o, st_app *app, const void *arg) {
  const double *load_ms = arg;
  if (app->shown_count == 1) {
    st_stats s = app->traces[app->shown[0]].stats;
    s.load_ms = *load_ms;
    s.heap_bytes = st_app_heap(app);
    put_stats(o, &s, 0);
    return;
  }
  st_stats sum; /* the totals, and each file's own */
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
  sum.load_ms = *load_ms;
  sum.heap_bytes = st_app_heap(app);
  put_stats(o, &sum, 1);
  st_jout_lit(o, ",\"traces\":[");
  for (uint32_t k = 0; k < app->shown_count; k++) {
    if (k) st_jout_lit(o, ",");
    put_stats(o, &app->traces[app->shown[k]].stats, 0);
  }
  st_jout_lit(o, "]}");
}

const char *st_app_stats_json(st_app *app) {
  if (!app->has_stats || !app->shown_count) return "null";
  double load_ms = app->loaded_pending ? st_app_now(app) - app->load_t0_ms : app->stats.load_ms;
  return st_app_json(app, &app->text, write_stats, &load_ms, "null");
}

static void write_one_stats(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  put_stats(o, arg, 0);
}

const char *st_app_trace_stats_json(st_app *app, double handle) {
  uint32_t slot = st_app_slot_of(app, handle);
  if (slot == UINT32_MAX) return "null";
  return st_app_json(app, &app->text, write_one_stats, &app->traces[slot].stats, "null");
}

const char *st_app_info_json(const st_app *app) {
  const char *j = app->shown_count ? app->traces[app->shown[0]].info_json : NULL;
  return j ? j : "{}";
}

const char *st_app_trace_info_json(const st_app *app, double handle) {
  uint32_t slot = st_app_slot_of(app, handle);
  if (slot == UINT32_MAX || !app->traces[slot].info_json) return "{}";
  return app->traces[slot].info_json;
}

const char *st_app_error(const st_app *app) { return app->error; }
const char *st_app_dropped(const st_app *app) { return app->dropped; }
