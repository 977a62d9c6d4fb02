/* test_native_input.c: the native window's input (native/input.c) on its
 * session (native/session.c), without a display: SDL events are built by
 * hand and handed to nv_input_event, and the core ui's state is checked
 * as the page's input tests check it: key names as the DOM's (shift gives
 * ! @ # $ ?), W zooms and holding it animates until the key is let go, 1-4
 * and ! pick tools, 0 fits, ctrl+wheel zooms, shift+wheel pans, a click
 * selects the event under it and a double click zooms to it, focus loss
 * releases held keys, and the search box (/, typed text, Backspace, Enter,
 * Esc). */
#include "check.h"
#include "input.h"
#include "session.h"

#include <math.h>

#define W 1220.0f /* timeline 1000 px wide */
#define H 700.0f

static uint32_t S(st_builder *b, const char *s) {
  return st_strtab_intern(st_builder_strings(b), s, strlen(s));
}

/* P10/T1: A [0, 9000) > B [1000, 2000); Alpha [10000, 12000)
 * P20/T2: C [500, 800) (after rebasing the first event to 0) */
static st_trace *trace(void) {
  st_builder *b = st_builder_create(NULL);
  uint32_t p1 = st_builder_process(b, 10), p2 = st_builder_process(b, 20);
  uint32_t t1 = st_builder_track(b, p1, ST_TRACK_SLICES, 1, S(b, "main"));
  uint32_t t2 = st_builder_track(b, p2, ST_TRACK_SLICES, 2, 0);
  st_builder_slice(b, t1, 1000, 9000, S(b, "A"), 0, 0, 0);
  st_builder_slice(b, t1, 2000, 1000, S(b, "B"), 0, 0, 0);
  st_builder_slice(b, t1, 11000, 2000, S(b, "Alpha"), 0, 0, 0);
  st_builder_slice(b, t2, 1500, 300, S(b, "C"), 0, 0, 0);
  return st_builder_finish(b, NULL);
}

/* A session showing trace() in a W x H canvas; returns the trace. */
static st_trace *open_session(nv_session *s) {
  char err[256];
  st_trace *t = trace();
  CHECK(t && nv_session_init(s, t, W, H, 1.0f, err, sizeof err));
  return t;
}

static void close_session(nv_session *s, st_trace *t) {
  nv_session_free(s);
  st_trace_destroy(t);
}

static SDL_Event key(Uint32 type, SDL_Keycode k, Uint16 mod) {
  SDL_Event e;
  memset(&e, 0, sizeof e);
  e.type = type;
  e.key.keysym.sym = k;
  e.key.keysym.mod = mod;
  return e;
}

static SDL_Event text(const char *s) {
  SDL_Event e;
  memset(&e, 0, sizeof e);
  e.type = SDL_TEXTINPUT;
  snprintf(e.text.text, sizeof e.text.text, "%s", s);
  return e;
}

static SDL_Event wheel(float dy, float dx) {
  SDL_Event e;
  memset(&e, 0, sizeof e);
  e.type = SDL_MOUSEWHEEL;
  e.wheel.preciseY = dy;
  e.wheel.preciseX = dx;
  e.wheel.direction = SDL_MOUSEWHEEL_NORMAL;
  return e;
}

static SDL_Event button(Uint32 type, int x, int y, Uint8 clicks) {
  SDL_Event e;
  memset(&e, 0, sizeof e);
  e.type = type;
  e.button.button = SDL_BUTTON_LEFT;
  e.button.x = x;
  e.button.y = y;
  e.button.clicks = clicks;
  return e;
}

static void feed(nv_input *in, nv_session *s, SDL_Event e) { nv_input_event(in, s, &e, 0); }

/* Canvas position of the middle of the event named `name` (row 0 or 1). */
static void where(const nv_session *s, const char *name, int *x, int *y) {
  uint32_t nr, n;
  const st_row *rows = st_trace_rows(s->trace, &nr);
  const st_layout_item *items = st_layout_items(st_ui_layout(s->ui), &n);
  for (uint32_t r = 0; r < nr; r++)
    for (uint32_t i = 0; i < rows[r].count; i++) {
      if (strcmp(st_strtab_get(st_trace_strings(s->trace), rows[r].name[i], NULL), name)) continue;
      *x = (int)st_view_x_of(st_ui_view(s->ui), rows[r].start[i] + rows[r].dur[i] / 2.0);
      for (uint32_t k = 0; k < n; k++)
        if (items[k].kind == ST_LAYOUT_ROW && items[k].row == r)
          *y = (int)(items[k].y + items[k].h / 2 + ST_VIEW_AXIS_H - st_ui_view(s->ui)->scroll_y);
    }
}

static void test_key_names(void) {
  char b[16];
  CHECK(nv_input_key_name(SDLK_w, 0, b, sizeof b) && !strcmp(b, "w"));
  CHECK(nv_input_key_name(SDLK_w, ST_MOD_SHIFT, b, sizeof b) && !strcmp(b, "W"));
  CHECK(nv_input_key_name(SDLK_1, ST_MOD_SHIFT, b, sizeof b) && !strcmp(b, "!"));
  CHECK(nv_input_key_name(SDLK_4, ST_MOD_SHIFT, b, sizeof b) && !strcmp(b, "$"));
  CHECK(nv_input_key_name(SDLK_SLASH, ST_MOD_SHIFT, b, sizeof b) && !strcmp(b, "?"));
  CHECK(nv_input_key_name(SDLK_ESCAPE, 0, b, sizeof b) && !strcmp(b, "Escape"));
  CHECK(nv_input_key_name(SDLK_KP_ENTER, 0, b, sizeof b) && !strcmp(b, "Enter"));
  CHECK(nv_input_key_name(SDLK_LEFT, 0, b, sizeof b) && !strcmp(b, "ArrowLeft"));
  CHECK(nv_input_key_name(SDLK_PAGEDOWN, 0, b, sizeof b) && !strcmp(b, "PageDown"));
  CHECK(!nv_input_key_name(SDLK_F5, 0, b, sizeof b));
  CHECK(!nv_input_key_name(SDLK_LSHIFT, 0, b, sizeof b));
}

static void test_keys_and_wheel(void) {
  nv_session s;
  nv_input in = {0};
  st_trace *t = open_session(&s);
  double fit = st_ui_view(s.ui)->ns_per_px;
  s.dirty = 0;
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_w, 0));
  CHECK(st_ui_view(s.ui)->ns_per_px < fit); /* a press moves at once */
  CHECK(s.dirty && s.animating);
  double tapped = st_ui_view(s.ui)->ns_per_px;
  nv_session_tick(&s, 50); /* held: keeps zooming with time */
  CHECK(st_ui_view(s.ui)->ns_per_px < tapped);
  feed(&in, &s, key(SDL_KEYUP, SDLK_w, 0));
  nv_session_tick(&s, 60);
  CHECK(!s.animating);
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_0, 0));
  CHECK(fabs(st_ui_view(s.ui)->ns_per_px - fit) < fit * 1e-9);

  feed(&in, &s, key(SDL_KEYDOWN, SDLK_3, 0));
  CHECK_EQ_INT(st_ui_tool(s.ui), ST_TOOL_ZOOM);
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_1, KMOD_LSHIFT)); /* "!" */
  CHECK_EQ_INT(st_ui_tool(s.ui), ST_TOOL_SELECT);
  CHECK(s.changed & ST_UI_TOOL);

  SDL_SetModState(KMOD_LCTRL); /* ctrl + wheel away from the user: zoom in */
  feed(&in, &s, wheel(1, 0));
  CHECK(st_ui_view(s.ui)->ns_per_px < fit);
  SDL_SetModState(KMOD_LSHIFT); /* shift + wheel: pan later */
  double t0 = st_ui_view(s.ui)->t0_ns;
  feed(&in, &s, wheel(-1, 0));
  CHECK(st_ui_view(s.ui)->t0_ns > t0);
  SDL_SetModState(KMOD_NONE);

  /* held keys are released when the window loses focus */
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_d, 0));
  CHECK(s.animating);
  SDL_Event blur;
  memset(&blur, 0, sizeof blur);
  blur.type = SDL_WINDOWEVENT;
  blur.window.event = SDL_WINDOWEVENT_FOCUS_LOST;
  feed(&in, &s, blur);
  nv_session_tick(&s, 100);
  CHECK(!s.animating);
  close_session(&s, t);
}

static void test_mouse(void) {
  nv_session s;
  nv_input in = {0};
  st_trace *t = open_session(&s);
  int x = -1, y = -1;
  where(&s, "C", &x, &y);
  CHECK(x > 220 && y > 0);
  feed(&in, &s, button(SDL_MOUSEBUTTONDOWN, x, y, 1));
  CHECK(in.dragging);
  feed(&in, &s, button(SDL_MOUSEBUTTONUP, x, y, 1));
  CHECK(!in.dragging);
  st_event_ref r;
  CHECK(st_ui_selected_one(s.ui, &r));
  CHECK_EQ_STR(
      st_strtab_get(st_trace_strings(t), st_trace_rows(t, NULL)[r.row].name[r.index], NULL), "C");
  double before = st_ui_view(s.ui)->ns_per_px;
  feed(&in, &s, button(SDL_MOUSEBUTTONDOWN, x, y, 2));
  feed(&in, &s, button(SDL_MOUSEBUTTONUP, x, y, 2)); /* double click: zoom to C */
  CHECK(st_ui_view(s.ui)->ns_per_px < before);
  close_session(&s, t);
}

static void test_search_box(void) {
  nv_session s;
  nv_input in = {0};
  st_trace *t = open_session(&s);
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_SLASH, 0));
  CHECK(in.searching);
  feed(&in, &s, text("/")); /* the key that opened the box is not typed into it */
  CHECK_EQ_STR(in.query, "");
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_a, 0)); /* typing: no timeline binding (a pans) */
  feed(&in, &s, text("A"));
  feed(&in, &s, text("l"));
  CHECK_EQ_STR(st_find_text(st_ui_find(s.ui)), "Al");
  CHECK_EQ_INT(st_find_count(st_ui_find(s.ui)), 1);
  CHECK(!s.animating);
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_BACKSPACE, 0));
  CHECK_EQ_STR(st_find_text(st_ui_find(s.ui)), "A");
  CHECK_EQ_INT(st_find_count(st_ui_find(s.ui)), 2); /* A, Alpha */
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_RETURN, 0));  /* steps to a match and selects it */
  CHECK(st_selection_count(st_ui_selection(s.ui)) == 1);
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_ESCAPE, 0)); /* leaves the box, keeps the search */
  CHECK(!in.searching);
  CHECK_EQ_STR(st_find_text(st_ui_find(s.ui)), "A");
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_ESCAPE, 0)); /* on the timeline: clears it */
  CHECK(!st_find_active(st_ui_find(s.ui)));
  feed(&in, &s, key(SDL_KEYDOWN, SDLK_f, KMOD_LCTRL)); /* ctrl+F opens it too */
  CHECK(in.searching);
  close_session(&s, t);
}

int main(void) {
  RUN(test_key_names);
  RUN(test_keys_and_wheel);
  RUN(test_mouse);
  RUN(test_search_box);
  return check_report();
}
