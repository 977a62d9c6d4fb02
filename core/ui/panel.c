/* panel.c: ui state as JSON for front ends (see panel.h). */
#include "panel.h"

#include "track_filter.h"

#include "json_out.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h> /* snprintf / vsnprintf only */
#include <string.h>

typedef struct jw { /* the text goes into b through a growing st_jout (json_out.h) */
  st_panel_buf *b;
  st_jout o;
} jw;

static jw jw_begin(st_panel_buf *b, const st_alloc *a) {
  b->len = 0;
  return (jw){b, {.buf = b->text, .cap = b->cap, .grow = 1, .alloc = a}};
}

void st_panel_buf_free(st_panel_buf *b, const st_alloc *a) {
  if (!b) return;
  st_free(a, b->text);
  memset(b, 0, sizeof *b);
}

static void raw(jw *w, const char *s, size_t n) { st_jout_put(&w->o, s, n); }

static void lit(jw *w, const char *s) { st_jout_lit(&w->o, s); }

static void fmt(jw *w, const char *f, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, f);
  int n = vsnprintf(tmp, sizeof tmp, f, ap);
  va_end(ap);
  if (n < 0) return;
  raw(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void num(jw *w, double v) {
  if (!isfinite(v))
    lit(w, "null");
  else
    fmt(w, "%.17g", v);
}

/* Names from the trace: escaped, invalid UTF-8 -> U+FFFD (0x7f as it is). */
static void str(jw *w, const char *s, size_t n) { st_jout_str_as(&w->o, s, n, ST_JESC_UTF8); }

static void str_id(jw *w, const st_trace *t, uint32_t id) {
  size_t n;
  const char *s = st_strtab_get(st_trace_strings(t), id, &n);
  str(w, s, n);
}

static void dur_text(jw *w, double ns) {
  char b[48];
  size_t n = st_format_dur(ns, b, sizeof b);
  str(w, b, n);
}

static st_code done(jw *w) {
  st_jout_put(&w->o, "", 0); /* the text exists and is NUL-terminated */
  w->b->text = w->o.buf;
  w->b->cap = w->o.cap;
  w->b->len = w->o.len;
  return w->o.nomem ? ST_ERR_NOMEM : ST_OK;
}

static double us_of(const st_trace *t, double ns) {
  return ((double)st_trace_origin_ns(t) + ns) / 1000.0;
}

/* An event's time in its own file's microseconds (a merged trace's parts
 * each have their own clock). */
static double ev_us_of(const st_trace *t, uint32_t row, double ns) {
  return ((double)st_trace_row_origin_ns(t, row) + ns) / 1000.0;
}

st_code st_panel_state_json(st_panel_buf *b, const st_ui *ui, const st_alloc *a) {
  if (!b || !ui) return ST_ERR_ARG;
  jw w = jw_begin(b, a);
  const st_trace *t = st_ui_trace(ui);
  lit(&w, "{\"tool\":");
  str(&w, st_ui_tool_name(st_ui_tool(ui)), strlen(st_ui_tool_name(st_ui_tool(ui))));
  fmt(&w, ",\"selected\":%llu", (unsigned long long)st_selection_count(st_ui_selection(ui)));
  double m0, m1;
  lit(&w, ",\"mark\":");
  if (st_ui_mark(ui, &m0, &m1)) {
    lit(&w, "{\"start_us\":");
    num(&w, us_of(t, m0));
    lit(&w, ",\"end_us\":");
    num(&w, us_of(t, m1));
    lit(&w, ",\"dur_ns\":");
    num(&w, m1 - m0);
    lit(&w, ",\"dur_text\":");
    dur_text(&w, m1 - m0);
    lit(&w, "}");
  } else {
    lit(&w, "null");
  }
  const st_find *f = st_ui_find(ui);
  lit(&w, ",\"search\":{\"text\":");
  str(&w, st_find_text(f), strlen(st_find_text(f)));
  fmt(&w, ",\"active\":%d,\"args\":%d,\"matches\":%llu,\"current\":%lld,\"hidden\":%llu}",
      st_find_active(f), st_find_in_args(f), (unsigned long long)st_find_count(f),
      (long long)st_ui_search_place(ui), (unsigned long long)st_ui_search_hidden(ui));
  fmt(&w, ",\"help\":%d,\"all_collapsed\":%d,\"animating\":%d,\"flows\":\"%s\",\"outside\":%llu",
      st_ui_help_visible(ui), st_ui_all_collapsed(ui), st_ui_animating(ui),
      st_flow_mode_name(st_ui_flow_mode(ui)),
      (unsigned long long)st_ui_outliers_hidden(ui, NULL, NULL));
  lit(&w, ",\"cursor\":");
  str(&w, st_ui_cursor(ui), strlen(st_ui_cursor(ui)));
  lit(&w, "}");
  return done(&w);
}

#define PANEL_MAX_FLOWS 64 /* flows listed per direction; the count says how many exist */

/* "flows_out":[...],"flows_out_count":N (or in): the other end of each flow. */
static void flow_list(jw *w, const st_trace *t, st_event_ref ref, int in) {
  uint32_t first, k = in ? st_trace_flows_to(t, ref.row, ref.index, ref.index + 1, &first)
                         : st_trace_flows_from(t, ref.row, ref.index, ref.index + 1, &first);
  const st_flow *fl = st_trace_flows(t, NULL);
  const uint32_t *fin = st_trace_flows_in(t, NULL);
  lit(w, in ? ",\"flows_in\":[" : ",\"flows_out\":[");
  for (uint32_t j = 0; j < k && j < PANEL_MAX_FLOWS; j++) {
    const st_flow *f = &fl[in ? fin[first + j] : first + j];
    st_event_ref o =
        in ? (st_event_ref){f->from_row, f->from_index} : (st_event_ref){f->to_row, f->to_index};
    st_event_info oi;
    if (!st_event_get(t, o, &oi)) continue;
    fmt(w, "%s{\"row\":%u,\"index\":%u,\"name\":", j ? "," : "", o.row, o.index);
    str_id(w, t, oi.name);
    lit(w, ",\"ts_us\":");
    num(w, ev_us_of(t, o.row, (double)oi.start_ns));
    lit(w, ",\"dur_us\":");
    num(w, (double)oi.dur_ns / 1000.0);
    char b[64]; /* its start as the event's own "start" reads: from the trace's start */
    size_t bn = st_format_time((double)oi.start_ns, 1, b, sizeof b);
    lit(w, ",\"start_text\":");
    str(w, b, bn);
    lit(w, ",\"process\":");
    str_id(w, t, oi.process_name);
    lit(w, ",\"thread\":");
    str_id(w, t, oi.thread_name);
    fmt(w, ",\"pid\":%lld,\"tid\":%lld}", (long long)oi.pid, (long long)oi.tid);
  }
  fmt(w, in ? "],\"flows_in_count\":%u" : "],\"flows_out_count\":%u", k);
}

/* A sample's call stack, leaf first: "stack":[names] (at most 64),
 * "stack_depth":N (frames in all). */
static void sample_stack(jw *w, const st_trace *t, st_event_ref ref) {
  const st_frames *fr = st_trace_row_frames(t, ref.row); /* merged: the row's file's */
  uint32_t f = st_trace_rows(t, NULL)[ref.row].cat[ref.index];
  if (f >= st_frames_count(fr)) return;
  lit(w, ",\"stack\":[");
  uint32_t k = 0;
  for (uint32_t x = f; x != ST_FRAME_NONE && k < 64; x = st_frames_parent(fr, x), k++) {
    if (k) lit(w, ",");
    str_id(w, t, st_frames_name(fr, x));
  }
  fmt(w, "],\"stack_depth\":%u", st_frames_depth(fr, f) + 1);
}

static void event_obj(jw *w, const st_ui *ui, st_event_ref ref, int full) {
  const st_trace *t = st_ui_trace(ui);
  st_event_info in;
  if (!st_event_get(t, ref, &in)) {
    lit(w, "null");
    return;
  }
  lit(w, "{\"name\":");
  str_id(w, t, in.name);
  lit(w, ",\"cat\":");
  str_id(w, t, in.cat);
  lit(w, ",\"ts_us\":");
  num(w, ev_us_of(t, ref.row, (double)in.start_ns));
  lit(w, ",\"dur_us\":");
  num(w, (double)in.dur_ns / 1000.0);
  fmt(w, ",\"pid\":%lld,\"tid\":%lld,\"row\":%u,\"index\":%u,\"src\":%llu", (long long)in.pid,
      (long long)in.tid, ref.row, ref.index, (unsigned long long)in.src);
  uint32_t part = st_trace_part_of_row(t, ref.row);
  if (part != UINT32_MAX) { /* a merged trace: the file the event came from */
    fmt(w, ",\"part\":%u,\"file\":", part);
    str_id(w, t, st_trace_parts(t, NULL)[part].name);
  }
  if (full) {
    lit(w, ",\"process\":");
    str_id(w, t, in.process_name);
    lit(w, ",\"thread\":");
    str_id(w, t, in.thread_name);
    fmt(w, ",\"start_ns\":%lld,\"dur_ns\":%lld,\"self_ns\":%lld,\"flags\":%u,\"depth\":%u",
        (long long)in.start_ns, (long long)in.dur_ns, (long long)in.self_ns, in.flags, in.depth);
    if (in.flags & ST_EV_SUMMARY) lit(w, ",\"summary\":true"); /* a stretch, not one event */
    char b[64];
    size_t n = st_format_time((double)in.start_ns, 1, b, sizeof b);
    /* start: adaptive units at ns resolution, e.g. "1.234567 ms" */
    lit(w, ",\"start_text\":");
    str(w, b, n);
    lit(w, ",\"dur_text\":");
    dur_text(w, (double)in.dur_ns);
    lit(w, ",\"self_text\":");
    dur_text(w, (double)in.self_ns);
    flow_list(w, t, ref, 0);
    flow_list(w, t, ref, 1);
    if (in.track_kind == ST_TRACK_SAMPLES) sample_stack(w, t, ref);
    const st_block *bk = st_trace_block(t, ref.row, ref.index);
    if (bk) /* a memory block (trace.h st_block): its bytes, address, place in its track */
      fmt(w, ",\"block\":{\"size\":%llu,\"addr\":\"0x%llx\",\"y\":%llu}",
          (unsigned long long)bk->size, (unsigned long long)bk->addr, (unsigned long long)bk->y);
  }
  lit(w, "}");
}

st_code st_panel_selection_json(st_panel_buf *b, const st_ui *ui, uint32_t max_events,
                                const st_alloc *a) {
  if (!b || !ui) return ST_ERR_ARG;
  jw w = jw_begin(b, a);
  lit(&w, "[");
  uint32_t ns, k = 0;
  const st_sel_span *sp = st_selection_spans(st_ui_selection(ui), &ns);
  for (uint32_t s = 0; s < ns && k < max_events && !w.o.nomem; s++)
    for (uint32_t i = sp[s].lo; i < sp[s].hi && k < max_events; i++, k++) {
      if (k) lit(&w, ",");
      event_obj(&w, ui, (st_event_ref){sp[s].row, i}, 0);
    }
  lit(&w, "]");
  return done(&w);
}

st_code st_panel_event_json(st_panel_buf *b, const st_ui *ui, st_event_ref ref, const st_alloc *a) {
  if (!b || !ui) return ST_ERR_ARG;
  jw w = jw_begin(b, a);
  event_obj(&w, ui, ref, 1);
  return done(&w);
}

st_code st_panel_summary_json(st_panel_buf *b, const st_ui *ui, st_agg *g, int window,
                              st_agg_col col, int descending, uint32_t max_rows,
                              const st_alloc *a) {
  if (!b || !ui || !g) return ST_ERR_ARG;
  st_code c = st_ui_summarize(ui, g, window);
  if (c != ST_OK) return c;
  st_agg_sort(g, col, descending);
  return st_panel_agg_json(b, ui, g, window ? "window" : "selection", max_rows, a);
}

st_code st_panel_agg_json(st_panel_buf *b, const st_ui *ui, const st_agg *g, const char *source,
                          uint32_t max_rows, const st_alloc *a) {
  if (!b || !ui || !g) return ST_ERR_ARG;
  jw w = jw_begin(b, a);
  uint32_t n;
  const st_agg_row *rows = st_agg_rows(g, &n);
  const st_trace *t = st_ui_trace(ui);
  lit(&w, "{\"source\":");
  str(&w, source ? source : "", source ? strlen(source) : 0);
  fmt(&w, ",\"events\":%llu,\"names\":%u,\"rows\":[", (unsigned long long)st_agg_events(g), n);
  for (uint32_t i = 0; i < n && i < max_rows && !w.o.nomem; i++) {
    const st_agg_row *r = &rows[i];
    lit(&w, i ? ",{\"name\":" : "{\"name\":");
    str_id(&w, t, r->name);
    fmt(&w,
        ",\"name_id\":%u,\"count\":%llu,\"total_ns\":%lld,\"self_ns\":%lld,\"min_ns\":%lld,"
        "\"max_ns\":%lld,\"avg_ns\":",
        r->name, (unsigned long long)r->count, (long long)r->total_ns, (long long)r->self_ns,
        (long long)r->min_ns, (long long)r->max_ns);
    num(&w, r->avg_ns);
    lit(&w, "}");
  }
  lit(&w, "]}");
  return done(&w);
}

st_code st_panel_hover_json(st_panel_buf *b, const st_ui *ui, const st_alloc *a) {
  if (!b || !ui) return ST_ERR_ARG;
  jw w = jw_begin(b, a);
  st_hit h = st_ui_hover(ui);
  const st_trace *t = st_ui_trace(ui);
  if (h.kind == ST_HIT_EVENT) {
    const st_row *r = &st_trace_rows(t, NULL)[h.row];
    lit(&w, "{\"kind\":\"event\",\"name\":");
    str_id(&w, t, r->name[h.index]);
    fmt(&w, ",\"dur_ns\":%lld,\"dur_text\":", (long long)r->dur[h.index]);
    dur_text(&w, (double)r->dur[h.index]);
    fmt(&w, ",\"row\":%u,\"index\":%u}", h.row, h.index);
  } else if (h.kind == ST_HIT_COUNTER && h.index != UINT32_MAX) {
    lit(&w, "{\"kind\":\"counter\",\"name\":");
    str_id(&w, t, st_trace_tracks(t, NULL)[h.track].name);
    lit(&w, ",\"value\":");
    num(&w, h.value);
    size_t ul;
    const char *unit =
        st_strtab_get(st_trace_strings(t), st_trace_tracks(t, NULL)[h.track].unit, &ul);
    char vt[64]; /* as the counter's scale shows it: "1.80 M", "1.80 MB", "1.803 ms" */
    size_t vn = st_format_quantity(h.value, unit, ul, vt, sizeof vt);
    lit(&w, ",\"unit\":");
    str(&w, unit ? unit : "", unit ? ul : 0);
    lit(&w, ",\"value_text\":");
    str(&w, vt, vn);
    lit(&w, "}");
  } else {
    lit(&w, "null");
  }
  return done(&w);
}

st_code st_panel_flame_json(st_panel_buf *b, const st_trace *t, const st_flame *f, double min_share,
                            uint32_t max_nodes, const st_alloc *a) {
  if (!b || !t || !f) return ST_ERR_ARG;
  jw w = jw_begin(b, a);
  uint32_t n;
  const st_flame_node *nodes = st_flame_nodes(f, &n);
  int samples = st_flame_source_of(f) == ST_FLAME_SAMPLES;
  fmt(&w,
      "{\"source\":\"%s\",\"unit\":\"%s\",\"events\":%llu,\"nodes_total\":%u,\"max_depth\":%u,"
      "\"nodes\":[",
      samples ? "samples" : "slices", samples ? "samples" : "ns",
      (unsigned long long)st_flame_events(f), n, st_flame_max_depth(f));
  double root = n ? (double)nodes[0].total : 0;
  uint32_t shown = 0, omitted = 0;
  for (uint32_t i = 0; i < n && !w.o.nomem;) {
    const st_flame_node *o = &nodes[i];
    if (shown >= max_nodes || (i && (double)o->total < min_share * root)) {
      omitted += o->end - i; /* the node and its subtree */
      i = o->end > i ? o->end : i + 1;
      continue;
    }
    lit(&w, shown ? ",{\"i\":" : "{\"i\":");
    fmt(&w, "%u,\"name\":", i);
    if (i == 0)
      lit(&w, "\"all\"");
    else
      str_id(&w, t, o->name);
    fmt(&w,
        ",\"parent\":%lld,\"depth\":%u,\"x\":%llu,\"total\":%llu,\"self\":%llu,"
        "\"total_ns\":%llu,\"self_ns\":%llu,\"count\":%llu,\"total_text\":",
        i ? (long long)o->parent : -1LL, o->depth, (unsigned long long)o->x,
        (unsigned long long)o->total, (unsigned long long)o->self, (unsigned long long)o->total_ns,
        (unsigned long long)o->self_ns, (unsigned long long)o->count);
    dur_text(&w, (double)o->total_ns);
    lit(&w, ",\"self_text\":");
    dur_text(&w, (double)o->self_ns);
    lit(&w, "}");
    shown++;
    i++;
  }
  fmt(&w, "],\"omitted\":%u}", omitted);
  return done(&w);
}

st_code st_panel_threads_json(st_panel_buf *b, const st_trace *t, st_track_kind kind,
                              const st_alloc *a) {
  if (!b || !t) return ST_ERR_ARG;
  jw w = jw_begin(b, a);
  uint32_t nt, np, k = 0;
  const st_track *tr = st_trace_tracks(t, &nt);
  const st_process *pr = st_trace_processes(t, &np);
  lit(&w, "[");
  for (uint32_t i = 0; i < nt && !w.o.nomem; i++) {
    if (tr[i].kind != (uint8_t)kind || tr[i].overflow || tr[i].process >= np) continue;
    lit(&w, k++ ? ",{\"track\":" : "{\"track\":");
    fmt(&w, "%u,\"name\":", i);
    str_id(&w, t, tr[i].name);
    fmt(&w, ",\"pid\":%lld,\"tid\":%lld", (long long)pr[tr[i].process].pid, (long long)tr[i].key);
    uint32_t part = st_trace_part_of_process(t, tr[i].process);
    if (part != UINT32_MAX) { /* a merged trace: the thread's file (its group) */
      lit(&w, ",\"file\":");
      str_id(&w, t, st_trace_parts(t, NULL)[part].name);
    }
    lit(&w, "}");
  }
  lit(&w, "]");
  return done(&w);
}

/* ---- the tracks laid out ---------------------------------------------------- */

st_code st_panel_tracks_json(st_panel_buf *b, const st_ui *ui, const st_alloc *a) {
  if (!b || !ui) return ST_ERR_ARG;
  jw w = jw_begin(b, a);
  const st_trace *t = st_ui_trace(ui);
  const st_layout *lay = st_ui_layout(ui);
  uint32_t n, np;
  const st_layout_item *items = st_layout_items(lay, &n);
  const st_process *ps = st_trace_processes(t, &np);
  uint32_t nparts;
  const st_trace_part *parts = st_trace_parts(t, &nparts);
  char label[320];
  lit(&w, "[");
  int first = 1;
  for (uint32_t i = 0; i < n; i++) {
    const st_layout_item *it = &items[i];
    if (it->kind == ST_LAYOUT_SECTION || !it->first_of_track || it->process >= np) continue;
    /* the group: this item and the unlabelled rows under it (its other rows,
     * and a thread's slices under its marker lane) */
    uint32_t j = i + 1;
    while (j < n && items[j].kind == ST_LAYOUT_ROW && !items[j].first_of_track) j++;
    const st_layout_item *last = &items[j - 1];
    size_t len = st_layout_track_label(lay, it->track, label, sizeof label);
    lit(&w, first ? "{\"label\":" : ",{\"label\":");
    first = 0;
    str(&w, label, len);
    lit(&w, ",\"section\":");
    str_id(&w, t, ps[it->process].name);
    for (uint32_t k = 0; k < nparts; k++) /* several files: the file's index */
      if (it->process >= parts[k].process_base &&
          it->process - parts[k].process_base < parts[k].process_count)
        fmt(&w, ",\"part\":%u", k);
    uint64_t span = it->track != UINT32_MAX ? st_trace_tracks(t, NULL)[it->track].block_span : 0;
    fmt(&w, ",\"pid\":%lld,\"kind\":\"%s\",\"y\":", (long long)ps[it->process].pid,
        it->kind == ST_LAYOUT_COUNTER ? "counter"
        : span                        ? "blocks"
                                      : "rows");
    num(&w, it->y);
    lit(&w, ",\"h\":");
    num(&w, last->y + last->h - it->y);
    if (span) fmt(&w, ",\"span_bytes\":%llu", (unsigned long long)span);
    if (it->kind == ST_LAYOUT_ROW)
      fmt(&w, ",\"first_row\":%u,\"rows\":%u", it->row, j - i);
    else
      lit(&w, ",\"first_row\":-1,\"rows\":0");
    char id[48];
    size_t idn = st_track_id(t, it->track, id, sizeof id);
    lit(&w, ",\"id\":");
    str(&w, id, idn);
    lit(&w, i < st_layout_pinned_items(lay) ? ",\"pinned\":true,\"canvas_y\":"
                                            : ",\"pinned\":false,\"canvas_y\":");
    num(&w, st_layout_screen_y(lay, st_ui_view(ui), i));
    lit(&w, "}");
  }
  lit(&w, "]");
  return done(&w);
}
