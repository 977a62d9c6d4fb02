/* native_input.h: SDL events of the native window translated into the core's
 * semantic input calls (core/ui/ui.h), as wasm/input.c does with the
 * page's DOM events: wheel (ctrl zooms at the cursor, shift pans, plain
 * scrolls), mouse down / move / up with buttons and modifiers (a drag goes
 * on outside the window: the mouse is captured), double click, keys as DOM
 * KeyboardEvent.key names with their key-up (W/S/A/D held move on), focus
 * loss (held keys released), c (two files or more: stacked / side by
 * side, the page's key). The search box: / or ctrl+F opens it (the
 * core's ST_UI_FOCUS_SEARCH), typed text searches as it changes, Enter and
 * shift+Enter step through the matches, Esc leaves it (the core's
 * st_ui_search_box_key). The track filter box: t opens it (the core's
 * ST_UI_FOCUS_FILTER), typed text filters the tracks as it changes
 * (st_app_set_track_filter), Enter leaves it with the filter kept, Esc
 * clears the filter and leaves it (the page's box). e shows / hides the
 * processes without events (st_app_set_show_empty). A note: n, then a
 * press on the timeline (a time) or a drag over it (a range: at least
 * NV_NOTE_DRAG_PX), then its text typed into the title bar; Enter adds it
 * (st_app_note_add), Esc drops it (Esc or n before the press: not now).
 * Positions are window points = CSS px. The other bindings are the core's.
 */
#ifndef STRATA_NATIVE_INPUT_H
#define STRATA_NATIVE_INPUT_H

#include <SDL.h>

#include "app.h"

#define NV_NOTE_DRAG_PX 3 /* a press that moves less is a click: a time (the page's) */

/* Placing a note (n): the steps. */
typedef enum nv_note_step {
  NV_NOTE_OFF,
  NV_NOTE_ARMED,   /* n pressed: the next press on the timeline places it */
  NV_NOTE_PRESSED, /* the button is down: a click or a drag */
  NV_NOTE_TEXT     /* its text is typed into the title bar */
} nv_note_step;

typedef struct nv_input {
  int dragging;   /* a button went down in the window and is still down */
  int searching;  /* the search box is open (shown in the title): typing goes to it */
  int filtering;  /* the track filter box is open (shown in the title): typing goes to it */
  char skip_text; /* the text of the key that opened the box, not to be typed into it */
  char query[256];
  char filter[256];
  nv_note_step note_step;
  int note_x;                           /* where the press was (window x) */
  double note_t0_us, note_t1_us;        /* the note's time / range (st_app_time_at) */
  char note_text[ST_APP_NOTE_TEXT + 1]; /* NV_NOTE_TEXT: typed so far */
} nv_input;

/* Hands one event to the app's ui (st_app_apply with its change bits).
 * Side by side, x picks the pane (st_app_route_x), and a drag stays in the
 * pane it began in. c toggles stacked / side by side, as in the page. */
void nv_input_event(nv_input *in, st_app *app, const SDL_Event *e);

/* The DOM KeyboardEvent.key name of an SDL key (with shift as a US
 * keyboard gives it: "w", "W", "!", "?", "Escape", "ArrowLeft", ...) into
 * buf; 0 for keys the core has no use for. */
int nv_input_key_name(SDL_Keycode k, unsigned mods, char *buf, size_t cap);

#endif
