/* bench_script.h: the fixed navigation script that `strata bench` and the
 * page's frameStats() replay, so native and wasm frame times are measured
 * over the same views (DESIGN.md contract 1; issue 4, item 6).
 *
 * The script depends only on the trace, its lod and layout, and the canvas
 * size, never on a clock: the caller times each frame itself. It is
 *   1. the full view (st_view_fit);
 *   2. ST_BENCH_ZOOM_STEPS geometric zoom steps in to a ST_BENCH_TARGET_NS
 *      (1 us) window around the busiest point: each step is centred on the
 *      pixel column of the previous view where the lod reports the most
 *      events (all rows summed), so the zoom follows the densest work down;
 *   3. pans right, left and back by a quarter screen at that zoom;
 *   4. vertical scrolls down to the bottom of the layout and back up;
 *   5. zoom out to two intermediate zooms, panning by half a screen at each,
 *      and scrolling at the widest of them;
 *   6. zoom back out to the full view, pan it and scroll it.
 * Frames per script: ST_BENCH_FRAMES (the same for every trace; scroll steps
 * of a layout that fits the canvas repeat scroll 0).
 *
 *   st_bench_desc d = {0};                        // 1920 x 1080, dpr 1
 *   st_bench_step steps[ST_BENCH_FRAMES];
 *   uint32_t n = st_bench_script(&d, trace, lod, layout, steps, ST_BENCH_FRAMES);
 *   for (i < n) { in.view = &steps[i].view; time(st_draw_frame(&dl, &in, &a)); }
 */
#ifndef STRATA_BENCH_SCRIPT_H
#define STRATA_BENCH_SCRIPT_H

#include "lod.h"
#include "view.h"

#define ST_BENCH_WIDTH 1920.0f
#define ST_BENCH_HEIGHT 1080.0f
#define ST_BENCH_ZOOM_STEPS 10
#define ST_BENCH_TARGET_NS 1000.0 /* window width at the deepest zoom */
#define ST_BENCH_FRAMES 121u

typedef enum st_bench_kind {
  ST_BENCH_FULL = 0, /* the whole trace */
  ST_BENCH_ZOOM_IN = 1,
  ST_BENCH_PAN = 2,
  ST_BENCH_SCROLL = 3,
  ST_BENCH_ZOOM_OUT = 4
} st_bench_kind;

typedef struct st_bench_desc {
  float width, height; /* CSS px; 0 means ST_BENCH_WIDTH x ST_BENCH_HEIGHT */
  float dpr;           /* 0 means 1 */
} st_bench_desc;

typedef struct st_bench_step {
  st_view view;
  uint8_t kind; /* st_bench_kind */
  uint8_t zoom; /* zoom level: 0 = full view .. ST_BENCH_ZOOM_STEPS = 1 us */
  uint16_t reserved;
} st_bench_step;

/* Writes the script's first min(cap, ST_BENCH_FRAMES) steps to out (out may
 * be NULL when cap is 0) and returns ST_BENCH_FRAMES; 0 if trace or layout
 * is NULL. Without a lod (or events) the zoom centres on the middle of the
 * trace. */
uint32_t st_bench_script(const st_bench_desc *d, const st_trace *t, const st_lod *lod,
                         const st_layout *lay, st_bench_step *out, uint32_t cap);

/* The busiest point of view v (ns from trace start): the centre of the
 * pixel column of v holding the most events (lod items' counts, all rows).
 * -1 if the view holds no event (or lod is NULL). */
double st_bench_busiest_ns(const st_view *v, const st_trace *t, const st_lod *lod);

#endif
