/* test_native_input.c: the native window's input (native/native_input.c) on the
 * app (core/app/app.h), without a display: SDL events are built by hand and
 * handed to nv_input_event, and the app's ui state is checked as the
 * page's input tests check it: key names as the DOM's (shift gives
 * ! @ # $ ?), W zooms and holding it animates until the key is let go, 1-4
 * and ! pick tools, 0 fits, ctrl+wheel zooms, shift+wheel pans, a click
 * selects the event under it and a double click zooms to it, focus loss
 * releases held keys, the search box (/, typed text, Backspace, Enter,
 * Esc), and with two files c puts them side by side, a click picking the
 * pane under it; the title bar shows the tool, the event under the mouse
 * (its name made safe), the selection and the search box. The track
 * filter box (t, typed text, Backspace, Enter keeps, Esc clears): the
 * layout holds exactly the tracks whose names match; e shows / hides the
 * processes without events; a note (n, a click or a drag, its text,
 * Enter / Esc) lands at the time under the mouse within a pixel. */
#include "app.h"
#include "check.h"
#include "native_input.h"
#include "title.h"

#include <math.h>

#define W 1220.0f /* timeline 1000 px wide */
#define H 700.0f

/* P10/T1: A [0, 9000) > B [1000, 2000); Alpha [10000, 12000)
 * P20/T2: C [500, 800), "x\ay\n" [3000, 5000) (ns after rebasing the first
 * event to 0) */
static const char TRACE[] =
    "[{\"ph\":\"X\",\"pid\":10,\"tid\":1,\"ts\":1,\"dur\":9,\"name\":\"A\"},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":1,\"ts\":2,\"dur\":1,\"name\":\"B\"},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":1,\"ts\":11,\"dur\":2,\"name\":\"Alpha\"},"
    "{\"ph\":\"X\",\"pid\":20,\"tid\":2,\"ts\":1.5,\"dur\":0.3,\"name\":\"C\"},"
    "{\"ph\":\"X\",\"pid\":20,\"tid\":2,\"ts\":4,\"dur\":2,\"name\":\"x\\u0007y\\n\"}]";

/* Named processes and threads, and two processes without events (only
 * their names): trainer (pid 1): main, loader; gpu (pid 2): stream 7;
 * python (pid 3), python (pid 4). Events over [0, 100) us. */
static const char NAMED[] =
    "[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"trainer\"}},"
    "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}},"
    "{\"ph\":\"M\",\"pid\":1,\"tid\":2,\"name\":\"thread_name\",\"args\":{\"name\":\"loader\"}},"
    "{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"gpu\"}},"
    "{\"ph\":\"M\",\"pid\":2,\"tid\":7,\"name\":\"thread_name\",\"args\":{\"name\":\"stream 7\"}},"
    "{\"ph\":\"M\",\"pid\":3,\"name\":\"process_name\",\"args\":{\"name\":\"python\"}},"
    "{\"ph\":\"M\",\"pid\":4,\"name\":\"process_name\",\"args\":{\"name\":\"python\"}},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"step\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":20,\"name\":\"load\"},"
    "{\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":30,\"dur\":40,\"name\":\"gemm\"}]";

static double g_now;       /* the platform's clock, ms */
static unsigned g_changed; /* panel bits the app reported */

static double now_ms(void *ud) {
  (void)ud;
  return g_now;
}

static void ui_changed(void *ud, unsigned bits) {
  (void)ud;
  g_changed |= bits;
}

/* An app showing json (files times: files in one batch) in a W x H canvas. */
static st_app *open_json(const char *json, int files) {
  st_app_desc d = {
      .platform = {.now_ms = now_ms, .ui_changed = ui_changed}, .css_w = W, .css_h = H, .dpr = 1};
  st_app *app = st_app_create(&d);
  CHECK(app != NULL);
  st_app_batch_begin(app);
  for (int k = 0; k < files; k++) {
    CHECK(st_app_load_begin(app, k ? "b.json" : "a.json"));
    CHECK(st_app_load_push(app, json, strlen(json)) == ST_OK);
    CHECK_EQ_INT(st_app_load_finish(app), ST_APP_LOAD_OK);
  }
  CHECK_EQ_INT(st_app_batch_end(app), files);
  CHECK(st_app_ui(app) != NULL);
  g_now = 0;
  g_changed = 0;
  return app;
}

static st_app *open_app(int files) { return open_json(TRACE, files); }

static const st_view *view_of(st_app *app) { return st_ui_view(st_app_ui(app)); }

static int animating(st_app *app) { return st_ui_animating(st_app_ui(app)); }

/* Held keys: the app moves by the clock on its next frame. */
static void tick(st_app *app, double ms) {
  g_now += ms;
  st_app_frame(app);
}

/* A zeroed event of that type. */
static SDL_Event ev(Uint32 type) {
  SDL_Event e;
  memset(&e, 0, sizeof e);
  e.type = type;
  return e;
}

static SDL_Event key(Uint32 type, SDL_Keycode k, Uint16 mod) {
  SDL_Event e = ev(type);
  e.key.keysym.sym = k;
  e.key.keysym.mod = mod;
  return e;
}

static SDL_Event text(const char *s) {
  SDL_Event e = ev(SDL_TEXTINPUT);
  snprintf(e.text.text, sizeof e.text.text, "%s", s);
  return e;
}

static SDL_Event wheel(float dy, float dx) {
  SDL_Event e = ev(SDL_MOUSEWHEEL);
  e.wheel.preciseY = dy;
  e.wheel.preciseX = dx;
  e.wheel.direction = SDL_MOUSEWHEEL_NORMAL;
  return e;
}

static SDL_Event button(Uint32 type, int x, int y, Uint8 clicks) {
  SDL_Event e = ev(type);
  e.button.button = SDL_BUTTON_LEFT;
  e.button.x = x;
  e.button.y = y;
  e.button.clicks = clicks;
  return e;
}

static void feed(nv_input *in, st_app *app, SDL_Event e) { nv_input_event(in, app, &e); }

/* Canvas position of the middle of the (first) event named `name`, in the
 * pane in use (dx: that pane's left edge). */
static void where(st_app *app, const char *name, float dx, int *x, int *y) {
  const st_ui *ui = st_app_ui(app);
  const st_trace *t = st_ui_trace(ui);
  uint32_t nr, n;
  const st_row *rows = st_trace_rows(t, &nr);
  const st_layout_item *items = st_layout_items(st_ui_layout(ui), &n);
  *x = *y = -1;
  for (uint32_t r = 0; r < nr && *x < 0; r++)
    for (uint32_t i = 0; i < rows[r].count && *x < 0; i++) {
      if (strcmp(st_strtab_get(st_trace_strings(t), rows[r].name[i], NULL), name)) continue;
      for (uint32_t k = 0; k < n; k++)
        if (items[k].kind == ST_LAYOUT_ROW && items[k].row == r) {
          *x = (int)(dx + st_view_x_of(st_ui_view(ui), rows[r].start[i] + rows[r].dur[i] / 2.0));
          *y = (int)(items[k].y + items[k].h / 2 + ST_VIEW_AXIS_H - st_ui_view(ui)->scroll_y);
        }
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
  nv_input in = {0};
  st_app *app = open_app(1);
  double fit = view_of(app)->ns_per_px;
  feed(&in, app, key(SDL_KEYDOWN, SDLK_w, 0));
  CHECK(view_of(app)->ns_per_px < fit); /* a press moves at once */
  CHECK(animating(app));
  double tapped = view_of(app)->ns_per_px;
  tick(app, 50); /* held: keeps zooming with time */
  CHECK(view_of(app)->ns_per_px < tapped);
  feed(&in, app, key(SDL_KEYUP, SDLK_w, 0));
  tick(app, 10);
  CHECK(!animating(app));
  feed(&in, app, key(SDL_KEYDOWN, SDLK_0, 0));
  CHECK(fabs(view_of(app)->ns_per_px - fit) < fit * 1e-9);

  feed(&in, app, key(SDL_KEYDOWN, SDLK_3, 0));
  CHECK_EQ_INT(st_ui_tool(st_app_ui(app)), ST_TOOL_ZOOM);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_1, KMOD_LSHIFT)); /* "!" */
  CHECK_EQ_INT(st_ui_tool(st_app_ui(app)), ST_TOOL_SELECT);
  CHECK(g_changed & ST_UI_TOOL); /* the platform was told (its title bar) */

  SDL_SetModState(KMOD_LCTRL); /* ctrl + wheel away from the user: zoom in */
  feed(&in, app, wheel(1, 0));
  CHECK(view_of(app)->ns_per_px < fit);
  SDL_SetModState(KMOD_LSHIFT); /* shift + wheel: pan later */
  double t0 = view_of(app)->t0_ns;
  feed(&in, app, wheel(-1, 0));
  CHECK(view_of(app)->t0_ns > t0);
  SDL_SetModState(KMOD_NONE);

  /* held keys are released when the window loses focus */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_d, 0));
  CHECK(animating(app));
  SDL_Event blur;
  memset(&blur, 0, sizeof blur);
  blur.type = SDL_WINDOWEVENT;
  blur.window.event = SDL_WINDOWEVENT_FOCUS_LOST;
  feed(&in, app, blur);
  CHECK(!animating(app));
  st_app_destroy(app);
}

static const char *selected_name(st_app *app) {
  st_event_ref r;
  const st_trace *t = st_ui_trace(st_app_ui(app));
  if (!st_ui_selected_one(st_app_ui(app), &r)) return "";
  return st_strtab_get(st_trace_strings(t), st_trace_rows(t, NULL)[r.row].name[r.index], NULL);
}

static void test_mouse(void) {
  nv_input in = {0};
  st_app *app = open_app(1);
  int x, y;
  where(app, "C", 0, &x, &y);
  CHECK(x > 220 && y > 0);
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, x, y, 1));
  CHECK(in.dragging);
  feed(&in, app, button(SDL_MOUSEBUTTONUP, x, y, 1));
  CHECK(!in.dragging);
  CHECK_EQ_STR(selected_name(app), "C");
  double before = view_of(app)->ns_per_px;
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, x, y, 2));
  feed(&in, app, button(SDL_MOUSEBUTTONUP, x, y, 2)); /* double click: zoom to C */
  CHECK(view_of(app)->ns_per_px < before);
  st_app_destroy(app);
}

static void test_side_by_side(void) {
  nv_input in = {0};
  st_app *app = open_app(2);
  st_ui *stacked = st_app_ui(app);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_c, 0)); /* the page's key */
  CHECK_EQ_INT(st_app_side_by_side(app), 1);
  /* a click in the right half goes to the right pane, at its own x */
  int x, y;
  SDL_Event move;
  memset(&move, 0, sizeof move);
  move.type = SDL_MOUSEMOTION;
  move.motion.x = (int)(W * 0.75f);
  move.motion.y = 100;
  feed(&in, app, move);
  CHECK(st_app_ui(app) != stacked);
  CHECK(st_app_pane_dx(app) == W / 2);
  where(app, "Alpha", W / 2, &x, &y);
  CHECK(x > W / 2 + 220);
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, x, y, 1));
  feed(&in, app, button(SDL_MOUSEBUTTONUP, x, y, 1));
  CHECK_EQ_STR(selected_name(app), "Alpha");
  move.motion.x = 300; /* back over the left pane */
  feed(&in, app, move);
  CHECK(st_app_ui(app) == stacked);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_c, 0));
  CHECK_EQ_INT(st_app_side_by_side(app), 0);
  st_app_destroy(app);
}

static void test_search_box(void) {
  nv_input in = {0};
  st_app *app = open_app(1);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_SLASH, 0));
  CHECK(in.searching);
  feed(&in, app, text("/")); /* the key that opened the box is not typed into it */
  CHECK_EQ_STR(in.query, "");
  feed(&in, app, key(SDL_KEYDOWN, SDLK_a, 0)); /* typing: no timeline binding (a pans) */
  feed(&in, app, text("A"));
  feed(&in, app, text("l"));
  const st_find *f = st_ui_find(st_app_ui(app));
  CHECK_EQ_STR(st_find_text(f), "Al");
  CHECK_EQ_INT(st_find_count(f), 1);
  CHECK(!animating(app));
  feed(&in, app, key(SDL_KEYDOWN, SDLK_BACKSPACE, 0));
  CHECK_EQ_STR(st_find_text(f), "A");
  CHECK_EQ_INT(st_find_count(f), 2);                /* A, Alpha */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_RETURN, 0)); /* steps to a match and selects it */
  CHECK(st_selection_count(st_ui_selection(st_app_ui(app))) == 1);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_ESCAPE, 0)); /* leaves the box, keeps the search */
  CHECK(!in.searching);
  CHECK_EQ_STR(st_find_text(f), "A");
  feed(&in, app, key(SDL_KEYDOWN, SDLK_ESCAPE, 0)); /* on the timeline: clears it */
  CHECK(!st_find_active(f));
  feed(&in, app, key(SDL_KEYDOWN, SDLK_f, KMOD_LCTRL)); /* ctrl+F opens it too */
  CHECK(in.searching);
  st_app_destroy(app);
}

static void test_title(void) {
  nv_input in = {0};
  st_app *app = open_app(1);
  char t[512];
  int x, y;
  SDL_Event move;
  memset(&move, 0, sizeof move);
  move.type = SDL_MOUSEMOTION;
  where(app, "x\ay\n", 0, &move.motion.x, &move.motion.y);
  feed(&in, app, move);
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK_EQ_STR(t, "run.json - strata  |  select  |  x y   2 us");
  where(app, "Alpha", 0, &x, &y);
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, x, y, 1));
  feed(&in, app, button(SDL_MOUSEBUTTONUP, x, y, 1));
  feed(&in, app, key(SDL_KEYDOWN, SDLK_SLASH, 0));
  feed(&in, app, text("A"));
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK_EQ_STR(t, "run.json - strata  |  select  |  Alpha  2 us  |  1 selected  |  search: A_ (2)");
  /* the flow mode when it is not the default (selection) */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_ESCAPE, 0)); /* leaves the search box */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_l, 0));
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "  |  select  |  arrows: all  |  ") != NULL);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_l, 0));
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "  |  arrows: off  |  ") != NULL);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_l, 0));
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "arrows") == NULL);
  st_app_destroy(app);
}

static void type(nv_input *in, st_app *app, const char *s) {
  for (; *s; s++) {
    char c[2] = {*s, 0};
    feed(in, app, key(SDL_KEYDOWN, (SDL_Keycode)*s, 0)); /* the key, then its text */
    feed(in, app, text(c));
  }
}

/* The labels of the tracks laid out, in order, "|"-joined; and the pids of
 * the sections laid out, as "pid,pid,". */
static void laid_out(st_app *app, char *labels, size_t lcap, char *pids, size_t pcap) {
  const st_ui *ui = st_app_ui(app);
  const st_layout *l = st_ui_layout(ui);
  const st_process *ps = st_trace_processes(st_ui_trace(ui), NULL);
  uint32_t n;
  const st_layout_item *items = st_layout_items(l, &n);
  labels[0] = pids[0] = 0;
  for (uint32_t k = 0; k < n; k++) {
    char b[64];
    if (items[k].kind == ST_LAYOUT_SECTION) {
      snprintf(b, sizeof b, "%lld,", (long long)ps[items[k].process].pid);
      strncat(pids, b, pcap - strlen(pids) - 1);
    } else if (items[k].track != UINT32_MAX && items[k].first_of_track) {
      st_layout_track_label(l, items[k].track, b, sizeof b);
      if (labels[0]) strncat(labels, "|", lcap - strlen(labels) - 1);
      strncat(labels, b, lcap - strlen(labels) - 1);
    }
  }
}

static void test_track_filter(void) {
  nv_input in = {0};
  st_app *app = open_json(NAMED, 1);
  char labels[256], pids[64], t[512];
  laid_out(app, labels, sizeof labels, pids, sizeof pids);
  CHECK_EQ_STR(labels, "main|loader|stream 7"); /* all three, no empty process */
  CHECK_EQ_STR(pids, "1,2,");
  feed(&in, app, key(SDL_KEYDOWN, SDLK_t, 0));
  CHECK(in.filtering);
  feed(&in, app, text("t")); /* the key that opened the box is not typed into it */
  CHECK_EQ_STR(in.filter, "");
  type(&in, app, "LOAX"); /* typing: no timeline binding (a pans, x nothing) */
  CHECK(!animating(app));
  laid_out(app, labels, sizeof labels, pids, sizeof pids);
  CHECK_EQ_STR(labels, ""); /* nothing is named "loax" */
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK_EQ_STR(t, "run.json - strata  |  select  |  filter: LOAX_ (0 of 3 tracks)  |  "
                  "2 processes without events hidden");
  feed(&in, app, key(SDL_KEYDOWN, SDLK_BACKSPACE, 0));
  laid_out(app, labels, sizeof labels, pids, sizeof pids);
  CHECK_EQ_STR(labels, "loader"); /* case ignored; only its section */
  CHECK_EQ_STR(pids, "1,");
  feed(&in, app, key(SDL_KEYDOWN, SDLK_RETURN, 0)); /* leaves the box, keeps the filter */
  CHECK(!in.filtering);
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "  |  filter: LOA (1 of 3 tracks)") != NULL);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_a, 0)); /* the timeline has the keys again */
  CHECK(animating(app));
  feed(&in, app, key(SDL_KEYUP, SDLK_a, 0));
  /* t again: the box holds the filter; a process name keeps all its tracks */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_t, KMOD_LSHIFT));
  feed(&in, app, text("T"));
  CHECK_EQ_STR(in.filter, "LOA");
  for (int k = 0; k < 3; k++) feed(&in, app, key(SDL_KEYDOWN, SDLK_BACKSPACE, 0));
  type(&in, app, "gpu");
  laid_out(app, labels, sizeof labels, pids, sizeof pids);
  CHECK_EQ_STR(labels, "stream 7");
  /* Esc clears it and leaves (the page's box) */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_ESCAPE, 0));
  CHECK(!in.filtering);
  CHECK_EQ_STR(st_layout_filter(st_ui_layout(st_app_ui(app))), "");
  laid_out(app, labels, sizeof labels, pids, sizeof pids);
  CHECK_EQ_STR(labels, "main|loader|stream 7");
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "filter") == NULL);
  st_app_destroy(app);
}

static void test_show_empty(void) {
  nv_input in = {0};
  st_app *app = open_json(NAMED, 1);
  char labels[256], pids[64], t[512];
  feed(&in, app, key(SDL_KEYDOWN, SDLK_e, 0));
  laid_out(app, labels, sizeof labels, pids, sizeof pids);
  CHECK_EQ_STR(pids, "1,2,3,4,");
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK_EQ_STR(t, "run.json - strata  |  select  |  2 processes without events shown");
  feed(&in, app, key(SDL_KEYDOWN, SDLK_e, KMOD_LSHIFT)); /* E too */
  laid_out(app, labels, sizeof labels, pids, sizeof pids);
  CHECK_EQ_STR(pids, "1,2,");
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK_EQ_STR(t, "run.json - strata  |  select  |  2 processes without events hidden");
  feed(&in, app, key(SDL_KEYDOWN, SDLK_e, KMOD_LCTRL)); /* not with ctrl */
  laid_out(app, labels, sizeof labels, pids, sizeof pids);
  CHECK_EQ_STR(pids, "1,2,");
  st_app_destroy(app);
  /* a trace without empty processes says nothing of them */
  app = open_app(1);
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "without events") == NULL);
  st_app_destroy(app);
}

static SDL_Event motion(int x, int y) {
  SDL_Event e = ev(SDL_MOUSEMOTION);
  e.motion.x = x;
  e.motion.y = y;
  e.motion.state = SDL_BUTTON_LMASK;
  return e;
}

/* The time under window x (not side by side), us: from the view itself. */
static double us_at(st_app *app, int x) {
  const st_ui *ui = st_app_ui(app);
  return ((double)st_trace_origin_ns(st_ui_trace(ui)) + st_view_time_at(st_ui_view(ui), (float)x)) /
         1000.0;
}

static void test_note(void) {
  nv_input in = {0};
  st_app *app = open_json(NAMED, 1);
  uint32_t n;
  char t[512];
  const st_view *v = view_of(app);
  double px_us = v->ns_per_px / 1000.0; /* one pixel, us */
  /* n, then a click: a note at that time */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_n, 0));
  CHECK_EQ_INT(in.note_step, NV_NOTE_ARMED);
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "  |  note: click a time or drag over a range") != NULL);
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, 100, 60, 1)); /* the gutter: still waiting */
  CHECK_EQ_INT(in.note_step, NV_NOTE_ARMED);
  int x = 220 + 400, y = 60;
  double want = us_at(app, x);
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, x, y, 1));
  CHECK_EQ_INT(in.note_step, NV_NOTE_PRESSED);
  feed(&in, app, motion(x + 1, y)); /* less than a drag */
  feed(&in, app, button(SDL_MOUSEBUTTONUP, x + 1, y, 1));
  CHECK_EQ_INT(in.note_step, NV_NOTE_TEXT);
  CHECK_EQ_INT(st_selection_count(st_ui_selection(st_app_ui(app))),
               0); /* the press was the note's */
  type(&in, app, "warm up");
  feed(&in, app, key(SDL_KEYDOWN, SDLK_BACKSPACE, 0));
  feed(&in, app, text("p"));
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "  |  note at ") != NULL && strstr(t, " us: warm up_") != NULL);
  CHECK(!animating(app)); /* w and a were text */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_RETURN, 0));
  CHECK_EQ_INT(in.note_step, NV_NOTE_OFF);
  const st_app_note *notes = st_app_notes(app, &n);
  CHECK_EQ_INT(n, 1);
  CHECK(fabs(notes[0].t0_us - want) <= px_us && notes[0].t1_us == notes[0].t0_us);
  CHECK(want > 0 && want < 100);
  CHECK_EQ_STR(notes[0].text, "warm up");
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "  |  1 note") != NULL);
  /* n, then a drag (right to left, past the timeline's left end): a range */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_n, 0));
  int x0 = 220 + 800, x1 = 50;
  double a = us_at(app, x0), b = us_at(app, 220);
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, x0, y, 1));
  feed(&in, app, motion(500, y));
  feed(&in, app, button(SDL_MOUSEBUTTONUP, x1, y, 1));
  feed(&in, app, text("io"));
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, " us - ") != NULL && strstr(t, " us: io_") != NULL);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_KP_ENTER, 0));
  notes = st_app_notes(app, &n);
  CHECK_EQ_INT(n, 2);
  CHECK(fabs(notes[0].t0_us - b) <= px_us && fabs(notes[0].t1_us - a) <= px_us);
  CHECK_EQ_STR(notes[0].text, "io");
  nv_title(app, &in, "run.json", t, sizeof t);
  CHECK(strstr(t, "  |  2 notes") != NULL);
  /* Esc drops one being typed; Esc or n again before the press: not now */
  feed(&in, app, key(SDL_KEYDOWN, SDLK_n, 0));
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, x, y, 1));
  feed(&in, app, button(SDL_MOUSEBUTTONUP, x, y, 1));
  feed(&in, app, text("no"));
  feed(&in, app, key(SDL_KEYDOWN, SDLK_ESCAPE, 0));
  CHECK_EQ_INT(in.note_step, NV_NOTE_OFF);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_n, 0));
  feed(&in, app, key(SDL_KEYDOWN, SDLK_ESCAPE, 0));
  CHECK_EQ_INT(in.note_step, NV_NOTE_OFF);
  feed(&in, app, key(SDL_KEYDOWN, SDLK_n, 0));
  feed(&in, app, key(SDL_KEYDOWN, SDLK_n, 0));
  CHECK_EQ_INT(in.note_step, NV_NOTE_OFF);
  st_app_notes(app, &n);
  CHECK_EQ_INT(n, 2);
  /* not armed, a click selects as always */
  int sx, sy;
  where(app, "gemm", 0, &sx, &sy);
  feed(&in, app, button(SDL_MOUSEBUTTONDOWN, sx, sy, 1));
  feed(&in, app, button(SDL_MOUSEBUTTONUP, sx, sy, 1));
  CHECK_EQ_STR(selected_name(app), "gemm");
  st_app_destroy(app);
}

int main(void) {
  RUN(test_key_names);
  RUN(test_keys_and_wheel);
  RUN(test_mouse);
  RUN(test_side_by_side);
  RUN(test_search_box);
  RUN(test_title);
  RUN(test_track_filter);
  RUN(test_show_empty);
  RUN(test_note);
  return check_report();
}
