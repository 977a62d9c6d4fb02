/* native_input.c: SDL events -> st_ui calls (see native_input.h). */
#include "native_input.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WHEEL_NOTCH_PX 100.0f /* a wheel notch, as browsers report it (deltaY) */

static unsigned mods_of(SDL_Keymod m) {
  return ((m & KMOD_SHIFT) ? ST_MOD_SHIFT : 0u) | ((m & KMOD_CTRL) ? ST_MOD_CTRL : 0u) |
         ((m & KMOD_ALT) ? ST_MOD_ALT : 0u) | ((m & KMOD_GUI) ? ST_MOD_META : 0u);
}

/* SDL's button mask -> ST_BUTTON_* (the DOM's `buttons` bits). */
static unsigned buttons_of(Uint32 mask) {
  return ((mask & SDL_BUTTON_LMASK) ? ST_BUTTON_LEFT : 0u) |
         ((mask & SDL_BUTTON_RMASK) ? ST_BUTTON_RIGHT : 0u) |
         ((mask & SDL_BUTTON_MMASK) ? ST_BUTTON_MIDDLE : 0u);
}

static unsigned button_bit(Uint8 b) {
  return b == SDL_BUTTON_LEFT     ? ST_BUTTON_LEFT
         : b == SDL_BUTTON_MIDDLE ? ST_BUTTON_MIDDLE
         : b == SDL_BUTTON_RIGHT  ? ST_BUTTON_RIGHT
                                  : 0u;
}

int nv_input_key_name(SDL_Keycode k, unsigned mods, char *buf, size_t cap) {
  const char *named = NULL;
  switch (k) {
  case SDLK_ESCAPE: named = "Escape"; break;
  case SDLK_RETURN:
  case SDLK_KP_ENTER: named = "Enter"; break;
  case SDLK_LEFT: named = "ArrowLeft"; break;
  case SDLK_RIGHT: named = "ArrowRight"; break;
  case SDLK_UP: named = "ArrowUp"; break;
  case SDLK_DOWN: named = "ArrowDown"; break;
  case SDLK_PAGEUP: named = "PageUp"; break;
  case SDLK_PAGEDOWN: named = "PageDown"; break;
  default: break;
  }
  if (named) {
    snprintf(buf, cap, "%s", named);
    return 1;
  }
  if (k < 0x20 || k > 0x7e || cap < 2) return 0; /* printable ASCII only */
  char c = (char)k;
  if (mods & ST_MOD_SHIFT) {
    static const char plain[] = "1234567890/-=;',.`[]\\", shifted[] = "!@#$%^&*()?_+:\"<>~{}|";
    const char *p = strchr(plain, c);
    if (c >= 'a' && c <= 'z')
      c = (char)(c - 'a' + 'A');
    else if (p)
      c = shifted[p - plain];
  }
  buf[0] = c;
  buf[1] = 0;
  return 1;
}

/* Typing into a box's text buf (cap bytes with the NUL): typed text is
 * appended (whole, or not at all when it does not fit), Backspace takes
 * the last character off. 1 if buf changed. */
static int edit(nv_input *in, char *buf, size_t cap, const SDL_Event *e) {
  size_t n = strlen(buf);
  if (e->type == SDL_TEXTINPUT) {
    if (in->skip_text && e->text.text[0] == in->skip_text && !e->text.text[1]) {
      in->skip_text = 0;
      return 0;
    }
    size_t add = strlen(e->text.text);
    if (n + add >= cap) return 0;
    memcpy(buf + n, e->text.text, add + 1);
    return 1;
  }
  if (e->type != SDL_KEYDOWN || e->key.keysym.sym != SDLK_BACKSPACE) return 0;
  while (n > 0 && ((unsigned char)buf[n - 1] & 0xC0) == 0x80) n--; /* UTF-8 tail */
  if (n > 0) n--;
  buf[n] = 0;
  return 1;
}

/* A box closes: typing goes back to the timeline. */
static unsigned close_box(nv_input *in) {
  in->searching = in->filtering = 0;
  if (in->note_step == NV_NOTE_TEXT) in->note_step = NV_NOTE_OFF;
  in->skip_text = 0;
  SDL_StopTextInput();
  return ST_UI_REDRAW;
}

/* A box opens (typing goes to it; skip: the text of the key that opened it). */
static unsigned open_box(nv_input *in, char skip) {
  in->skip_text = skip;
  SDL_StartTextInput();
  return ST_UI_REDRAW;
}

/* The key of a key-down in a box (its DOM name, "" for one with none). */
static unsigned key_of(const SDL_Event *e, char *key, size_t cap) {
  unsigned mods = mods_of(e->key.keysym.mod);
  if (!nv_input_key_name(e->key.keysym.sym, mods, key, cap)) key[0] = 0;
  return mods;
}

/* An event while the search box is open; 1 if it was the box's. The text
 * is searched as it changes (every keystroke, as the page). */
static int search_box_event(nv_input *in, st_ui *ui, const SDL_Event *e, unsigned *ch) {
  char key[16];
  if (edit(in, in->query, sizeof in->query, e))
    *ch = st_ui_search(ui, in->query, strlen(in->query)) | ST_UI_REDRAW;
  if (e->type == SDL_TEXTINPUT) return 1;
  if (e->type != SDL_KEYDOWN) return 0;
  in->skip_text = 0;
  unsigned mods = key_of(e, key, sizeof key);
  if (!key[0] || !key[1]) return 1; /* typed: text, or Backspace */
  *ch = st_ui_search_box_key(ui, key, mods);
  if (*ch & ST_UI_TO_TIMELINE) *ch |= close_box(in);
  return 1;
}

/* An event while the track filter box is open; 1 if it was the box's.
 * The tracks are filtered as the text changes; Enter leaves the box with
 * the filter kept, Esc clears it and leaves (the page's box). */
static int filter_box_event(nv_input *in, st_app *app, const SDL_Event *e, unsigned *ch) {
  char key[16];
  if (edit(in, in->filter, sizeof in->filter, e)) {
    st_app_set_track_filter(app, in->filter); /* applies its own change bits */
    *ch = ST_UI_REDRAW;                       /* the title: the box and its count */
  }
  if (e->type == SDL_TEXTINPUT) return 1;
  if (e->type != SDL_KEYDOWN) return 0;
  in->skip_text = 0;
  key_of(e, key, sizeof key);
  if (!strcmp(key, "Escape")) {
    in->filter[0] = 0;
    st_app_set_track_filter(app, "");
  }
  if (!strcmp(key, "Escape") || !strcmp(key, "Enter")) *ch = close_box(in);
  return 1;
}

/* An event while a note's text is typed; 1 if it was the box's. Enter
 * adds the note, Esc drops it. */
static int note_box_event(nv_input *in, st_app *app, const SDL_Event *e, unsigned *ch) {
  char key[16];
  if (edit(in, in->note_text, sizeof in->note_text, e)) *ch = ST_UI_REDRAW; /* the title */
  if (e->type == SDL_TEXTINPUT) return 1;
  if (e->type != SDL_KEYDOWN) return 0;
  key_of(e, key, sizeof key);
  if (!strcmp(key, "Enter")) st_app_note_add(app, in->note_t0_us, in->note_t1_us, in->note_text);
  if (!strcmp(key, "Escape") || !strcmp(key, "Enter")) *ch = close_box(in);
  return 1;
}

/* The canvas x of window x kept on the timeline of the pane pressed (a
 * drag for a note's range that went past its ends). */
static float on_timeline(st_app *app, int x, float pane_dx) {
  const st_view *v = st_ui_view(st_app_ui(app));
  float lo = pane_dx + ST_VIEW_GUTTER_W, hi = pane_dx + v->width - 1;
  return (float)x < lo ? lo : (float)x > hi ? hi : (float)x;
}

/* A mouse event while a note waits for its place (armed or pressed); 1
 * if it was the note's. A left press on the timeline (not the gutter:
 * still waiting) takes the time; the release a click or a range, and the
 * text is asked for in the title bar. */
static int note_mouse_event(nv_input *in, st_app *app, const SDL_Event *e, unsigned *ch) {
  if (e->type == SDL_MOUSEBUTTONDOWN && in->note_step == NV_NOTE_ARMED) {
    if (e->button.button != SDL_BUTTON_LEFT) return 0;
    double t = st_app_time_at(app, (float)e->button.x); /* picks the pane */
    if (isnan(t)) return 1;                             /* not on the timeline: still waiting */
    in->note_step = NV_NOTE_PRESSED;
    in->note_x = e->button.x;
    in->note_t0_us = in->note_t1_us = t;
    SDL_CaptureMouse(SDL_TRUE); /* the drag goes on outside the window */
    return 1;
  }
  if (in->note_step != NV_NOTE_PRESSED) return 0;
  if (e->type == SDL_MOUSEMOTION) return 1; /* not a hover, not a drag of the core's */
  if (e->type != SDL_MOUSEBUTTONUP || e->button.button != SDL_BUTTON_LEFT)
    return e->type == SDL_MOUSEBUTTONDOWN;
  SDL_CaptureMouse(SDL_FALSE);
  int dx = e->button.x - in->note_x;
  if (dx >= NV_NOTE_DRAG_PX || dx <= -NV_NOTE_DRAG_PX) {
    double t = st_app_time_at(app, on_timeline(app, e->button.x, st_app_pane_dx(app)));
    if (t < in->note_t0_us) /* dragged to the left: the range is still t0 < t1 */
      in->note_t1_us = in->note_t0_us, in->note_t0_us = t;
    else if (!isnan(t))
      in->note_t1_us = t;
  }
  in->note_step = NV_NOTE_TEXT;
  in->note_text[0] = 0;
  *ch = open_box(in, 0);
  return 1;
}

/* Keys the core leaves to the platform (as the page's own handlers):
 * c stacked / side by side, e the processes without events, n a note. */
static unsigned platform_key(nv_input *in, st_app *app, const char *key, SDL_Keymod mod) {
  if ((key[0] == 'c' || key[0] == 'C') && !key[1] && !(mod & KMOD_CTRL)) {
    st_app_set_side_by_side(app, !st_app_side_by_side(app)); /* the page's key */
    return 0;
  }
  if (key[1] || (mod & (KMOD_CTRL | KMOD_ALT | KMOD_GUI))) return 0;
  if (key[0] == 'e' || key[0] == 'E') {
    st_app_set_show_empty(app, !st_layout_show_empty(st_ui_layout(st_app_ui(app))));
    return ST_UI_REDRAW; /* the title's count */
  }
  if (key[0] == 'n' || key[0] == 'N') { /* again before the press: not now */
    in->note_step = in->note_step == NV_NOTE_OFF ? NV_NOTE_ARMED : NV_NOTE_OFF;
    return ST_UI_REDRAW;
  }
  return 0;
}

/* x of a press, move or wheel in the coordinates of the pane it is over
 * (side by side), or of the pane a drag began in. */
static float pane_x(nv_input *in, st_app *app, int x) {
  return in->dragging ? (float)x - st_app_pane_dx(app) : st_app_route_x(app, (float)x);
}

void nv_input_event(nv_input *in, st_app *app, const SDL_Event *e) {
  st_ui *ui = st_app_ui(app); /* the pane in use; pane_x may change it */
  unsigned ch = 0;
  char key[16] = "";
  if (!ui) return; /* nothing loaded */
  int box = in->searching                   ? search_box_event(in, ui, e, &ch)
            : in->filtering                 ? filter_box_event(in, app, e, &ch)
            : in->note_step == NV_NOTE_TEXT ? note_box_event(in, app, e, &ch)
            : in->note_step != NV_NOTE_OFF  ? note_mouse_event(in, app, e, &ch)
                                            : 0;
  if (!box && in->note_step == NV_NOTE_ARMED && e->type == SDL_KEYDOWN &&
      e->key.keysym.sym == SDLK_ESCAPE) {
    in->note_step = NV_NOTE_OFF; /* not now; nothing else */
    box = 1, ch = ST_UI_REDRAW;
  }
  if (box) {
    if (ch) st_app_apply(app, ch);
    return;
  }
  switch (e->type) {
  case SDL_MOUSEWHEEL: {
    int x, y;
    SDL_GetMouseState(&x, &y);
    float sign = e->wheel.direction == SDL_MOUSEWHEEL_FLIPPED ? -1.0f : 1.0f;
    /* SDL: y > 0 away from the user; the DOM's deltaY > 0 towards (down) */
    float dy = -e->wheel.preciseY * sign * WHEEL_NOTCH_PX;
    float dx = e->wheel.preciseX * sign * WHEEL_NOTCH_PX;
    float px = pane_x(in, app, x);
    ch = st_ui_wheel(st_app_ui(app), dx, dy, mods_of(SDL_GetModState()), px, (float)y);
    break;
  }
  case SDL_MOUSEBUTTONDOWN: {
    unsigned b = buttons_of(SDL_GetMouseState(NULL, NULL)) | button_bit(e->button.button);
    if (!b) break;
    float px = pane_x(in, app, e->button.x); /* side by side: the pane pressed */
    ch = st_ui_pointer_down(st_app_ui(app), px, (float)e->button.y, b, mods_of(SDL_GetModState()));
    if (ch & ST_UI_HANDLED) {
      in->dragging = 1;
      SDL_CaptureMouse(SDL_TRUE); /* the drag goes on outside the window */
    }
    break;
  }
  case SDL_MOUSEBUTTONUP: {
    unsigned b = buttons_of(SDL_GetMouseState(NULL, NULL)) & ~button_bit(e->button.button);
    unsigned m = mods_of(SDL_GetModState());
    float x = pane_x(in, app, e->button.x), y = (float)e->button.y;
    ch = st_ui_pointer_up(st_app_ui(app), x, y, b, m);
    if (!b) {
      in->dragging = 0;
      SDL_CaptureMouse(SDL_FALSE);
    }
    /* the DOM's order: down, up, click, down, up, click, dblclick */
    if (e->button.clicks == 2 && e->button.button == SDL_BUTTON_LEFT)
      ch |= st_ui_double_click(st_app_ui(app), x, y, m);
    break;
  }
  case SDL_MOUSEMOTION: {
    float px = pane_x(in, app, e->motion.x);
    ch = st_ui_pointer_move(st_app_ui(app), px, (float)e->motion.y, buttons_of(e->motion.state),
                            mods_of(SDL_GetModState()));
    break;
  }
  case SDL_KEYDOWN:
    if (nv_input_key_name(e->key.keysym.sym, mods_of(e->key.keysym.mod), key, sizeof key))
      ch = st_ui_key_down(ui, key, mods_of(e->key.keysym.mod));
    if (!ch && key[0]) ch = platform_key(in, app, key, e->key.keysym.mod);
    break;
  case SDL_KEYUP:
    /* always: a held key must be released whatever focus did meanwhile */
    if (nv_input_key_name(e->key.keysym.sym, mods_of(e->key.keysym.mod), key, sizeof key))
      ch = st_ui_key_up(ui, key, mods_of(e->key.keysym.mod));
    break;
  case SDL_WINDOWEVENT:
    if (e->window.event == SDL_WINDOWEVENT_LEAVE && !in->dragging)
      ch = st_ui_pointer_leave(ui);
    else if (e->window.event == SDL_WINDOWEVENT_FOCUS_LOST) {
      in->dragging = 0;
      SDL_CaptureMouse(SDL_FALSE);
      ch = st_ui_blur(ui);
    }
    break;
  default: break;
  }
  if (ch & (ST_UI_FOCUS_SEARCH | ST_UI_FOCUS_FILTER))
    in->note_step = NV_NOTE_OFF; /* one at a time */
  if (ch & ST_UI_FOCUS_SEARCH) {
    in->searching = 1;
    snprintf(in->query, sizeof in->query, "%s", st_find_text(st_ui_find(st_app_ui(app))));
    ch |= open_box(in, e->type == SDL_KEYDOWN ? key[0] : 0);
  } else if (ch & ST_UI_FOCUS_FILTER) {
    in->filtering = 1;
    snprintf(in->filter, sizeof in->filter, "%s", st_layout_filter(st_ui_layout(st_app_ui(app))));
    ch |= open_box(in, e->type == SDL_KEYDOWN ? key[0] : 0);
  }
  if (ch) st_app_apply(app, ch);
}
