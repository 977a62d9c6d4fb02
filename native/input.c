/* input.c: SDL events -> st_ui calls (see input.h). */
#include "input.h"

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

/* The search box's text changed: search it (every keystroke, as the page). */
static unsigned search(nv_input *in, st_ui *ui) {
  return st_ui_search(ui, in->query, strlen(in->query)) | ST_UI_REDRAW;
}

/* An event while the search box is open; 1 if it was the box's. */
static int search_box_event(nv_input *in, st_ui *ui, const SDL_Event *e, unsigned *ch) {
  size_t n = strlen(in->query);
  char key[16];
  if (e->type == SDL_TEXTINPUT) {
    if (in->skip_text && e->text.text[0] == in->skip_text && !e->text.text[1]) {
      in->skip_text = 0;
      return 1;
    }
    size_t add = strlen(e->text.text);
    if (n + add < sizeof in->query) {
      memcpy(in->query + n, e->text.text, add + 1);
      *ch = search(in, ui);
    }
    return 1;
  }
  if (e->type != SDL_KEYDOWN) return 0;
  in->skip_text = 0;
  SDL_Keycode k = e->key.keysym.sym;
  unsigned mods = mods_of(e->key.keysym.mod);
  if (k == SDLK_BACKSPACE) {
    while (n > 0 && ((unsigned char)in->query[n - 1] & 0xC0) == 0x80) n--; /* UTF-8 tail */
    if (n > 0) n--;
    in->query[n] = 0;
    *ch = search(in, ui);
    return 1;
  }
  if (!nv_input_key_name(k, mods, key, sizeof key) || key[1] == 0) return 1; /* typed: text */
  *ch = st_ui_search_box_key(ui, key, mods);
  if (*ch & ST_UI_TO_TIMELINE) {
    in->searching = 0;
    SDL_StopTextInput();
    *ch |= ST_UI_REDRAW;
  }
  return 1;
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
  if (in->searching && search_box_event(in, ui, e, &ch)) {
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
    if (!ch && (key[0] == 'c' || key[0] == 'C') && !key[1] && !(e->key.keysym.mod & KMOD_CTRL))
      st_app_set_side_by_side(app, !st_app_side_by_side(app)); /* the page's key */
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
  if ((ch & ST_UI_FOCUS_SEARCH) && !in->searching) {
    in->searching = 1;
    in->skip_text = e->type == SDL_KEYDOWN ? key[0] : 0;
    snprintf(in->query, sizeof in->query, "%s", st_find_text(st_ui_find(st_app_ui(app))));
    SDL_StartTextInput();
    ch |= ST_UI_REDRAW;
  }
  if (ch) st_app_apply(app, ch);
}
