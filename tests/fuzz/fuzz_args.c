/* fuzz_args.c: libFuzzer target for args on selection (core/import/args/argsrc.h): the
 * input is loaded as a trace (XSpace, Perfetto or by content, chosen by the
 * first byte), then the args of its events (B/E slices: with their end
 * events, merged) and of arbitrary offsets (and pairs of them) are decoded
 * with reads served from the input itself (short reads at its end), so
 * hostile records meet the decoders whether or not the importer accepted
 * them; and the input's two halves are merged as args texts
 * (st_args_merge). Any crash, leak or sanitizer report is a bug. */
#include "chrome_args.h"
#include "argsrc.h"
#include "fuzz_util.h" /* fuzz_decode_args */
#include "load.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static const char *const names[] = {"fuzz.xplane.pb", "fuzz.perfetto-trace", "fuzz.json"};
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = names[data[0] % 3];
  data++, size--;
  st_loader *l = st_loader_create(&d);
  if (!l) return 0;
  st_loader_push(l, data, size);
  st_error err;
  st_trace *t = st_loader_finish(l, &err);
  int compressed = st_loader_stats(l)->compressed;
  st_argsrc *as = st_loader_take_args_source(l);
  st_loader_destroy(l);
  if (as && !compressed) {
    if (t) {
      uint32_t nrows, done = 0;
      const st_row *rows = st_trace_rows(t, &nrows);
      for (uint32_t r = 0; r < nrows && done < 512; r++)
        for (uint32_t k = 0; k < rows[r].count && done < 512; k++, done++)
          fuzz_decode_args(as, data, size, rows[r].src[k], st_trace_end_src(t, r, k));
    }
    for (size_t off = 0; off < size && off < 64; off++) {
      fuzz_decode_args(as, data, size, off, UINT64_MAX);
      fuzz_decode_args(as, data, size, off, size - 1 - off);
    }
  }
  char merged[4096];
  size_t half = size / 2;
  st_args_merge(NULL, (const char *)data, half, (const char *)data + half, size - half, merged,
                64 + (size % 4000), NULL, NULL, NULL);
  st_argsrc_destroy(as);
  st_trace_destroy(t);
  return 0;
}
