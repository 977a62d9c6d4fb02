/* js_bridge.h: every call from C into the page's JavaScript, in one place.
 * The bodies are EM_JS functions in js_bridge.c; nothing else in wasm/ uses
 * EM_JS or EM_ASM, so the whole JS surface of the C side is reviewable here.
 *
 * JS calls C only through the functions exported in wasm/exports.json
 * (api.c); C calls JS only through these.
 */
#ifndef STRATA_WASM_JS_BRIDGE_H
#define STRATA_WASM_JS_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

/* Rasterises code point cp with the system UI font at px device pixels into
 * out (coverage, one byte per pixel, rows of metrics[ST_GM_W] bytes, at most
 * cap x cap; metrics indexed by core/render/glyphs.h's ST_GM_*). Returns 1
 * on success, 0 if it cannot be drawn. The page's glyph source
 * (st_glyph_source, main.c) for the atlas. */
int st_js_glyph_raster(uint32_t cp, float px, uint8_t *out, int cap, float *metrics);

/* Ascent and descent (CSS px) of the UI font at px CSS px. */
void st_js_font_metrics(float px, float *ascent, float *descent);

/* Tells the page that the trace swapped in by the last load has completed
 * its first frame (Module.strataOnLoaded). */
void st_js_notify_loaded(void);

/* Tells the page which parts of the interaction state changed (ST_UI_*
 * bits, coalesced per frame), so it refreshes only those panels
 * (Module.strataOnUi(bits)). */
void st_js_ui_changed(unsigned bits);

/* Streaming mode's re-ordered copy: len bytes at offset go to the page
 * (Module.strataSpillWrite). 0 if it kept them. */
int st_js_spill_write(double offset, const uint8_t *data, size_t len);

/* 1 if keyboard focus is in a text field of the page, so key presses belong
 * to it and not to navigation. */
int st_js_focus_in_text_field(void);

/* 1 if keyboard focus is on a control that Enter activates (a button, a
 * link, a select, a checkbox): Enter is then that control's, not the
 * timeline's (which steps through search matches). */
int st_js_focus_takes_enter(void);

#endif
