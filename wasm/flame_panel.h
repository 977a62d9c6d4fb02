/* flame_panel.h: the page's flame graph snapshot (see flame_panel.c). */
#ifndef STRATA_WASM_FLAME_PANEL_H
#define STRATA_WASM_FLAME_PANEL_H

#include "app.h"

/* Drops the flame; called before the trace it points into is freed. */
void st_flame_forget(st_app *app);

#endif
