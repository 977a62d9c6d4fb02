/* summary.h: the page's summary table snapshot (see summary.c). */
#ifndef STRATA_WASM_SUMMARY_H
#define STRATA_WASM_SUMMARY_H

#include "app.h"

/* Drops the snapshot; called before the trace it points into is freed. */
void st_summary_forget(st_app *app);

#endif
