/* app_notes.c: notes on the timeline (app.h "notes"): a time or a range
 * with a short text, kept in the app in the view's microseconds (the
 * link's timebase, st_app_view_json), sorted by time, listed as JSON, gone
 * to, and handed to the draw list as markers (st_draw_overlay.notes) for
 * every pane. Calls app_set.c and app_view.c only.
 *
 * Text is one line of valid UTF-8, at most ST_APP_NOTE_TEXT bytes: line
 * breaks and other control characters become spaces, invalid bytes U+FFFD,
 * and a longer text is cut at a character boundary. At most
 * ST_APP_MAX_NOTES notes; ids count up from 1 and are never reused while
 * the app lives.
 */
#include "app_internal.h"

#include "utf8.h"

#include <math.h>
#include <string.h>

/* ---- the list ------------------------------------------------------------------ */

/* src as one line of valid UTF-8 of at most ST_APP_NOTE_TEXT bytes. */
static void note_text(char dst[ST_APP_NOTE_TEXT + 1], const char *src) {
  size_t o = 0, n = src ? strlen(src) : 0;
  for (size_t i = 0; i < n;) {
    const unsigned char *p = (const unsigned char *)src + i;
    size_t k = st_utf8_len(p, n - i);
    const char *put = (const char *)p;
    size_t len = k;
    if (!k)
      put = "\xEF\xBF\xBD", len = 3, k = 1; /* an invalid byte: U+FFFD */
    else if (k == 1 && (*p < 0x20 || *p == 0x7f))
      put = " ";
    if (o + len > ST_APP_NOTE_TEXT) break;
    memcpy(dst + o, put, len);
    o += len;
    i += k;
  }
  dst[o] = 0;
}

static int note_before(const st_app_note *a, const st_app_note *b) {
  if (a->t0_us != b->t0_us) return a->t0_us < b->t0_us;
  if (a->t1_us != b->t1_us) return a->t1_us < b->t1_us;
  return a->id < b->id;
}

static int index_of(const st_app *app, double id) {
  for (uint32_t i = 0; i < app->notes.count; i++)
    if ((double)app->notes.list[i].id == id) return (int)i;
  return -1;
}

double st_app_note_add(st_app *app, double t0_us, double t1_us, const char *text) {
  st_app_note_list *ns = &app->notes;
  if (!isfinite(t0_us) || !(fabs(t0_us) < 1e15) || ns->count >= ST_APP_MAX_NOTES) return 0;
  if (!isfinite(t1_us) || !(fabs(t1_us) < 1e15)) t1_us = t0_us; /* a point */
  if (t1_us < t0_us) {
    double t = t0_us;
    t0_us = t1_us;
    t1_us = t;
  }
  st_app_note n;
  n.id = ++ns->last_id;
  n.t0_us = t0_us;
  n.t1_us = t1_us;
  note_text(n.text, text);
  uint32_t at = ns->count; /* insertion keeps the list sorted */
  while (at > 0 && note_before(&n, &ns->list[at - 1])) {
    ns->list[at] = ns->list[at - 1];
    at--;
  }
  ns->list[at] = n;
  ns->count++;
  app->dirty = 1;
  return n.id;
}

int st_app_note_remove(st_app *app, double id) {
  int i = index_of(app, id);
  if (i < 0) return 0;
  st_app_note_list *ns = &app->notes;
  memmove(&ns->list[i], &ns->list[i + 1], (ns->count - (uint32_t)i - 1) * sizeof ns->list[0]);
  ns->count--;
  app->dirty = 1;
  return 1;
}

int st_app_note_set_text(st_app *app, double id, const char *text) {
  int i = index_of(app, id);
  if (i < 0) return 0;
  note_text(app->notes.list[i].text, text);
  app->dirty = 1;
  return 1;
}

void st_app_notes_clear(st_app *app) {
  if (app->notes.count) app->dirty = 1;
  app->notes.count = 0;
}

const st_app_note *st_app_notes(const st_app *app, uint32_t *count) {
  *count = app->notes.count;
  return app->notes.list;
}

static void write_notes(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  st_jout_lit(o, "[");
  for (uint32_t i = 0; i < app->notes.count; i++) {
    const st_app_note *n = &app->notes.list[i];
    st_jout_lit(o, i ? ",{\"id\":" : "{\"id\":");
    st_jout_u64(o, n->id);
    st_jout_lit(o, ",\"t0_us\":");
    st_jout_sig(o, n->t0_us, 17);
    st_jout_lit(o, ",\"t1_us\":");
    st_jout_sig(o, n->t1_us, 17);
    st_jout_lit(o, ",\"text\":");
    st_jout_str(o, n->text, strlen(n->text));
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "]");
}

const char *st_app_notes_json(st_app *app) {
  return st_app_json(app, &app->notes.text, write_notes, NULL, "[]");
}

/* ---- going to a note, placing one -------------------------------------------------- */

int st_app_note_go(st_app *app, double id) {
  int i = index_of(app, id);
  if (i < 0 || !app->ui) return 0;
  const st_app_note *n = &app->notes.list[i];
  double t0, t1;
  if (n->t1_us > n->t0_us) { /* a range: it and a tenth of it either side */
    double m = (n->t1_us - n->t0_us) / 10;
    t0 = n->t0_us - m, t1 = n->t1_us + m;
  } else { /* a time: centred, the window's width kept */
    double w0, w1;
    st_ui_window(app->ui, &w0, &w1);
    double half = (w1 - w0) / 2000.0; /* ns -> us, halved */
    if (!(half > 0)) half = 1;
    t0 = n->t0_us - half, t1 = n->t0_us + half;
  }
  return st_app_view_set(app, t0, t1);
}

double st_app_time_at(st_app *app, float x) {
  if (!app->ui || !app->trace) return NAN;
  float px = st_app_route_x(app, x);
  const st_view *v = st_ui_view(app->ui);
  if (!(px >= ST_VIEW_GUTTER_W) || !(px < v->width)) return NAN;
  return ((double)st_trace_origin_ns(app->trace) + st_view_time_at(v, px)) / 1000.0;
}

void st_app_notes_overlay(st_app *app, st_draw_overlay *ov, st_draw_note *out) {
  double origin = app->trace ? (double)st_trace_origin_ns(app->trace) : 0;
  for (uint32_t i = 0; i < app->notes.count; i++) {
    const st_app_note *n = &app->notes.list[i];
    out[i] = (st_draw_note){n->t0_us * 1000.0 - origin, n->t1_us * 1000.0 - origin, n->text,
                            strlen(n->text)};
  }
  ov->notes = out;
  ov->note_count = app->notes.count;
}
