/* trace.h: the in-memory model of one loaded trace, and the builder that
 * importers fill it through.
 *
 * Shape: processes (sections) -> tracks (a thread's slices, an async group's
 * lanes, instant markers, one counter series) -> rows (one lane each: events
 * that do not overlap, sorted by start, stored struct-of-arrays). Times are
 * int64 nanoseconds relative to the trace's first timestamp (origin_ns is the
 * absolute value of time zero as written in the file, in ns). Names are
 * strtab ids. Args are not resident: each event keeps `src`, the byte offset
 * of its first byte in the decoded input, so a viewer can re-read them. A
 * slice made of two events (a Chrome B/E pair, async b/e and S/F) has args
 * at both: `src` is its first event's, and a side table keeps the offset of
 * its end event (st_trace_end_src; 16 bytes per such slice, nothing for
 * traces without them).
 *
 * Building: an importer creates an st_builder, interns strings through
 * st_builder_strings(), creates processes/tracks by key and adds complete
 * events (absolute ns) in any order. st_builder_finish() sorts, nests slices
 * into depth rows (a slice that partially overlaps its parent is moved to an
 * overflow track of the same thread, so nothing is dropped or hidden), packs
 * async events into non-overlapping lanes, orders tracks for display (a
 * thread's instants track just before its slices track: st_track.markers)
 * and rebases time to the first timestamp.
 *
 *   st_builder *b = st_builder_create(&alloc);
 *   uint32_t p = st_builder_process(b, 42);
 *   uint32_t t = st_builder_track(b, p, ST_TRACK_SLICES, 7, ST_STR_EMPTY);
 *   st_builder_slice(b, t, 1000, 500, name_id, cat_id, src_offset, 0);
 *   st_trace *tr = st_builder_finish(b, &err);   // b is consumed
 *   ... st_trace_destroy(tr);
 */
#ifndef STRATA_TRACE_H
#define STRATA_TRACE_H

#include "base.h"
#include "frames.h"
#include "strtab.h"

typedef enum st_track_kind {
  ST_TRACK_SLICES = 0,   /* a thread/stream/line: rows are nesting depths */
  ST_TRACK_ASYNC = 1,    /* async events: rows are lanes packed without overlap */
  ST_TRACK_INSTANTS = 2, /* instant markers (dur 0) in one or more rows */
  ST_TRACK_COUNTER = 3,  /* one counter series; no rows */
  ST_TRACK_SAMPLES = 4   /* a thread's CPU samples: markers (see "samples" below) */
} st_track_kind;

enum {
  ST_EV_UNFINISHED = 1u << 0, /* B without E (or X without dur): ends at trace end */
  ST_EV_INSTANT = 1u << 1,    /* zero-length marker */
  ST_EV_OVERLAP = 1u << 2,    /* moved to an overflow track (misnested) */
  ST_EV_HAS_END = 1u << 3,    /* B/E pair: args also at the E (see st_trace_end_src) */
  ST_EV_SUMMARY = 1u << 4     /* streaming mode's summary: a stretch of a track's events, named
                               * after the longest of them (its src), not one event */
};

/* A process sorted at or after this comes last and shows collapsed at
 * first: an importer's gathering of leftovers (Perfetto's tracks whose
 * descriptor never arrived), still searched and selected. */
#define ST_PROCESS_SORT_FOLDED (INT32_MAX - 255)

typedef struct st_process {
  int64_t pid;          /* as in the file; string pids get keys from the importer */
  uint32_t name;        /* strtab id, "" if unnamed */
  uint32_t labels;      /* strtab id, "" if none */
  int32_t sort_index;   /* lower draws higher; ties by pid */
  uint32_t first_track; /* this process's tracks, in display order */
  uint32_t track_count;
} st_process;

typedef struct st_track {
  uint8_t kind;     /* st_track_kind */
  uint8_t overflow; /* 1 if this is the overflow lane set of another track */
  uint8_t indent;   /* nesting level under its section (trees of tracks): labels indent */
  uint8_t markers;  /* 1: a thread's instants, placed just before that thread's slices
                     * track (same key and name), whose marker lane it is (drawn above) */
  uint32_t process; /* index into st_trace_processes() */
  int64_t key;      /* tid for thread tracks; importer-defined otherwise */
  uint32_t name;    /* strtab id: thread name / lane group / series name */
  int32_t sort_index;
  uint32_t first_row; /* rows [first_row, first_row + row_count) */
  uint32_t row_count;
  uint32_t counter;    /* ST_TRACK_COUNTER: index into st_trace_counters() */
  uint32_t unit;       /* ST_TRACK_COUNTER: strtab id of its values' unit as the file states it
                        * ("ns", "B", or the file's own name), "" where it states none */
  uint64_t block_span; /* > 0: a memory blocks track (an ST_TRACK_ASYNC whose events are
                        * allocator blocks, st_trace_block): the bytes of its address space,
                        * drawn as one band per block in one tall track (view.h) */
} st_track;

typedef struct st_row {
  uint32_t track;
  uint32_t depth;
  uint32_t count;
  const int64_t *start; /* ns from trace start, ascending */
  const int64_t *dur;   /* ns, >= 0; start[i] + dur[i] <= start[i + 1] */
  const uint32_t *name;
  const uint32_t *cat;
  const uint64_t *src;  /* byte offset of the event in the decoded input */
  const uint8_t *flags; /* ST_EV_* */
} st_row;

typedef struct st_counter {
  uint32_t track;
  uint32_t count;
  const int64_t *ts; /* ns from trace start, ascending */
  const double *value;
  double min, max;
} st_counter;

typedef struct st_trace st_trace;

void st_trace_destroy(st_trace *t);
const st_strtab *st_trace_strings(const st_trace *t);
const st_process *st_trace_processes(const st_trace *t, uint32_t *count);
const st_track *st_trace_tracks(const st_trace *t, uint32_t *count);
const st_row *st_trace_rows(const st_trace *t, uint32_t *count);
const st_counter *st_trace_counters(const st_trace *t, uint32_t *count);
int64_t st_trace_origin_ns(const st_trace *t);    /* absolute time of t = 0 */
int64_t st_trace_duration_ns(const st_trace *t);  /* last end - first start */
uint64_t st_trace_event_count(const st_trace *t); /* events in rows + counter samples */
size_t st_trace_bytes(const st_trace *t);         /* resident memory of the model */
/* SHA-256 of everything the model holds, names as text (not string ids):
 * processes, tracks, rows (start, dur, name, cat, src, flags), counters,
 * flows, stack frames, end srcs, origin. Two imports of one file give the
 * same digest iff they built the same model (the parallel import's check). */
void st_trace_digest(const st_trace *t, uint8_t out[32]);

/* ---- end events -----------------------------------------------------------
 * A slice whose args are at two events (ST_EV_HAS_END: a B/E pair, whose
 * args are the B's merged with the E's, E winning on duplicate keys; see
 * core/import/args/argsrc.h st_args_query_begin_end) keeps its end event's src here,
 * as recorded by the importer with st_builder_end_src. Pairs are sorted by
 * the slice's src; lookups are binary searches. */
typedef struct st_end_src {
  uint64_t src;     /* the slice's src (its B) */
  uint64_t end_src; /* its end event's (the E) */
} st_end_src;

/* The src of the end event of event (row, index), or UINT64_MAX if it has
 * none (not ST_EV_HAS_END, or nothing was recorded; bad refs too). */
uint64_t st_trace_end_src(const st_trace *t, uint32_t row, uint32_t index);
/* The same by the slice's src (e.g. the page asking for args by src). */
uint64_t st_trace_end_src_of(const st_trace *t, uint64_t src);
/* Every pair, ascending by src (unique srcs). */
const st_end_src *st_trace_end_srcs(const st_trace *t, size_t *count);

/* ---- samples ---------------------------------------------------------------
 * CPU samples (Chrome/V8 `P` events, ProfileChunk, top-level `samples`) are
 * events of an ST_TRACK_SAMPLES track (one per sampled thread, keyed by the
 * tid, ordered right after that thread's slice track): zero-length markers
 * (ST_EV_INSTANT) whose `name` is the leaf function's name and whose `cat`
 * is NOT a category but the sample's leaf frame, an index into
 * st_trace_frames() (the stack is that frame's parent chain). Their `src`
 * is the event that carried them. So a sample costs what any event costs,
 * and the level-of-detail index, hit testing, selection, search by name
 * and the summary table work on samples unchanged (core/analysis/flame.h
 * aggregates them into call trees). */
/* The frame table (NULL if the trace has no samples, and for a merged
 * trace, whose parts each keep their own: st_trace_row_frames). */
const st_frames *st_trace_frames(const st_trace *t);
/* The frame table the samples of `row` refer to: the trace's own, or for a
 * merged trace that of the part holding the row (NULL if it has none or
 * the row is out of range). A sample's stack is read with this. */
const st_frames *st_trace_row_frames(const st_trace *t, uint32_t row);

/* ---- flows ----------------------------------------------------------------
 * A flow is an arrow from one event (the producer, e.g. a kernel launch) to
 * another (the consumer, the kernel). Flows are kept sorted by
 * (from_row, from_index, to_row, to_index); st_trace_flows_in() is the same
 * flows ordered by their destination. Both are binary searched, so the
 * flows touching a row's index range are found in O(log flows). */
typedef struct st_flow {
  uint32_t from_row, from_index; /* source event: st_trace_rows()[from_row] */
  uint32_t to_row, to_index;     /* destination event */
} st_flow;

const st_flow *st_trace_flows(const st_trace *t, uint32_t *count);
/* Indices into st_trace_flows() sorted by (to_row, to_index, from_row, from_index). */
const uint32_t *st_trace_flows_in(const st_trace *t, uint32_t *count);
/* Flows leaving events row[index_lo, index_hi): returns how many; *first gets
 * the position of the first in st_trace_flows(). */
uint32_t st_trace_flows_from(const st_trace *t, uint32_t row, uint32_t index_lo, uint32_t index_hi,
                             uint32_t *first);
/* Flows arriving at events row[index_lo, index_hi): returns how many; *first
 * gets the position of the first in st_trace_flows_in(). */
uint32_t st_trace_flows_to(const st_trace *t, uint32_t row, uint32_t index_lo, uint32_t index_hi,
                           uint32_t *first);

/* What became of the flow points the importer recorded (st_builder_flow). */
typedef struct st_flow_info {
  uint64_t bound;            /* arrows in st_trace_flows() */
  uint64_t unmatched;        /* ends (ST_FLOW_IN without OUT) with no producer before them */
  uint64_t unmatched_offset; /* src of the first such end */
  uint64_t unbound;          /* arrows dropped: an end had no event to bind to */
  uint64_t unbound_offset;   /* src of the first point of the first such arrow */
} st_flow_info;
void st_trace_flow_info(const st_trace *t, st_flow_info *out);

/* ---- merged traces ----------------------------------------------------------
 * Several traces on one timeline (a profile of many files; two runs
 * compared): st_trace_merge makes a trace whose processes, tracks, rows,
 * counters and flows are those of its parts one after the other (part k's
 * row r is row parts[k].row_base + r), so every view, query and selection
 * written for one trace works on it unchanged. Events are not copied: the
 * merged rows point at the parts' columns. The parts must share one string
 * table (st_builder_create_shared), so a name id means the same string in
 * every part, and they must outlive the merged trace. Samples' frame ids
 * stay each part's own (st_trace_row_frames resolves them).
 *
 * Time: the merged trace's time is "scene" time. Each part sits at an
 * offset (the scene time of its own time 0); offsets are kept >= 0 with
 * the smallest at 0, so the scene starts at 0 like a single trace. A part
 * is moved by shifting its own columns in place (its origin moves the
 * other way, so st_trace_origin_ns + a time stays the file's own absolute
 * time): a lod over the merged trace then only needs its rows' time bases
 * moved (lod.h st_lod_shift_rows). */
typedef struct st_trace_part {
  st_trace *trace; /* the part's own model */
  uint32_t name;   /* its group's name (strtab id, "" if none) */
  uint32_t process_base, process_count;
  uint32_t track_base, track_count;
  uint32_t row_base, row_count;
  uint32_t counter_base, counter_count;
  uint32_t flow_base, flow_count;
  int64_t offset_ns; /* scene time of the part's own time 0 */
} st_trace_part;

/* Merges n >= 1 traces (names: strtab ids or NULL; offsets: ns or NULL for
 * all 0, normalised so the smallest is 0). The parts' times are shifted to
 * their offsets in place. NULL + err: allocation failure, parts that do
 * not share one string table (ST_ERR_ARG), or more than 2^32 - 2 rows. */
st_trace *st_trace_merge(const st_alloc *a, st_trace *const *parts, const uint32_t *names,
                         const int64_t *offsets, uint32_t n, st_error *err);
/* The parts of a merged trace (NULL and 0 for a trace read from one file). */
const st_trace_part *st_trace_parts(const st_trace *t, uint32_t *count);
/* The part holding row / process / track (binary search over the parts);
 * UINT32_MAX for a plain trace or out of range. */
uint32_t st_trace_part_of_row(const st_trace *t, uint32_t row);
uint32_t st_trace_part_of_process(const st_trace *t, uint32_t process);
/* The absolute time (ns, in the file's own clock) of time 0 of the trace
 * for the events of row: the row's part's origin for a merged trace. */
int64_t st_trace_row_origin_ns(const st_trace *t, uint32_t row);
/* The time every event was shifted by since the model was built (0 unless
 * it is part of a merged trace that moved it). */
int64_t st_trace_shift_ns(const st_trace *t);
/* Moves the parts to new offsets (ns; normalised so the smallest is 0) by
 * shifting their columns in place. deltas (may be NULL) gets, per part,
 * how far its times moved (for st_lod_shift_rows). ST_ERR_ARG for a plain
 * trace or offsets that would overflow the time range. */
st_code st_trace_merge_set_offsets(st_trace *t, const int64_t *offsets, int64_t *deltas);

/* ---- memory events (issue 34) -----------------------------------------------
 * An allocator's allocations and frees as the importer read them (Kineto's
 * `[memory]` instants: core/import/chrome/chrome_memory.c), each also an
 * instant marker on its thread. Kept by value, in the file's own terms:
 * absolute time in the file's clock (scene time = ts_abs_ns -
 * st_trace_origin_ns of the trace holding it, so merging and moving the
 * trace need not touch them) and process / thread keys as in the file
 * (st_process.pid, st_track.key), not model indices. Sorted by (ts, src).
 * A merged trace has none of its own: read each part's. */
typedef struct st_mem_event {
  int64_t ts_abs_ns;
  int64_t bytes;         /* > 0 allocated, < 0 freed */
  uint64_t addr;         /* 0 if absent */
  int64_t pid, tid;      /* the event's process and thread keys */
  int64_t dev_pid;       /* the process key whose section holds the device's tracks */
  double total_alloc;    /* the allocator's "Total Allocated" after it; NaN if absent */
  double total_reserved; /* "Total Reserved"; NaN if absent */
  uint64_t src;          /* the event's offset in the decoded input */
  int32_t device_type;   /* c10::DeviceType: 0 CPU, 1 CUDA, ...; -1 if absent */
  int32_t device_id;     /* -1 for the CPU or if absent */
  uint32_t op;           /* the op that made it as the importer knows it (strtab id; a memory
                          * snapshot's top frame), ST_STR_NONE: the innermost slice around
                          * it on its thread (core/analysis/memory.h) */
} st_mem_event;
const st_mem_event *st_trace_mem_events(const st_trace *t, size_t *count);

/* ---- memory blocks (issue 34) ------------------------------------------------
 * The blocks of a memory snapshot's blocks track (st_track.block_span > 0)
 * each an event (from its alloc to its free) with its place in the
 * track's address space: y, the block's offset in the device's segments
 * laid end to end in address order (the gaps between them left out), and
 * size, its bytes; addr, the address as the file gives it. Keyed by the
 * event's src; sorted by it. A merged trace has none of its own:
 * st_trace_block reads the row's part. */
typedef struct st_block {
  uint64_t src;
  uint64_t y, size, addr;
} st_block;
/* The block of event (row, index), or NULL (not a block, bad refs). O(log n). */
const st_block *st_trace_block(const st_trace *t, uint32_t row, uint32_t index);
const st_block *st_trace_blocks(const st_trace *t, size_t *count);

/* ---- building ------------------------------------------------------------ */
typedef struct st_builder st_builder;

st_builder *st_builder_create(const st_alloc *a);
/* The same, interning into `strings` (which the caller keeps owning and
 * must keep alive as long as the trace): traces built so can be merged
 * (st_trace_merge). */
st_builder *st_builder_create_shared(const st_alloc *a, st_strtab *strings);
void st_builder_destroy(st_builder *b); /* only if never finished */
st_strtab *st_builder_strings(st_builder *b);

/* The frame table samples refer to (created on first use; NULL on
 * allocation failure). Owned by the builder, then by the trace. */
st_frames *st_builder_frames(st_builder *b);

/* Find-or-create. Return an index, or UINT32_MAX on allocation failure. */
uint32_t st_builder_process(st_builder *b, int64_t pid);
/* Tracks are keyed by (process, kind, key); `name` is used when created
 * (and may be changed later with st_builder_track_name). */
uint32_t st_builder_track(st_builder *b, uint32_t process, st_track_kind kind, int64_t key,
                          uint32_t name);
void st_builder_process_name(st_builder *b, uint32_t process, uint32_t name);
void st_builder_process_labels(st_builder *b, uint32_t process, uint32_t labels);
void st_builder_process_sort(st_builder *b, uint32_t process, int32_t sort_index);
void st_builder_track_name(st_builder *b, uint32_t track, uint32_t name);
void st_builder_track_sort(st_builder *b, uint32_t track, int32_t sort_index);
/* Nesting level of a track in a tree of tracks (e.g. Perfetto's nested
 * custom tracks): 0 (the default) for a top-level track. */
void st_builder_track_indent(st_builder *b, uint32_t track, uint8_t indent);
/* The unit of a counter track's values (strtab id; "" for none, the default):
 * "ns" for times, "B" for sizes, or the file's own unit name. */
void st_builder_track_unit(st_builder *b, uint32_t track, uint32_t unit);

/* Add one complete event; times absolute ns. With ST_EV_UNFINISHED in flags
 * the event ends at the trace's last timestamp (dur_ns is ignored); otherwise
 * dur < 0 is clamped to 0 (the importer warns). Returns ST_OK, ST_ERR_NOMEM,
 * ST_ERR_ARG (unknown track, or a counter track) or ST_ERR_LIMIT (a track
 * already holds 2^32 - 2 events). st_builder_counter: same, for counter
 * tracks only. */
st_code st_builder_slice(st_builder *b, uint32_t track, int64_t start_ns, int64_t dur_ns,
                         uint32_t name, uint32_t cat, uint64_t src, uint8_t flags);
st_code st_builder_counter(st_builder *b, uint32_t track, int64_t ts_ns, double value);

/* Flow points. The importer records each flow event as a point while it
 * streams (it cannot know final rows and indices before finish sorts and
 * lays out). st_builder_finish chains the points of each `key` in (ts, src)
 * order: a point with ST_FLOW_IN gets an arrow from the current producer of
 * its key (if there is none and it has no ST_FLOW_OUT it counts as
 * unmatched); ST_FLOW_OUT makes it the producer; ST_FLOW_END then closes the
 * key (later ends need a new producer). Chrome v1: s = OUT, t = IN|OUT,
 * f = IN|END; v2: flow_out = OUT, flow_in = IN (one producer may feed
 * several consumers); Perfetto: flow_ids = IN|OUT, terminating = IN|END.
 * Each point then binds to an event of `track` (ST_FLOW_BIND_*): its own
 * event (the one added with this src; also its B/E slice), the deepest
 * (latest-starting) event enclosing ts (start <= ts <= end), or the first
 * event starting at or after ts (the outermost at that start). An arrow
 * whose end binds to nothing (or whose two ends are the same event) is
 * dropped and counted in st_flow_info.unbound. Returns ST_OK, ST_ERR_NOMEM,
 * ST_ERR_ARG (unknown or counter track, bad role) or ST_ERR_LIMIT (2^32 - 2
 * points). */
enum { ST_FLOW_IN = 1, ST_FLOW_OUT = 2, ST_FLOW_END = 4 };
typedef enum st_flow_bind {
  ST_FLOW_BIND_EVENT = 0,     /* the event added with the same src */
  ST_FLOW_BIND_ENCLOSING = 1, /* deepest event enclosing ts */
  ST_FLOW_BIND_NEXT = 2       /* first event starting at or after ts */
} st_flow_bind;
st_code st_builder_flow(st_builder *b, uint64_t key, unsigned role, st_flow_bind bind,
                        uint32_t track, int64_t ts_ns, uint64_t src);

/* The slice added with src (flag ST_EV_HAS_END) ended with the event at
 * end_src, whose args are the slice's too (st_trace_end_src). The last
 * call for a src wins. ST_OK, ST_ERR_NOMEM, ST_ERR_ARG (src or end_src is
 * UINT64_MAX) or ST_ERR_LIMIT (2^32 - 2 pairs). */
st_code st_builder_end_src(st_builder *b, uint64_t src, uint64_t end_src);

/* Hands the builder the trace's memory events (allocated with the
 * builder's allocator; the builder owns them from this call, also on
 * failure), sorted by (ts_abs_ns, src). Replaces any given before.
 * ST_OK, ST_ERR_ARG (b NULL). */
st_code st_builder_mem_events(st_builder *b, st_mem_event *ev, size_t n);

/* Hands the builder the blocks of its blocks tracks (allocated with the
 * builder's allocator; owned by the builder from this call, also on
 * failure), in any order (finish sorts them by src). Replaces any given
 * before. st_builder_track_blocks makes an ST_TRACK_ASYNC track a blocks
 * track of span bytes (its blocks' y + size <= span). ST_OK, ST_ERR_ARG. */
st_code st_builder_blocks(st_builder *b, st_block *blocks, size_t n);
void st_builder_track_blocks(st_builder *b, uint32_t track, uint64_t span);

/* Sort, lay out and freeze. Consumes b (also on failure). NULL + err on
 * allocation failure. */
st_trace *st_builder_finish(st_builder *b, st_error *err);

/* ---- a filter in front of the staging (streaming mode) ---------------------
 * A sink sees every event before the builder stages it and decides: keep
 * (return 1; it may rewrite the event's src first), drop (0), or fail on
 * allocation (-1: the call returns ST_ERR_NOMEM). Streaming mode uses it
 * twice (core/import/stream): the index pass summarises and drops every
 * event, so an import of any size stages nothing, then puts its coarse
 * summary into the same builder from `flush`, called once at the start of
 * st_builder_finish (with the sink already detached, so it may add events;
 * non-OK fails the finish); a window load maps srcs from the bytes it was
 * fed back to the file's offsets and drops the events the index gives
 * instead. Callbacks left NULL keep the event unchanged. The sink must
 * outlive the builder's use of it. */
typedef struct st_builder_sink {
  void *ud;
  int (*slice)(void *ud, uint32_t track, int64_t start_ns, int64_t dur_ns, uint32_t name,
               uint32_t cat, uint64_t *src, uint8_t flags);
  int (*counter)(void *ud, uint32_t track, int64_t ts_ns, double value, uint64_t src);
  int (*end_src)(void *ud, uint64_t *src, uint64_t *end_src);
  int (*flow)(void *ud, uint32_t track, int64_t ts_ns, uint64_t key, unsigned role, unsigned bind,
              uint64_t *src);
  st_code (*flush)(void *ud, st_builder *b);
} st_builder_sink;
void st_builder_set_sink(st_builder *b, const st_builder_sink *sink); /* NULL: none */
/* The src of the event the importer is handling (counter samples carry
 * none: a sink's counter callback gets the last noted; UINT64_MAX if none). */
void st_builder_note_src(st_builder *b, uint64_t src);
/* A track's key as created (st_builder_track): 0 if track is unknown. */
int st_builder_track_info(const st_builder *b, uint32_t track, int64_t *pid, st_track_kind *kind,
                          int64_t *key, uint32_t *name);
uint32_t st_builder_track_count(const st_builder *b);
/* Gives `to` (a builder with nothing in it yet, sharing `from`'s string
 * table) `from`'s processes and tracks, names and orders, under the same
 * indices, and its time extent so far: a model of some of its events can
 * be laid out while `from` goes on (streaming mode's preview). ST_OK,
 * ST_ERR_NOMEM, or ST_ERR_ARG (`to` not empty). */
st_code st_builder_copy_skeleton(const st_builder *from, st_builder *to);
/* Widens the time extent the finished trace spans (its origin and
 * duration) to include [lo_ns, hi_ns]: a window of a trace keeps the whole
 * trace's time zero and end (where unfinished events end). */
void st_builder_extend(st_builder *b, int64_t lo_ns, int64_t hi_ns);

#endif
