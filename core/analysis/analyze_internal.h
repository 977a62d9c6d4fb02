/* analyze_internal.h: the analysis's state (core/analysis/analyze.h), shared
 * by analyze.c, which builds it, and analyze_json.c, which writes it out.
 * analyze_json.c only reads it; nothing in analyze.c calls analyze_json.c.
 */
#ifndef STRATA_ANALYZE_INTERNAL_H
#define STRATA_ANALYZE_INTERNAL_H

#include "analyze.h"

#include <string.h>

struct st_analysis {
  st_alloc alloc;
  const st_trace *const *traces_in;
  const st_trace **traces;
  uint32_t n;
  st_step_source *source; /* per trace */
  st_an_step *steps;
  uint32_t nsteps;
  uint32_t *first_step, *step_count; /* per trace */
  st_an_device *devices;
  uint32_t ndevices, cap_devices;
  st_an_cell *cells;
  uint32_t ncells;
  st_an_gap *gaps;
  uint64_t *gap_seq, gap_next; /* while sweeping: the gaps' heap order */
  uint32_t ngaps, max_gaps;
  st_an_rank *ranks;
  double rank_median, rank_scale;
  st_opstats *ops;
  st_an_op_extra *op_extra;
  uint32_t top_ops;       /* rows per table of kernels, host ops, runtime calls */
  int64_t kernel_wait_ns; /* the idle split's threshold */
  st_an_cause *causes;
  uint32_t ncauses, cap_causes;
  struct st_memory *mem; /* memory.h: the devices' memory (issue 34) */
  st_an_span *cgaps;     /* the causes' gaps */
  uint32_t ncgaps, cap_cgaps;
};

/* 1 if w (lower case ASCII) occurs in s[0, n), ignoring ASCII case. */
static inline int has_ci(const char *s, size_t n, const char *w) {
  size_t m = strlen(w);
  for (size_t i = 0; i + m <= n; i++) {
    size_t k = 0;
    while (k < m && (s[i + k] | 0x20) == w[k]) k++;
    if (k == m) return 1;
  }
  return 0;
}

#endif
