/* app_collectives.c: the collectives of the files shown (issue 32; app.h
 * "collectives"; core/analysis/collectives.h) over the last analysis: the
 * page reads each file's decoded bytes and hands them over one file at a
 * time (coll_add), then asks for the JSON `strata analyze --json` adds;
 * selecting a collective's kernels on every rank; moving the files onto
 * the clock the collectives give. Calls app_view.c.
 */
#include "app_internal.h"

#include <string.h>

#include "analyze.h"
#include "collectives.h"

void st_app_coll_forget(st_app *app) {
  st_collectives_destroy(app->coll);
  app->coll = NULL;
  app->coll_done = 0;
  st_free(&app->alloc, app->path_edges);
  app->path_edges = NULL;
  app->path_edge_count = app->path_edge_cap = 0;
  app->dirty = 1;
}

int st_app_coll_begin(st_app *app) {
  st_app_coll_forget(app);
  if (!app->an.result || st_analysis_traces(app->an.result) != st_app_count(app)) return 0;
  app->coll = st_collectives_begin(&app->alloc, app->an.result);
  return app->coll != NULL;
}

typedef struct mem_src {
  const uint8_t *data;
  size_t len;
} mem_src;

static int mem_read(void *ud, uint64_t offset, uint64_t length, const uint8_t **data, size_t *len) {
  const mem_src *m = ud;
  if (offset > m->len) offset = m->len;
  *data = m->data + offset;
  *len = m->len - (size_t)offset < length ? m->len - (size_t)offset : (size_t)length;
  return 1;
}

int st_app_coll_add(st_app *app, double k, const void *data, size_t len) {
  if (!app->coll || app->coll_done || !(k >= 0 && k < (double)st_app_count(app))) return 0;
  st_traceset_file f;
  if (!st_traceset_get(app->set, st_app_part(app, (uint32_t)k), &f)) return 0;
  mem_src m = {data, data ? len : 0};
  st_coll_source s = {data ? f.args : NULL, mem_read, &m};
  return st_collectives_add(app->coll, (uint32_t)k, &s) == ST_OK;
}

static void write_coll(st_jout *o, st_app *app, const void *arg) {
  const char *const *names = arg;
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  /* its members start with a comma: '{' written over it */
  size_t at = o->len;
  o->len += st_collectives_json(app->coll, names, room ? o->buf + o->len : NULL, room);
  if (at < o->cap) o->buf[at] = '{';
  st_jout_lit(o, "}");
}

const char *st_app_coll_finish(st_app *app) {
  if (!app->coll) return "null";
  if (!app->coll_done) {
    if (st_collectives_finish(app->coll) != ST_OK) {
      st_app_coll_forget(app);
      return "null";
    }
    app->coll_done = 1;
  }
  uint32_t n = st_app_count(app);
  const char *names[ST_APP_MAX_TRACES];
  for (uint32_t k = 0; k < n && k < ST_APP_MAX_TRACES; k++) {
    st_traceset_file f;
    names[k] = st_traceset_get(app->set, st_app_part(app, k), &f) ? f.group : "";
  }
  const char *out = st_app_json(app, &app->coll_text, write_coll, names, NULL);
  return out ? out : "null";
}

double st_app_coll_select(st_app *app, double index) {
  uint32_t nc, np;
  if (!app->ui || !app->trace || !app->coll || !app->coll_done) return -1;
  const st_coll *cl = st_colls(app->coll, &nc);
  if (!(index >= 0 && index < (double)nc)) return -1;
  const st_coll *c = &cl[(uint32_t)index];
  const st_coll_member *m = st_coll_members(app->coll, NULL);
  const st_trace_part *parts = st_trace_parts(app->trace, &np);
  st_selection *sel = st_selection_create(&app->alloc);
  if (!sel) return -1;
  int ok = 1;
  for (uint32_t i = 0; ok && i < c->members; i++) {
    const st_coll_member *x = &m[c->first_member + i];
    uint32_t row = (np && x->trace < np ? parts[x->trace].row_base : 0) + x->kernel.row;
    ok = st_selection_add(sel, row, x->kernel.index, x->kernel.index + 1) == ST_OK;
  }
  unsigned ch = ok ? st_ui_set_selection(app->ui, sel) : 0;
  st_app_apply(app, ch);
  st_selection_destroy(sel);
  return ch ? (double)c->members : -1;
}

int st_app_coll_align(st_app *app) {
  uint32_t n = st_app_count(app);
  if (!app->coll || !app->coll_done || n < 2 || n > ST_APP_MAX_TRACES) return 0;
  /* file k's time 0 at its aligned time 0 from the anchor's (the least):
   * each move normalises every offset, so the anchor's is read again */
  int64_t want[ST_APP_MAX_TRACES];
  uint32_t anchor = 0;
  for (uint32_t k = 0; k < n; k++) {
    want[k] = st_coll_aligned(app->coll, k, 0);
    if (want[k] < want[anchor]) anchor = k;
  }
  int moved = 0;
  for (uint32_t k = 0; k < n; k++) {
    st_traceset_file f, fa;
    st_trace_handle h = st_app_part(app, k);
    if (k == anchor) continue;
    if (!st_traceset_get(app->set, h, &f) ||
        !st_traceset_get(app->set, st_app_part(app, anchor), &fa))
      return 0;
    int64_t to = fa.offset_ns + (want[k] - want[anchor]);
    if (f.offset_ns == to) continue;
    if (!st_app_set_offset_ns(app, h, (double)to)) return 0;
    moved++;
  }
  return moved + 1;
}

/* The aligned time a of file k, in its own ns (the inverse of
 * st_coll_aligned). */
static int64_t own_time(const st_collectives *c, uint32_t k, int64_t a) {
  return a - st_coll_aligned(c, k, 0);
}

/* Collective x's member on trace k (NULL: none). */
static const st_coll_member *member_on(const st_collectives *c, uint32_t x, uint32_t k) {
  const st_coll *cl = &st_colls(c, NULL)[x];
  const st_coll_member *mb = st_coll_members(c, NULL);
  for (uint32_t m = 0; m < cl->members; m++)
    if (mb[cl->first_member + m].trace == k) return &mb[cl->first_member + m];
  return NULL;
}

/* The path's cross-rank edges into app->path_edges: a collective on its
 * blocker followed by a segment of another rank (the one that waited for
 * it): from the blocker's kernel's start to that rank's kernel's end. */
static int path_edges(st_app *app, const st_coll_path *p) {
  uint32_t np;
  const st_coll_segment *segs = st_coll_segments(app->coll, NULL) + p->first_segment;
  const st_trace_part *parts = st_trace_parts(app->trace, &np);
  app->path_edge_count = 0;
  for (uint32_t s = 0; s + 1 < p->segments; s++) {
    if (!segs[s].collective || segs[s + 1].trace == segs[s].trace) continue;
    const st_coll_member *b = member_on(app->coll, segs[s].coll, segs[s].trace);
    const st_coll_member *w = member_on(app->coll, segs[s].coll, segs[s + 1].trace);
    if (!b || !w) continue;
    if (app->path_edge_count == app->path_edge_cap) {
      void *ne = app->path_edges;
      if (!st_grow32(&app->alloc, &ne, &app->path_edge_cap, app->path_edge_count + 1,
                     sizeof *app->path_edges, 16))
        return 0;
      app->path_edges = ne;
    }
    uint32_t b0 = np && b->trace < np ? parts[b->trace].row_base : 0;
    uint32_t w0 = np && w->trace < np ? parts[w->trace].row_base : 0;
    app->path_edges[app->path_edge_count++] = (st_draw_edge){
        b0 + b->kernel.row, b->kernel.index, w0 + w->kernel.row, w->kernel.index, 0, 1};
  }
  return 1;
}

static void write_arrows(st_jout *o, st_app *app, const void *arg) {
  (void)arg;
  uint32_t np;
  const st_trace_part *parts = st_trace_parts(app->trace, &np);
  st_jout_lit(o, "{\"step\":");
  st_jout_i64(o, app->path_step);
  st_jout_lit(o, ",\"arrows\":[");
  for (uint32_t i = 0; i < app->path_edge_count; i++) {
    const st_draw_edge *e = &app->path_edges[i];
    for (int end = 0; end < 2; end++) {
      uint32_t row = end ? e->row1 : e->row0, index = end ? e->index1 : e->index0, k = 0;
      while (k + 1 < np && parts[k + 1].row_base <= row) k++;
      const st_row *r = &st_trace_rows(st_analysis_trace(app->an.result, k),
                                       NULL)[row - (np ? parts[k].row_base : 0)];
      int64_t t = r->start[index] + ((end ? e->end1 : e->end0) ? r->dur[index] : 0);
      st_jout_lit(o, end ? ",\"to_trace\":" : i ? ",{\"from_trace\":" : "{\"from_trace\":");
      st_jout_u64(o, k);
      st_jout_lit(o, end ? ",\"to_us\":" : ",\"from_us\":");
      st_jout_us(o, st_coll_aligned(app->coll, k, t));
    }
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "]}");
}

const char *st_app_coll_path_arrows_json(st_app *app) {
  if (!app->coll || !app->coll_done || !app->an.result || !app->trace || !app->path_edge_count)
    return "null";
  const char *out = st_app_json(app, &app->small, write_arrows, NULL, NULL);
  return out ? out : "null";
}

double st_app_coll_path_select(st_app *app, double step) {
  uint32_t np, npath, nd;
  if (!app->ui || !app->trace || !app->coll || !app->coll_done || !app->an.result) return -1;
  const st_coll_path *paths = st_coll_paths(app->coll, &npath);
  const st_coll_path *p = NULL;
  for (uint32_t i = 0; i < npath && !p; i++)
    if ((double)paths[i].step == step) p = &paths[i];
  if (!p) return -1;
  const st_coll_segment *segs = st_coll_segments(app->coll, NULL);
  const st_coll *cl = st_colls(app->coll, NULL);
  const st_coll_member *mb = st_coll_members(app->coll, NULL);
  const st_trace_part *parts = st_trace_parts(app->trace, &np);
  const st_an_device *dev = st_analysis_devices(app->an.result, &nd);
  st_selection *sel = st_selection_create(&app->alloc);
  if (!sel) return -1;
  double count = 0;
  int ok = 1;
  for (uint32_t s = 0; ok && s < p->segments; s++) {
    const st_coll_segment *g = &segs[p->first_segment + s];
    uint32_t base = np && g->trace < np ? parts[g->trace].row_base : 0;
    if (g->collective) { /* the collective's kernel on that rank */
      const st_coll *c = &cl[g->coll];
      for (uint32_t m = 0; m < c->members; m++) {
        const st_coll_member *x = &mb[c->first_member + m];
        if (x->trace != g->trace) continue;
        ok = st_selection_add(sel, base + x->kernel.row, x->kernel.index, x->kernel.index + 1) ==
             ST_OK;
        count++;
        break;
      }
      continue;
    }
    /* compute: the device work of that rank inside the segment */
    const st_trace *t = st_analysis_trace(app->an.result, g->trace);
    const st_row *rows = st_trace_rows(t, NULL);
    int64_t t0 = own_time(app->coll, g->trace, g->start_ns);
    int64_t t1 = own_time(app->coll, g->trace, g->end_ns);
    for (uint32_t d = 0; ok && d < nd; d++) {
      if (dev[d].trace != g->trace) continue;
      uint32_t *dr = NULL, ndr = 0;
      if (st_analysis_device_rows(app->an.result, &app->alloc, d, &dr, &ndr) != ST_OK) {
        ok = 0;
        break;
      }
      for (uint32_t q = 0; ok && q < ndr; q++) {
        const st_row *r = &rows[dr[q]];
        uint32_t lo = st_row_first_end_gt(r, t0), hi = lo;
        while (hi < r->count && r->start[hi] < t1) hi++;
        /* only work that starts inside the segment (not the collective before) */
        while (lo < hi && r->start[lo] < t0) lo++;
        if (hi > lo) {
          ok = st_selection_add(sel, base + dr[q], lo, hi) == ST_OK;
          count += hi - lo;
        }
      }
      st_free(&app->alloc, dr);
    }
  }
  unsigned ch = ok ? st_ui_set_selection(app->ui, sel) : 0;
  st_app_apply(app, ch); /* a new selection: the arrows shown went with the old one */
  st_selection_destroy(sel);
  if (!ch) return -1;
  app->path_step = p->step;
  if (!path_edges(app, p)) app->path_edge_count = 0;
  st_app_request_redraw(app);
  return count;
}
