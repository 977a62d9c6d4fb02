/* gen_perfetto.h: the Perfetto system trace writer behind `strata-gen
 * --perfetto` (see gen_perfetto.c for what the trace holds). */
#ifndef STRATA_GEN_PERFETTO_H
#define STRATA_GEN_PERFETTO_H

#include <stddef.h>
#include <stdint.h>

typedef struct gen_perfetto_desc {
  uint32_t seed;
  uint32_t cpus;     /* 0: 8 */
  uint64_t switches; /* sched_switch events in all; 0: 1000 */
} gen_perfetto_desc;

/* Streams the trace to write(ud, bytes, n) (non-zero: stop). 0 on success. */
int gen_perfetto_write(const gen_perfetto_desc *d, int (*write)(void *ud, const void *p, size_t n),
                       void *ud);

#endif
