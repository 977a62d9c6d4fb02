/* cursor.h: the mouse cursor the core asks for (st_ui_cursor: a CSS cursor
 * name, as the page sets on its canvas) shown with SDL's system cursors:
 *   default -> arrow, pointer -> hand, grab / grabbing -> move (all
 *   directions), crosshair and zoom-in -> crosshair, col-resize -> west-east.
 *
 *   nv_cursor c = {0};
 *   nv_cursor_set(&c, st_ui_cursor(ui));   // after input
 *   nv_cursor_free(&c);
 */
#ifndef STRATA_NATIVE_CURSOR_H
#define STRATA_NATIVE_CURSOR_H

#include <SDL.h>

typedef struct nv_cursor {
  SDL_Cursor *made[SDL_NUM_SYSTEM_CURSORS]; /* created on first use */
  int shown; /* the SDL_SystemCursor shown + 1; 0: none set yet (a zeroed struct) */
} nv_cursor;

/* Shows the cursor for css (unknown names: the arrow); nothing if it is
 * the one shown. */
void nv_cursor_set(nv_cursor *c, const char *css);
void nv_cursor_free(nv_cursor *c);

#endif
