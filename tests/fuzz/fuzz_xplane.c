/* fuzz_xplane.c: libFuzzer target for the XSpace importer (through the loader with a .xplane.pb
 * name, so every input goes to it). The input's first byte seeds random chunk sizes (1 byte to 4
 * KiB). Any crash, leak or sanitizer report is a bug. */
#include "fuzz_util.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_load_chunked("fuzz.xplane.pb", NULL, data, size);
  return 0;
}
