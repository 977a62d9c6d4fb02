/* bench.h: the page side of `strata bench`: replays core/app/bench_script.h's
 * fixed navigation script on the trace shown, at the canvas's current size
 * and dpr, drawing every step for real (the app's draw list + GL, finished
 * with glFinish so the GPU work is inside the time), for
 * window.strata.bench().
 */
#ifndef STRATA_WASM_BENCH_H
#define STRATA_WASM_BENCH_H

/* JSON: {"frames", "frame_ms_p50", "frame_ms_p99", "frame_ms_max",
 * "build_ms_p50", "build_ms_max", "rects_max", "glyphs_max", "width",
 * "height", "dpr"} (core/app/app.h st_app_bench_json); "null" without a
 * trace. Valid until the next call. The view on screen is drawn again
 * afterwards. */
const char *st_bench_run_json(void);

#endif
