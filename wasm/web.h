/* web.h: what main.c (the page's platform layer: SDL2/WebGL2, the main
 * loop, the one st_app) offers the exports (api.c) and the bench (bench.c),
 * and the exports' one check of the page's trace handles (api.c).
 */
#ifndef STRATA_WASM_WEB_H
#define STRATA_WASM_WEB_H

#include "app.h"
#include "gl_renderer.h"
#include "glyphs.h"
#include "heap_budget.h"

/* The page's one app (made on first use). */
st_app *st_web_app(void);
/* The renderer and glyph atlas, NULL until (or unless) WebGL2 is up. */
st_gl_renderer *st_web_renderer(void);
st_glyphs *st_web_glyphs(void);
/* The count of the app's heap, its import peaks and the test hook's budget
 * (heap_budget.h). */
st_heap_budget *st_web_heap_budget(void);
/* Draws the app's frame now if one is due (the main loop does it every
 * animation frame; a finished load does it at once). */
void st_web_frame(void);
/* The canvas's CSS size and device pixel ratio: the drawing buffer, the
 * glyph atlas's scale and the app follow. */
void st_web_resize(float css_w, float css_h, float dpr);
/* A trace handle as the page holds it (st_trace_handle.id, a JavaScript
 * number) made typed, once, where it comes in: a number that is no id (not
 * an integer in [1, 2^31)) becomes {0}, which every app call taking a
 * handle refuses as it refuses a closed trace's. */
st_trace_handle st_wasm_handle(double number);

#endif
