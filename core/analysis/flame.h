/* flame.h: aggregated call trees (flame graphs) of CPU samples or of
 * nested slices, with a stable layout a front end draws as is, hit testing
 * and "select the events behind this frame".
 *
 * Sources (st_flame_query):
 *   - samples (ST_FLAME_SAMPLES): the sample events (trace.h "samples") in
 *     a time range [t0, t1) (on one thread or all), or the selected ones.
 *     Each sample's stack is its leaf frame's parent chain (frames.h); the
 *     tree merges equal name paths. Values count samples. Time: a sample
 *     stands for its thread's sampling interval, the median gap between
 *     consecutive samples of that thread's sample track (a track with one
 *     sample: 0), so total_ns = samples x interval, summed over threads.
 *     A merged trace (trace.h st_trace_merge: several files) works the
 *     same: each sample's stack is read from its own file's frame table
 *     (st_trace_row_frames) and equal name paths of every file merge into
 *     one node (the files share one string table, so a name is one id).
 *   - slices (ST_FLAME_SLICES): nesting on thread slice tracks is the call
 *     stack. From a range: every slice intersecting [t0, t1) (on one thread
 *     or all) with its time clipped to the range. From a selection: each
 *     selected slice that has no selected ancestor, with all its
 *     descendants, unclipped. Values are ns; self = total minus the
 *     children's totals. Other selected events (async, instants, samples)
 *     are not part of a slice tree.
 *
 * Layout: nodes in preorder (node 0 is the root, "all", depth 0), children
 * ordered by total (largest first), then by name. A node covers
 * [x, x + total) in value units; x / root.total is its horizontal share
 * and depth its row: the same input always gives the same picture.
 *
 *   st_flame *f = st_flame_create(&alloc);
 *   st_flame_query q = {.source = ST_FLAME_SAMPLES, .t0 = a, .t1 = b, .track = UINT32_MAX};
 *   if (st_flame_build(f, trace, &q) == ST_OK) {
 *     const st_flame_node *n = st_flame_nodes(f, &count);
 *     uint32_t hit = st_flame_hit(f, 0.25, 3);      // node at 25% of the width, row 3
 *     st_flame_select(f, hit, selection);           // the samples behind it
 *   }
 *   st_flame_destroy(f);
 */
#ifndef STRATA_FLAME_H
#define STRATA_FLAME_H

#include "select.h"
#include "trace.h"

typedef enum st_flame_source { ST_FLAME_SAMPLES = 0, ST_FLAME_SLICES = 1 } st_flame_source;

typedef struct st_flame_query {
  st_flame_source source;
  const st_selection *sel; /* non-NULL: build from the selected events */
  int64_t t0, t1;          /* sel NULL: the range [t0, t1), ns from the trace start */
  uint32_t track;          /* sel NULL: only the thread of this track (any of its
                            * slice/sample tracks), UINT32_MAX: every thread */
} st_flame_query;

typedef struct st_flame_node {
  uint32_t name;              /* strtab id; the root's is ST_STR_EMPTY ("all") */
  uint32_t parent;            /* UINT32_MAX for the root */
  uint32_t depth;             /* the root is 0 */
  uint32_t end;               /* one past the last node of its subtree */
  uint64_t x;                 /* start within the root, value units */
  uint64_t total, self;       /* value units: samples, or ns for slices */
  uint64_t total_ns, self_ns; /* time (samples: x interval, see above) */
  uint64_t count;             /* samples through it / slices at exactly this path */
} st_flame_node;

typedef struct st_flame st_flame;

st_flame *st_flame_create(const st_alloc *a);
void st_flame_destroy(st_flame *f);
/* Replaces the tree. ST_OK (possibly an empty tree: root total 0),
 * ST_ERR_NOMEM (the flame is then empty) or ST_ERR_ARG. */
st_code st_flame_build(st_flame *f, const st_trace *t, const st_flame_query *q);

const st_flame_node *st_flame_nodes(const st_flame *f, uint32_t *count);
st_flame_source st_flame_source_of(const st_flame *f);
uint32_t st_flame_max_depth(const st_flame *f);
/* Events aggregated (samples, or slices including descendants). */
uint64_t st_flame_events(const st_flame *f);
/* The node at horizontal share fx (0..1 of the root) in row depth;
 * UINT32_MAX if none. */
uint32_t st_flame_hit(const st_flame *f, double fx, uint32_t depth);
/* Replaces out with the events behind node: the samples whose stack passes
 * through it, or the slices at exactly its path. ST_OK, ST_ERR_ARG (bad
 * node) or ST_ERR_NOMEM. */
st_code st_flame_select(const st_flame *f, uint32_t node, st_selection *out);

#endif
