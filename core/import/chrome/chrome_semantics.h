/* chrome_semantics.h: what each Chrome trace event does to the st_builder,
 * phase by phase (FORMATS.md "strata's choices"): B/E pairs and X slices on
 * thread tracks, instants, counters, metadata (names, sort order), async
 * (nestable and legacy) and flows, with the warnings stats.h lists; CPU
 * samples (P, V8 profiles, top-level samples / stackFrames) are handed on
 * to chrome_samples.h.
 *
 * The state is what the phases need across events: processes and threads
 * met so far, open B / async slices, counter series and flow identities.
 * A plain struct, embedded in the importer (import_chrome.c), which parses
 * events (chrome_event.h) and hands them over one at a time, each with its
 * offset in the decoded input (the model's `src`).
 *
 *   st_chrome_sem sem;
 *   st_chrome_sem_init(&sem, &alloc, builder, &stats);
 *   if (!st_chrome_sem_event(&sem, &e, src)) ... out of memory
 *   st_chrome_sem_close(&sem);     // end of input: close what is open
 *   st_chrome_sem_free(&sem);
 */
#ifndef STRATA_CHROME_SEMANTICS_H
#define STRATA_CHROME_SEMANTICS_H

#include "base.h"
#include "chrome_event.h"
#include "stats.h"
#include "trace.h"

/* a map from three words to an index (open addressing) */
typedef struct st_chrome_mkey {
  uint64_t a, b, c;
} st_chrome_mkey;

typedef struct st_chrome_map {
  st_chrome_mkey *keys;
  uint32_t *vals; /* UINT32_MAX = empty slot */
  uint32_t cap, count;
} st_chrome_map;

typedef struct st_chrome_sem {
  st_alloc alloc;
  st_builder *b;
  st_strtab *strs;
  st_stats *stats;

  /* model lookups (the element types are chrome_internal.h's) */
  struct st_chrome_proc *procs;
  uint32_t nprocs, cprocs;
  struct st_chrome_thread *threads;
  uint32_t nthreads, cthreads;
  struct st_chrome_aident *aids;
  uint32_t naids, caids;
  struct st_chrome_lopen *lopens;
  uint32_t nlopens, clopens;
  uint32_t nflows; /* flow identities in flow_map: those not written into the key */
  st_chrome_map proc_map, thread_map, counter_map, series_map, async_map, legacy_map, flow_map;
  uint32_t last_thread;
  int64_t last_pid, last_tid;
  uint32_t global_proc;

  char *scratch;
  size_t scratch_cap;

  /* While a task result is replayed (import_chrome.c): strings interned so
   * far by their address in the result, where a worker stored each distinct
   * string once (chrome_record.h). NULL or not on: not used. */
  struct st_chrome_memo *memo;
  int memo_on;

  struct st_chrome_prof *prof; /* CPU samples (chrome_samples.c); NULL until one is read */

  uint64_t cur_src; /* the event being handled: its offset, for warnings and the model */
  int nomem;
  st_chrome_map flow_class_map;  /* (cat, name) of v1 flows -> class (chrome_semantics.c) */
  struct st_chrome_memlist *mem; /* `[memory]` events (chrome_memory.c); NULL until one is read */
} st_chrome_sem;

/* No allocation; st_chrome_sem_free releases what the events made. */
void st_chrome_sem_init(st_chrome_sem *sem, const st_alloc *a, st_builder *b, st_stats *stats);
void st_chrome_sem_free(st_chrome_sem *sem);
/* One parsed event, at offset src. Counts it in stats. 0 if out of memory
 * (sticky: every later call returns 0 too). */
int st_chrome_sem_event(st_chrome_sem *sem, const st_chrome_ev *e, uint64_t src);
/* End of input: closes every slice still open (unfinished). 0 if out of
 * memory (now or before). */
int st_chrome_sem_close(st_chrome_sem *sem);
/* One element of the top-level `samples` array, at offset src (see
 * chrome_samples.h). 0 if out of memory (sticky). */
int st_chrome_sem_sample(st_chrome_sem *sem, const st_chrome_ev *e, uint64_t src);
/* One member of the top-level `stackFrames` object, at offset src. 0 if
 * out of memory (sticky). */
int st_chrome_sem_stack_frame(st_chrome_sem *sem, st_json_str key, const char *v, const char *vend,
                              uint64_t src);

/* The memo for a result being replayed: on (emptied; 0 if out of memory,
 * then interning just goes without it) or off. */
int st_chrome_sem_memo(st_chrome_sem *sem, int on);

#endif
