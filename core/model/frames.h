/* frames.h: the stack-frame table of a trace's CPU samples: each frame is
 * a function name under a parent frame, interned by (parent, name), so
 * every distinct call stack is one frame (its leaf) and equal stacks from
 * different profiles, processes and threads share it. A sample (a row
 * event of an ST_TRACK_SAMPLES track, trace.h) records only its leaf
 * frame; the stack is the parent chain.
 *
 * Frame ids are dense and topologically ordered: a frame's parent always
 * has a smaller id, so one pass in id order visits parents first. Depth is
 * capped at ST_FRAMES_MAX_DEPTH: a deeper frame is folded into its capped
 * ancestor (hostile input cannot make unbounded chains).
 *
 * 8 bytes per frame resident (name, parent) plus the depth and, while
 * building, the interning table (st_frames_seal drops it).
 *
 *   st_frames *f = st_frames_create(&alloc);
 *   uint32_t root = st_frames_intern(f, ST_FRAME_NONE, name_main);
 *   uint32_t leaf = st_frames_intern(f, root, name_work);
 *   st_frames_parent(f, leaf) == root; st_frames_name(f, leaf) == name_work
 *   st_frames_destroy(f);
 */
#ifndef STRATA_FRAMES_H
#define STRATA_FRAMES_H

#include "base.h"

#define ST_FRAME_NONE UINT32_MAX
#define ST_FRAMES_MAX_DEPTH 1024u

typedef struct st_frames st_frames;

st_frames *st_frames_create(const st_alloc *a);
void st_frames_destroy(st_frames *f);
/* The frame `name` (a strtab id) under `parent` (ST_FRAME_NONE: a root),
 * found or added. ST_FRAME_NONE on allocation failure, an unknown parent,
 * or 2^32 - 2 frames. */
uint32_t st_frames_intern(st_frames *f, uint32_t parent, uint32_t name);
/* Frees the interning table (no more interning; lookups stay). */
void st_frames_seal(st_frames *f);

uint32_t st_frames_count(const st_frames *f); /* 0 for NULL */
/* ST_FRAME_NONE / ST_STR_EMPTY / 0 for a bad id. Depth of a root is 0. */
uint32_t st_frames_parent(const st_frames *f, uint32_t id);
uint32_t st_frames_name(const st_frames *f, uint32_t id);
uint32_t st_frames_depth(const st_frames *f, uint32_t id);
size_t st_frames_bytes(const st_frames *f);

#endif
