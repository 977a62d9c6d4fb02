/* track_label.h: what each track is called in the label gutter, and which
 * tracks are shown as one, so that no two rows of a section read the same.
 *
 *   - A thread's instants (st_track.markers) are the marker lane at the top
 *     of the thread's own track: the thread's slices track that follows it
 *     continues it (st_track_continues) with no label and no gap, and the
 *     pair carries the thread's one label.
 *   - A label is the track's name ("tid N" for an unnamed thread, "async
 *     N", "counter N", "instants" for a process's instants, "tid N samples"
 *     for an unnamed thread's CPU samples), "(overlaps)" after an overflow
 *     track's.
 *   - When two labelled tracks of one section would read the same, each
 *     says what tells it apart: a thread its tid ("python (tid 7)"; its
 *     place "(#2)" when the importer made the key up, a negative one),
 *     other kinds their kind and place ("Frames (async #2)").
 * The labels are worked out once per trace (O(tracks log tracks)); reading
 * one is O(1) plus formatting.
 *
 *   st_track_labels *tl = st_track_labels_create(&alloc, trace);
 *   char buf[320];
 *   size_t n = st_track_label(tl, track, buf, sizeof buf);
 *   st_track_labels_destroy(tl);
 */
#ifndef STRATA_TRACK_LABEL_H
#define STRATA_TRACK_LABEL_H

#include "trace.h"

/* 1 if track ti is laid out as the continuation of track ti - 1 (a
 * thread's slices under its marker lane): no label of its own, no gap. */
int st_track_continues(const st_trace *t, uint32_t ti);

typedef struct st_track_labels st_track_labels;

/* NULL on allocation failure. The trace must outlive it. */
st_track_labels *st_track_labels_create(const st_alloc *a, const st_trace *t);
void st_track_labels_destroy(st_track_labels *tl);
/* The label of track ti, NUL-terminated and truncated to cap (names are
 * cut at 256 bytes); returns the length written. 0 for a bad track. */
size_t st_track_label(const st_track_labels *tl, uint32_t ti, char *buf, size_t cap);

#endif
