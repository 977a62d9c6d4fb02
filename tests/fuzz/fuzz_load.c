/* fuzz_load.c: libFuzzer target for the whole loading pipeline (sniffing,
 * inflate, the Chrome JSON importer, the builder). The input's first byte
 * seeds the chunk sizes, so the same bytes are also fed in random-size
 * pieces (1 byte up to 4 KiB), which exercises every "event cut by the
 * window end" path. Any crash, leak or sanitizer report is a bug. */
#include "fuzz_util.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_load_chunked((fuzz_seed(data, size) & 8) ? "fuzz.json.gz" : "fuzz.xplane.pb", NULL, data,
                    size);
  return 0;
}
