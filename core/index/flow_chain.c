/* flow_chain.c: the chain of flow arrows through events (flow_chain.h).
 * The output array is also the downstream work list: each arrow found
 * downstream is expanded from its destination in the order found (breadth
 * first). Upstream, a second work list (positions in the output) holds the
 * arrows to expand from their sources: an arrow already in the output
 * because it was found downstream is still followed upstream when it
 * arrives at a selected event or at the source of an upstream arrow. */
#include "flow_chain.h"

enum { FOLLOWED_UP = 1 };

typedef struct chain {
  const st_trace *t;
  const uint32_t *fin;
  uint32_t *out, n, cap;
  uint8_t flag[ST_FLOW_CHAIN_MAX]; /* per output position: FOLLOWED_UP */
  uint32_t up[ST_FLOW_CHAIN_MAX];  /* output positions to follow upstream */
  uint32_t nup;
} chain;

static uint32_t find(const chain *c, uint32_t p) {
  for (uint32_t i = 0; i < c->n; i++)
    if (c->out[i] == p) return i;
  return UINT32_MAX;
}

/* Adds arrow p: 0 if it is new and there is no room left. Upstream (up),
 * an arrow not yet followed that way joins the upstream work list. */
static int add(chain *c, uint32_t p, int up) {
  uint32_t i = find(c, p);
  if (i == UINT32_MAX) {
    if (c->n == c->cap) return 0;
    i = c->n;
    c->out[c->n++] = p;
    c->flag[i] = 0;
  }
  if (up && !(c->flag[i] & FOLLOWED_UP)) {
    c->flag[i] |= FOLLOWED_UP;
    c->up[c->nup++] = i; /* each position once: nup <= n <= cap */
  }
  return 1;
}

/* Adds the arrows leaving (down) or arriving at (!down) row[lo, hi). */
static int add_range(chain *c, uint32_t row, uint32_t lo, uint32_t hi, int down) {
  uint32_t first, k = down ? st_trace_flows_from(c->t, row, lo, hi, &first)
                           : st_trace_flows_to(c->t, row, lo, hi, &first);
  for (uint32_t j = 0; j < k; j++)
    if (!add(c, down ? first + j : c->fin[first + j], !down)) return 0;
  return 1;
}

uint32_t st_flow_chain_spans(const st_trace *t, const st_sel_span *spans, uint32_t n, uint32_t *out,
                             uint32_t cap, uint32_t *more) {
  if (more) *more = 0;
  uint32_t nflows, nrows;
  const st_flow *fl = st_trace_flows(t, &nflows);
  const st_row *rows = st_trace_rows(t, &nrows);
  if (!out || !cap || !nflows || !spans) return 0;
  chain c = {.t = t, .fin = st_trace_flows_in(t, NULL), .out = out};
  c.cap = cap < ST_FLOW_CHAIN_MAX ? cap : ST_FLOW_CHAIN_MAX;
  int ok = 1;
  /* downstream: the arrows leaving the events, then from their destinations */
  for (uint32_t s = 0; ok && s < n; s++) {
    uint32_t r = spans[s].row, hi = spans[s].hi;
    if (r >= nrows) continue;
    if (hi > rows[r].count) hi = rows[r].count;
    if (spans[s].lo < hi) ok = add_range(&c, r, spans[s].lo, hi, 1);
  }
  for (uint32_t i = 0; ok && i < c.n; i++)
    ok = add_range(&c, fl[out[i]].to_row, fl[out[i]].to_index, fl[out[i]].to_index + 1, 1);
  /* upstream: the arrows arriving at the events, then at their sources */
  for (uint32_t s = 0; ok && s < n; s++) {
    uint32_t r = spans[s].row, hi = spans[s].hi;
    if (r >= nrows) continue;
    if (hi > rows[r].count) hi = rows[r].count;
    if (spans[s].lo < hi) ok = add_range(&c, r, spans[s].lo, hi, 0);
  }
  for (uint32_t i = 0; ok && i < c.nup; i++) {
    const st_flow *f = &fl[out[c.up[i]]];
    ok = add_range(&c, f->from_row, f->from_index, f->from_index + 1, 0);
  }
  if (more) *more = !ok;
  return c.n;
}

uint32_t st_flow_chain(const st_trace *t, uint32_t row, uint32_t index, uint32_t *out, uint32_t cap,
                       uint32_t *more) {
  if (index == UINT32_MAX) {
    if (more) *more = 0;
    return 0;
  }
  st_sel_span one = {row, index, index + 1};
  return st_flow_chain_spans(t, &one, 1, out, cap, more);
}
