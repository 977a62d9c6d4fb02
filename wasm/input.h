/* input.h: DOM input on the canvas (and the document, so a drag continues
 * outside the canvas) translated into the core's semantic input calls
 * (core/ui/ui.h: pointer, wheel, keys, blur) on the app's ui in use, their
 * change bits handed to st_app_apply (core/app/app.h). The bindings
 * themselves (wheel zoom/scroll/pan, drag per tool, W/S/A/D with held-key
 * motion, 0 fit, 1-4 tools, click to select or collapse a section, ...)
 * are the core's. Keys typed into a text field of the page are left to it.
 */
#ifndef STRATA_WASM_INPUT_H
#define STRATA_WASM_INPUT_H

#include "app.h"
#include "touch.h"

/* The input state: the platform (main.c) owns it. */
typedef struct st_input {
  st_app *app;
  int dragging; /* a button went down on the canvas and is still down */
  /* the canvas's top-left in client px, taken at the press (clientX -
   * targetX): document events of the drag are made canvas-relative with it.
   * (EmscriptenMouseEvent.canvasX is not filled by this Emscripten.) */
  long origin_x, origin_y;
  st_touch touch; /* the touch gesture in progress (core/ui/touch.h) */
} st_input;

/* Listens to the DOM for app; in must live as long as the page. */
void st_input_install(st_input *in, st_app *app);

#endif
