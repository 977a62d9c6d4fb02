/* memory.h: memory on the time axis (issue 34): per device, from the
 * models' memory events (trace.h st_mem_event: Kineto's `[memory]`
 * instants), the peak of the allocated bytes, when it happened, the
 * allocations live at it grouped by the op that made them, what was never
 * freed, and the ops that allocated most.
 *
 * Definitions (the README's "Memory"):
 *   allocated(t)  "Total Allocated" of the device's last event at or before
 *                 t when its events carry it (from = "total_allocated"),
 *                 else the running sum of their "Bytes" (from = "bytes_sum")
 *   peak          the largest allocated value; peak time: its first event
 *   op            the innermost slice enclosing the event on its thread
 *                 (start <= t <= end), "" when none
 *   live at peak  the allocations (Bytes > 0) at or before the peak event
 *                 whose address was not freed (an event of Bytes < 0 at
 *                 that address) at or before it; an address allocated
 *                 again before a free ends the earlier allocation
 *   unfreed       the allocations never freed up to the profile's end
 *   top ops       every allocation's bytes summed by op
 * Groups are sorted by bytes, largest first, then by op name.
 *
 *   st_memory *m = st_memory_analyze(&alloc, traces, n, &err);
 *   const st_mem_device *d = st_memory_devices(m, &nd);
 *   st_memory_destroy(m);
 */
#ifndef STRATA_MEMORY_H
#define STRATA_MEMORY_H

#include "base.h"
#include "json_out.h"
#include "trace.h"

typedef struct st_mem_group {
  uint32_t op; /* strtab id of the op's name (ST_STR_EMPTY: no op) */
  uint64_t count;
  int64_t bytes;
} st_mem_group;

enum { ST_MEM_TOP_OPS = 20 }; /* top allocating ops kept per device */

typedef struct st_mem_device {
  uint32_t trace;   /* index in the traces given */
  uint32_t process; /* the device's section in that trace, UINT32_MAX if none */
  int32_t device_type, device_id;
  int64_t dev_pid;
  uint8_t from_total; /* 1: "Total Allocated", 0: running sum of "Bytes" */
  uint64_t events, allocs, frees;
  int64_t alloc_bytes;         /* sum of every allocation */
  int64_t peak_bytes, peak_ns; /* peak_ns: the trace's time */
  int64_t reserved_peak_bytes; /* largest "Total Reserved" (-1 if never given) */
  int64_t live_bytes;          /* sum of live_at_peak */
  int64_t unfreed_bytes;
  uint64_t unfreed_count;
  const st_mem_group *live, *unfreed, *top; /* into the analysis' arrays */
  uint32_t nlive, nunfreed, ntop;
} st_mem_device;

typedef struct st_memory st_memory;

/* NULL + err: ST_ERR_NOMEM, ST_ERR_ARG (NULL traces). Traces without
 * memory events contribute no device (a merged trace: its parts' are read,
 * the device's trace being the merged one's index). */
st_memory *st_memory_analyze(const st_alloc *alloc, const st_trace *const *traces, uint32_t n,
                             st_error *err);
void st_memory_destroy(st_memory *m);
const st_mem_device *st_memory_devices(const st_memory *m, uint32_t *count);
/* "CPU", "GPU <id>" or "device <type>:<id>" into buf (NUL-terminated). */
void st_memory_device_name(const st_mem_device *d, char *buf, size_t cap);

/* [{"trace","device","process","from","events","allocs","frees",
 *   "alloc_bytes","peak_bytes","peak_us","reserved_peak_bytes",
 *   "live_at_peak":[{"op","bytes","count"}],"live_bytes","unfreed_bytes",
 *   "unfreed_count","still_live_at_end":[{"op","bytes","count"}],
 *   "top_alloc_ops":[{"op","bytes","count"}]}]
 * peak_us: exact decimal microseconds of the trace's time minus
 * shift_ns[trace] (may be NULL). */
void st_memory_json(st_jout *o, const st_memory *m, const st_trace *const *traces,
                    const int64_t *shift_ns);

#endif
