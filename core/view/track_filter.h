/* track_filter.h: which sections and tracks the layout shows: processes
 * without events (hidden by default), the track filter (type to keep only
 * the tracks whose name contains a text), and a stable id for a track, so
 * that a pinned track is found again when the same files are reopened.
 *
 *   - A process is empty when none of its tracks has an event: no slice,
 *     instant, async slice or CPU sample in any row, no sample in any
 *     counter (Kineto names every GPU of the machine, a one-GPU trace has
 *     seven such sections).
 *   - The filter is a case-insensitive (ASCII) substring of the process's
 *     name, the track's gutter label (its thread or track name), or the
 *     name of its file (a merged trace's part). A process whose name (or
 *     file's name) matches keeps all its tracks.
 *   - A track's id is "<file>.<pid>.<k>": the part index (0 for a single
 *     file), the process's pid as in the file, and the track's place in its
 *     process (0-based); the same files opened in the same order give the
 *     same ids.
 *
 *   uint8_t *empty = ...np bytes...;
 *   uint32_t n_empty = st_process_empty_flags(trace, empty);
 *   st_track_filter_keep(trace, labels, "nccl", 4, keep);  // nt bytes
 */
#ifndef STRATA_TRACK_FILTER_H
#define STRATA_TRACK_FILTER_H

#include "track_label.h"

/* empty[p] = 1 for each process without events; returns how many. */
uint32_t st_process_empty_flags(const st_trace *t, uint8_t *empty);

/* keep[ti] = 1 for each track the filter text keeps (a thread's slices
 * track that continues its marker lane goes with it), named[p] = 1 for each
 * process whose own (or file's) name contains it. len 0 keeps all. Returns
 * how many labelled tracks are kept. */
uint32_t st_track_filter_keep(const st_trace *t, const st_track_labels *tl, const char *text,
                              size_t len, uint8_t *keep, uint8_t *named);

/* The id of track ti ("<file>.<pid>.<k>", NUL-terminated, at most 48
 * bytes); returns its length, 0 for a bad track. */
size_t st_track_id(const st_trace *t, uint32_t ti, char *buf, size_t cap);
/* The track with that id, UINT32_MAX if none. */
uint32_t st_track_by_id(const st_trace *t, const char *id, size_t len);

#endif
