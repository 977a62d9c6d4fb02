/* session.h: what the native window shows and its interaction state: the
 * trace (one file's, or several files merged on one timeline), its
 * level-of-detail index, the core's st_ui, and the draw list of a frame.
 *
 * This is the seam between the window (view.c, input.c) and the app: the
 * window only calls what is here, the way wasm/main.c and wasm/input.c
 * call st_app (wasm/app.h: ->ui, st_app_apply, st_app_resize, the frame),
 * so the page's app state can take its place once it lives in core. It
 * drives the core directly, as the page's app does: st_lod_build,
 * st_ui_create, st_draw_frame_overlay, and for a merged trace the alt+drag
 * of a file's header (ST_UI_SHIFT: st_trace_merge_set_offsets,
 * st_lod_shift_rows).
 *
 *   nv_session s;
 *   if (!nv_session_init(&s, trace, 1280, 800, 1.0f, err, sizeof err)) ...
 *   nv_session_apply(&s, st_ui_key_down(s.ui, "w", 0));
 *   if (s.dirty) { nv_session_build(&s, font); ... draw s.dl ... }
 *   nv_session_free(&s);
 */
#ifndef STRATA_NATIVE_SESSION_H
#define STRATA_NATIVE_SESSION_H

#include "draw.h"
#include "lod.h"
#include "ui.h"

typedef struct nv_session {
  st_alloc alloc;
  st_trace *trace; /* shown; the caller's, it must outlive the session */
  st_lod *lod;
  st_ui *ui;
  st_drawlist dl;
  float css_w, css_h, dpr;
  int dirty;        /* something changed: build and draw a frame */
  int animating;    /* held keys: nv_session_tick every frame */
  double last_tick; /* ms, the clock nv_session_tick is given */
  unsigned changed; /* ST_UI_* bits since the loop last looked (it clears them) */
} nv_session;

/* Builds the index and the ui for trace in a w x h CSS px canvas. 0 on
 * failure with one line in err. */
int nv_session_init(nv_session *s, st_trace *trace, float w, float h, float dpr, char *err,
                    size_t cap);
void nv_session_free(nv_session *s);
/* Takes the ST_UI_* bits an st_ui call returned (now_ms: the clock, for
 * held-key motion). */
void nv_session_apply(nv_session *s, unsigned changes, double now_ms);
void nv_session_resize(nv_session *s, float w, float h, float dpr);
/* Held keys: advances the motion to now_ms. */
void nv_session_tick(nv_session *s, double now_ms);
/* The frame's draw list into s->dl (with the ui's overlay), glyphs from
 * font; clears dirty. */
st_code nv_session_build(nv_session *s, const st_font *font);

#endif
