/* perfetto_states.c: thread state names and the prev_state decoding (see
 * perfetto_states.h). */
#include "perfetto_states.h"

static const char *const k_state_names[TS_COUNT] = {"",
                                                    "Running",
                                                    "Runnable",
                                                    "Runnable (Preempted)",
                                                    "Sleeping",
                                                    "Uninterruptible Sleep",
                                                    "Stopped",
                                                    "Traced",
                                                    "Exit (Dead)",
                                                    "Exit (Zombie)",
                                                    "Parked",
                                                    "Idle",
                                                    "Unknown"};

const char *pf_state_name(unsigned state) { return state < TS_COUNT ? k_state_names[state] : ""; }

/* Linux's TASK_REPORT encoding of sched_switch prev_state (4.14+): one bit
 * per sleeping kind, 0x80 idle, and a bit at 0x100 or above alone for a
 * preempted (still runnable) task. */
uint8_t pf_state_from_prev(int64_t prev_state) {
  uint64_t v = (uint64_t)prev_state, low = v & 0xFF;
  if (!low) return v ? TS_PREEMPTED : TS_RUNNABLE;
  static const uint8_t by_bit[8] = {TS_SLEEPING, TS_UNINTERRUPTIBLE, TS_STOPPED, TS_TRACED,
                                    TS_DEAD,     TS_ZOMBIE,          TS_PARKED,  TS_IDLE};
  for (int i = 0; i < 8; i++)
    if (low & (1u << i)) return by_bit[i];
  return TS_UNKNOWN;
}
