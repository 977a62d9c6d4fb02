/* fuzz_pickle.c: libFuzzer target for the restricted pickle reader
 * (core/import/pickle/pickle.h) and PyTorch memory snapshots through the
 * loader (import_pickle.h): every input is read by st_pickle_read (its
 * values walked: types, numbers, strings, items, dict lookups; a value may
 * contain itself, so the walk is bounded), then loaded with a pickle
 * header (PROTO 4) in front, in random chunks, the model drawn and
 * analysed (fuzz_util.h), its memory analysis included. Seeds:
 * tests/fuzz/corpus/fuzz_pickle (snapshots and hostile pickles of
 * tests/memory/gen_snapshot.py). Any crash, leak or sanitizer report is a
 * bug; nothing in the input is ever executed. */
#include "fuzz_util.h"
#include "memory.h"
#include "pickle.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t walk(const st_pickle *pk, uint32_t v, int depth, uint32_t *budget) {
  uint64_t h = st_pickle_type(pk, v);
  if (depth > 64 || !*budget) return h;
  (*budget)--;
  size_t l;
  const char *s = st_pickle_str(pk, v, &l);
  if (s && l) h += (uint8_t)s[0] + (uint8_t)s[l - 1];
  h += (uint64_t)st_pickle_int(pk, v) + (uint64_t)(st_pickle_float(pk, v) != 0);
  uint32_t n;
  const uint32_t *it = st_pickle_items(pk, v, &n);
  for (uint32_t i = 0; it && i < n; i++) h = h * 31 + walk(pk, it[i], depth + 1, budget);
  if (st_pickle_type(pk, v) == ST_PK_DICT)
    h += st_pickle_dict_get(pk, v, "device_traces") + st_pickle_dict_get(pk, v, "frames");
  return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  st_error err;
  st_pickle *pk = st_pickle_read(NULL, data, size, &err);
  if (pk) {
    uint32_t budget = 100000;
    volatile uint64_t h = walk(pk, st_pickle_root(pk), 0, &budget);
    (void)h;
    (void)st_pickle_bytes(pk);
    st_pickle_destroy(pk);
  }
  fuzz_load_chunked("fuzz.pickle", size && data[0] == 0x80 ? NULL : "\x80\x04", data, size);
  return 0;
}
