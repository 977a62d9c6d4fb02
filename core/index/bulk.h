/* bulk.h: where a trace's events are, for its first view. A few events far
 * from the rest (a Fuchsia trace with one event a million seconds before
 * everything else, a stray clock-sync marker) would otherwise make the
 * fitted view so wide that the work is a sliver at one edge.
 *
 * The rule (robust to any number of far outliers, exact, no sampling):
 *   1. Q1, Q3: the quartiles of the event start times (counter samples
 *      included); IQR = max(Q3 - Q1, 1 us); GAP = 3 x IQR (Tukey's
 *      "far out" distance).
 *   2. The bulk grows outward from [Q1, Q3] over every event that starts
 *      (on the right) or ends (on the left) less than GAP beyond what it
 *      already holds, so a dense or sparse but continuous stretch of events
 *      is kept whole; it stops at the first empty gap longer than GAP.
 *   3. The events beyond such a gap are left out of the first view only if
 *      they are at most 1% of the events on that side (at least one event
 *      may always be left out), the growing took at most 64 steps (a
 *      chain of many sparse events is work, not an outlier), and leaving
 *      them out at least halves the time span shown. Otherwise that side
 *      (or the whole trace) is fitted as it is.
 * An event that straddles the gap (a long slice from the outlier to the
 * bulk) joins the two, so nothing that touches the bulk is ever left out.
 *
 * Cost: O(rows x log events) per step (each step is one binary search per
 * row and counter; rows' starts and ends are sorted), 64 + 2 x 64 steps at
 * most: nothing walks the events.
 *
 *   st_bulk b;
 *   st_bulk_range(trace, &b);
 *   if (b.outside) ... fit [b.t0_ns, b.t1_ns] and say b.outside events are not shown
 */
#ifndef STRATA_BULK_H
#define STRATA_BULK_H

#include "trace.h"

typedef struct st_bulk {
  int64_t t0_ns, t1_ns;   /* the time range to fit, ns from trace start */
  uint64_t outside;       /* events entirely outside it (0: it is the whole trace) */
  uint64_t before, after; /* of which before t0 / after t1 */
} st_bulk;

/* Fills *out for t (the whole trace, outside = 0, when nothing is left out;
 * zeroes for NULL or an empty trace). */
void st_bulk_range(const st_trace *t, st_bulk *out);

#endif
