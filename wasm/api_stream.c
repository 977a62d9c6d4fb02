/* api_stream.c: streaming mode's exports (listed in wasm/exports.json),
 * thin wrappers over core/app/app.h's st_app_load_begin_stream and
 * st_app_stream_* (which document each); web/stream.js calls them.
 *   st_wasm_load_begin_stream(name, block_bytes, max_buckets) -> 1 ok, 0 failed
 *   st_wasm_stream_want(budget_bytes)   -> JSON: what the view wants read, or null
 *   st_wasm_stream_begin(handle, t0_ns, t1_ns, filter) -> ranges to read (-1: failed)
 *   st_wasm_stream_range(k, length)     -> range k's decoded offset (0) / length (1)
 *   st_wasm_stream_push(k, ptr, len)    -> 1 ok, 0 refused
 *   st_wasm_stream_raw_begin(offset, len) -> raw offset to read a compressed piece from (-1)
 *   st_wasm_stream_raw_push(k, ptr, len) -> 1 the piece is in, 0 more raw bytes, -1 failed
 *   st_wasm_stream_finish()             -> 1 the window is shown, 0 not (st_wasm_error)
 *   st_wasm_stream_abort(), st_wasm_stream_show_summary(handle) -> 1 done
 *   st_wasm_stream_json()               -> {"files":[...],"pending","reading","filter"}
 *   st_wasm_stream_preview()            -> events of the summary so far, drawn (0: none)
 * The re-ordered copy (app.h st_app_spill_*), its records written through
 * Module.strataSpillWrite(offset, bytes) (js_bridge.c):
 *   st_wasm_spill_begin(handle, parts, buffer_bytes, limit_bytes) -> 1 ok, 0 failed
 *   st_wasm_spill_push(ptr, len) -> 1 ok, 0 stop pushing (then finish)
 *   st_wasm_spill_finish() -> 1 the copy is the file's, 0 not (st_wasm_error)
 *   st_wasm_spill_abort()
 *   st_wasm_spill_drop(handle) -> 1: the file's copy is forgotten (the page lost it)
 */
#include <emscripten.h>

#include "js_bridge.h"
#include "web.h"

EMSCRIPTEN_KEEPALIVE int st_wasm_load_begin_stream(const char *name, double block_bytes,
                                                   double max_buckets) {
  st_heap_budget_load_begins(st_web_heap_budget(), 0);
  return st_app_load_begin_stream(st_web_app(), name, block_bytes, max_buckets);
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_stream_want(double budget_bytes) {
  return st_app_stream_want(st_web_app(), budget_bytes);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_stream_begin(double handle, double t0_ns, double t1_ns,
                                              int filter) {
  return st_app_stream_begin(st_web_app(), st_wasm_handle(handle), t0_ns, t1_ns, filter);
}
EMSCRIPTEN_KEEPALIVE double st_wasm_stream_range(int k, int length) {
  return st_app_stream_range(st_web_app(), k, length);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_stream_push(int k, const void *data, size_t len) {
  return st_app_stream_push(st_web_app(), k, data, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_stream_finish(void) { return st_app_stream_finish(st_web_app()); }
EMSCRIPTEN_KEEPALIVE void st_wasm_stream_abort(void) { st_app_stream_abort(st_web_app()); }
EMSCRIPTEN_KEEPALIVE int st_wasm_stream_show_summary(double handle) {
  return st_app_stream_show_summary(st_web_app(), st_wasm_handle(handle));
}
EMSCRIPTEN_KEEPALIVE const char *st_wasm_stream_json(void) {
  return st_app_stream_json(st_web_app());
}
EMSCRIPTEN_KEEPALIVE double st_wasm_stream_preview(void) {
  double n = st_app_stream_preview(st_web_app());
  st_web_frame(); /* drawn now: the page's thread goes back to reading */
  return n;
}
EMSCRIPTEN_KEEPALIVE double st_wasm_stream_raw_begin(double offset, double len) {
  return st_app_stream_raw_begin(st_web_app(), offset, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_stream_raw_push(int k, const void *data, size_t len) {
  return st_app_stream_raw_push(st_web_app(), k, data, len);
}

/* A streamed trace opened from its index file (app.h st_app_load_begin_index):
 *   st_wasm_load_begin_index(name, ptr, len) -> 1 ok, 0 not an index (st_wasm_error)
 *   st_wasm_index_samples() -> how many identity samples of the trace to read
 *   st_wasm_index_range(k, length) -> sample k's raw offset (0) / length (1)
 *   st_wasm_index_sample(k, ptr, len) -> 1 kept
 *   st_wasm_index_verify(size) -> 1 the index is the trace's (then
 *     st_wasm_load_finish), 0 not (st_wasm_error; st_wasm_load_abort) */
EMSCRIPTEN_KEEPALIVE int st_wasm_load_begin_index(const char *name, const void *stx, size_t len) {
  return st_app_load_begin_index(st_web_app(), name, stx, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_index_samples(void) {
  return st_app_load_index_samples(st_web_app());
}
EMSCRIPTEN_KEEPALIVE double st_wasm_index_range(int k, int length) {
  return st_app_load_index_range(st_web_app(), k, length);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_index_sample(int k, const void *data, size_t len) {
  return st_app_load_index_sample(st_web_app(), k, data, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_index_verify(double size) {
  return st_app_load_index_verify(st_web_app(), size);
}

static st_code spill_write(void *ud, uint64_t offset, const void *data, size_t len) {
  (void)ud;
  return st_js_spill_write((double)offset, data, len) == 0 ? ST_OK : ST_ERR_ARG;
}
EMSCRIPTEN_KEEPALIVE int st_wasm_spill_begin(double handle, double parts, double buffer_bytes,
                                             double limit_bytes) {
  return st_app_spill_begin(st_web_app(), st_wasm_handle(handle), parts, buffer_bytes, limit_bytes,
                            spill_write, NULL);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_spill_push(const void *data, size_t len) {
  return st_app_spill_push(st_web_app(), data, len);
}
EMSCRIPTEN_KEEPALIVE int st_wasm_spill_finish(void) { return st_app_spill_finish(st_web_app()); }
EMSCRIPTEN_KEEPALIVE void st_wasm_spill_abort(void) { st_app_spill_abort(st_web_app()); }
EMSCRIPTEN_KEEPALIVE int st_wasm_spill_drop(double handle) {
  return st_app_spill_drop(st_web_app(), st_wasm_handle(handle));
}
