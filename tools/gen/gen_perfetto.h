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

/* `strata-gen --perfetto-android`: a small Android battery-like trace with
 * every kind of Android system data, each with known counts and values
 * (gen_perfetto.c lists them; tests/unit/test_import_perfetto_android.c
 * checks each): atrace N|/G|/H| on named tracks, suspend_resume, battery
 * counters, power rails, entity state residency, statsd atoms, network
 * packet bundles (interned and inline contexts), a network packet and the
 * package list that names them, and
 * GEN_ANDROID_NOT_SHOWN android_log packets (not shown) among
 * GEN_ANDROID_PACKETS packets. 0 on success. */
#define GEN_ANDROID_PACKETS 19
#define GEN_ANDROID_NOT_SHOWN 1
int gen_perfetto_android_write(int (*write)(void *ud, const void *p, size_t n), void *ud);

#endif
