/* inflate.c: a compressed Chrome JSON file split across workers, as the
 * page runs it (web/par_load.js): one cutter (core/import/load/
 * inflate_cut.h) per module, fed the file's raw bytes and handing out the
 * decoded tasks. Compiled into the parse workers' module (the worker that
 * inflates) and into the page's main module (which inflates itself when
 * that worker could not go on).
 *
 *   st_wasm_cut_begin(task_bytes)    -> 1 ok, 0 out of memory (a cutter before is dropped)
 *   st_wasm_cut_push(raw, n)         -> 0 ok, else the st_code of the damage (finish anyway)
 *   st_wasm_cut_finish()             -> 0 ok, else the st_code of the first error
 *   st_wasm_cut_take(meta)           -> a complete task's bytes (free() them) or 0;
 *                                       meta[0..3] = len, base, next, size (-1: not known yet)
 *   st_wasm_cut_outcome(out)         out[0..7] = compression, bytes_in, bytes_out,
 *                                       members, trailing_garbage, trailing_offset,
 *                                       first error's code, its offset; -> its message
 *   st_wasm_cut_end()                drops the cutter
 */
#include <emscripten.h>
#include <stdint.h>
#include <string.h>

#include "inflate_cut.h"

static st_inflate_cut *cut; /* the module's one cutter (the page's platform state) */
static st_code first_code;
static st_error first_err;

EMSCRIPTEN_KEEPALIVE void st_wasm_cut_end(void) {
  st_inflate_cut_destroy(cut);
  cut = NULL;
}

EMSCRIPTEN_KEEPALIVE int st_wasm_cut_begin(double task_bytes) {
  st_wasm_cut_end();
  first_code = ST_OK;
  memset(&first_err, 0, sizeof first_err);
  uint64_t tb = task_bytes > 0 && task_bytes < 9007199254740992.0 ? (uint64_t)task_bytes : 0;
  cut = st_inflate_cut_create(NULL, tb);
  return cut != NULL;
}

static int keep(st_code c, const st_error *e) {
  if (c != ST_OK && first_code == ST_OK) {
    first_code = c;
    first_err = *e;
  }
  return (int)c;
}

EMSCRIPTEN_KEEPALIVE int st_wasm_cut_push(const void *raw, size_t n) {
  st_error e;
  memset(&e, 0, sizeof e);
  if (!cut) return ST_ERR_ARG;
  return keep(st_inflate_cut_push(cut, raw, n, &e), &e);
}

EMSCRIPTEN_KEEPALIVE int st_wasm_cut_finish(void) {
  st_error e;
  memset(&e, 0, sizeof e);
  if (!cut) return ST_ERR_ARG;
  keep(st_inflate_cut_finish(cut, &e), &e);
  return (int)first_code;
}

EMSCRIPTEN_KEEPALIVE uint8_t *st_wasm_cut_take(double *meta) {
  st_split_task t;
  if (!cut || !st_inflate_cut_take(cut, &t)) return 0;
  meta[0] = (double)t.len;
  meta[1] = (double)t.base;
  meta[2] = (double)t.next;
  meta[3] = t.size == UINT64_MAX ? -1.0 : (double)t.size;
  return t.bytes;
}

EMSCRIPTEN_KEEPALIVE const char *st_wasm_cut_outcome(double *out) {
  const st_source_info *si = st_inflate_cut_info(cut);
  st_source_info none;
  memset(&none, 0, sizeof none);
  if (!si) si = &none;
  out[0] = si->compression;
  out[1] = (double)si->bytes_in;
  out[2] = (double)si->bytes_out;
  out[3] = si->members;
  out[4] = (double)si->trailing_garbage;
  out[5] = (double)si->trailing_offset;
  out[6] = first_code;
  out[7] = (double)first_err.offset;
  return first_err.msg;
}
