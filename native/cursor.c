/* cursor.c: CSS cursor names -> SDL system cursors (see cursor.h). */
#include "cursor.h"

#include <string.h>

static SDL_SystemCursor system_cursor(const char *css) {
  static const struct {
    const char *css;
    SDL_SystemCursor sdl;
  } map[] = {{"pointer", SDL_SYSTEM_CURSOR_HAND},      {"grab", SDL_SYSTEM_CURSOR_SIZEALL},
             {"grabbing", SDL_SYSTEM_CURSOR_SIZEALL},  {"crosshair", SDL_SYSTEM_CURSOR_CROSSHAIR},
             {"zoom-in", SDL_SYSTEM_CURSOR_CROSSHAIR}, {"col-resize", SDL_SYSTEM_CURSOR_SIZEWE}};
  for (size_t i = 0; css && i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(css, map[i].css)) return map[i].sdl;
  return SDL_SYSTEM_CURSOR_ARROW;
}

void nv_cursor_set(nv_cursor *c, const char *css) {
  SDL_SystemCursor k = system_cursor(css);
  if (c->shown == (int)k + 1) return; /* shown holds k + 1: 0 is "not set yet" */
  if (!c->made[k]) c->made[k] = SDL_CreateSystemCursor(k);
  if (!c->made[k]) return; /* the window system has none: the cursor stays */
  SDL_SetCursor(c->made[k]);
  c->shown = (int)k + 1;
}

void nv_cursor_free(nv_cursor *c) {
  for (int k = 0; k < SDL_NUM_SYSTEM_CURSORS; k++)
    if (c->made[k]) SDL_FreeCursor(c->made[k]);
  memset(c, 0, sizeof *c);
}
