/* platform.h: the few things main.c (the SDL2/WebGL2 platform layer) does
 * for the rest of wasm/: owning the canvas's drawing buffer size, the clock,
 * and the memory figure the stats report.
 */
#ifndef STRATA_WASM_PLATFORM_H
#define STRATA_WASM_PLATFORM_H

#include <stdint.h>

/* Sets the canvas's drawing buffer to w x h device px. */
void st_platform_canvas_size(int w_px, int h_px);
/* Milliseconds from an arbitrary origin, sub-millisecond resolution. */
double st_platform_now_ms(void);
/* Current size of the wasm heap (linear memory), bytes. */
uint64_t st_platform_heap_bytes(void);
/* 1 once the WebGL2 context exists (0: the browser has none). */
int st_platform_gl_ready(void);

#endif
