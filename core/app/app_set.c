/* app_set.c: the app's side of its workspace of traces, the trace set
 * (core/set/traceset.h, which holds the files, their handles, batches,
 * placement and the merged view): the files shown by handle, what the app
 * keeps with each file, the list and the stats the platform shows, metadata; and the
 * small helpers every other file of core/app uses (the platform's clock and
 * memory figure, JSON text into the app's buffers). Calls no other file of
 * core/app: the others sit above it.
 */
#include "app_internal.h"

#include <string.h>

/* ---- platform and text helpers -------------------------------------------------- */

double st_app_now(const st_app *app) { return app->pf.now_ms(app->pf.ud); }

uint64_t st_app_heap(const st_app *app) {
  return app->pf.heap_bytes ? app->pf.heap_bytes(app->pf.ud) : 0;
}

st_app_file *st_app_file_of(const st_app *app, st_trace_handle h) {
  return st_traceset_data(app->set, h);
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
    st_jout o = {.buf = b->text, .cap = b->cap};
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

/* ---- the files shown ---------------------------------------------------------------- */

int st_app_shown(const st_app *app, st_trace_handle h, st_traceset_file *f) {
  st_traceset_file tmp;
  if (!f) f = &tmp;
  return st_traceset_get(app->set, h, f) && f->shown_index != UINT32_MAX;
}

st_trace_handle st_app_part(const st_app *app, uint32_t k) { return st_traceset_at(app->set, k); }

uint32_t st_app_count(const st_app *app) { return st_traceset_count(app->set); }

int st_app_set_group(st_app *app, st_trace_handle h, const char *group) {
  return st_traceset_set_group(app->set, h, group) == ST_OK;
}

st_trace_handle st_app_last_handle(const st_app *app) {
  return st_traceset_valid(app->set, app->last) ? app->last : (st_trace_handle){0};
}

/* ---- the list, the stats, the metadata --------------------------------------------- */

static void write_traces(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  o->len += st_traceset_list_json(app->set, room ? o->buf + o->len : NULL, room);
}

const char *st_app_traces_json(st_app *app) {
  return st_app_json(app, &app->text, write_traces, NULL, "[]");
}

static void write_stats(st_jout *o, st_app *app, const void *arg) {
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  o->len += st_traceset_stats_json(app->set, *(const double *)arg, st_app_heap(app),
                                   room ? o->buf + o->len : NULL, room);
}

const char *st_app_stats_json(st_app *app) {
  if (!app->has_stats || !st_app_count(app)) return "null";
  double load_ms = app->loaded_pending ? st_app_now(app) - app->load_t0_ms : app->stats.load_ms;
  return st_app_json(app, &app->text, write_stats, &load_ms, "null");
}

static void write_one_stats(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  o->len += st_stats_json(arg, room ? o->buf + o->len : NULL, room);
}

const char *st_app_trace_stats_json(st_app *app, st_trace_handle h) {
  st_traceset_file f;
  if (!st_app_shown(app, h, &f)) return "null";
  return st_app_json(app, &app->text, write_one_stats, f.stats, "null");
}

const char *st_app_info_json(const st_app *app) {
  st_traceset_file f;
  if (!st_traceset_get(app->set, st_app_part(app, 0), &f) || !f.metadata_json) return "{}";
  return f.metadata_json;
}

const char *st_app_trace_info_json(const st_app *app, st_trace_handle h) {
  st_traceset_file f;
  if (!st_app_shown(app, h, &f) || !f.metadata_json) return "{}";
  return f.metadata_json;
}

int st_app_trace_digest(const st_app *app, st_trace_handle h, uint8_t out[32]) {
  st_traceset_file f;
  if (!st_app_shown(app, h, &f)) return 0;
  st_trace_digest(f.trace, out);
  return 1;
}

const char *st_app_error(const st_app *app) { return app->error; }
const char *st_app_dropped(const st_app *app) { return app->dropped; }
