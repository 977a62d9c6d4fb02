/* chrome_memory.h: Kineto's `[memory]` instant events (issue 34). A
 * PyTorch profile recorded with profile_memory=True writes one per
 * allocator call, on the thread that made it, inside the op that made it:
 *
 *   {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
 *    "pid": P, "tid": T, "ts": US, "args": {"Total Reserved": N,
 *    "Total Allocated": N, "Bytes": N (+ allocated, - freed), "Addr": N,
 *    "Device Type": 0 CPU | 1 CUDA | ..., "Device Id": -1 | D}}
 *
 * The event stays an instant marker on its thread (chrome_semantics.c);
 * here it is also kept as an st_mem_event, and at the end of input every
 * device gets two counter tracks in its section (the event's own process
 * for the CPU, Kineto's GPU process, pid = the Device Id, for any other
 * device type): "Memory allocated (DEV)" from "Total Allocated" where the
 * events carry it, else the running sum of "Bytes" over the device's
 * events in time order, and "Memory reserved (DEV)" from "Total Reserved"
 * (a sample where it changes; none without it). DEV is "CPU" or "GPU <id>" (another device type:
 * "device <type>:<id>"). The events go to the model sorted by time
 * (st_builder_mem_events).
 */
#ifndef STRATA_CHROME_MEMORY_H
#define STRATA_CHROME_MEMORY_H

#include "chrome_semantics.h"

/* 1 if the event is a `[memory]` instant (its args are read: the split
 * import sends it as text, chrome_record.c). */
static inline int st_chrome_is_mem_event(const st_chrome_ev *e) {
  return e->name.n == 8 && st_chrome_str_eq(e->name, "[memory]");
}
/* Records one `[memory]` event of process pi (sem->cur_src is its src). */
void st_chrome_mem_event(st_chrome_sem *sem, const st_chrome_ev *e, uint32_t pi);
/* End of input: the counter tracks, and the events handed to the builder. */
void st_chrome_mem_close(st_chrome_sem *sem);
void st_chrome_mem_free(st_chrome_sem *sem);

#endif
