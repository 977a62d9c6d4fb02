/* input.h: DOM input on the canvas (and the document, so a drag continues
 * outside the canvas) translated into the core's semantic input calls
 * (core/ui/ui.h: pointer, wheel, keys, blur). The bindings themselves (wheel
 * zoom/scroll/pan, drag per tool, W/S/A/D with held-key motion, 0 fit,
 * 1-4 tools, click to select or collapse a section, ...) are the core's.
 * Keys typed into a text field of the page are left to it.
 */
#ifndef STRATA_WASM_INPUT_H
#define STRATA_WASM_INPUT_H

#include "app.h"

void st_input_install(st_app *app);

#endif
