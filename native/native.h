/* native.h: `strata view`'s window (native/), the one call the CLI makes.
 *
 * The trace is shown as the page shows it (the same core draw list, GL ES 3
 * renderer and glyph atlas, the core's input bindings), in an SDL2 window:
 *   native/window.c          SDL2 window + OpenGL ES 3.0 context (EGL)
 *   native/input.c           SDL events -> st_ui calls, the search box
 *   native/session.c         trace, lod, ui, draw list (the app seam)
 *   native/glyphs_native.c   label glyphs: stb_truetype + embedded DejaVu Sans
 *   native/title.c           the title bar as the status panel
 *   native/screenshot.c      offscreen frame -> PNG
 *   native/frame_json.c      the draw list as JSON (tests)
 *   native/view.c            the loop
 */
#ifndef STRATA_NATIVE_H
#define STRATA_NATIVE_H

#include "trace.h"

typedef struct st_native_opts {
  int width, height;      /* window size, points (CSS px) */
  const char *name;       /* shown in the title: the file, or "N traces" */
  const char *screenshot; /* non-NULL: draw the first complete frame into this PNG
                           * (offscreen, the window never shown) and return */
  const char *frame_json; /* non-NULL: that frame's draw list as JSON (frame_json.h) */
} st_native_opts;

/* Shows trace until the window is closed (or, with a screenshot, draws one
 * frame). Returns the exit code: 0, or 1 after one `strata: view: ...` line
 * on stderr (no display, no GL ES 3, out of memory, cannot write). */
int st_native_view(st_trace *trace, const st_native_opts *o);

#endif
