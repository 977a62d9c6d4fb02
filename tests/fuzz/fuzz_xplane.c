/* fuzz_xplane.c: libFuzzer target for the XSpace importer (through the loader with a .xplane.pb
 * name, so every input goes to it). The input's first byte seeds random chunk sizes (1 byte to 4
 * KiB). Any crash, leak or sanitizer report is a bug. */
#include "load.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint32_t seed = size ? data[0] * 2654435761u + (uint32_t)size : 1;
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = "fuzz.xplane.pb";
  st_loader *l = st_loader_create(&d);
  if (!l) return 0;
  if (size == 0 || data[0] != 0x0A) st_loader_push(l, "\x0a", 1);
  size_t i = 0;
  while (i < size) {
    seed = seed * 1103515245u + 12345u;
    size_t chunk = (seed >> 16) % 4096 + 1;
    if ((seed >> 8) % 4 == 0) chunk = (seed >> 20) % 8 + 1;
    if (chunk > size - i) chunk = size - i;
    if (st_loader_push(l, data + i, chunk) != ST_OK) break;
    i += chunk;
  }
  st_error err;
  st_trace *t = st_loader_finish(l, &err);
  char json[4096];
  st_stats_json(st_loader_stats(l), json, sizeof json);
  (void)st_loader_metadata_json(l);
  if (t) {
    uint32_t nrows;
    const st_row *rows = st_trace_rows(t, &nrows);
    volatile uint64_t sink = 0;
    for (uint32_t r = 0; r < nrows; r++)
      for (uint32_t k = 0; k < rows[r].count; k++)
        sink += (uint64_t)rows[r].start[k] + (uint64_t)rows[r].dur[k];
    (void)sink;
    st_trace_destroy(t);
  }
  st_loader_destroy(l);
  return 0;
}
