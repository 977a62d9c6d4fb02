/* report.h: the standalone HTML file: the viewer, its wasm and (optionally)
 * traces in ONE file that opens from disk with no server.
 *
 * The one builder of that file. Its three front-ends only gather bytes and
 * hand them in:
 *   - the page's "Save HTML" button (web/embed.js, through
 *     wasm/report_api.c: this code compiled into strata.wasm),
 *   - `strata export TRACE -o report.html` (tools/cli/cli_export.c, reading
 *     dist/),
 *   - the notebook's packed viewer: `strata export --viewer-only` writes
 *     dist/strata-viewer.html at build time (no trace inside), which
 *     tools/python/strata/notebook.py copies next to the notebook.
 * Pure: bytes in, bytes out, memory from the caller's st_alloc.
 *
 *   st_report_desc d = {0};
 *   d.index_html = html, d.index_html_len = ...;   // likewise css, strata_js, wasm
 *   d.modules = mods, d.module_count = n;          // app.js and what it imports
 *   char name[ST_REPORT_NAME_MAX];
 *   while (st_report_missing_module(&d, name, sizeof name)) { read it, add it to mods }
 *   d.traces = &(st_report_trace){"trace.json", gz, gz_len}, d.trace_count = 1;
 *   d.title = "trace.json";
 *   uint8_t *html; size_t n;
 *   if (st_report_build(&d, &alloc, &html, &n, &err) == ST_OK) { write it; st_free(&alloc, html); }
 *
 * ---- the file's layout (web/embed.js reads it) -------------------------------------
 *   <!doctype html>, a comment, <html lang="en"><head> with charset, viewport,
 *   the Content-Security-Policy, referrer no-referrer, the <title> ("NAME – strata",
 *   or "strata" without a title) and an empty icon, then:
 *   <style id="strata-css">                      style.css
 *   </head><body>                                index.html's <body> content without
 *                                                its <script> elements, trimmed
 *   <script type="application/octet-stream" id="strata-wasm">   strata.wasm, base64
 *   <script type="application/octet-stream" id="strata-trace" class="strata-trace"
 *           data-name="...">                     the first trace, base64 (as given: the
 *                                                callers gzip it unless it was
 *                                                compressed already); more traces follow
 *                                                as id="strata-trace-1", "-2", ...;
 *                                                none in a viewer-only file
 *   <script type="application/json" id="strata-state">   the page's view state, only
 *                                                when d->state is given: {"hash":
 *                                                "<the link hash>"} (web/embed.js applies
 *                                                it when the file opens, as a link's hash)
 *   <script id="strata-js">                      strata.js
 *   <script type="module" id="strata-app">       app.js with the modules it imports
 *                                                inlined (the rule below)
 *   </body></html>
 * and a CSP of sha256 hashes of the three inline scripts/styles plus
 * 'wasm-unsafe-eval', nothing else:
 *   default-src 'none'; script-src 'sha256-<strata-js>' 'sha256-<strata-app>'
 *   'wasm-unsafe-eval'; style-src 'sha256-<strata-css>'; img-src data:;
 *   base-uri 'none'; form-action 'none'
 * so the file makes no network request at all. Script texts are kept from
 * ending their element early: "</script" (any case) becomes "<\/script" and
 * "<!--" becomes "<\!--" (both mean the same inside JS strings, regexes and
 * comments). Names in attributes and the title are escaped (&<>"' as &#N;).
 * The state is data, not code (a JSON block is never run, so the CSP needs
 * no hash of it); its text is a JSON string in which every byte that could
 * end or confuse the element is escaped: " \ and control characters as
 * JSON does, and < > & as \u003c \u003e \u0026 (so "</script" or "<!--"
 * cannot appear), invalid UTF-8 as \ufffd.
 *
 * ---- inlining modules ------------------------------------------------------------
 * One module text from app.js and the modules it imports: every line
 *   import { a, b as c } from './name.js';
 * (trailing blanks allowed) becomes
 *   const { a, b: c } = (() => {
 *   <name.js, inlined the same way, "export " dropped at line starts>
 *   return { a, b };
 *   })();
 * A module imported twice is inlined twice; nesting deeper than 8 is an error.
 * Text already inlined (a standalone file saving itself again) has no such
 * lines left and passes through unchanged.
 */
#ifndef STRATA_REPORT_H
#define STRATA_REPORT_H

#include "base.h"

#include <stddef.h>
#include <stdint.h>

#define ST_REPORT_NAME_MAX 128         /* longest module name, with its NUL */
#define ST_REPORT_STATE_MAX (1u << 16) /* longest view state (bytes) */

typedef struct st_report_module {
  const char *name; /* "app.js", "panels.js", ... (as the import line names it) */
  const char *text;
  size_t len;
} st_report_module;

typedef struct st_report_trace {
  const char *name; /* data-name (the page shows it); NULL: "trace" */
  const uint8_t *data;
  size_t len;
} st_report_trace;

/* What goes in. Texts are UTF-8; NULL with length 0 is an empty text. */
typedef struct st_report_desc {
  const char *index_html; /* the page; only its <body> content is used */
  size_t index_html_len;
  const char *css; /* style.css */
  size_t css_len;
  const char *strata_js; /* Emscripten's loader */
  size_t strata_js_len;
  const uint8_t *wasm; /* strata.wasm */
  size_t wasm_len;
  const st_report_module *modules; /* app.js and every module it imports */
  size_t module_count;
  const st_report_trace *traces; /* 0 traces: a viewer-only file */
  size_t trace_count;
  const char *title; /* "<title> – strata"; NULL: "strata" */
  /* the page's link hash ("#t=1,2&notes=..."; any text), stored in the file
   * as its view state; NULL: none. At most ST_REPORT_STATE_MAX bytes. */
  const char *state;
  size_t state_len;
} st_report_desc;

/* The first module app.js needs (directly or through its imports) that
 * d->modules does not hold: copies its name into name[cap] and returns 1;
 * 0 when every module is there (or the walk stops at an error that
 * st_report_build reports). Callers add the module and ask again. */
int st_report_missing_module(const st_report_desc *d, char *name, size_t cap);

/* The file, allocated exactly from a (NULL: realloc/free) into *out (free it
 * with st_free(a, *out)), its length in *out_len. Errors: ST_ERR_ARG (a
 * module missing, or no modules/index.html), ST_ERR_FORMAT (index.html has
 * no <body>, style.css holds "</style"), ST_ERR_LIMIT (imports nest deeper
 * than 8, a state longer than ST_REPORT_STATE_MAX), ST_ERR_NOMEM. On error *out is NULL. */
st_code st_report_build(const st_report_desc *d, const st_alloc *a, uint8_t **out, size_t *out_len,
                        st_error *err);

#endif
