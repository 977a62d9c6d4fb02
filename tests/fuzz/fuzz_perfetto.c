/* fuzz_perfetto.c: libFuzzer target for the Perfetto importer (through the loader; inputs that do
 * not start with 0x0A are given one, so they reach the protobuf path). The input's first byte seeds
 * random chunk sizes (1 byte to 4 KiB). Any crash, leak or sanitizer report
 * is a bug. */
#include "fuzz_util.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_load_chunked("fuzz.perfetto-trace", (size == 0 || data[0] != 0x0A) ? "\x0a" : NULL, data,
                    size);
  return 0;
}
