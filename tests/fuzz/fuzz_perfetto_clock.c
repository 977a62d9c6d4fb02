/* fuzz_perfetto_clock.c: libFuzzer target for the Perfetto clock graph
 * (core/import/perfetto/perfetto_clock.h). The input is a program: each step's first byte
 * picks an operation (snapshot of up to 4 clocks drawn from a small set of
 * ids, with readings, units and incremental flags from the input; a
 * reading to ns; a conversion between two clocks), so repeated, backwards,
 * huge and cyclic snapshots meet the path search and the arithmetic (which
 * must saturate, never overflow: UBSan watches). Any crash, leak or
 * sanitizer report is a bug. */
#include "perfetto_clock.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take(const uint8_t **p, const uint8_t *end, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n && *p < end; i++) v = v << 8 | *(*p)++;
  return v;
}

static uint64_t clock_id(uint8_t b) {
  static const uint64_t ids[8] = {1, 3, 5, 6, 64, 65, 200, 0};
  uint64_t id = ids[b & 7];
  return id >= 64 && id < 128 ? st_pclock_seq_id((uint64_t)(b >> 3), (uint32_t)id) : id;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  st_pclock *pc = st_pclock_create(NULL);
  if (!pc) return 0;
  const uint8_t *p = data, *end = data + size;
  volatile uint64_t sink = 0; /* unsigned: wraps, no UB */
  while (p < end) {
    uint8_t op = *p++;
    if (op % 3 == 0) {
      st_pclock_entry e[4];
      uint32_t n = (op >> 2) % 5;
      for (uint32_t i = 0; i < n; i++) {
        uint8_t b = (uint8_t)take(&p, end, 1);
        e[i].id = clock_id(b);
        e[i].value = (int64_t)take(&p, end, 8);
        e[i].unit_ns = take(&p, end, 1) << (b & 0x38);
        e[i].incremental = (b & 0x40) != 0;
      }
      st_pclock_snapshot(pc, e, n);
    } else if (op % 3 == 1) {
      int64_t ns = 0;
      if (st_pclock_to_ns(pc, clock_id((uint8_t)take(&p, end, 1)), (int64_t)take(&p, end, 8), &ns))
        sink += (uint64_t)ns;
    } else {
      int64_t out = 0;
      uint64_t a = clock_id((uint8_t)take(&p, end, 1)), b = clock_id((uint8_t)take(&p, end, 1));
      if (st_pclock_convert(pc, a, (int64_t)take(&p, end, 8), b, &out)) sink += (uint64_t)out;
    }
  }
  (void)sink;
  sink += st_pclock_rejected(pc) + st_pclock_bytes(pc);
  st_pclock_destroy(pc);
  return 0;
}
