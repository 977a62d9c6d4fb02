/* import_perfetto.h: Perfetto protobuf traces (`.perfetto-trace`,
 * `.pftrace`) -> st_builder: TrackEvent (app traces) and system data
 * (ftrace scheduling, atrace, process tree and stats), fed with decoded
 * bytes in chunks of any size. The parts: perfetto_internal.h.
 *
 * A trace is a run of `Trace.packet` records; each TracePacket is framed by
 * pb_stream (held whole, capped at ST_PERFETTO_PACKET_MAX), decoded and
 * dropped. Memory: one packet, the model, per-track / per-sequence /
 * per-thread state, and the scheduling records of ftrace bundles staged at
 * 40 bytes each until the end (they are replayed in time order there:
 * bundles of different CPUs overlap in time).
 *
 * Mapping:
 *   - TrackDescriptor: a track with `process` is a process track (its pid
 *     names a process: process_name, else the track name); with `thread`, a
 *     thread track: ST_TRACK_SLICES keyed by tid in the process of its pid,
 *     labelled "name tid"; with `counter`, a counter series (ST_TRACK_COUNTER;
 *     unit_multiplier applied, is_incremental values accumulated); otherwise
 *     a custom track. Custom and counter tracks belong to the process of
 *     their nearest process/thread ancestor (parent_uuid), shown there as
 *     sibling tracks as the proto documents. A tree of custom tracks with no
 *     such ancestor becomes one process (section) named after its root,
 *     holding the root's and every descendant's track. Tracks are ordered
 *     depth-first, siblings by their parent's child_ordering (LEXICOGRAPHIC:
 *     name, CHRONOLOGICAL: first event, EXPLICIT: sibling_order_rank),
 *     otherwise in descriptor order. A track used before or without a
 *     descriptor gets one named "track <uuid>" (uuid 0: the sequence's
 *     legacy thread if it sent a ThreadDescriptor, else "default track");
 *     events on a track whose descriptor has not come yet are held until it
 *     comes (or the end), so they land where it says. An unnamed track
 *     under a thread or process is labelled after it.
 *   - TrackEvent: SLICE_BEGIN pushes on its track's stack and SLICE_END pops
 *     the innermost (an END on an empty stack: warning `unmatched_end`);
 *     unclosed BEGINs end at the trace end (ST_EV_UNFINISHED). INSTANT is a
 *     zero-length slice (ST_EV_INSTANT) on the same track. COUNTER adds
 *     counter_value / double_counter_value to its counter track, and
 *     extra_(double_)counter_values to the extra tracks (uuids from the event
 *     or the sequence's TrackEventDefaults). Names: `name` or interned
 *     `name_iid`; categories joined with ",". Flows: events sharing a flow id
 *     (flow_ids, flow_ids_old) form a chain, each later event counts one
 *     arrow in `flows`; terminating_flow_ids ends the chain.
 *   - Interning (event_names, event_categories) and TracePacketDefaults
 *     (track_uuid, extra counter uuids, timestamp_clock_id) are kept per
 *     trusted_packet_sequence_id and wiped by SEQ_INCREMENTAL_STATE_CLEARED
 *     (or incremental_state_cleared) before the packet's own data applies.
 *     After data loss (previous_packet_dropped) or before any clear, packets
 *     flagged SEQ_NEEDS_INCREMENTAL_STATE are skipped (warning), as Perfetto
 *     does.
 *   - Clocks (perfetto_clock.h), as trace_processor converts them: the
 *     trace clock is TraceConfig's primary_trace_clock or a ClockSnapshot's,
 *     else BOOTTIME. A packet's timestamp is in timestamp_clock_id (else the
 *     sequence's TracePacketDefaults; none: the trace clock); ftrace's in
 *     BOOTTIME (or the bundle's ftrace_clock). Other clocks are converted
 *     through the ClockSnapshots (any chain of them; on each step the
 *     snapshot nearest before the timestamp, else the first), with
 *     sequence-scoped clocks (64..127) per sequence, incremental clocks
 *     accumulated and unit_multiplier_ns applied. A timestamp that cannot
 *     be converted drops its event (warning `perfetto_clock_not_converted`).
 *   - System data (perfetto_ftrace.c, perfetto_sched.c, perfetto_system.c):
 *     a "CPUs" section (one slice track per CPU: who ran, from sched_switch,
 *     plain or compact_sched; cpu_frequency and cpu_idle counters), thread
 *     states on a "name tid state" track per thread, atrace print B/E/I on
 *     the thread's track, C as process counters, S/F as async slices;
 *     ProcessTree / task_newtask / task_rename / descriptors name processes
 *     and threads; ProcessStats and SysStats meminfo are counters;
 *     FrameTimelineEvent frames are "Expected Timeline" / "Actual Timeline"
 *     slices; atrace N/G/H are instants / async slices on the process's
 *     named tracks, suspend_resume slices a "Suspend/Resume Latency" track.
 *   - Android system packets (perfetto_android.c): battery counters, power
 *     rails and entity state residency as counters of a "Power" section,
 *     statsd atoms as instants on "Statsd Atoms", network packets on a
 *     "Network" section's per-interface tracks.
 *     Sections: CPUs, System, Power, Network, custom trees, then processes
 *     by (name, pid); in a process its own tracks, then threads by (name,
 *     tid).
 *   - compressed_packets (field 50) is inflated (zlib or gzip, at most
 *     ST_PERFETTO_INFLATE_MAX bytes each) and its packets decoded in place;
 *     their events' src is the offset of the compressed packet.
 *   - What is not shown (packets of other kinds: android_log, heap_graph,
 *     ..., and ftrace events of other kinds) is counted per kind: warning
 *     `perfetto_packets_not_shown`, and st_perfetto_metadata_json(). Never
 *     an error.
 *   - Args are not resident: a TrackEvent's src is the absolute offset of
 *     its TracePacket record's tag (of the BEGIN for a slice; END
 *     annotations merged on selection). The interned annotation names and
 *     string values they refer to are kept per (sequence, generation) in an
 *     args source (st_perfetto_set_args_source, argsrc.h), with each ftrace
 *     bundle's range and the threads' names: a scheduling slice's src is
 *     the field of its record that says who (argsrc.h).
 *   - stats: `events` = packets (inside compressed_packets too) + ftrace
 *     events; `phases` counts B, E, i, C by TrackEvent type and atrace kind;
 *     `threads` = distinct slice tracks (thread tracks by tid, custom tracks
 *     each) carrying events.
 *
 *   st_perfetto_importer *im = st_perfetto_create(&alloc, builder, &stats);
 *   st_perfetto_push(im, bytes, n, &err); ... st_perfetto_finish(im, &err);
 *   st_perfetto_release(im);       // optional: frees the working state
 *   if (st_perfetto_has_trace(im)) ... st_builder_finish(builder, ...)
 *   st_perfetto_destroy(im);
 */
#ifndef STRATA_IMPORT_PERFETTO_H
#define STRATA_IMPORT_PERFETTO_H

#include "argsrc.h"
#include "base.h"
#include "stats.h"
#include "trace.h"

/* one TracePacket larger than this is refused (ST_ERR_LIMIT) */
#define ST_PERFETTO_PACKET_MAX ((uint64_t)64u * 1024u * 1024u)
/* one compressed_packets blob may inflate to at most this */
#define ST_PERFETTO_INFLATE_MAX ((size_t)64u * 1024u * 1024u)
/* processes made for trees of custom tracks: pid = base - root number */
#define ST_PERFETTO_TRACK_PID_BASE ((int64_t)-0x2000000000000000LL)
/* the one process of the tracks whose descriptor never arrived ("N tracks
 * without a descriptor"), after the named ones, collapsed at first */
#define ST_PERFETTO_UNDESCRIBED_PID (ST_PERFETTO_TRACK_PID_BASE + 1)

typedef struct st_perfetto_importer st_perfetto_importer;

st_perfetto_importer *st_perfetto_create(const st_alloc *a, st_builder *b, st_stats *stats);
/* ftrace records are staged to be replayed in time order (CPU slices,
 * thread states): at the end, by default. With a limit (streaming mode,
 * whose memory is bounded), once `records` are staged those older than
 * every CPU's latest staged time are replayed and dropped (each CPU's
 * bundles follow each other in time; a CPU that lags holds the rest, and
 * the next try waits for twice what stayed). The model is the same as at
 * the end for a trace whose process and thread facts precede their
 * threads' scheduling (as traced writes them); a fact read later applies
 * from then on. */
void st_perfetto_set_staging_limit(st_perfetto_importer *im, uint64_t records);
void st_perfetto_destroy(st_perfetto_importer *im);
/* Returns ST_OK or the first error (ST_ERR_PROTO with the absolute offset
 * stops the import; what was read before stays in the builder). */
st_code st_perfetto_push(st_perfetto_importer *im, const uint8_t *data, size_t len, st_error *err);
/* End of input: closes open slices; ST_ERR_TRUNCATED if it ended inside a
 * packet. Frees the input buffers and the staged scheduling records as it
 * goes; no push or second finish after it. */
st_code st_perfetto_finish(st_perfetto_importer *im, st_error *err);
/* After finish: frees the rest of the working state (tracks, sequences,
 * threads, maps, clocks), keeping has_trace and what
 * st_perfetto_metadata_json reports. */
void st_perfetto_release(st_perfetto_importer *im);
int st_perfetto_has_trace(const st_perfetto_importer *im);
/* Records interned debug annotation names / string values and incremental-
 * state clears into as (an ST_ARGS_PERFETTO source; see argsrc.h). Call
 * before the first push; as must outlive the import. */
void st_perfetto_set_args_source(st_perfetto_importer *im, st_argsrc *as);
/* What the trace holds that is not shown, for the page's "not shown" line
 * and Info: {"not_shown": {"packets": N, "kinds": {"android_log": n, ...},
 * "ftrace_events": n, "nothing_shown": bool}}, or "{}" when everything is
 * shown. Valid until destroy. */
const char *st_perfetto_metadata_json(const st_perfetto_importer *im);

#endif
