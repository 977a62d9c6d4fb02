/* flow_chain.c: the chain of flow arrows through an event (flow_chain.h).
 * The output array is also the work list: each arrow found downstream is
 * expanded from its destination, each found upstream from its source, in
 * the order found (breadth first). */
#include "flow_chain.h"

static int has(const uint32_t *out, uint32_t n, uint32_t p) {
  for (uint32_t i = 0; i < n; i++)
    if (out[i] == p) return 1;
  return 0;
}

/* Appends the arrows leaving (down) or arriving at (!down) row[index] that
 * are not in out yet; 0 once the cap is reached with one left over. */
static int add_from(const st_trace *t, const uint32_t *fin, uint32_t row, uint32_t index, int down,
                    uint32_t *out, uint32_t *n, uint32_t cap) {
  uint32_t first, k = down ? st_trace_flows_from(t, row, index, index + 1, &first)
                           : st_trace_flows_to(t, row, index, index + 1, &first);
  for (uint32_t j = 0; j < k; j++) {
    uint32_t p = down ? first + j : fin[first + j];
    if (has(out, *n, p)) continue;
    if (*n == cap) return 0;
    out[(*n)++] = p;
  }
  return 1;
}

uint32_t st_flow_chain(const st_trace *t, uint32_t row, uint32_t index, uint32_t *out, uint32_t cap,
                       uint32_t *more) {
  if (more) *more = 0;
  uint32_t nflows, nrows;
  const st_flow *fl = st_trace_flows(t, &nflows);
  const uint32_t *fin = st_trace_flows_in(t, NULL);
  const st_row *rows = st_trace_rows(t, &nrows);
  if (!out || !cap || !nflows || row >= nrows || index >= rows[row].count) return 0;
  uint32_t n = 0;
  int ok = add_from(t, fin, row, index, 1, out, &n, cap);
  for (uint32_t i = 0; ok && i < n; i++)
    ok = add_from(t, fin, fl[out[i]].to_row, fl[out[i]].to_index, 1, out, &n, cap);
  uint32_t up = n;
  if (ok) ok = add_from(t, fin, row, index, 0, out, &n, cap);
  for (uint32_t i = up; ok && i < n; i++)
    ok = add_from(t, fin, fl[out[i]].from_row, fl[out[i]].from_index, 0, out, &n, cap);
  if (more) *more = !ok;
  return n;
}
