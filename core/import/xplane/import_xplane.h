/* import_xplane.h: XSpace (`*.xplane.pb`, TensorFlow/JAX/XProf profiles) ->
 * st_builder, fed with decoded bytes in chunks of any size.
 *
 * An XSpace is one message whose field 1 (`planes`) repeats. Each XPlane is
 * framed by pb_stream (held whole while it is decoded, then dropped; a plane
 * may be tens of MB, capped at ST_XPLANE_PLANE_MAX), so memory stays at one
 * plane plus the model. Fields 2-4 (errors, warnings, hostnames) become
 * warnings and st_xplane_metadata_json().
 *
 * Mapping (FORMATS.md §2, §4; XProf's xplane_to_trace_container.cc):
 *   - Planes -> processes named as the plane: `/host:CPU*` -> pid 701, 702..
 *     (in file order), `/device:GPU:*` and `/device:TPU:*` -> 1 + plane.id
 *     (1 if that passes 500), `/device:CUSTOM:*` -> 501 + plane.id. Process
 *     sort index = pid (devices first, then hosts). Any other plane
 *     (`/host:metadata`, `Task Environment`, ...) is not drawn, as in XProf:
 *     its events are counted and a warning `xplane_plane_not_drawn` is
 *     given. With one hostname in the XSpace it becomes every process's label.
 *   - Lines -> ST_TRACK_SLICES tracks keyed by tid = (uint32) display_id, or
 *     id when display_id is 0; named display_name, else name; lines with the
 *     same tid are one track. Order: on host planes by line name (XLA gives
 *     host threads sort index 1..n in name order); on other planes by the
 *     tid as an unsigned 32-bit number (streams, then derived lines from
 *     0xdeadbeef: Steps, Name Scope, Ops, ...). Lines named `counters_*`
 *     are skipped (warning); the line `_counters_` holds counter samples:
 *     one ST_TRACK_COUNTER series per (event name, numeric stat), named
 *     "<event> <stat>" (just "<event>" if the stat has the event's name).
 *   - Events: start = line.timestamp_ns * 1000 + offset_ps (picoseconds),
 *     end = start + duration_ps; both are floored to ns (start_ns =
 *     floor(start/1000), end_ns = floor(end/1000)), which is monotonic, so
 *     containment and order in picoseconds survive: a child never sticks
 *     out of its parent. An event shorter than 1 ns may become 0 ns long
 *     (it still draws as a 1 px sliver); duration_ps == 0 is an instant
 *     (ST_EV_INSTANT). Events with the same ns keep file order (the
 *     builder's tie-break is `src`). Negative durations are clamped to 0
 *     (warning); times that overflow int64 ns are dropped (warning).
 *   - Names: event metadata display_name if set, else name; a `step_name`
 *     stat (str or ref value, on the event or its metadata) renames.
 *     `num_occurrences` events are aggregates without a time: counted in
 *     `events`, skipped with warning `xplane_aggregate_events_skipped`.
 *   - Stats are args and not resident: `src` of each event is the absolute
 *     offset (decoded input) of its XEvent record's tag inside the XLine,
 *     which together with its plane's metadata maps is enough to decode
 *     them on selection (core/import/args/argsrc.h, xplane_args.c).
 *   - `flow` stats (bits 0-1 direction, 2-57 id): events sharing an id form
 *     a chain; each event after the first with that id counts one arrow in
 *     `flows`. Events with both `_a` and `flow` are async: they go to an
 *     ST_TRACK_ASYNC track per line (key = tid), counted in `async_slices`.
 *   - stats: `events` = every XEvent read; `phases` counts X (timed events
 *     on slice tracks), b (async), C (counter events); `slices`, `instants`
 *     (zero-duration events are counted in both: they are XProf X events),
 *     `counter_samples`, `processes` / `threads` (those carrying events).
 *
 *   st_xplane_importer *im = st_xplane_create(&alloc, builder, &stats);
 *   st_xplane_push(im, bytes, n, &err); ... st_xplane_finish(im, &err);
 *   st_xplane_release(im);         // optional: frees the working state
 *   if (st_xplane_has_trace(im)) ... st_builder_finish(builder, ...)
 *   st_xplane_destroy(im);
 */
#ifndef STRATA_IMPORT_XPLANE_H
#define STRATA_IMPORT_XPLANE_H

#include "argsrc.h"
#include "base.h"
#include "stats.h"
#include "trace.h"

/* one XPlane larger than this is refused (ST_ERR_LIMIT) */
#define ST_XPLANE_PLANE_MAX ((uint64_t)1024u * 1024u * 1024u)
/* texts kept for st_xplane_metadata_json (hostnames, errors, warnings) */
#define ST_XPLANE_META_MAX (64u * 1024u)

typedef struct st_xplane_importer st_xplane_importer;

st_xplane_importer *st_xplane_create(const st_alloc *a, st_builder *b, st_stats *stats);
void st_xplane_destroy(st_xplane_importer *im);
/* Returns ST_OK or the first error (wire errors stop the import: ST_ERR_PROTO
 * with the absolute offset; events of earlier planes stay in the builder). */
st_code st_xplane_push(st_xplane_importer *im, const uint8_t *data, size_t len, st_error *err);
/* End of input: ST_ERR_TRUNCATED if it ended inside a plane. */
st_code st_xplane_finish(st_xplane_importer *im, st_error *err);
/* After finish: frees the working state (the stream's buffer, the plane's
 * metadata tables, the maps), keeping has_trace and the metadata texts;
 * no push or finish after it. */
void st_xplane_release(st_xplane_importer *im);
/* 1 once at least one plane (or other XSpace field) was decoded whole. */
int st_xplane_has_trace(const st_xplane_importer *im);
/* {"hostnames": [...], "errors": [...], "warnings": [...]} (keys present
 * only when non-empty), "{}" if none. Never NULL. */
const char *st_xplane_metadata_json(const st_xplane_importer *im);

/* Records plane ranges, stat names and event metadata ranges into as (an
 * ST_ARGS_XPLANE source; see argsrc.h) while importing. Call before the
 * first push; as must outlive the import. NULL: nothing recorded. */
void st_xplane_set_args_source(st_xplane_importer *im, st_argsrc *as);

#endif
