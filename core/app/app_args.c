/* app_args.c: an event's args, decoded on demand from its trace's file, and
 * the "in args" search, every call naming the trace by handle (app.h).
 *
 * The model keeps only `src`, the event's offset in the decoded input; the
 * trace's args source (core/import/args/argsrc.h, kept by the trace set) says
 * which decoded range to read, the platform reads it and hands the bytes
 * back (plain files: args_data; compressed ones: through the trace's gzip
 * index, core/import/args/gzindex.h), until the args are decoded. One read
 * is in flight at a time, tagged with its trace's handle. The search pass
 * (core/import/args/args_search.h) streams a trace's whole file. When a
 * trace goes (the set's on_close, app.c), st_app_args_forget drops what
 * is in flight for it, and its index.
 * Calls app_view.c and app_set.c.
 */
#include "app_internal.h"

#include <string.h>

/* ---- the read in flight ------------------------------------------------------------ */

static void end_read(st_app *app) {
  st_app_args *g = &app->args;
  st_args_query_end(g->q);
  g->q = NULL;
  g->nacc = 0;
  st_gzread_end(g->rd);
  g->rd = NULL;
  g->h.id = 0;
}

/* {"error":"<message> (at byte N)"} */
static void write_error(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  const st_error *err = arg;
  char line[sizeof err->msg + 48];
  snprintf(line, sizeof line, "%s (at byte %llu)", err->msg[0] ? err->msg : st_code_name(err->code),
           (unsigned long long)err->offset);
  st_jout_lit(o, "{\"error\":");
  st_jout_str(o, line, strlen(line));
  st_jout_lit(o, "}");
}

static const char *error_json(st_app *app, const st_error *err) {
  return st_app_json(app, &app->args.text, write_error, err, "{\"error\":\"out of memory\"}");
}

static void write_read(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  st_jout_lit(o, "{\"read\":{\"offset\":");
  st_jout_u64(o, app->args.span.offset);
  st_jout_lit(o, ",\"length\":");
  st_jout_u64(o, app->args.span.length);
  st_jout_lit(o, "}}");
}

static const char *read_json(st_app *app) {
  return st_app_json(app, &app->args.text, write_read, NULL, "{\"error\":\"out of memory\"}");
}

typedef struct args_result {
  const char *text;
  size_t len;
  int cut;
} args_result;

static void write_args(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  const args_result *r = arg;
  st_jout_lit(o, "{\"args\":");
  st_jout_put(o, r->text, r->len); /* a JSON object the args source wrote */
  st_jout_lit(o, ",\"truncated\":");
  st_jout_i64(o, r->cut);
  st_jout_lit(o, "}");
}

/* File h is shown (*f filled; f may be NULL), and the read in flight is
 * of it when in_flight. */
static int file_for(const st_app *app, st_trace_handle h, int in_flight, st_traceset_file *f) {
  return st_app_shown(app, h, f) && (!in_flight || h.id == app->args.h.id);
}

const char *st_app_args_begin(st_app *app, st_trace_handle h, double src) {
  st_error err;
  memset(&err, 0, sizeof err);
  end_read(app);
  st_traceset_file f;
  if (!file_for(app, h, 0, &f)) {
    st_error_set(&err, ST_ERR_ARG, 0, "another trace was opened");
    return error_json(app, &err);
  }
  if (!(src >= 0 && src < 18446744073709551616.0)) {
    st_error_set(&err, ST_ERR_ARG, 0, "bad event offset");
    return error_json(app, &err);
  }
  /* a B/E slice: the args of its B and E merged (the E's read after the B's) */
  uint64_t end = st_trace_end_src_of(f.trace, (uint64_t)src);
  app->args.q = st_args_query_begin_end(f.args, (uint64_t)src, end, &app->args.span, &err);
  if (!app->args.q) return error_json(app, &err);
  app->args.h = h;
  return read_json(app);
}

int st_app_args_data(st_app *app, st_trace_handle h, const void *data, size_t len) {
  st_app_args *g = &app->args;
  if (!file_for(app, h, 1, NULL) || !g->q || len > g->span.length - g->nacc) return -1;
  void *p = g->acc;
  if (!st_grow_from(&app->self_alloc, &p, &g->acc_cap, g->nacc + len, 1, 65536)) return -1;
  g->acc = p;
  memcpy(g->acc + g->nacc, data, len);
  g->nacc += len;
  return 0;
}

const char *st_app_args_step(st_app *app, st_trace_handle h) {
  st_app_args *g = &app->args;
  st_error err;
  memset(&err, 0, sizeof err);
  if (!file_for(app, h, 1, NULL) || !g->q) {
    st_error_set(&err, ST_ERR_ARG, 0, "no read in progress");
    return error_json(app, &err);
  }
  const uint8_t *d = g->acc;
  size_t n = g->nacc;
  if (g->rd) d = st_gzread_data(g->rd, &n);
  int more = 0;
  st_code c = st_args_query_push(g->q, d, n, &more, &g->span, &err);
  g->nacc = 0;
  st_gzread_end(g->rd);
  g->rd = NULL;
  if (c != ST_OK) {
    end_read(app);
    return error_json(app, &err);
  }
  if (more) return read_json(app);
  args_result r = {NULL, 0, 0};
  r.text = st_args_query_result(g->q, &r.len, &r.cut);
  const char *out = st_app_json(app, &g->text, write_args, &r, "{\"error\":\"out of memory\"}");
  end_read(app);
  return out;
}

/* ---- the gzip index of a compressed trace ---------------------------------------------- */

void st_app_args_reset(st_app *app, st_trace_handle h) {
  st_app_file *x;
  if (!file_for(app, h, 0, NULL) || !(x = st_app_file_of(app, h))) return;
  if (app->args.h.id == h.id) {
    st_gzread_end(app->args.rd);
    app->args.rd = NULL;
  }
  st_gzindex_destroy(x->ix);
  x->ix = NULL;
  x->ix_state = 0;
}

int st_app_args_index_ready(st_app *app, st_trace_handle h) {
  st_app_file *x;
  return file_for(app, h, 0, NULL) && (x = st_app_file_of(app, h)) && x->ix_state == 2;
}

int st_app_args_index_push(st_app *app, st_trace_handle h, const void *data, size_t len) {
  st_app_file *x;
  if (!file_for(app, h, 0, NULL) || !(x = st_app_file_of(app, h))) return ST_ERR_ARG;
  if (x->ix_state == 0) {
    x->ix = st_gzindex_create(NULL, 0);
    x->ix_state = x->ix ? 1 : -1;
  }
  if (x->ix_state != 1) return ST_ERR_ARG;
  st_error err;
  st_code c = st_gzindex_push(x->ix, data, len, &err);
  if (c != ST_OK) x->ix_state = -1;
  return (int)c;
}

int st_app_args_index_finish(st_app *app, st_trace_handle h) {
  st_app_file *x;
  if (!file_for(app, h, 0, NULL) || !(x = st_app_file_of(app, h)) || x->ix_state != 1)
    return ST_ERR_ARG;
  st_error err;
  st_code c = st_gzindex_finish(x->ix, &err);
  /* a truncated stream still indexes what came before the cut */
  x->ix_state = (c == ST_OK || c == ST_ERR_TRUNCATED) ? 2 : -1;
  return x->ix_state == 2 ? 0 : (int)c;
}

double st_app_args_gz_begin(st_app *app, st_trace_handle h, double src, double len) {
  st_app_args *g = &app->args;
  st_gzread_end(g->rd);
  g->rd = NULL;
  st_app_file *x;
  if (!file_for(app, h, 1, NULL) || !(x = st_app_file_of(app, h)) || x->ix_state != 2 ||
      !(src >= 0) || !(len > 0))
    return -1;
  uint64_t from = 0;
  g->rd = st_gzread_begin(x->ix, (uint64_t)src, (size_t)len, &from);
  return g->rd ? (double)from : -1;
}

int st_app_args_gz_push(st_app *app, st_trace_handle h, const void *data, size_t len) {
  st_app_args *g = &app->args;
  if (!file_for(app, h, 1, NULL) || !g->rd) return -1;
  int done = 0;
  if (st_gzread_push(g->rd, data, len, &done) != ST_OK) return -1;
  return done;
}

/* ---- the "in args" search -------------------------------------------------------------- */

void st_app_args_search_abort(st_app *app) {
  st_app_args *g = &app->args;
  st_args_search_destroy(g->s);
  g->s = NULL;
  st_free(&app->self_alloc, g->s_text);
  g->s_text = NULL;
  g->s_len = 0;
  g->s_h.id = 0;
  g->s_part = UINT32_MAX;
}

const char *st_app_args_search_error(const st_app *app) {
  const st_error *e = &app->args.s_err;
  return e->msg[0] ? e->msg : st_code_name(e->code);
}

int st_app_args_search_begin(st_app *app, st_trace_handle h, const char *text, int add) {
  st_app_args *g = &app->args;
  st_app_args_search_abort(app);
  memset(&g->s_err, 0, sizeof g->s_err);
  st_traceset_file f;
  if (!app->ui || !text) {
    st_error_set(&g->s_err, ST_ERR_ARG, 0, "no trace is open");
    return 0;
  }
  if (!st_app_shown(app, h, &f)) {
    st_error_set(&g->s_err, ST_ERR_ARG, 0, "no such trace is shown");
    return 0;
  }
  size_t n = strlen(text);
  g->s = st_args_search_create_for(NULL, f.args, f.trace, text, n, &g->s_err);
  g->s_text = st_malloc(&app->self_alloc, n + 1);
  if (!g->s || !g->s_text) {
    if (g->s && !g->s_text) st_error_set(&g->s_err, ST_ERR_NOMEM, 0, "out of memory");
    st_app_args_search_abort(app);
    return 0;
  }
  memcpy(g->s_text, text, n + 1);
  g->s_len = n;
  g->s_h = h;
  g->s_part = add ? f.shown_index : UINT32_MAX;
  return 1;
}

int st_app_args_search_push(st_app *app, const void *data, size_t len) {
  st_app_args *g = &app->args;
  if (!g->s) return ST_ERR_ARG;
  return (int)st_args_search_push(g->s, data, len, &g->s_err);
}

double st_app_args_search_finish(st_app *app) {
  st_app_args *g = &app->args;
  if (!g->s || !app->ui) return -1;
  double r = -1;
  if (st_args_search_finish(g->s, &g->s_err) == ST_OK) {
    size_t n;
    const uint64_t *hits = st_args_search_hits(g->s, &n);
    unsigned ch;
    if (g->s_part == UINT32_MAX) { /* names OR args, in place of the search */
      ch = st_ui_search_srcs(app->ui, g->s_text, g->s_len, hits, n);
    } else { /* this file's hits added to its events; side by side in both panes */
      ch = st_ui_search_add_srcs(app->ui, g->s_part, hits, n);
      if (app->side)
        for (int k = 0; k < 2; k++)
          if (app->pane[k] && app->pane[k] != app->ui)
            ch |= st_ui_search_add_srcs(app->pane[k], g->s_part, hits, n);
    }
    st_app_apply(app, ch);
    r = (double)st_find_count(st_ui_find(app->ui));
  }
  st_app_args_search_abort(app);
  return r;
}

void st_app_args_forget(st_app *app, st_trace_handle h) {
  if (!h.id || app->args.h.id == h.id) end_read(app);
  if (app->args.s && (!h.id || app->args.s_h.id == h.id)) {
    st_error_set(&app->args.s_err, ST_ERR_ARG, 0, "another trace was opened");
    st_app_args_search_abort(app);
  }
  st_app_file *x = h.id ? st_app_file_of(app, h) : NULL;
  if (x) {
    st_gzindex_destroy(x->ix);
    x->ix = NULL;
    x->ix_state = 0;
  }
}
