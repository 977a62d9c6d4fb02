/* js_bridge.c: the EM_JS functions through which C calls the page (see
 * js_bridge.h). Keep these few, named and small: the page's own logic lives
 * in web/ (app.js and its modules), the engine's in core/ and the rest of wasm/.
 *
 * EM_JS bodies pass through the C preprocessor: use == and != (the
 * preprocessor splits === into "==") and double-quoted strings only.
 */
#include "js_bridge.h"

#include <emscripten.h>

/* The glyph canvas is created once and kept on Module. willReadFrequently
 * keeps it CPU-backed, so getImageData does not stall on a GPU readback. The
 * family list names only fonts installed on the machine: no web fonts. */
EM_JS(int, st_js_glyph_raster, (uint32_t cp, float px, uint8_t *out, int cap, float *metrics), {
  var m = metrics >> 2;
  var g = Module.stGlyphCtx;
  if (!g) {
    var c = (typeof OffscreenCanvas != "undefined") ? new OffscreenCanvas(64, 64)
                                                    : document.createElement("canvas");
    g = Module.stGlyphCtx = c.getContext("2d", {willReadFrequently : true});
    if (!g) return 0;
  }
  var font = px + "px system-ui, -apple-system, 'Segoe UI', Roboto, Ubuntu, 'Noto Sans', " +
             "'DejaVu Sans', sans-serif";
  g.font = font;
  var s;
  try {
    s = String.fromCodePoint(cp);
  } catch (e) {
    return 0;
  }
  var mt = g.measureText(s);
  /* Ink left of the pen (at most a pixel for UI fonts) is cropped: the
   * bitmap starts at or right of the pen, because draw.c keeps only quads
   * that start inside their label's box. One pixel of padding on the other
   * sides keeps anti-aliased fringes. */
  var left = Math.min(0, Math.ceil(mt.actualBoundingBoxLeft || 0));
  var right = Math.ceil(mt.actualBoundingBoxRight || 0);
  var asc = Math.ceil(mt.actualBoundingBoxAscent || 0);
  var desc = Math.ceil(mt.actualBoundingBoxDescent || 0);
  HEAPF32[m + 0] = mt.width;
  if (left + right <= 0 || asc + desc <= 0) {
    HEAPF32[m + 1] = 0;
    HEAPF32[m + 2] = 0;
    HEAPF32[m + 3] = 0;
    HEAPF32[m + 4] = 0;
    return 1;
  }
  var w = Math.min(left + right + 1, cap);
  var h = Math.min(asc + desc + 2, cap);
  var cv = g.canvas;
  if (cv.width < w || cv.height < h) {
    cv.width = Math.max(cv.width, w);
    cv.height = Math.max(cv.height, h);
    g.font = font;
  }
  g.clearRect(0, 0, w, h);
  g.fillStyle = "#fff";
  g.textBaseline = "alphabetic";
  g.textAlign = "left";
  g.fillText(s, left, 1 + asc);
  var d = g.getImageData(0, 0, w, h).data;
  for (var i = 0, n = w * h; i < n; i++) HEAPU8[out + i] = d[i * 4 + 3];
  HEAPF32[m + 1] = -left;
  HEAPF32[m + 2] = -(asc + 1);
  HEAPF32[m + 3] = w;
  HEAPF32[m + 4] = h;
  return 1;
});

EM_JS(void, st_js_font_metrics, (float px, float *ascent, float *descent), {
  var c = (typeof OffscreenCanvas != "undefined") ? new OffscreenCanvas(8, 8)
                                                  : document.createElement("canvas");
  var g = c.getContext("2d");
  g.font = px + "px system-ui, -apple-system, 'Segoe UI', Roboto, Ubuntu, 'Noto Sans', " +
           "'DejaVu Sans', sans-serif";
  var mt = g.measureText("Mg");
  var a = mt.fontBoundingBoxAscent || mt.actualBoundingBoxAscent || px * 0.8;
  var d = mt.fontBoundingBoxDescent || mt.actualBoundingBoxDescent || px * 0.2;
  HEAPF32[ascent >> 2] = a;
  HEAPF32[descent >> 2] = d;
});

EM_JS(void, st_js_notify_loaded, (void), {
  if (typeof Module.strataOnLoaded == "function") Module.strataOnLoaded();
});

EM_JS(void, st_js_ui_changed, (unsigned bits), {
  if (typeof Module.strataOnUi == "function") Module.strataOnUi(bits);
});

EM_JS(int, st_js_focus_in_text_field, (void), {
  var e = typeof document != "undefined" ? document.activeElement : null;
  if (!e) return 0;
  var t = e.tagName;
  if (t == "TEXTAREA" || e.isContentEditable) return 1;
  if (t == "INPUT") {
    var ty = (e.type || "").toLowerCase();
    return (ty == "file" || ty == "button" || ty == "checkbox" || ty == "radio") ? 0 : 1;
  }
  return 0;
});

EM_JS(int, st_js_focus_takes_enter, (void), {
  var e = typeof document != "undefined" ? document.activeElement : null;
  if (!e) return 0;
  var t = e.tagName;
  return (t == "BUTTON" || t == "A" || t == "SELECT" || t == "SUMMARY" || t == "INPUT") ? 1 : 0;
});

/* Streaming mode's re-ordered copy: the records the core writes go to the
 * page (web/stream.js keeps them in the Origin Private File System); the
 * bytes are copied out of the heap. 0: kept. */
EM_JS(int, st_js_spill_write, (double offset, const uint8_t *data, size_t len), {
  if (typeof Module.strataSpillWrite != "function") return 1;
  return Module.strataSpillWrite(offset, HEAPU8.slice(data, data + len)) ? 0 : 1;
});
