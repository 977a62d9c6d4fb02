/* workspace.h: the parts of the page's workspace of traces (app.h) that are
 * about the set rather than one trace: where each file goes on the shared
 * timeline (group names and initial offsets), the list the page sees
 * (window.strata.traces()) and the combined stats of several files.
 */
#ifndef STRATA_WASM_WORKSPACE_H
#define STRATA_WASM_WORKSPACE_H

#include "app.h"

/* Names the groups of the traces shown (unique) and sets their initial
 * offsets: files that carry absolute time line up on it, others start
 * together with the earliest. */
void st_ws_place(st_app *app);

/* The totals of the shown traces' stats with "traces": [each one's own];
 * NULL on allocation failure. malloc'd. */
char *st_ws_stats_json(const st_app *app, double heap_bytes, double load_ms);

#endif
