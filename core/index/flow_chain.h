/* flow_chain.h: the chain of flow arrows an event belongs to, the arrows
 * the viewer highlights for the selected events in every flow mode but off
 * (core/ui/ui.h st_flow_mode).
 *
 * The chain of event E: the arrows leaving E, then the arrows leaving each
 * of their destinations, and so on (downstream); and the arrows arriving at
 * E, then those arriving at each of their sources, and so on (upstream). A
 * Chrome v1 flow s -> t -> t -> f is one chain whichever of its events is
 * selected; a Kineto launch -> kernel pair is a chain of one arrow. Side
 * branches are not followed (an arrow arriving at a downstream event from
 * elsewhere, an arrow leaving an upstream event to elsewhere), so a busy
 * event on the way does not pull in the whole trace.
 *
 * The chain of several events (a box selection) is the union of their
 * chains, each arrow once: the downstream closure of every arrow leaving
 * one of them and the upstream closure of every arrow arriving at one.
 * Each arrow is followed downstream and upstream separately, so an arrow
 * downstream of one selected event and upstream of another is followed
 * both ways, as in each event's own chain.
 *
 * Cost: O(spans x log flows + found x (log flows + found)), found <= cap
 * (a linear membership test per arrow: cap is small, ST_FLOW_CHAIN_MAX),
 * no allocation.
 *
 *   uint32_t chain[ST_FLOW_CHAIN_MAX];
 *   uint32_t more, n = st_flow_chain(trace, row, index, chain, ST_FLOW_CHAIN_MAX, &more);
 *   // chain[0, n): positions in st_trace_flows(); more: arrows left out by the cap
 *   n = st_flow_chain_spans(trace, spans, nspans, chain, ST_FLOW_CHAIN_MAX, &more);
 */
#ifndef STRATA_FLOW_CHAIN_H
#define STRATA_FLOW_CHAIN_H

#include "select.h"
#include "trace.h"

/* The cap the viewer uses: arrows drawn for the selected events, in all. */
#define ST_FLOW_CHAIN_MAX 256u

/* Writes the chain of event row[index] to out[0, cap) as positions in
 * st_trace_flows(), downstream arrows first (in the order found, breadth
 * first), then upstream ones; each arrow once. Returns how many were
 * written; *more (may be NULL) gets 1 if the cap left some out, else 0. An
 * invalid event or a trace without flows gives 0. A cap above
 * ST_FLOW_CHAIN_MAX is taken as ST_FLOW_CHAIN_MAX. */
uint32_t st_flow_chain(const st_trace *t, uint32_t row, uint32_t index, uint32_t *out, uint32_t cap,
                       uint32_t *more);

/* The same for the events of spans[0, n) (row[lo, hi) each, e.g. a
 * selection's st_selection_spans): the union of their chains, each arrow
 * once, in at most cap (<= ST_FLOW_CHAIN_MAX) arrows in all. Spans outside
 * the trace's rows or events are clipped or skipped. */
uint32_t st_flow_chain_spans(const st_trace *t, const st_sel_span *spans, uint32_t n, uint32_t *out,
                             uint32_t cap, uint32_t *more);

#endif
