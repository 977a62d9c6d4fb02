/* native.h: `strata view`'s window (native/), the one call the CLI makes.
 *
 * The page's app (core/app/app.h: loading, batches, the merged view, side
 * by side, the ui) in an SDL2 window, drawn as the page draws it (the same
 * draw list, GL ES 3 renderer and glyph atlas core/render/, the core's
 * input bindings). This folder is the platform layer, as wasm/ is the page's:
 *   native/window.c          SDL2 window + OpenGL ES 3.0 context (EGL)
 *   native/native_input.c    SDL events -> st_ui calls, the search and track filter
 *                            boxes, e (empty processes), placing a note
 *   native/glyphs_native.c   the atlas's glyph source: stb_truetype + embedded DejaVu Sans
 *   native/title.c           the title bar as the status panel
 *   native/cursor.c          the core's cursor names -> SDL system cursors
 *   native/screenshot.c      offscreen frame -> PNG
 *   native/frame_json.c      the draw list as JSON (tests)
 *   native/native_view.c     the loop
 */
#ifndef STRATA_NATIVE_H
#define STRATA_NATIVE_H

#include "app.h"

/* Reads files[0, n) into app as one batch (the CLI's reader,
 * tools/cli/cli_view.c: on threads, as `strata stats` reads them). 1 when
 * they are shown; 0 after its line on stderr. */
typedef int (*st_native_load_fn)(void *ud, st_app *app, const char *const *files, int n);

typedef struct st_native_opts {
  int width, height;      /* window size, points (CSS px) */
  const char *name;       /* shown in the title: the file, or "N traces" */
  const char *screenshot; /* non-NULL: draw the first complete frame into this PNG
                           * (offscreen, the window never shown) and return */
  const char *frame_json; /* non-NULL: that frame's draw list as JSON (frame_json.h) */
  /* notes put on the timeline once the files are shown (core/app/app.h
   * st_app_note_add): times in us as the page's link, text one line */
  const double *note_t0_us, *note_t1_us;
  const char *const *note_text;
  int note_count;
  st_native_load_fn load; /* how the files are read into the app */
  void *load_ud;
  /* the view state of a page link's hash (tools/cli/cli_view.c --hash), applied
   * once the files are shown: side by side, the view [t0, t1] (us, as the
   * page's t=), the event at (row, index) selected (sel=) */
  int side_by_side, has_view, has_sel;
  double view_t0_us, view_t1_us, sel_row, sel_index;
} st_native_opts;

/* Loads files[0, n) (several: merged on one timeline) and shows them until
 * the window is closed (or, with a screenshot, draws one frame). Returns
 * the exit code: 0, or 1 after one line on stderr (`strata: FILE: ...` for
 * a file that cannot be loaded; `strata: view: ...` for no display, no GL
 * ES 3, out of memory, cannot write). */
int st_native_view(const char *const *files, int n, const st_native_opts *o);

#endif
