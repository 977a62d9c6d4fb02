/* args_search_api.c: the "in args" search for the page (core/import/args/args_search.h).
 * The page streams the open File (Blob.slice chunks, raw bytes: gzip is
 * inflated in the core) through one reused buffer:
 *   st_wasm_args_search_begin(text) -> 1 ok, 0 refused (st_wasm_args_search_error)
 * Every format: JSON, XSpace, Perfetto (core/import/args/args_search.h decodes the
 * protobuf events' args with the trace's args source, wasm/args_reader.h);
 * a new trace loaded mid-pass fails the pass (the source changed).
 *   st_wasm_args_search_push(ptr, len) -> 0 ok, else an st_code (stop pushing)
 *   st_wasm_args_search_finish()    -> the match count (names OR args), applied to
 *                                      the UI like a name search; -1 on failure
 *   st_wasm_args_search_abort()     -> drop the pass (a new query came)
 * A name search (st_wasm_search) replaces the result as usual.
 */
#include <emscripten.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "args_reader.h"
#include "args_search.h"
#include "query.h"

static st_args_search *g_s;
static char *g_text;
static size_t g_len;
static st_error g_err;
static unsigned g_gen; /* st_argsrd_generation() at begin */

static int stale(void) {
  if (g_s && st_argsrd_generation() != g_gen) {
    st_error_set(&g_err, ST_ERR_ARG, 0, "another trace was opened");
    return 1;
  }
  return 0;
}

EMSCRIPTEN_KEEPALIVE void st_wasm_args_search_abort(void) {
  st_args_search_destroy(g_s);
  g_s = NULL;
  free(g_text);
  g_text = NULL;
  g_len = 0;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_args_search_error(void) {
  return g_err.msg[0] ? g_err.msg : st_code_name(g_err.code);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_args_search_begin(const char *text) {
  st_wasm_args_search_abort();
  memset(&g_err, 0, sizeof g_err);
  st_app *app = st_app_get();
  if (!app->ui) {
    st_error_set(&g_err, ST_ERR_ARG, 0, "no trace is open");
    return 0;
  }
  size_t n = strlen(text);
  g_s = st_args_search_create_for(NULL, st_argsrd_source(), app->trace, text, n, &g_err);
  g_gen = st_argsrd_generation();
  g_text = malloc(n + 1);
  if (!g_s || !g_text) {
    if (g_s && !g_text) st_error_set(&g_err, ST_ERR_NOMEM, 0, "out of memory");
    st_wasm_args_search_abort();
    return 0;
  }
  memcpy(g_text, text, n + 1);
  g_len = n;
  return 1;
}

EMSCRIPTEN_KEEPALIVE int st_wasm_args_search_push(const void *data, size_t len) {
  if (!g_s) return ST_ERR_ARG;
  if (stale()) {
    st_wasm_args_search_abort();
    return ST_ERR_ARG;
  }
  return (int)st_args_search_push(g_s, data, len, &g_err);
}

EMSCRIPTEN_KEEPALIVE double st_wasm_args_search_finish(void) {
  st_app *app = st_app_get();
  if (!g_s || !app->ui) return -1;
  double r = -1;
  if (!stale() && st_args_search_finish(g_s, &g_err) == ST_OK) {
    size_t n;
    const uint64_t *hits = st_args_search_hits(g_s, &n);
    st_app_apply(app, st_ui_search_srcs(app->ui, g_text, g_len, hits, n));
    r = (double)st_find_count(st_ui_find(app->ui));
  }
  st_wasm_args_search_abort();
  return r;
}

/* ---- several files (a merged view): one pass per file ----------------------
 * The page runs the name search (st_wasm_search) first, then one pass per
 * file: st_wasm_args_search_begin_in(handle, text), push, finish_in(): its
 * hits are added to the search for that file's rows only (its srcs are
 * offsets in that file), in both panes when two runs are side by side
 * (each pane keeps its own search; the counts are of both files). Returns
 * the match count so far, -1 on failure. */
static uint32_t g_part = UINT32_MAX;

EMSCRIPTEN_KEEPALIVE int st_wasm_args_search_begin_in(double handle, const char *text) {
  st_wasm_args_search_abort();
  memset(&g_err, 0, sizeof g_err);
  st_app *app = st_app_get();
  uint32_t slot = st_app_slot_of(app, handle), part = 0;
  while (part < app->shown_count && app->shown[part] != slot) part++;
  if (!app->ui || slot == UINT32_MAX || part == app->shown_count) {
    st_error_set(&g_err, ST_ERR_ARG, 0, "no such trace is shown");
    return 0;
  }
  st_argsrd_use(slot);
  size_t n = strlen(text);
  g_s =
      st_args_search_create_for(NULL, st_argsrd_source(), app->traces[slot].trace, text, n, &g_err);
  g_gen = st_argsrd_generation();
  g_part = part;
  if (!g_s) return 0;
  return 1;
}

EMSCRIPTEN_KEEPALIVE double st_wasm_args_search_finish_in(void) {
  st_app *app = st_app_get();
  if (!g_s || !app->ui || g_part == UINT32_MAX) return -1;
  double r = -1;
  if (!stale() && st_args_search_finish(g_s, &g_err) == ST_OK) {
    size_t n;
    const uint64_t *hits = st_args_search_hits(g_s, &n);
    unsigned ch = st_ui_search_add_srcs(app->ui, g_part, hits, n);
    if (app->side) /* side by side: both panes show the matches (each has its own search) */
      for (int k = 0; k < 2; k++)
        if (app->pane[k] && app->pane[k] != app->ui)
          ch |= st_ui_search_add_srcs(app->pane[k], g_part, hits, n);
    st_app_apply(app, ch);
    r = (double)st_find_count(st_ui_find(app->ui));
  }
  st_wasm_args_search_abort();
  g_part = UINT32_MAX;
  return r;
}
