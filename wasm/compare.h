/* compare.h: two runs compared in the page (compare.c: B aligned on A, the
 * diff table). The app tells it when the traces it diffed go away. */
#ifndef STRATA_WASM_COMPARE_H
#define STRATA_WASM_COMPARE_H

/* Drops the diff kept for sorting and row selection (its traces are being
 * closed or the view rebuilt). */
void st_compare_forget(void);

#endif
