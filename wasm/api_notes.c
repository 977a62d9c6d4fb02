/* api_notes.c: the notes' exports (listed in wasm/exports.json), thin
 * wrappers over core/app/app.h's notes (which documents each); web/notes.js
 * and web/embed.js (the link's notes=) call them. Times are microseconds in
 * the view's timebase, as st_wasm_view_json.
 *   st_wasm_note_add(t0_us, t1_us, text) -> id (> 0), 0 failed
 *   st_wasm_note_remove(id), st_wasm_note_set_text(id, text), st_wasm_note_go(id)
 *                                       -> 1 done, 0 no such note
 *   st_wasm_notes_clear()
 *   st_wasm_notes_json()                -> [{"id","t0_us","t1_us","text"}]
 *   st_wasm_time_at(x)                  -> the time under canvas x (NaN: none)
 */
#include <emscripten.h>

#include "web.h"

EMSCRIPTEN_KEEPALIVE double st_wasm_note_add(double t0_us, double t1_us, const char *text) {
  return st_app_note_add(st_web_app(), t0_us, t1_us, text);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_note_remove(double id) {
  return st_app_note_remove(st_web_app(), id);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_note_set_text(double id, const char *text) {
  return st_app_note_set_text(st_web_app(), id, text);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_note_go(double id) { return st_app_note_go(st_web_app(), id); }
EMSCRIPTEN_KEEPALIVE void st_wasm_notes_clear(void) { st_app_notes_clear(st_web_app()); }
EMSCRIPTEN_KEEPALIVE const char *st_wasm_notes_json(void) {
  return st_app_notes_json(st_web_app());
}
EMSCRIPTEN_KEEPALIVE double st_wasm_time_at(float x) { return st_app_time_at(st_web_app(), x); }
