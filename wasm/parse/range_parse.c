/* range_parse.c: one task of a Chrome JSON import split across workers
 * (core/import/chrome/chrome_range.h), as the page calls it: compiled into
 * the parse workers' small module (strata_parse.js + strata_parse.wasm,
 * web/parse_worker.js) and into the page's main module (strata.wasm), which
 * parses a task itself when its worker could not (web/par_load.js).
 *
 *   st_wasm_range_parse(bytes, len, base, next, size, out_len)
 *     bytes[0, len): the input [base, base + len) (base = a_k, next =
 *     a_{k+1}, size = the input's size; offsets are doubles, exact below
 *     2^53; size -1: not known yet, as a compressed input's tasks before its end). Returns the
 * result (free() it; its length in *out_len), or 0 when out of memory or on bad arguments.
 */
#include <emscripten.h>
#include <stdint.h>

#include "chrome_range.h"

/* a byte offset from JS: a whole number in [0, 2^53), else UINT64_MAX
 * (refused) */
static uint64_t offset_of(double d) {
  if (!(d >= 0 && d < 9007199254740992.0) || (double)(uint64_t)d != d) return UINT64_MAX;
  return (uint64_t)d;
}

EMSCRIPTEN_KEEPALIVE uint8_t *st_wasm_range_parse(const uint8_t *bytes, size_t len, double base,
                                                  double next, double size, size_t *out_len) {
  st_alloc a = {0};
  /* size < 0: not known yet (a compressed input's tasks before its end) */
  uint64_t b = offset_of(base), n = offset_of(next), s = size == -1 ? UINT64_MAX : offset_of(size);
  if (!out_len || b == UINT64_MAX || n == UINT64_MAX || (s == UINT64_MAX && size != -1)) return 0;
  return st_chrome_range_parse(&a, bytes, len, b, n, s, out_len);
}
