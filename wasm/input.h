/* input.h: mouse, wheel and keyboard navigation, read from DOM events on the
 * canvas (and the document, so a drag continues outside the canvas):
 *   ctrl/cmd + wheel    zoom at the cursor (also trackpad pinch)
 *   wheel               scroll tracks vertically (horizontal wheel pans)
 *   shift + wheel       pan in time
 *   drag                pan and scroll
 *   click               on a section header: collapse / expand it
 *   W / S, + / -        zoom in / out (at the cursor if over the canvas)
 *   A / D, arrows       pan / scroll
 *   0                   fit the whole trace
 * Keys typed into a text field of the page are left alone.
 */
#ifndef STRATA_WASM_INPUT_H
#define STRATA_WASM_INPUT_H

#include "app.h"

void st_input_install(st_app *app);

#endif
