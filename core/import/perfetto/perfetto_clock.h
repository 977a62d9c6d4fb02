/* perfetto_clock.h: conversions between the clocks of a Perfetto trace, as
 * trace_processor's ClockTracker does them.
 *
 * Every ClockSnapshot packet says "at this instant, clock A read a, clock B
 * read b, ...". Each pair of clocks in a snapshot is an edge of a graph;
 * a timestamp in clock X is converted to clock Y along the shortest path
 * (breadth-first) of such edges, and on each edge with the snapshot whose
 * X-side reading is the latest at or before the timestamp (the first
 * snapshot if the timestamp precedes them all): y = t - x_snap + y_snap.
 * A snapshot whose reading of a clock goes backwards from the previous one
 * on the same edge is ignored (counted in st_pclock_rejected), as
 * trace_processor drops non-monotonic snapshots.
 *
 * Clock ids are 64-bit: builtin clocks (BOOTTIME 6, MONOTONIC 3, REALTIME 1,
 * MONOTONIC_RAW 5, ...) and any other global id are used as they are;
 * sequence-scoped ids (64..127) are made global per packet sequence with
 * st_pclock_seq_id(). Each clock has a unit (unit_multiplier_ns) and may be
 * incremental (each value is a delta from the previous one, on its
 * sequence); st_pclock_to_ns applies both, then st_pclock_convert works in
 * ns. Nothing here knows about packets: import_perfetto.c feeds it.
 *
 *   st_pclock *pc = st_pclock_create(&alloc);
 *   st_pclock_entry e[2] = {{6, 1000, 1, 0}, {st_pclock_seq_id(seq, 64), 10, 1000, 0}};
 *   st_pclock_snapshot(pc, e, 2);
 *   int64_t ns;
 *   if (st_pclock_to_ns(pc, id, raw, &ns) && st_pclock_convert(pc, id, ns, 6, &ns)) ...
 *   st_pclock_destroy(pc);
 */
#ifndef STRATA_PERFETTO_CLOCK_H
#define STRATA_PERFETTO_CLOCK_H

#include "base.h"

enum {
  ST_CLOCK_REALTIME = 1,
  ST_CLOCK_MONOTONIC = 3,
  ST_CLOCK_MONOTONIC_RAW = 5,
  ST_CLOCK_BOOTTIME = 6
};

typedef struct st_pclock_entry {
  uint64_t id;         /* global clock id */
  int64_t value;       /* the reading, in the clock's units */
  uint64_t unit_ns;    /* unit_multiplier_ns; 0 or 1: ns */
  uint8_t incremental; /* the clock's later values are deltas */
} st_pclock_entry;

typedef struct st_pclock st_pclock;

st_pclock *st_pclock_create(const st_alloc *a);
void st_pclock_destroy(st_pclock *pc);

/* A sequence-scoped clock id (64..127) made unique per sequence. */
static inline uint64_t st_pclock_seq_id(uint64_t seq, uint32_t id) {
  return (1ull << 63) | (seq << 8) | (uint64_t)(id & 0xFF);
}

/* Records one snapshot of n clocks. ST_OK, or ST_ERR_NOMEM (the clocks are
 * then as before the call, except units). */
st_code st_pclock_snapshot(st_pclock *pc, const st_pclock_entry *e, uint32_t n);

/* A raw reading of clock id -> ns in that clock (unit applied; for an
 * incremental clock the delta is added to its last value, which it
 * becomes). 1 on success, 0 if id is incremental but has no snapshot yet
 * (its base is unknown). Values saturate at the int64 range. */
int st_pclock_to_ns(st_pclock *pc, uint64_t id, int64_t raw, int64_t *ns);

/* ns in clock `from` -> clock `to`. 1 on success, 0 if no chain of
 * snapshots links them. from == to is the identity. */
int st_pclock_convert(st_pclock *pc, uint64_t from, int64_t ns, uint64_t to, int64_t *out);

/* Snapshots ignored because a clock went backwards on an edge. */
uint64_t st_pclock_rejected(const st_pclock *pc);
/* Resident bytes. */
size_t st_pclock_bytes(const st_pclock *pc);

#endif
