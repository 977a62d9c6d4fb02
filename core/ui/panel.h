/* panel.h: the ui state as JSON text, for front ends that build their
 * panels from it (the page's details pane, summary table, search box, tool
 * selector, tooltip; window.strata's answers; the CLI). All strings from the
 * trace are escaped and invalid UTF-8 becomes U+FFFD, so the text always
 * parses. Times are given both in the file's own microseconds (ts_us, as the
 * file wrote them: origin + offset) and in ns from the trace start.
 *
 *   st_panel_buf b = {0};
 *   st_panel_state_json(&b, ui, &alloc);     // b.text, NUL-terminated
 *   ... st_panel_buf_free(&b, &alloc);
 */
#ifndef STRATA_PANEL_H
#define STRATA_PANEL_H

#include "flame.h"
#include "ui.h"

typedef struct st_panel_buf {
  char *text; /* NUL-terminated after every successful call */
  size_t len, cap;
} st_panel_buf;

void st_panel_buf_free(st_panel_buf *b, const st_alloc *a);

/* {"tool":"select","selected":N,"mark":null|{"start_us","end_us","dur_ns","dur_text"},
 *  "search":{"text","matches","current":-1|rank,"hidden"},"help":0|1,"all_collapsed":0|1,
 *  "cursor":"default","animating":0|1,"flows":"off"|"selection"|"all","outside":N} (outside: events
 * the first view leaves out as isolated outliers, until key 0; st_ui_outliers_hidden; search:
 * hidden the matches in tracks the track filter hides, current the current match's place among
 * the others, -1 if none or hidden; st_ui_search_hidden, st_ui_search_place) */
st_code st_panel_state_json(st_panel_buf *b, const st_ui *ui, const st_alloc *a);

/* The selected events in (row, index) order, at most max_events of them:
 * [{"name","cat","ts_us","dur_us","pid","tid","row","index","src"}] */
st_code st_panel_selection_json(st_panel_buf *b, const st_ui *ui, uint32_t max_events,
                                const st_alloc *a);

/* One event: {"name","cat","process","pid","thread","tid","start_ns","start_text","ts_us",
 * "dur_ns","dur_text","self_ns","self_text","src","row","index","flags","depth",
 * "flows_out":[{"row","index","name","ts_us","dur_us","process","thread","pid","tid"}],
 * "flows_out_count","flows_in":[...],"flows_in_count"} (the other end of each flow,
 * at most 64 listed per direction); a CPU sample also has "stack":[names, leaf
 * first, at most 64] and "stack_depth"; a memory snapshot's block (trace.h
 * st_block) "block":{"size","addr","y"} (bytes, its address in hex as text, its offset in its
 * track's address space); "null" for an invalid ref. */
st_code st_panel_event_json(st_panel_buf *b, const st_ui *ui, st_event_ref ref, const st_alloc *a);

/* The summary (st_ui_summarize) sorted by col:
 * {"source":"selection"|"window","events":N,"names":N,"rows":[{"name","name_id","count",
 *  "total_ns","self_ns","avg_ns","min_ns","max_ns"}]} with at most max_rows rows. */
st_code st_panel_summary_json(st_panel_buf *b, const st_ui *ui, st_agg *g, int window,
                              st_agg_col col, int descending, uint32_t max_rows, const st_alloc *a);

/* The same text for an aggregation the caller filled (and sorted) itself,
 * e.g. one kept while the selection changes; source names where it came
 * from ("selection" or "window"). */
st_code st_panel_agg_json(st_panel_buf *b, const st_ui *ui, const st_agg *g, const char *source,
                          uint32_t max_rows, const st_alloc *a);

/* The labelled tracks of the layout, top to bottom (a collapsed section's
 * tracks left out): [{"label","section","pid","kind":"rows"|"counter"|"blocks","y","h",
 * "first_row","rows","id","pinned","canvas_y"}]; y and h in content px
 * (the canvas y is y + ST_VIEW_AXIS_H - scroll_y, or y + ST_VIEW_AXIS_H
 * for a pinned track: "canvas_y" is it); "id" the track's stable id
 * (core/view/track_filter.h); rows first_row .. first_row + rows - 1
 * lie one ST_VIEW_ROW_H after another (a thread's marker lane, then its
 * slices), except a memory blocks track's ("blocks", with "span_bytes", its
 * address space's bytes: st_track.block_span), whose rows overlay one
 * band ST_VIEW_BLOCKS_H high. The label is the one drawn in the gutter. */
st_code st_panel_tracks_json(st_panel_buf *b, const st_ui *ui, const st_alloc *a);

/* The hovered event or counter: {"kind":"event","name","dur_ns","dur_text"} /
 * {"kind":"counter","name","value"} / null. */
st_code st_panel_hover_json(st_panel_buf *b, const st_ui *ui, const st_alloc *a);

/* The threads a flame graph can be narrowed to: [{"track","name","pid","tid"}], one per
 * thread (process + tid) that has a track of kind `kind` (ST_TRACK_SAMPLES or
 * ST_TRACK_SLICES; overflow tracks not listed), in display order; "track" is
 * that track's index (st_flame_query.track). In a merged trace (several
 * files) each also has "file": its file's group name. */
st_code st_panel_threads_json(st_panel_buf *b, const st_trace *t, st_track_kind kind,
                              const st_alloc *a);

/* A flame graph (core/analysis/flame.h) for drawing:
 * {"source":"samples"|"slices","unit":"samples"|"ns","events":N,"nodes_total":N,
 *  "max_depth":D,"omitted":N,"nodes":[{"i","name","parent","depth","x","total","self",
 *  "total_ns","self_ns","count","total_text","self_text"}]}
 * in preorder (node 0 is the root, named "all"); nodes narrower than
 * min_share of the root (and their subtrees) and nodes past max_nodes are
 * left out and counted in "omitted". */
st_code st_panel_flame_json(st_panel_buf *b, const st_trace *t, const st_flame *f, double min_share,
                            uint32_t max_nodes, const st_alloc *a);

#endif
