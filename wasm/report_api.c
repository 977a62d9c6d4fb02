/* report_api.c: the page's "Save HTML" runs core/report's builder (the one
 * `strata export` runs) inside strata.wasm. web/embed.js fetches the site's
 * files (or reads them from a standalone file's own elements), gzips the
 * traces, and hands bytes in and out; it knows nothing of the layout.
 *
 *   s = st_wasm_report_begin()                 -> a build (0: out of memory)
 *   st_wasm_report_add(s, kind, name, p, n)    -> 1 ok, 0 out of memory. p is a
 *        _malloc'd buffer of n bytes that the build now owns (freed by end,
 *        or at once on failure); name a C string (copied), for modules and
 *        traces. kind: 0 index.html, 1 style.css, 2 strata.js, 3 strata.wasm,
 *        4 a module (app.js, ...), 5 a trace (in the order given), 6 the view
 *        state (the page's link hash: report.h's strata-state; name unused)
 *   st_wasm_report_missing(s)                  -> the name of a module app.js
 *        needs that was not added yet, or 0 (add it and ask again)
 *   st_wasm_report_build(s, title)             -> the file's size (0: failed, see
 *        st_wasm_report_error); title NULL for a viewer-only file
 *   st_wasm_report_data(s)                     -> the file's bytes (valid until end)
 *   st_wasm_report_error(s)                    -> why build failed
 *   st_wasm_report_end(s)                      -> frees everything
 * Self-contained: no state outside the build object.
 */
#include <emscripten.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

enum { PART_INDEX, PART_CSS, PART_JS, PART_WASM, PART_MODULE, PART_TRACE, PART_STATE, PART_KINDS };

typedef struct wasm_report {
  uint8_t *part[4]; /* index.html, style.css, strata.js, strata.wasm */
  size_t part_len[4];
  st_report_module *modules;
  st_report_trace *traces;
  size_t module_count, trace_count;
  uint8_t *state; /* the view state (PART_STATE), NULL: none */
  size_t state_len;
  uint8_t *out;
  size_t out_len;
  char missing[ST_REPORT_NAME_MAX];
  st_error err;
} wasm_report;

EMSCRIPTEN_KEEPALIVE wasm_report *st_wasm_report_begin(void) {
  return calloc(1, sizeof(wasm_report));
}

static char *copy_name(const char *name) {
  size_t n = name ? strlen(name) : 0;
  char *c = malloc(n + 1);
  if (c) memcpy(c, name ? name : "", n), c[n] = 0;
  return c;
}

EMSCRIPTEN_KEEPALIVE int st_wasm_report_add(wasm_report *s, int kind, const char *name,
                                            uint8_t *data, size_t len) {
  if (!s || kind < 0 || kind >= PART_KINDS) {
    free(data);
    return 0;
  }
  if (kind == PART_STATE) {
    free(s->state);
    s->state = data;
    s->state_len = len;
    return 1;
  }
  if (kind < PART_MODULE) {
    free(s->part[kind]);
    s->part[kind] = data;
    s->part_len[kind] = len;
    return 1;
  }
  char *nm = copy_name(name);
  int ok = nm != NULL;
  if (ok && kind == PART_MODULE) {
    st_report_module *m = realloc(s->modules, (s->module_count + 1) * sizeof *m);
    if ((ok = m != NULL)) {
      s->modules = m;
      m[s->module_count++] = (st_report_module){nm, (const char *)data, len};
    }
  } else if (ok) {
    st_report_trace *t = realloc(s->traces, (s->trace_count + 1) * sizeof *t);
    if ((ok = t != NULL)) {
      s->traces = t;
      t[s->trace_count++] = (st_report_trace){nm, data, len};
    }
  }
  if (!ok) free(nm), free(data);
  return ok;
}

static st_report_desc desc_of(const wasm_report *s) {
  st_report_desc d;
  memset(&d, 0, sizeof d);
  d.index_html = (const char *)s->part[PART_INDEX], d.index_html_len = s->part_len[PART_INDEX];
  d.css = (const char *)s->part[PART_CSS], d.css_len = s->part_len[PART_CSS];
  d.strata_js = (const char *)s->part[PART_JS], d.strata_js_len = s->part_len[PART_JS];
  d.wasm = s->part[PART_WASM], d.wasm_len = s->part_len[PART_WASM];
  d.modules = s->modules, d.module_count = s->module_count;
  d.traces = s->traces, d.trace_count = s->trace_count;
  d.state = (const char *)s->state, d.state_len = s->state ? s->state_len : 0;
  return d;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_report_missing(wasm_report *s) {
  if (!s) return NULL;
  st_report_desc d = desc_of(s);
  return st_report_missing_module(&d, s->missing, sizeof s->missing) ? s->missing : NULL;
}

EMSCRIPTEN_KEEPALIVE double st_wasm_report_build(wasm_report *s, const char *title) {
  if (!s) return 0;
  st_report_desc d = desc_of(s);
  d.title = title;
  free(s->out);
  s->out = NULL;
  s->out_len = 0;
  if (st_report_build(&d, NULL, &s->out, &s->out_len, &s->err) != ST_OK) return 0;
  return (double)s->out_len;
}

EMSCRIPTEN_KEEPALIVE const uint8_t *st_wasm_report_data(wasm_report *s) { return s ? s->out : 0; }

EMSCRIPTEN_KEEPALIVE const char *st_wasm_report_error(wasm_report *s) {
  return s ? s->err.msg : "";
}

EMSCRIPTEN_KEEPALIVE void st_wasm_report_end(wasm_report *s) {
  if (!s) return;
  for (int i = 0; i < 4; i++) free(s->part[i]);
  for (size_t i = 0; i < s->module_count; i++)
    free((void *)s->modules[i].name), free((void *)s->modules[i].text);
  for (size_t i = 0; i < s->trace_count; i++)
    free((void *)s->traces[i].name), free((void *)s->traces[i].data);
  free(s->modules), free(s->traces), free(s->out), free(s->state), free(s);
}
