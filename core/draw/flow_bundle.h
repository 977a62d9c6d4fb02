/* flow_bundle.h: flow arrows that share a few pixels drawn as one. In the
 * "all" flow mode a zoomed-out Kineto trace has thousands of launch ->
 * kernel arrows in view, most of them starting within a pixel or two of
 * each other (from the launches at several depths of one CPU thread);
 * drawn one by one they fill the space between the rows with a black slab.
 * The bundler groups them instead:
 *
 *   A bundle is the set of flows whose sources lie on the same track (the
 *   caller's src_key: the draw list uses the track, or a collapsed
 *   section's header) in the same cell_px-wide column of the timeline, and
 *   whose destinations lie on the same track in the same column (columns
 *   counted from origin_x, the timeline's left edge: cell = floor((x -
 *   origin_x) / cell_px)). It is drawn as one arrow from the mean x of its
 *   sources to the mean x of its destinations, between the rows (y) of its
 *   vertically shortest member (the first of equals), labelled with its
 *   count when it stands for more than one flow.
 *
 * So what is drawn is bounded by the cells, not by the flows: at most one
 * arrow per (source cell, destination cell) pair, whatever the density.
 *
 *   st_flow_bundler fb = {0};
 *   st_flow_bundler_begin(&fb, 24, gutter_px, 4096, &alloc);
 *   st_flow_bundler_add(&fb, src_key, x0, y0, dst_key, x1, y1);  // per flow
 *   uint32_t n; const st_flow_bundle *b = st_flow_bundler_bundles(&fb, &n);
 *   ... st_flow_bundler_free(&fb, &alloc);   // the buffers are reused by begin
 */
#ifndef STRATA_FLOW_BUNDLE_H
#define STRATA_FLOW_BUNDLE_H

#include "base.h"

typedef struct st_flow_bundle {
  float x0, y0, x1, y1; /* the drawn arrow (see above) */
  uint32_t count;       /* flows it stands for (>= 1) */
  /* the key: the caller's keys (tracks) and the columns of the two ends */
  uint32_t src_key, dst_key;
  int32_t src_cell, dst_cell;
  double sum_x0, sum_x1; /* internal: sums of the members' x */
} st_flow_bundle;

typedef struct st_flow_bundler {
  float cell_px, origin_x;
  uint32_t max_bundles;
  st_flow_bundle *bundles; /* [count], in the order they were started */
  uint32_t count, bundle_cap;
  uint32_t *slots; /* open addressing: bundle index + 1, 0 = empty */
  uint32_t slot_count, slot_cap;
  int finished;
} st_flow_bundler;

/* Starts a frame's bundling (forgets the previous bundles, keeps the
 * buffers): cells cell_px wide (> 0) from origin_x, at most max_bundles
 * (>= 1) bundles. ST_OK, ST_ERR_ARG or ST_ERR_NOMEM (after a failure,
 * nothing can be added until a begin succeeds). */
st_code st_flow_bundler_begin(st_flow_bundler *fb, float cell_px, float origin_x,
                              uint32_t max_bundles, const st_alloc *a);
/* The column of x (clamped to +-2^30). */
int32_t st_flow_bundler_cell(const st_flow_bundler *fb, float x);
/* Adds one flow from (x0, y0) on src_key to (x1, y1) on dst_key: it joins
 * the bundle of its cells, or starts one. Returns 1, or 0 if it needed a
 * new bundle and max_bundles are made (the flow is left out). */
int st_flow_bundler_add(st_flow_bundler *fb, uint32_t src_key, float x0, float y0, uint32_t dst_key,
                        float x1, float y1);
/* The bundles with their means computed; valid until the next begin. */
const st_flow_bundle *st_flow_bundler_bundles(st_flow_bundler *fb, uint32_t *count);
void st_flow_bundler_free(st_flow_bundler *fb, const st_alloc *a);

#endif
