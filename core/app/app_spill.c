/* app_spill.c: streaming mode's re-ordered copy in the app
 * (core/import/stream/stream.h st_stream_spill): the second pass the
 * platform feeds with a streamed file's bytes, whose records it keeps
 * through `write`; once it ends, that file's windows are read from them.
 */
#include "app_internal.h"

#include <math.h>
#include <string.h>

void st_app_spill_forget(st_app *app, st_trace_handle h) {
  st_app_stream *s = &app->stream;
  if (!s->spill || (h.id && s->spill_h.id != h.id)) return;
  st_stream_spill_destroy(s->spill);
  s->spill = NULL;
  s->spill_h = (st_trace_handle){0};
  app->dirty = 1;
}

void st_app_spill_abort(st_app *app) { st_app_spill_forget(app, (st_trace_handle){0}); }

static uint32_t clamp_u32(double v, double hi) {
  return isfinite(v) && v > 0 ? (uint32_t)(v < hi ? v : hi) : 0;
}

int st_app_spill_begin(st_app *app, st_trace_handle h, double parts, double buffer_bytes,
                       double limit_bytes, st_stream_spill_write write, void *ud) {
  st_stream *sm;
  if (app->stream.spill || !write || !st_app_shown(app, h, NULL) ||
      !(sm = st_traceset_stream(app->set, h))) {
    snprintf(app->error, sizeof app->error, "re-ordering: no streamed file, or one already runs");
    return 0;
  }
  st_stream_spill_desc d = {
      write, ud, clamp_u32(parts, 1 << 20), clamp_u32(buffer_bytes, 1 << 30),
      isfinite(limit_bytes) && limit_bytes > 0 && limit_bytes < 1.8e19 ? (uint64_t)limit_bytes : 0};
  st_error err;
  memset(&err, 0, sizeof err);
  app->stream.spill = st_stream_spill_begin(sm, &d, &err);
  if (!app->stream.spill) {
    snprintf(app->error, sizeof app->error, "re-ordering: %s", err.msg);
    return 0;
  }
  app->stream.spill_h = h;
  app->dirty = 1;
  return 1;
}

int st_app_spill_push(st_app *app, const void *data, size_t len) {
  /* 0: stop pushing (damage the pass met too, or the copy failed): finish says which */
  return app->stream.spill && st_stream_spill_push(app->stream.spill, data, len) == ST_OK;
}

int st_app_spill_drop(st_app *app, st_trace_handle h) {
  st_stream *sm;
  if (!st_app_shown(app, h, NULL) || !(sm = st_traceset_stream(app->set, h))) return 0;
  st_stream_info info;
  st_stream_info_get(sm, &info);
  if (!info.spilled) return 0;
  st_stream_spill_drop(sm);
  app->dirty = 1;
  return 1;
}

int st_app_spill_finish(st_app *app) {
  st_app_stream *s = &app->stream;
  if (!s->spill) return 0;
  st_error err;
  memset(&err, 0, sizeof err);
  st_code c = st_stream_spill_finish(s->spill, &err);
  if (c != ST_OK) snprintf(app->error, sizeof app->error, "re-ordering stopped: %s", err.msg);
  st_app_spill_abort(app);
  return c == ST_OK;
}
