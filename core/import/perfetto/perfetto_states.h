/* perfetto_states.h: Linux thread states as a Perfetto trace records them
 * (sched_switch prev_state) and as ui.perfetto.dev names them; shared by
 * the importer (thread-state slices) and argsrc.c (details on selection).
 */
#ifndef STRATA_PERFETTO_STATES_H
#define STRATA_PERFETTO_STATES_H

#include <stdint.h>

enum {
  TS_NONE = 0,
  TS_RUNNING,
  TS_RUNNABLE,
  TS_PREEMPTED,
  TS_SLEEPING,
  TS_UNINTERRUPTIBLE,
  TS_STOPPED,
  TS_TRACED,
  TS_DEAD,
  TS_ZOMBIE,
  TS_PARKED,
  TS_IDLE,
  TS_UNKNOWN,
  TS_COUNT
};

/* "Running", "Runnable (Preempted)", "Sleeping", ...; "" for TS_NONE or out of range */
const char *pf_state_name(unsigned state);
/* sched_switch prev_state (Linux TASK_REPORT bits) -> TS_* */
uint8_t pf_state_from_prev(int64_t prev_state);

#endif
